// MainWindow: the Tessera workbench. The GraphView is the central widget;
// docks around it show the Outline (group tree), Inspector (selected node or
// group), Search, Model summary, Diagnostics and a MiniMap. Loading runs in a
// ModelLoader off the GUI thread; until it succeeds the previous model stays
// on screen untouched. Window geometry and dock layout persist in QSettings.
//
// Errors (a bad model, a failed export) are emitted as loadFailed/errorReported
// and, when the window is interactive, shown in a message box; tests and the
// --screenshot/--quit-after-load modes switch that off with setInteractive(false).
#pragma once

#include "core/sched/scheduler.h"
#include "core/support/status.h"
#include "views/models/metrics.h"
#include "views/models/modeldata.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QProgressBar;
class QTreeView;

namespace tessera {
class GraphView;
class MiniMap;
namespace views {
class DiagnosticsPanel;
class HierarchyModel;
class ScheduleController;
class StepperWidget;
class RunComparisonWidget;
class InspectorWidget;
class SearchPanel;
class SummaryWidget;
} // namespace views
} // namespace tessera

namespace tessera::gui {

class ModelLoader;
class RecentFiles;

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString &path);
    void openSample(const QString &name);
    // Opens the most recent file, or the ResNet-50 sample when there is none.
    void openDefault();

    void setInteractive(bool interactive) { m_interactive = interactive; }
    // Saves a picture of the window after the next model's layout lands, then
    // emits screenshotSaved (or errorReported).
    void setScreenshotOnLoad(const QString &path) { m_screenshotPath = path; }
    bool saveScreenshot(const QString &path); // the whole window, now

    std::shared_ptr<const views::ModelData> modelData() const { return m_model; }
    GraphView *graphView() const { return m_graphView; }
    QTreeView *outline() const { return m_outline; }
    views::HierarchyModel *outlineModel() const { return m_outlineModel; }
    views::InspectorWidget *inspector() const { return m_inspector; }
    views::SearchPanel *searchPanel() const { return m_search; }
    views::SummaryWidget *summary() const { return m_summary; }
    views::DiagnosticsPanel *diagnostics() const { return m_diagnostics; }
    ModelLoader *loader() const { return m_loader; }
    RecentFiles *recentFiles() const { return m_recent; }
    QComboBox *colourByCombo() const { return m_colourBy; }

signals:
    void modelLoaded(const QString &path);
    void loadFailed(const tessera::Diagnostic &diagnostic);
    void errorReported(const QString &title, const QString &message);
    void screenshotSaved(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createDocks();
    void createActions();
    void createMenus();
    void createToolBar();
    void createStatusBar();
    void connectViews();
    void restoreLayout();
    void saveLayout() const;

    void onLoadStarted(const QString &source);
    void onLoadFinished(std::shared_ptr<const views::ModelData> model);
    void onLoadFailed(const Diagnostic &diagnostic);
    void onLoadEnded();
    void onLayoutFinished(qint64 ms);
    void maybeTakeScreenshot(); // once layout and summary are final
    void showNode(NodeId node);   // from the graph: inspector + outline
    void showGroup(GroupId group);
    void onOutlineCurrentChanged(const QModelIndex &index);
    void syncOutlineExpansion();  // tree follows the view's expanded groups
    void applyOverlay();
    void exportImage(bool svg);
    void reportError(const QString &title, const QString &message);
    void about();

    std::optional<views::Metric> overlayMetric() const; // nullopt: colour by op type

    std::shared_ptr<const views::ModelData> m_model;
    ModelLoader *m_loader = nullptr;
    RecentFiles *m_recent = nullptr;

    GraphView *m_graphView = nullptr;
    MiniMap *m_miniMap = nullptr;
    QTreeView *m_outline = nullptr;
    views::HierarchyModel *m_outlineModel = nullptr;
    views::InspectorWidget *m_inspector = nullptr;
    views::SearchPanel *m_search = nullptr;
    views::SummaryWidget *m_summary = nullptr;
    views::DiagnosticsPanel *m_diagnostics = nullptr;

    QDockWidget *m_outlineDock = nullptr;
    QDockWidget *m_inspectorDock = nullptr;
    QDockWidget *m_searchDock = nullptr;
    QDockWidget *m_summaryDock = nullptr;
    QDockWidget *m_diagnosticsDock = nullptr;
    QDockWidget *m_miniMapDock = nullptr;

    // Scheduling: algorithm and device pickers drive the controller; the
    // stepper and the comparison table show its runs.
    SchedulerRegistry m_schedulers;
    views::ScheduleController *m_schedule = nullptr;
    views::StepperWidget *m_stepper = nullptr;
    views::RunComparisonWidget *m_comparison = nullptr;
    QDockWidget *m_stepperDock = nullptr;
    QDockWidget *m_comparisonDock = nullptr;
    QComboBox *m_algorithmBox = nullptr;
    QComboBox *m_deviceBox = nullptr;
    void createScheduling();

    QAction *m_openAction = nullptr;
    QAction *m_exportSvgAction = nullptr;
    QAction *m_exportPngAction = nullptr;
    QAction *m_quitAction = nullptr;
    QAction *m_cancelAction = nullptr;
    QAction *m_fitAction = nullptr;
    QAction *m_zoomInAction = nullptr;
    QAction *m_zoomOutAction = nullptr;
    QAction *m_resetZoomAction = nullptr;
    QAction *m_expandAllAction = nullptr;
    QAction *m_collapseAllAction = nullptr;
    QAction *m_findAction = nullptr;
    QAction *m_logScaleAction = nullptr;
    QMenu *m_recentMenu = nullptr;
    QMenu *m_viewMenu = nullptr;
    QComboBox *m_colourBy = nullptr;

    QLabel *m_modelLabel = nullptr;
    QLabel *m_layoutLabel = nullptr;
    QProgressBar *m_progress = nullptr;

    QString m_screenshotPath;
    bool m_interactive = true;
    bool m_awaitingFirstLayout = false;
    bool m_syncing = false; // guards outline ↔ view feedback
};

} // namespace tessera::gui
