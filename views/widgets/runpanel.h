// RunPanel: "run the plan on a backend" for the workbench's bottom dock. A
// backend picker (BackendRegistry::all(); unavailable backends are listed
// but disabled, their reason as tooltip), Run, Pause and Cancel, live progress while
// the app runs the plan off the GUI thread (tasks done / total, elapsed time,
// a progress bar, the Gantt of the tasks finished so far, each kernel's predicted and measured
// time as its task finishes: KernelTimingModel, the median over this plan's runs), and after a run:
// measured latency against the plan's estimate, the backend's metrics (RunMetricsModel), the outputs
// with a checksum and their first values (RunOutputsModel) and a timeline
// strip of the measured tasks (RunTimelineStrip, a Gantt with zoom and pan).
//
// The panel follows a WorkbenchState: each finished schedule becomes the plan
// to run (setPlan), Run, Pause and Cancel are requests to the state
// (requestBackendRun, requestPauseBackendRun, requestCancelBackendRun) that the app's RunController
// answers, and the state's backend-run reports drive the live row and the
// tables. Every bad case — no plan yet, no usable backend, an op the backend
// cannot run, a compile or run error — is a message in the panel, never a
// crash. The registry and the state must outlive the panel.
#pragma once

#include "views/models/kerneltimingmodel.h"
#include "views/models/runresultmodel.h"

#include <QWidget>

#include <cmath>
#include <memory>
#include <vector>

class QComboBox;
class QElapsedTimer;
class QLabel;
class QProgressBar;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableView;
class QTimer;

namespace tessera {
class BackendRegistry;
struct ScheduleRun;
} // namespace tessera

namespace tessera::views {

class WorkbenchState;

// The run's Gantt: its tasks on their lanes over (simulated or measured)
// time, one lane per compute unit and DMA engine as the backend names them
// (RunResult::laneNames; "lane N" otherwise), coloured by kind. The wheel
// zooms about the pointer, a drag pans, a double click shows the whole run;
// a tooltip names the task under the mouse, its kernel and its nodes, and a
// click (without a drag) emits taskClicked. Paints from RunTimeline::segments
// for the visible window, cached per width and window, so thousands of tasks
// cost one rectangle per pixel column at most. Lanes share the height the
// widget gets (1 to 20 pixels each). A result shown while the run streams
// keeps the window the user zoomed to, else it follows the whole run.
class RunTimelineStrip final : public QWidget
{
    Q_OBJECT
public:
    explicit RunTimelineStrip(QWidget *parent = nullptr);

    // A null result clears the strip; `plan` (may be null) gives kinds and
    // labels. `keepWindow`: keep a zoomed window (a streamed update).
    void setResult(std::shared_ptr<const RunResult> result, std::shared_ptr<const ExecutionPlan> plan,
                   bool keepWindow = false);
    // The graph the plan's nodes belong to, for node names in tooltips (may be null).
    void setGraph(std::shared_ptr<const Graph> graph) { m_graph = std::move(graph); }
    const RunTimeline &timeline() const { return m_timeline; }
    // Tooltip text for a point in widget coordinates; empty when no task is there.
    QString toolTipAt(QPoint pos) const;
    // The timeline entry under a point (lane, index into it), or {-1, -1}.
    std::pair<int, int> entryAt(QPoint pos) const;
    QString laneName(int lane) const; // row `lane`'s name

    // The visible time window [t0, t1) in ns; the whole run when not zoomed.
    std::pair<double, double> window() const;
    bool isZoomed() const { return m_zoomed; }
    // Zooms by `factor` (> 1: closer) about the time at widget x; resetZoom() shows all.
    void zoomAt(int x, double factor);
    void panBy(int pixels); // positive: later times come into view
    void resetZoom();

signals:
    // A click on a task: the plan's task id (the panel highlights its nodes).
    void taskClicked(tessera::TaskId task);

public:
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void mouseDoubleClickEvent(QMouseEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    bool event(QEvent *event) override;

private:
    struct Geometry {
        QRect plot;           // lanes area
        double lanePitch = 0; // pixels per lane (fractional: many lanes fill the height)
        int laneTop(int lane) const { return plot.top() + static_cast<int>(std::lround(lane * lanePitch)); }
        int laneHeight(int lane) const { return laneTop(lane + 1) - laneTop(lane); }
        int legendTop = 0;
        int axisTop = 0;
    };
    Geometry geometry() const;
    int laneAt(const Geometry &g, int y) const;
    void setWindow(double t0, double t1);

    std::shared_ptr<const RunResult> m_result;
    std::shared_ptr<const ExecutionPlan> m_plan;
    std::shared_ptr<const Graph> m_graph;
    RunTimeline m_timeline;
    double m_t0 = 0, m_t1 = 0; // the window when zoomed
    bool m_zoomed = false;
    QPoint m_pressPos{-1, -1};
    double m_pressT0 = 0, m_pressT1 = 0;
    bool m_dragged = false;
    mutable std::vector<std::vector<RunTimeline::Segment>> m_segments; // per lane, for the cache key below
    mutable int m_segmentsWidth = -1;
    mutable std::pair<double, double> m_segmentsWindow{-1, -1};
    mutable int m_labelWidth = -1; // widest lane name in pixels, -1: not measured yet
};

class RunPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit RunPanel(WorkbenchState *state, QWidget *parent = nullptr);
    ~RunPanel() override;

