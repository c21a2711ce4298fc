// MainWindow: the Tessera workbench. The GraphView is the central widget;
// docks around it show the Outline (group tree), Inspector (selected node or
// group), Search, Model summary, Diagnostics and a MiniMap. Loading runs in a
// ModelLoader off the GUI thread; until it succeeds the previous model stays
// on screen untouched. Window geometry and dock layout persist in QSettings.
//
// Errors (a bad model, a failed export) are emitted as loadFailed/errorReported
// and, when the window is interactive, shown in a message box; tests and the
// --screenshot/--quit-after-load modes switch that off with setInteractive(false).
//
// Projects (*.tessera) live in a ProjectSession (projectsession.h): the window
// forwards File ▸ New/Open/Save Project As and its model-load events to it and
// shows the project in the title and status bar. File ▸ Export writes the
// last schedule as a schedule document, a Perfetto timeline or in any schedule
// format a plugin adds; File ▸ Import ▸ Overrides applies a file's overrides
// as one undo step (scheduleexport.h).
//
// The scheduling pickers — algorithm, device, precision and cost source
// (estimated, or kernels measured on a backend: ScheduleController::
// setCostMeter) — persist in QSettings and sit on a toolbar that shares the
// main toolbar's row when the window is wide enough, else takes its own.
//
// Plugins (docs/plugins.md): the window registers a PluginSet at construction
// — schedulers, model and schedule formats (core/plugin/extensions.h), and
// dock views and actions shown with their plans (views/widgets/planextensions.h)
// — and lists them all generically.
#pragma once

#include "app/gui/unsavedsession.h"
#include "core/backend/backend.h"
#include "core/hw/deviceregistry.h"
#include "core/plugin/extensions.h"
#include "core/sched/scheduler.h"
#include "core/support/status.h"
#include "views/models/metrics.h"
#include "views/models/modeldata.h"
#include "views/models/planfacets.h"
#include "views/widgets/planextensions.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QToolBar;
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
class StepperWidget;
class StageView;
class MetricsPanel;
class RunPanel;
class SearchExplorer;
class OptionsEditor;
class RunComparisonWidget;
class InspectorWidget;
class SearchPanel;
class SummaryWidget;
class WorkbenchState;
} // namespace views
} // namespace tessera

