// WorkbenchState (see workbenchstate.h).
#include "views/models/workbenchstate.h"

namespace tessera::views {

WorkbenchState::WorkbenchState(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<std::shared_ptr<const tessera::ScheduleRun>>();
    qRegisterMetaType<std::shared_ptr<const tessera::RunResult>>();
}

WorkbenchState::~WorkbenchState() = default;

void WorkbenchState::setModel(std::shared_ptr<const ModelData> model)
{
    m_model = std::move(model);
    m_selectedNode = kInvalidId;
    m_selectedGroup = -1;
    emit modelChanged();
}

// --- what to schedule ------------------------------------------------------------

void WorkbenchState::setGraph(std::shared_ptr<const Graph> graph, std::map<std::string, std::string> modelProperties)
{
    m_graph = std::move(graph);
    m_modelProperties = std::move(modelProperties);
    emit inputsChanged();
}

void WorkbenchState::setDevice(Device device)
{
    m_device = std::move(device);
    emit inputsChanged();
}

void WorkbenchState::setScheduler(const QString &name)
{
    const bool changed = name != m_scheduler;
    m_scheduler = name;
    if (changed)
        emit setupChanged();
    emit inputsChanged();
}

void WorkbenchState::setOptions(std::map<std::string, std::string> options)
{
    const bool changed = options != m_options;
    m_options = std::move(options);
    if (changed)
        emit setupChanged();
    emit inputsChanged();
}

void WorkbenchState::setPrecision(DType precision)
{
    const bool changed = precision != m_precision;
    m_precision = precision;
    if (changed)
        emit setupChanged();
    emit inputsChanged();
}

void WorkbenchState::setSearchSpaceRequest(std::optional<SearchSpaceRequest> request)
{
    const bool changed = request.has_value() != m_searchSpace.has_value() ||
                         (request && (request->maxStates != m_searchSpace->maxStates ||
                                      request->maxTransitions != m_searchSpace->maxTransitions ||
                                      request->scope != m_searchSpace->scope));
    m_searchSpace = std::move(request);
    if (changed)
        emit inputsChanged();
}

void WorkbenchState::setOverrides(Overrides overrides)
{
    m_overrides = std::move(overrides);
    emit overridesChanged();
}

bool WorkbenchState::isReady() const
{
    return m_graph && m_device && !m_scheduler.isEmpty();
}

// --- intents -----------------------------------------------------------------------

void WorkbenchState::requestOverride(const std::string &key, const std::string &optionId)
{
    emit overrideRequested(key, optionId);
}

void WorkbenchState::requestClearOverride(const std::string &key)
{
    emit clearOverrideRequested(key);
}

void WorkbenchState::requestClearOverrides()
{
    emit clearOverridesRequested();
}

void WorkbenchState::requestBackendRun(BackendRunRequest request)
{
    emit backendRunRequested(request);
}

void WorkbenchState::requestCancelBackendRun()
{
    emit cancelBackendRunRequested();
}

void WorkbenchState::requestPauseBackendRun(bool paused)
{
    emit pauseBackendRunRequested(paused);
}

// --- the schedule run ----------------------------------------------------------------

void WorkbenchState::beginSchedule()
{
    m_scheduling = true;
    emit scheduleStarted();
}

void WorkbenchState::reportScheduleProgress(double fraction)
{
    emit scheduleProgress(fraction);
}

void WorkbenchState::finishSchedule(std::shared_ptr<const ScheduleRun> run)
{
    m_scheduling = false;
    m_lastRun = run;
    emit scheduleFinished(std::move(run));
}

void WorkbenchState::failSchedule(const QString &message)
{
    m_scheduling = false;
    emit scheduleFailed(message);
}

// --- the backend run ----------------------------------------------------------------

void WorkbenchState::beginBackendRun(std::shared_ptr<const ScheduleRun> schedule, QString backend, int total)
{
    m_backendRunning = true;
    m_runSchedule = std::move(schedule);
    m_runBackend = std::move(backend);
    m_resultRestored = false;
    m_runPaused = false;
    m_runSoFar.reset();
    m_tasksDone = 0;
    m_tasksTotal = total;
    emit backendRunStarted();
}

void WorkbenchState::reportBackendRunProgress(int done, int total)
{
    m_tasksDone = done;
    m_tasksTotal = total;
    emit backendRunProgress(done, total);
}

void WorkbenchState::reportBackendRunUpdate(std::shared_ptr<const RunResult> soFar)
{
    if (!m_backendRunning)
        return; // late news of a run that ended
    m_runSoFar = soFar;
    emit backendRunUpdated(std::move(soFar));
}

void WorkbenchState::setBackendRunPaused(bool paused)
{
    if (m_runPaused == paused)
        return;
    m_runPaused = paused;
    emit backendRunPausedChanged(paused);
}

void WorkbenchState::finishBackendRun(std::shared_ptr<const RunResult> result)
{
    m_backendRunning = false;
    m_runPaused = false;
    m_runSoFar.reset();
    m_lastResult = result;
    recordMeasurement(m_runSchedule, m_runBackend, result);
    emit backendRunFinished(std::move(result));
}

void WorkbenchState::recordMeasurement(const std::shared_ptr<const ScheduleRun> &schedule, const QString &backend,
                                       const std::shared_ptr<const RunResult> &result)
{
    std::erase_if(m_measured, [&](const Measured &m) {
        const auto s = m.schedule.lock();
        return !s || s == schedule;
    });
    if (schedule && result)
        m_measured.push_back({schedule, {backend, result}});
}

Measurement WorkbenchState::measurementOf(const std::shared_ptr<const ScheduleRun> &schedule) const
{
    for (const Measured &m : m_measured)
        if (schedule && m.schedule.lock() == schedule)
            return m.measurement;
    return {};
}

void WorkbenchState::restoreBackendRun(std::shared_ptr<const ScheduleRun> schedule, QString backend,
                                       std::shared_ptr<const RunResult> result, QString when)
{
    if (m_backendRunning)
        return; // a live run wins over a stored one
    m_runSchedule = std::move(schedule);
    m_runBackend = std::move(backend);
    m_lastResult = result;
    m_resultRestored = true;
    recordMeasurement(m_runSchedule, m_runBackend, result);
    m_tasksDone = m_tasksTotal = static_cast<int>(result ? result->timeline.size() : 0);
    emit backendRunRestored(std::move(result), when);
}

void WorkbenchState::failBackendRun(const QString &message)
{
    m_backendRunning = false;
    m_runPaused = false;
    m_runSoFar.reset();
    emit backendRunFailed(message);
}

// --- selection and highlight ----------------------------------------------------------

void WorkbenchState::selectNode(NodeId node, bool reveal)
{
    m_selectedNode = node;
    m_selectedGroup = -1;
    emit selectionChanged(reveal);
}

void WorkbenchState::selectGroup(GroupId group)
{
    m_selectedNode = kInvalidId;
    m_selectedGroup = group;
    emit selectionChanged(false);
}

void WorkbenchState::setHighlighted(std::vector<NodeId> nodes, bool centre)
{
    m_highlighted = std::move(nodes);
    emit highlightChanged(centre);
}

} // namespace tessera::views
