// RunController (see runcontroller.h).
#include "app/gui/runcontroller.h"

#include "core/backend/inputs.h"
#include "core/support/activity.h"
#include "views/models/workerpool.h"

#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

namespace tessera::gui {

namespace {

using Clock = std::chrono::steady_clock;

QString messageOf(const Status &s)
{
    const std::string where = s.location().empty() ? std::string() : s.location().str() + ": ";
    return QString::fromStdString(where + s.message());
}

// Nodes of the plan the backend says it cannot run, as one message; empty if none.
std::string unsupportedNodes(const IBackend &backend, const Graph &g, const ExecutionPlan &plan)
{
    std::vector<bool> seen(g.nodeCount(), false);
    std::vector<NodeId> bad;
    for (const Kernel &k : plan.kernels)
        for (NodeId id : k.nodes) {
            if (id < 0 || static_cast<std::size_t>(id) >= g.nodeCount() || seen[static_cast<std::size_t>(id)])
                continue;
            seen[static_cast<std::size_t>(id)] = true;
            if (!backend.supports(g, g.node(id)))
                bad.push_back(id);
        }
    if (bad.empty())
        return {};
    constexpr std::size_t kListed = 3;
    std::string list;
    for (std::size_t i = 0; i < bad.size() && i < kListed; ++i) {
        const Node &n = g.node(bad[i]);
        list += (i ? ", '" : "'") + n.name + "' (" + n.opType + ")";
    }
    if (bad.size() > kListed)
        list += " and " + std::to_string(bad.size() - kListed) + " more";
    return "the " + backend.info().name + " backend cannot run " + std::to_string(bad.size()) +
           (bad.size() == 1 ? " node: " : " nodes: ") + list;
}

} // namespace

// What the worker streamed and the GUI thread has not taken yet.
struct RunController::Live {
    std::mutex mutex;
    RunResult pending; // increments appended, the latest metrics
    Clock::time_point lastPost{};
    bool postQueued = false;
};

RunController::RunController(views::WorkbenchState *state, QObject *parent)
    : QObject(parent), m_state(state ? state : new views::WorkbenchState(this))
{
    qRegisterMetaType<std::shared_ptr<const tessera::RunResult>>();
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &RunController::onFinished);
    connect(m_state, &views::WorkbenchState::backendRunRequested, this, &RunController::onRunRequested);
    connect(m_state, &views::WorkbenchState::cancelBackendRunRequested, this, &RunController::cancel);
    connect(m_state, &views::WorkbenchState::pauseBackendRunRequested, this, &RunController::setPaused);
}

