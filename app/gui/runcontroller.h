// RunController: compiles an ExecutionPlan on a backend and runs it on the
// thread pool (QtConcurrent), never on the GUI thread. It reports started /
// progress(done, total) / finished / failed as its own signals and into a
// WorkbenchState (views/models/workbenchstate.h), which the panels follow; it
// also starts and cancels the runs the state is asked for
// (WorkbenchState::requestBackendRun: inputs are synthesised exactly as
// `tessera-cli run` does without --input, core/backend/inputs.h, seed 1).
//
// Before compiling, every node of the plan's kernels is checked with
// IBackend::supports(), so an unsupported op fails naming it rather than
// midway. Progress comes from RunObserver::taskFinished on the worker, is
// queued to the GUI thread and throttled to at most one report per
// progressInterval() (33 ms, ≤ 30 Hz); the last task is always reported.
//
// What the backend streams besides progress — RunObserver::timelinesRecorded
// increments and metricsUpdated — is gathered on the worker and posted to
// the GUI thread at most once per updateInterval() (100 ms, ≤ 10 Hz) as the
// run so far (WorkbenchState::reportBackendRunUpdate): the Metrics dock and
// the Gantt draw a simulation while it goes.
//
// setPaused(true) holds the run after the task in progress: the worker waits
// inside RunObserver::taskFinished (polling every 5 ms) until resumed or
// cancelled, so every backend that reports its tasks pauses without knowing
// it. A backend that measures wall-clock time (capabilities.measured) would
// count the pause as run time, so canPause() refuses it.
//
// The plan is compiled with IBackend::compileFor and the state's device when
// it is the plan's device (a user's device file reaches the simulator).
//
// At most one run is under way. cancel() sets RunObserver::cancel; the run
// ends with failed("cancelled") even if the backend finished its last task
// first. start() while a run is under way supersedes it like
// ScheduleController: the generation counter is bumped, the old run is
// cancelled and its result and late progress dropped silently, and the new
// request starts when the old worker returns.
//
// The backend must outlive the run; graph, plan and inputs are kept alive by
// the controller until the worker returns. The state must outlive the
// controller. The destructor cancels a running run and waits for it.
#pragma once

#include "core/backend/backend.h"
#include "views/models/workbenchstate.h" // Q_DECLARE_METATYPE(std::shared_ptr<const RunResult>)

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <vector>

namespace tessera::gui {

class RunController final : public QObject
{
    Q_OBJECT
public:
    // `state`: where runs are asked for and reported; null: a state of its own.
    explicit RunController(views::WorkbenchState *state = nullptr, QObject *parent = nullptr);
    ~RunController() override;

    views::WorkbenchState *state() const { return m_state; }

    // Starts (or supersedes) a run of `plan` for `graph` on `backend`. Null
    // arguments fail at once with a message.
    void start(IBackend *backend, std::shared_ptr<const Graph> graph, std::shared_ptr<const ExecutionPlan> plan,
               std::vector<HostTensor> inputs);
    void cancel(); // the running run ends with failed("cancelled")
    // Holds (true) or resumes the run under way; ignored when none runs or
    // when canPause() is false for its backend.
    void setPaused(bool paused);
    bool isPaused() const { return m_pause && m_pause->load(); }
    static bool canPause(const IBackend &backend) { return !backend.info().capabilities.measured; }

    bool isRunning() const { return m_watcher.isRunning(); }
    quint64 generation() const { return m_generation; }
    int tasksDone() const { return m_done; }
    int tasksTotal() const { return m_total; }
    std::shared_ptr<const RunResult> lastResult() const { return m_lastResult; }

    void setProgressInterval(int ms) { m_progressIntervalMs = ms; }
    int progressInterval() const { return m_progressIntervalMs; }
    void setUpdateInterval(int ms) { m_updateIntervalMs = ms; }
    int updateInterval() const { return m_updateIntervalMs; }
    int updatesPosted() const { return m_updatesPosted; } // run-so-far reports of the current run

signals:
    void started();
    void progress(int done, int total);
    void finished(std::shared_ptr<const tessera::RunResult> result);
    void failed(const QString &message);

private:
    struct Request {
        IBackend *backend = nullptr;
        std::shared_ptr<const ScheduleRun> schedule; // when the state asked for the run
        std::shared_ptr<const Graph> graph;
        std::shared_ptr<const ExecutionPlan> plan;
        std::shared_ptr<const std::vector<HostTensor>> inputs;
        std::shared_ptr<const Device> device; // the plan's device as the state has it, or null
    };
    struct Outcome {
        std::shared_ptr<const RunResult> result;
        QString error;
        quint64 generation = 0;
        bool cancelled = false;
    };
    void startRequest(Request request);
    void onRunRequested(const views::BackendRunRequest &request);
    void launch(Request request);
    void onFinished();
    void reportProgress(quint64 generation, int done, int total);
    struct Live;
    void reportUpdate(quint64 generation, const std::shared_ptr<Live> &live);

    views::WorkbenchState *m_state;
    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<std::atomic<bool>> m_pause;
    IBackend *m_runningBackend = nullptr;
    RunResult m_soFar; // the run under way as streamed (GUI thread)
    int m_updatesPosted = 0;
    int m_updateIntervalMs = 100;
    std::optional<Request> m_pending; // a superseding request waits for the cancelled run to return
    quint64 m_generation = 0;
    int m_done = 0;
    int m_total = 0;
    int m_progressIntervalMs = 33;
    std::shared_ptr<const RunResult> m_lastResult;
};

} // namespace tessera::gui
