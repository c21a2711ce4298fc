// StageView: a schedule as stages and groups (inter-operator scheduling thesis Fig. 1.2 and 3.1):
// one column per stage, in time order, one lane per stream (or core), a box per
// group of operators, a merged operator as one box with a double outline, the
// stage's barrier as a dashed line. The header row shows the stage number, its
// latency and a utilisation bar (views/models/stagemodel.h defines both).
//
// Column widths are ∝ stage latency (with a minimum) or equal (toggle); the
// view scrolls and zooms horizontally (Ctrl+wheel, +/-, 0, F) and paints only
// the visible columns (a binary search over prefix sums), so plans of thousands
// of stages stay smooth. Hover shows the numbers; a click on a box (or a stage
// header) emits nodesSelected; a right-click on a stage offers the run's
// decisions whose trace steps touched it, each option with its cost (illegal
// ones disabled), and choosing one emits overrideRequested.
//
// setState() makes the view follow a WorkbenchState: every finished schedule
// is shown, a backend run of the current plan shows its measured timeline,
// and the view's selections and override choices go to the state.
//
// Assumes the run's plan was made for the graph (a mismatch shows a hint, not
// a crash). Building the layout is linear in the plan's tasks and runs on the
// GUI thread in setRun().
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"
#include "views/models/stagemodel.h"

#include <QAbstractScrollArea>

#include <memory>
#include <string>
#include <vector>

class QAction;
class QMenu;

namespace tessera {
struct Device;
struct ScheduleRun;
} // namespace tessera

namespace tessera::views {

class WorkbenchState;

class StageView final : public QAbstractScrollArea
{
    Q_OBJECT
public:
    explicit StageView(QWidget *parent = nullptr);
    ~StageView() override;

    // Follows `state` (see the header comment); it must outlive the view.
    void setState(WorkbenchState *state);

    // Shows the run's plan. The device gives the peak for utilisation (copied;
    // nullptr: utilisation unknown). Any nullptr graph or run clears the view.
    void setRun(std::shared_ptr<const Graph> graph, std::shared_ptr<const ScheduleRun> run, const Device *device);
    // A measured timeline (RunResult::timeline) replaces the estimate; empty restores it.
    void setTimeline(std::vector<TaskTiming> measured);
    void clear();

    const StageLayout *stageLayout() const; // nullptr when no stages are shown
    StageTableModel *tableModel() const;    // the same stages as a table
    QString hint() const;                   // the empty view's text, "" when stages are shown

    bool equalWidths() const;
    void setEqualWidths(bool equal);
    double zoom() const;
    void setZoom(double zoom, int anchorX = -1); // keeps the time under viewport x anchorX in place
    void zoomIn();
    void zoomOut();
    void resetZoom();
    void fitAll(); // zooms so every column fits the width (down to the minimum column width)
    QAction *equalWidthsAction() const;
    QAction *zoomInAction() const;
    QAction *zoomOutAction() const;
    QAction *fitAction() const;

    void scrollToColumn(int column);
    int selectedBox() const; // -1 if none

    // Hit tests and geometry in viewport coordinates; -1 / empty when nothing is there.
    int columnAt(const QPoint &pos) const;
    int boxAt(const QPoint &pos) const;
    QRect boxRect(int box) const;
    QRect headerRect(int column) const;

    // The right-click menu of a column (see decisionsForStage).
    void fillDecisionMenu(QMenu &menu, int column);

signals:
    void nodesSelected(std::vector<tessera::NodeId> nodes);
    void overrideRequested(std::string key, std::string optionId);

protected:
    void paintEvent(QPaintEvent *e) override;
    void resizeEvent(QResizeEvent *e) override;
    void scrollContentsBy(int dx, int dy) override;
    void mousePressEvent(QMouseEvent *e) override;
    void wheelEvent(QWheelEvent *e) override;
    void keyPressEvent(QKeyEvent *e) override;
    void contextMenuEvent(QContextMenuEvent *e) override;
    bool viewportEvent(QEvent *e) override;

private:
    struct Private;
    std::unique_ptr<Private> d;

    void rebuild();
    void relayout();
    void updateScrollBars();
    QString toolTipAt(const QPoint &pos) const;
    void paintColumn(QPainter &p, std::size_t column, double x0) const;
    void paintHeader(QPainter &p, std::size_t column, double x0) const;
    void paintGutter(QPainter &p) const;
};

} // namespace tessera::views