RunController::~RunController()
{
    // The worker posts progress to `this`: it must be gone before we are.
    m_pending.reset();
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

void RunController::start(IBackend *backend, std::shared_ptr<const Graph> graph,
                          std::shared_ptr<const ExecutionPlan> plan, std::vector<HostTensor> inputs)
{
    startRequest({backend, nullptr, std::move(graph), std::move(plan),
                  std::make_shared<const std::vector<HostTensor>>(std::move(inputs))});
}

void RunController::onRunRequested(const views::BackendRunRequest &request)
{
    if (!request.graph || !request.schedule) {
        startRequest({request.backend, nullptr, nullptr, nullptr, nullptr, nullptr});
        return;
    }
    const Device *device = m_state->device();
    startRequest({request.backend, request.schedule, request.graph,
                  std::shared_ptr<const ExecutionPlan>(request.schedule, &request.schedule->result.plan),
                  std::make_shared<const std::vector<HostTensor>>(syntheticInputs(*request.graph, 1)),
                  device && device->id == request.schedule->result.plan.device ? std::make_shared<const Device>(*device)
                                                                               : nullptr});
}

void RunController::startRequest(Request request)
{
    if (!request.backend || !request.graph || !request.plan) {
        const QString message =
            !request.backend ? tr("no backend selected") : tr("no plan to run: schedule the model first");
        if (!isRunning()) // a run under way stays reported as running
            m_state->failBackendRun(message);
        emit failed(message);
        return;
    }
    ++m_generation; // whatever runs now is superseded
    if (isRunning()) {
        m_cancel->store(true);
        m_pending = std::move(request); // launched when the cancelled run returns
        return;
    }
    launch(std::move(request));
}

void RunController::cancel()
{
    m_pending.reset();
    if (m_cancel && isRunning())
        m_cancel->store(true);
}

void RunController::setPaused(bool paused)
{
    if (!isRunning() || !m_pause || !m_runningBackend || !canPause(*m_runningBackend) || m_cancel->load())
        return;
    m_pause->store(paused);
    m_state->setBackendRunPaused(paused);
}

void RunController::reportUpdate(quint64 generation, const std::shared_ptr<Live> &live)
{
    RunResult taken;
    {
        const std::lock_guard lock(live->mutex);
        taken = std::move(live->pending);
        live->pending = {};
        live->postQueued = false;
    }
    if (generation != m_generation)
        return; // from a superseded run
    appendIncrement(m_soFar, {std::move(taken.timeline), std::move(taken.laneNames), std::move(taken.counters)});
    if (!taken.metrics.empty()) {
        m_soFar.metrics = std::move(taken.metrics);
        if (auto it = m_soFar.metrics.find("sim_time_ms"); it != m_soFar.metrics.end())
            m_soFar.latencyMs = it->second;
    }
    ++m_updatesPosted;
    m_state->reportBackendRunUpdate(std::make_shared<const RunResult>(m_soFar));
}

void RunController::reportProgress(quint64 generation, int done, int total)
{
    if (generation != m_generation)
        return; // from a superseded run
    m_done = done;
    m_total = total;
    m_state->reportBackendRunProgress(done, total);
    emit progress(done, total);
}

void RunController::launch(Request request)
{
    const quint64 generation = m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_pause = std::make_shared<std::atomic<bool>>(false);
    m_runningBackend = request.backend;
    m_soFar = {};
    m_updatesPosted = 0;
    m_done = 0;
    m_total = static_cast<int>(request.plan->tasks.size());
    const int total = m_total;
    const auto interval = std::chrono::milliseconds(m_progressIntervalMs);

    // Counts finished tasks and posts at most one report per interval (and
    // always the last one), queued to the GUI thread. Backends may call it
    // from several threads, hence the atomics.
    struct Tick {
        std::atomic<int> done{0};
        std::atomic<Clock::rep> lastPost{0};
    };
    RunObserver observer;
    observer.cancel = m_cancel.get();
    // The run so far: gathered here, posted at most once per update interval.
    const auto live = std::make_shared<Live>();
    const auto updateInterval = std::chrono::milliseconds(m_updateIntervalMs);
    const auto post = [this, generation, live, updateInterval](bool now) { // with live->mutex held
        const Clock::time_point at = Clock::now();
        if (live->postQueued || (!now && at - live->lastPost < updateInterval))
            return;
        live->postQueued = true;
        live->lastPost = at;
        QMetaObject::invokeMethod(
            this, [this, generation, live] { reportUpdate(generation, live); }, Qt::QueuedConnection);
    };
    observer.taskFinished = [this, generation, total, interval, tick = std::make_shared<Tick>(), pause = m_pause,
                             cancel = m_cancel, live, post](TaskId, double) {
        const int done = tick->done.fetch_add(1, std::memory_order_relaxed) + 1;
        const Clock::rep now = Clock::now().time_since_epoch().count();
        Clock::rep last = tick->lastPost.load(std::memory_order_relaxed);
        const bool due = done >= total || Clock::duration(now - last) >= interval;
        if (due && tick->lastPost.compare_exchange_strong(last, now, std::memory_order_relaxed))
            QMetaObject::invokeMethod(
                this, [this, generation, done, total] { reportProgress(generation, done, total); },
                Qt::QueuedConnection);
        // Paused: hold the run here, after this task, until resumed or cancelled;
        // what streamed before is shown at once.
        if (pause->load(std::memory_order_relaxed)) {
            const std::lock_guard lock(live->mutex);
            post(true);
        }
        while (pause->load(std::memory_order_relaxed) && !cancel->load(std::memory_order_relaxed))
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
    };
    observer.timelinesRecorded = [live, post](const RunIncrement &increment) {
        const std::lock_guard lock(live->mutex);
        appendIncrement(live->pending, increment);
        post(false);
    };
    observer.metricsUpdated = [live, post](const std::map<std::string, double> &metrics) {
        const std::lock_guard lock(live->mutex);
        live->pending.metrics = metrics;
        post(false);
    };

    m_state->beginBackendRun(request.schedule, QString::fromStdString(request.backend->info().name), total);
    emit started();
    m_state->reportBackendRunProgress(0, total);
    emit progress(0, total);
    m_watcher.setFuture(QtConcurrent::run(
        views::workerPool(),
        [request = std::move(request), observer = std::move(observer), cancel = m_cancel, generation]() -> Outcome {
            Outcome out;
            out.generation = generation;
            try {
                if (std::string bad = unsupportedNodes(*request.backend, *request.graph, *request.plan); !bad.empty()) {
                    out.error = QString::fromStdString(bad);
                    return out;
                }
                if (cancel->load()) {
                    out.cancelled = true;
                    return out;
                }
                CompileContext context;
                context.device = request.device.get();
                context.cancel = cancel.get();
                auto compiled = request.backend->compileFor(*request.graph, *request.plan, context);
                if (!compiled && compiled.status().code() == ErrorCode::Cancelled) {
                    out.cancelled = true;
                    return out;
                }
                if (!compiled) {
                    out.error = messageOf(compiled.status());
                    return out;
                }
                if (cancel->load()) {
                    out.cancelled = true;
                    return out;
                }
                auto result = request.backend->run(**compiled, *request.inputs, observer);
                if (cancel->load() || (!result && result.status().code() == ErrorCode::Cancelled)) {
                    out.cancelled = true;
                    return out;
                }
                if (!result) {
                    out.error = messageOf(result.status());
                    return out;
                }
                out.result = std::make_shared<const RunResult>(std::move(*result));
            } catch (const std::exception &e) { // a backend broke the no-throw contract
                out.error = QStringLiteral("the backend failed: ") + QString::fromUtf8(e.what());
            } catch (...) {
                out.error = QStringLiteral("the backend failed with an unknown exception");
            }
            return out;
        }));
}

void RunController::onFinished()
{
    const ActivityScope activity("workbench: show run");
    Outcome outcome = m_watcher.result();
    if (outcome.generation != m_generation) {
        if (m_pending) {
            Request next = std::move(*m_pending);
            m_pending.reset();
            launch(std::move(next));
        } else { // superseded, then the successor was cancelled before it began
            m_state->failBackendRun(tr("cancelled"));
            emit failed(tr("cancelled"));
        }
        return;
    }
    if (outcome.cancelled || !outcome.result) {
        const QString message = outcome.cancelled ? tr("cancelled") : outcome.error;
        m_state->failBackendRun(message);
        emit failed(message);
        return;
    }
    m_lastResult = outcome.result;
    m_state->finishBackendRun(outcome.result);
    emit finished(outcome.result);
}

} // namespace tessera::gui