namespace tessera::gui {

class ModelLoader;
class ProjectSession;
class RecentFiles;
class RunController;
class ScheduleController;

enum class ScheduleExport { Schedule, Timeline };

// The plugins a window registers (default: every plugin of plugins/CMakeLists.txt).
struct PluginSet {
    RegisterPlugins core = nullptr;                   // null: registerAllPlugins
    void (*views)(views::PlanExtensions &) = nullptr; // null: registerAllPluginViews
};

class MainWindow final : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr, const PluginSet &plugins = {});
    ~MainWindow() override;

    void openFile(const QString &path); // a *.tessera file opens as a project
    void openSample(const QString &name);
    void openProject(const QString &path); // errors are reported (errorReported)
    // Opens the most recent file, or the ResNet-50 sample when there is none.
    void openDefault();

    void setInteractive(bool interactive) { m_interactive = interactive; }
    // Saves a picture of the window after the next model's layout lands, then
    // emits screenshotSaved (or errorReported).
    void setScreenshotOnLoad(const QString &path) { m_screenshotPath = path; }
    bool saveScreenshot(const QString &path); // the whole window, now
    // Window size and dock arrangement of the first start on a screen of this
    // size (also View ▸ Reset Layout).
    void applyDefaultLayout(const QSize &available);

    // Unsaved overrides (unsavedsession.h): the stored ones, restored on
    // request. offerUnsavedSession asks first (interactive only) and returns
    // whether it restored; a broken file is reported and moved aside.
    bool offerUnsavedSession();
    void restoreUnsavedSession(const UnsavedSession &session);

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
    ProjectSession *session() const { return m_session; }
    QAction *embedModelAction() const { return m_embedModelAction; }
    views::RunComparisonWidget *comparison() const { return m_comparison; }
    QString currentModelPath() const; // of the model on screen, empty when none
    // The state every panel follows, and the orchestration that fills it.
    views::WorkbenchState *state() const { return m_state; }
    ScheduleController *scheduleController() const { return m_schedule; }
    RunController *runController() const { return m_runs; }
    views::StepperWidget *stepper() const { return m_stepper; }
    QComboBox *algorithmCombo() const { return m_algorithmBox; }
    QComboBox *deviceCombo() const { return m_deviceBox; }
    QComboBox *precisionCombo() const { return m_precisionBox; }
    // Estimated or measured costs (ScheduleController::setCostMeter): the item data is the meter choice.
    QComboBox *costCombo() const { return m_costBox; }
    const Extensions &extensions() const { return m_extensions; }
    // File ▸ Export's entry for a plugin's schedule format; null for an unknown name.
    QAction *exportFormatAction(const QString &format) const;
    // A plugin's dock (PlanDock::objectName) once a plan it shows has been shown; else null.
    QDockWidget *pluginDock(const QString &objectName) const;
    // A plugin's Schedule menu action (PlanAction::objectName); else null.
    QAction *pluginAction(const QString &objectName) const;
    views::StageView *stageView() const { return m_stageView; }
    views::RunPanel *runPanel() const { return m_runPanel; }
    views::MetricsPanel *metricsPanel() const { return m_metricsPanel; }
    views::SearchExplorer *searchExplorer() const { return m_explorer; }
    views::OptionsEditor *optionsEditor() const { return m_optionsEditor; }
    // Raises a dock by object name ("stageDock", "runDock", ...): for screenshots and tests.
    void raiseDock(const QString &objectName);

    // The last schedule to `path` (written atomically: a failed write leaves
    // the old file). Failures are also reported.
    Status exportSchedule(ScheduleExport kind, const QString &path);
    // The same in a plugin's schedule format (Extensions::scheduleFormats). `companion`:
    // the file the format asks for (ScheduleFormat::companion); empty: the format looks for it.
    Status exportSchedule(const QString &format, const QString &path, const QString &companion = {});
    // Applies the overrides in `path` (one undo step); rejected keys go to the
    // Diagnostics panel. Fails (and reports) on an unreadable or malformed file.
    Status importOverrides(const QString &path);

signals:
    void modelLoaded(const QString &path);
    void loadFailed(const tessera::Diagnostic &diagnostic);
    void errorReported(const QString &title, const QString &message);
    void screenshotSaved(const QString &path);

