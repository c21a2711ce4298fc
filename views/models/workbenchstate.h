// WorkbenchState: the one state every workbench panel follows — the model on
// screen, what to schedule (graph, device, scheduler, options, overrides,
// search-space request), the last schedule run (plan, trace, decisions), the
// backend run under way or last finished (measured timeline), the selection
// and the highlighted nodes. Hotspot's PerfParser and FilterAndZoomStack are
// the model: panels draw from one object and subscribe to its signals, so one
// result reaches every panel the same way.
//
// It only holds and announces; it never schedules or runs. Writers:
//  - the app's orchestration (app/gui/schedulecontroller.h and
//    runcontroller.h) reports schedule and backend runs into it
//    (beginSchedule … finishSchedule / failSchedule, beginBackendRun …) and
//    answers the intents below;
//  - panels set what the user chose directly where no history is kept
//    (options, highlight, selection) and ask for everything else with a
//    request…() call, which only emits the matching …Requested() signal:
//    overrides are undoable, and runs are started by the orchestrator.
//
// Qt Core only, like the item models beside it (no widgets, no scheduling).
#pragma once

#include "core/backend/backend.h"
#include "core/hw/device.h"
#include "core/sched/decision.h"
#include "core/sched/scheduler.h"
#include "core/sched/searchspace.h"
#include "views/models/modeldata.h"
#include "views/models/plansummary.h"    // Measurement
#include "views/models/runresultmodel.h" // Q_DECLARE_METATYPE(std::shared_ptr<const RunResult>)

#include <QMetaType>
#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::views {

// A request to run a schedule's plan on a backend (WorkbenchState::requestBackendRun).
struct BackendRunRequest {
    IBackend *backend = nullptr; // must outlive the run
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ScheduleRun> schedule; // its result.plan is what runs
};

class WorkbenchState final : public QObject
{
    Q_OBJECT
public:
    explicit WorkbenchState(QObject *parent = nullptr);
    ~WorkbenchState() override;

    // --- the model on screen ----------------------------------------------------
    void setModel(std::shared_ptr<const ModelData> model); // emits modelChanged
    std::shared_ptr<const ModelData> model() const { return m_model; }

    // --- what to schedule ----------------------------------------------------------
    // The schedulers whose specs panels show (may be null); must outlive the state.
    void setSchedulers(const SchedulerRegistry *registry) { m_schedulers = registry; }
    const SchedulerRegistry *schedulers() const { return m_schedulers; }
    // `modelProperties`: the model's metadata_props (ScheduleSetup::modelProperties).
    void setGraph(std::shared_ptr<const Graph> graph, std::map<std::string, std::string> modelProperties = {});
    void setDevice(Device device);
    void setScheduler(const QString &name);                      // setupChanged() when it differs
    void setOptions(std::map<std::string, std::string> options); // setupChanged() when they differ
    // The deployment precision schedules are made at (ScheduleSetup::precision);
    // setupChanged() when it differs.
    void setPrecision(DType precision);
    // Ask schedulers for their explored search space (the DP explorer); nullopt: do not.
    void setSearchSpaceRequest(std::optional<SearchSpaceRequest> request);
    // Replaces the overrides; the orchestrator's undo commands call it, panels
    // ask with requestOverride() and friends instead.
    void setOverrides(Overrides overrides);

    std::shared_ptr<const Graph> graph() const { return m_graph; }
    const std::map<std::string, std::string> &modelProperties() const { return m_modelProperties; }
    const Device *device() const { return m_device ? &*m_device : nullptr; }
    QString schedulerName() const { return m_scheduler; }
    const std::map<std::string, std::string> &options() const { return m_options; }
    DType precision() const { return m_precision; }
    const std::optional<SearchSpaceRequest> &searchSpaceRequest() const { return m_searchSpace; }
    const Overrides &overrides() const { return m_overrides; }
    bool isReady() const; // graph, device and scheduler name set

    // --- intents: panels ask, the orchestrator decides ------------------------------
    void requestOverride(const std::string &key, const std::string &optionId);
    void requestClearOverride(const std::string &key);
    void requestClearOverrides();
    void requestBackendRun(BackendRunRequest request);
    void requestCancelBackendRun();
    // Pause (true) or resume (false) the run under way after its task in progress.
    void requestPauseBackendRun(bool paused);

    // --- the schedule run (reported by the orchestrator) ----------------------------
    void beginSchedule();
    void reportScheduleProgress(double fraction);
    void finishSchedule(std::shared_ptr<const ScheduleRun> run);
    void failSchedule(const QString &message);
    bool isScheduling() const { return m_scheduling; }
    std::shared_ptr<const ScheduleRun> lastRun() const { return m_lastRun; }