    // The backends to offer (null: none). Selects the first available one.
    void setBackends(const BackendRegistry *registry);
    // The plan to run: the scheduled run's ExecutionPlan for `graph`. Either
    // null means "no plan yet". A running run keeps its own plan.
    void setPlan(std::shared_ptr<const Graph> graph, std::shared_ptr<const ScheduleRun> run);

    // What the Run button does; false (with the reason shown) when nothing can run.
    bool run();
    void cancel();
    // Pauses or resumes the run under way (the Pause button; backends that
    // measure wall-clock time cannot pause, the button is then disabled).
    void togglePause();
    bool isRunning() const;
    bool selectBackend(const QString &name); // false if unknown or unavailable
    QString selectedBackend() const;

    WorkbenchState *state() const { return m_state; }
    QComboBox *backendBox() const { return m_backendBox; }
    QPushButton *runButton() const { return m_runButton; }
    QPushButton *cancelButton() const { return m_cancelButton; }
    QPushButton *pauseButton() const { return m_pauseButton; }
    QString statusText() const; // the one-line status, as plain text
    RunMetricsModel *metricsModel() const { return m_metrics; }
    RunOutputsModel *outputsModel() const { return m_outputs; }
    // Predicted vs measured per kernel, filled while the run streams.
    KernelTimingModel *kernelTimingModel() const { return m_kernels; }
    QTableView *kernelTimingView() const { return m_kernelsView; }
    RunTimelineStrip *timelineStrip() const { return m_timeline; }
    std::shared_ptr<const RunResult> lastResult() const { return m_lastResult; }

signals:
    void runFinished(std::shared_ptr<const tessera::RunResult> result);

protected:
    void showEvent(QShowEvent *event) override;

private:
    enum class Tone { Neutral, Good, Bad };
    void setStatus(const QString &text, Tone tone);
    void updateButtons();
    void updateLive();
    void onStarted();
    void onProgress(int done, int total);
    void onUpdated(std::shared_ptr<const RunResult> soFar);
    void onFinished(std::shared_ptr<const RunResult> result);
    void onRestored(std::shared_ptr<const RunResult> result, const QString &when);
    void showResult(const std::shared_ptr<const RunResult> &result);
    void fitTimeline(); // the Gantt as tall as its lanes want when their number changed
    QString measuredText(const RunResult &result) const; // "<b>1.2 ms</b> measured on … · estimated …"
    void onFailed(const QString &message);
    IBackend *currentBackend() const;
    QString idleText() const;
    bool resultIsStale() const; // the shown result ran another plan than the current one

    const BackendRegistry *m_registry = nullptr;
    std::shared_ptr<const Graph> m_graph;
    std::shared_ptr<const ScheduleRun> m_schedule;
    // What the current or last run ran: its plan, backend title and estimate.
    std::shared_ptr<const ExecutionPlan> m_runPlan;
    QString m_runBackendTitle;
    std::shared_ptr<const RunResult> m_lastResult;
    QString m_statusPlain;
    bool m_firstUpdate = false; // the next streamed update is the run's first

    WorkbenchState *m_state;
    RunMetricsModel *m_metrics;
    RunOutputsModel *m_outputs;
    QComboBox *m_backendBox;
    QPushButton *m_runButton;
    QPushButton *m_cancelButton;
    QPushButton *m_pauseButton;
    QProgressBar *m_progress;
    QLabel *m_live;
    QLabel *m_status;
    RunTimelineStrip *m_timeline;
    QTableView *m_metricsView;
    QTableView *m_outputsView;
    KernelTimingModel *m_kernels;
    QTableView *m_kernelsView;
    QTabWidget *m_tabs;           // kernels, outputs
    QSplitter *m_split = nullptr; // the Gantt above the tables
    int m_splitLanes = -1;        // lane count the split was last sized for
    QTimer *m_liveTimer;
    std::unique_ptr<QElapsedTimer> m_elapsed;
};

} // namespace tessera::views