protected:
    void closeEvent(QCloseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createDocks();
    void createActions();
    void createMenus();
    void createToolBar();
    // The scheduling pickers share the main toolbar's row when the window is
    // wide enough for both, else they get a row of their own (nothing clipped).
    void fitToolBars();
    void createStatusBar();
    void connectViews();
    void restoreLayout();
    void updateUnsavedSession(); // after every change of the overrides or the setup
    void unclipDockTabs();
    // Saved dock arrangements of another version are not restored (2: short
    // tab names, the bottom docks spanning the width on short screens).
    static constexpr int kDockStateVersion = 2;
    QByteArray m_defaultDockState;                    // as createDocks() arranged them: View ▸ Reset Layout
    QString m_requestedSample, m_sampleName;          // the sample being loaded / on show ("" for a file)
    std::optional<UnsavedSession> m_restoringUnsaved; // until its overrides are applied
    void saveLayout() const;

    void onLoadStarted(const QString &source);
    void onLoadFinished(std::shared_ptr<const views::ModelData> model);
    void onLoadFailed(const Diagnostic &diagnostic);
    void onLoadEnded();
    void onLayoutFinished(qint64 ms);
    void maybeTakeScreenshot(); // once layout and summary are final
    void onModelChanged();
    void onSelectionChanged(bool reveal);
    void showNode(NodeId node); // the inspector dock and the outline follow a selection
    void showGroup(GroupId group);
    void onOutlineCurrentChanged(const QModelIndex &index);
    void syncOutlineExpansion(); // tree follows the view's expanded groups
    void applyOverlay();
    void exportImage(bool svg);
    void reportError(const QString &title, const QString &message);
    void about();
    void createProjectActions();
    void connectSession();
    void updateTitle();
    void updateScheduleActions();
    // An empty `precision` leaves the precision box as it is.
    void selectSetup(const QString &algorithm, const QString &deviceId, const QString &precision = {},
                     const QString &cost = {});
    void chooseProjectFile(bool saveAs);
    void chooseExportFile(ScheduleExport kind);
    void chooseFormatExportFile(const ScheduleFormat &format);
    Status writeExport(const QString &path, Expected<std::string> text); // writes, reports
    views::PlanShown planShown() const;
    void showPluginViews(); // the plugins' docks and actions follow the shown plan

    std::optional<views::Metric> overlayMetric() const;   // nullopt: colour by op type or a plan facet
    std::optional<views::PlanFacet> overlayFacet() const; // nullopt: colour by op type or a metric
    static constexpr int kFacetData = 100;                // m_colourBy's data: metrics, then 100 + facet

    std::shared_ptr<const views::ModelData> m_model; // the state's model, as onModelChanged() last saw it

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

    // Scheduling: algorithm and device pickers drive the controller, which
    // reports into the state; the panels follow the state.
    SchedulerRegistry m_schedulers;
    Extensions m_extensions{m_schedulers};  // formats and commands of the plugins
    views::PlanExtensions m_planExtensions; // their docks and actions
    std::vector<std::pair<const ScheduleFormat *, QAction *>> m_exportFormatActions;
    std::vector<std::pair<const views::PlanAction *, QAction *>> m_pluginActions;
    std::vector<std::pair<const views::PlanDock *, QDockWidget *>> m_pluginDocks; // created when first shown
    // Built once (every preset parsed once) and passed by reference: the device
    // picker, its changes and the project session look devices up here.
    DeviceRegistry m_devices = DeviceRegistry::standard();
    std::vector<Diagnostic> m_pluginProblems; // scheduler plugins refused at start-up
    void showDiagnostics(std::vector<Diagnostic> diagnostics);
    views::WorkbenchState *m_state = nullptr;
    ScheduleController *m_schedule = nullptr;
    RunController *m_runs = nullptr;
    views::StepperWidget *m_stepper = nullptr;
    views::RunComparisonWidget *m_comparison = nullptr;
    QDockWidget *m_stepperDock = nullptr;
    QDockWidget *m_comparisonDock = nullptr;
    // The schedule as stages × lanes (any scheduler; inter-operator stages, greedy waves).
    views::StageView *m_stageView = nullptr;
    QDockWidget *m_stageDock = nullptr;
    // Running the plan on a backend; a finished run is stored in the open project.
    BackendRegistry m_backends;
    views::RunPanel *m_runPanel = nullptr;
    QDockWidget *m_runDock = nullptr;
    views::MetricsPanel *m_metricsPanel = nullptr;
    QDockWidget *m_metricsDock = nullptr;
    // The DP explorer: schedulers are asked for their search space once it has been shown.
    views::SearchExplorer *m_explorer = nullptr;
    QDockWidget *m_explorerDock = nullptr;
    // The selected algorithm: title, summary, paper section and its typed options.
    views::OptionsEditor *m_optionsEditor = nullptr;
    QDockWidget *m_optionsDock = nullptr;
    void onBackendRunFinished(const std::shared_ptr<const RunResult> &result);
    QComboBox *m_algorithmBox = nullptr;
    QComboBox *m_deviceBox = nullptr;
    QComboBox *m_precisionBox = nullptr;
    QComboBox *m_costBox = nullptr;
    QToolBar *m_mainBar = nullptr;
    QToolBar *m_scheduleBar = nullptr; // "Schedule with [algorithm] on [device] at [precision] with [costs]"
    void createScheduling();

    ProjectSession *m_session = nullptr;
    QAction *m_newProjectAction = nullptr;
    QAction *m_openProjectAction = nullptr;
    QAction *m_saveProjectAsAction = nullptr;
    QAction *m_closeProjectAction = nullptr;
    QAction *m_embedModelAction = nullptr; // File ▸ Embed the Model in the Project (checkable)
    QAction *m_exportScheduleAction = nullptr;
    QAction *m_exportTimelineAction = nullptr;
    QAction *m_importOverridesAction = nullptr;
    QLabel *m_projectLabel = nullptr;

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