    // --- the backend run (reported by the orchestrator) -----------------------------
    // `schedule`: the run whose plan runs (it may be replaced by a newer one meanwhile).
    void beginBackendRun(std::shared_ptr<const ScheduleRun> schedule, QString backend, int total);
    void reportBackendRunProgress(int done, int total);
    // What the run under way reported so far (RunIncrement appended, the
    // metrics so far; no outputs), at a bounded rate; a new run clears it.
    void reportBackendRunUpdate(std::shared_ptr<const RunResult> soFar);
    // The orchestrator paused (true) or resumed the run under way.
    void setBackendRunPaused(bool paused);
    void finishBackendRun(std::shared_ptr<const RunResult> result);
    void failBackendRun(const QString &message);
    bool isBackendRunning() const { return m_backendRunning; }
    bool isBackendRunPaused() const { return m_backendRunning && m_runPaused; }
    std::shared_ptr<const RunResult> backendRunSoFar() const { return m_runSoFar; } // null when none streamed
    int tasksDone() const { return m_tasksDone; }
    int tasksTotal() const { return m_tasksTotal; }
    QString backendRunBackend() const { return m_runBackend; } // the backend's name
    std::shared_ptr<const ScheduleRun> backendRunSchedule() const { return m_runSchedule; }
    std::shared_ptr<const RunResult> lastResult() const { return m_lastResult; }
    // The last backend result ran the plan of lastRun() (no newer schedule replaced it).
    bool resultIsCurrent() const { return m_lastResult && m_runSchedule && m_runSchedule == m_lastRun; }
    // A run read back from the project (a reopened session): shown like a
    // finished one (backendRunRestored), without outputs; `when` is when it ran.
    void restoreBackendRun(std::shared_ptr<const ScheduleRun> schedule, QString backend,
                           std::shared_ptr<const RunResult> result, QString when);
    bool lastResultRestored() const { return m_resultRestored; }
    // The last finished (or restored) backend run of `schedule`'s plan, kept
    // while the schedule lives (a pinned run keeps its own): what the
    // comparison lines up as measured. Empty when that plan never ran.
    Measurement measurementOf(const std::shared_ptr<const ScheduleRun> &schedule) const;

    // --- selection and highlight -----------------------------------------------------
    // One node or one group, or nothing. `reveal`: the graph should select and
    // centre the node too (the choice came from another panel than the graph).
    void selectNode(NodeId node, bool reveal = false);
    void selectGroup(GroupId group);
    NodeId selectedNode() const { return m_selectedNode; }
    GroupId selectedGroup() const { return m_selectedGroup; }
    // Nodes to outline in the graph (search matches, a trace step's nodes);
    // `centre`: bring the first one into view.
    void setHighlighted(std::vector<NodeId> nodes, bool centre = false);
    const std::vector<NodeId> &highlighted() const { return m_highlighted; }

signals:
    void modelChanged();
    void inputsChanged(); // anything a schedule depends on; the orchestrator replays
    void setupChanged();  // the scheduler name or the option text changed
    void overridesChanged();

    void overrideRequested(const std::string &key, const std::string &optionId);
    void clearOverrideRequested(const std::string &key);
    void clearOverridesRequested();
    void backendRunRequested(const tessera::views::BackendRunRequest &request);
    void cancelBackendRunRequested();
    void pauseBackendRunRequested(bool paused);

    void scheduleStarted();
    void scheduleProgress(double fraction);
    void scheduleFinished(std::shared_ptr<const tessera::ScheduleRun> run);
    void scheduleFailed(const QString &message);

    void backendRunStarted();
    void backendRunProgress(int done, int total);
    void backendRunUpdated(std::shared_ptr<const tessera::RunResult> soFar);
    void backendRunPausedChanged(bool paused);
    void backendRunFinished(std::shared_ptr<const tessera::RunResult> result);
    void backendRunRestored(std::shared_ptr<const tessera::RunResult> result, const QString &when);
    void backendRunFailed(const QString &message);

    void selectionChanged(bool reveal);
    void highlightChanged(bool centre);

private:
    std::shared_ptr<const ModelData> m_model;

    const SchedulerRegistry *m_schedulers = nullptr;
    std::shared_ptr<const Graph> m_graph;
    std::map<std::string, std::string> m_modelProperties;
    std::optional<Device> m_device;
    QString m_scheduler;
    std::map<std::string, std::string> m_options;
    DType m_precision = DType::Float32;
    std::optional<SearchSpaceRequest> m_searchSpace;
    Overrides m_overrides;

    bool m_scheduling = false;
    std::shared_ptr<const ScheduleRun> m_lastRun;

    bool m_backendRunning = false;
    bool m_runPaused = false;
    std::shared_ptr<const RunResult> m_runSoFar;
    int m_tasksDone = 0;
    int m_tasksTotal = 0;
    QString m_runBackend;
    std::shared_ptr<const ScheduleRun> m_runSchedule;
    std::shared_ptr<const RunResult> m_lastResult;
    bool m_resultRestored = false;
    struct Measured {
        std::weak_ptr<const ScheduleRun> schedule;
        Measurement measurement;
    };
    std::vector<Measured> m_measured; // one per schedule, the latest run
    void recordMeasurement(const std::shared_ptr<const ScheduleRun> &schedule, const QString &backend,
                           const std::shared_ptr<const RunResult> &result);

    NodeId m_selectedNode = kInvalidId;
    GroupId m_selectedGroup = -1;
    std::vector<NodeId> m_highlighted;
};

} // namespace tessera::views

Q_DECLARE_METATYPE(std::shared_ptr<const tessera::ScheduleRun>)
Q_DECLARE_METATYPE(tessera::views::BackendRunRequest)
