// ScheduleController: schedules for the workbench. It reads "what to
// schedule" — graph, device, scheduler name, option text and the decision
// overrides — from a WorkbenchState (views/models/workbenchstate.h), runs
// scheduleGraph() (core/sched/session.h) on the thread pool, never on the GUI
// thread, and reports started / progress / finished / failed both as its own
// signals and into the state, which is what the panels follow.
//
// Requests are debounced; at most one schedule runs at a time. A request made
// while one runs cancels it (the cancel flag is checked between scheduler
// steps) and bumps the generation counter, so the superseded result and its
// late progress reports are dropped and the newest request runs next.
//
// Overrides change only through the QUndoStack — one command per "set key →
// option", "clear key" or "clear all" — so undo and redo replay the schedule
// with the previous overrides; the state's override requests (a panel's
// "use this option") become such commands. Changing graph, device, scheduler
// or options replays too while autoRun() is on (the default).
//
// Costs: estimates from the device's model (the default), or kernel times
// measured on a backend (setCostMeter; `tessera-cli schedule --cost measured
// [--meter NAME]`): a BackendMeter (core/backend/kernelmeter.h) handed to
// scheduleGraph as ScheduleSetup::meter. The meter is not thread-safe; it is
// used by one schedule at a time (a superseding schedule launches only after
// the cancelled one returned) and lives across reschedules — replaced only
// when the meter backend or the device changes — so a replay after an
// override or an undo asks it for kernels it has timed: cache hits. The
// schedule's cancel token is the meter's too, so a cancel stops the kernel
// being compiled or run. lastMeterReport() says what the last delivered
// schedule measured.
//
// The registries and the state must outlive the controller; the destructor
// cancels a running schedule and waits for it.
#pragma once

#include "core/hw/device.h"
#include "core/sched/scheduler.h"
#include "views/models/workbenchstate.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>

class QAction;
class QUndoStack;

namespace tessera {
class BackendMeter;
class BackendRegistry;
} // namespace tessera

namespace tessera::gui {

class ScheduleController final : public QObject
{
    Q_OBJECT
public:
    // `state`: where the inputs come from and the runs go; null: a state of its own.
    explicit ScheduleController(const SchedulerRegistry &registry, views::WorkbenchState *state = nullptr,
                                QObject *parent = nullptr);
    ~ScheduleController() override;

    views::WorkbenchState *state() const { return m_state; }

    // The inputs live in the state; these forward to it (WorkbenchState::setGraph, ...).
    void setGraph(std::shared_ptr<const Graph> graph, std::map<std::string, std::string> modelProperties = {});
    void setDevice(Device device);
    void setScheduler(const QString &name);
    void setOptions(std::map<std::string, std::string> options);
    void setPrecision(DType precision);
    void setSearchSpaceRequest(std::optional<SearchSpaceRequest> request);
    const std::optional<SearchSpaceRequest> &searchSpaceRequest() const { return m_state->searchSpaceRequest(); }
    std::shared_ptr<const Graph> graph() const { return m_state->graph(); }
    const Device *device() const { return m_state->device(); }
    QString schedulerName() const { return m_state->schedulerName(); }
    const std::map<std::string, std::string> &options() const { return m_state->options(); }
    DType precision() const { return m_state->precision(); }
    const SchedulerRegistry &registry() const { return m_registry; }

    // The backends a measured cost source may use (null: none; measured
    // schedules then fail naming the missing backend).
    void setBackends(BackendRegistry *backends) { m_backends = backends; }
    // The cost source: kEstimated (the default), kDefaultMeter (the CPU
    // backend for a CPU device, the simulator otherwise: defaultMeterBackend)
    // or a backend's name. A change reschedules while autoRun() is on.
    static inline const QString kEstimated = QStringLiteral("estimated");
    static inline const QString kDefaultMeter = QStringLiteral("default");
    void setCostMeter(const QString &meter);
    QString costMeter() const { return m_meterChoice; }
    // Whether `choice` can be used here: kEstimated always; a meter when its
    // backend (for kDefaultMeter the current device's default) is
    // registered, available and measures or simulates time. `device` (null:
    // the current one) decides kDefaultMeter's backend. A reopened project's
    // stored choice is checked with it.
    Status checkCostMeter(const QString &choice, const Device *device = nullptr) const;
    // The backend the current choice measures on for the current device; empty for estimates.
    QString meterBackend() const;
    // What the last delivered schedule measured: its meter's backend (empty
    // for estimates), the kernels it compiled and ran, and the ones it found
    // in its cache.
    struct MeterReport {
        QString backend;
        int timed = 0;
        int cacheHits = 0;
    };
    const MeterReport &lastMeterReport() const { return m_meterReport; }

    // Undoable edits of the overrides; each replays the schedule. Setting an
    // override a key already has, or clearing one it lacks, does nothing.
    void setOverride(const std::string &key, const std::string &optionId);
    void clearOverride(const std::string &key);
    void clearOverrides();
    // Replaces the overrides outright (e.g. from a saved project): not
    // undoable, clears the undo history; replays.
    void loadOverrides(Overrides overrides);
    const Overrides &overrides() const { return m_state->overrides(); }

    QUndoStack *undoStack() const { return m_undo; }
    QAction *undoAction() const { return m_undoAction; }
    QAction *redoAction() const { return m_redoAction; }

    void setAutoRun(bool on) { m_autoRun = on; }
    bool autoRun() const { return m_autoRun; }
    void setDebounceInterval(int ms) { m_debounce.setInterval(ms); }
    int debounceInterval() const { return m_debounce.interval(); }

    bool isReady() const { return m_state->isReady(); } // graph, device and scheduler name set
    void requestRun();                                  // debounced
    void runNow();                                      // starts (or supersedes) immediately
    void cancel();                                      // the running schedule ends with failed("cancelled")
    // From launch until its result is delivered: a finished future whose
    // finished() is still queued counts as running, so isBusy() never reports
    // idle while lastRun() is about to change.
    bool isRunning() const { return m_inFlight; }
    bool isBusy() const { return isRunning() || m_debounce.isActive(); }
    std::shared_ptr<const ScheduleRun> lastRun() const { return m_state->lastRun(); }
    quint64 generation() const { return m_generation; }

signals:
    void started();
    void progress(double fraction);
    void finished(std::shared_ptr<const tessera::ScheduleRun> run);
    void failed(const QString &message);
    void overridesChanged();
    // The scheduler name or the option text changed (setScheduler/setOptions
    // with a different value); the options editor follows it.
    void setupChanged();

private:
    friend class OverridesCommand;
    struct Outcome {
        std::shared_ptr<const ScheduleRun> run;
        QString error;
        quint64 generation = 0;
        MeterReport meter;
    };
    Expected<BackendMeter *> meter();         // the choice's meter, made when missing or stale
    void applyOverrides(Overrides overrides); // from the undo commands
    void pushOverrides(Overrides after, const QString &text);
    void inputsChanged();
    void onOverridesChanged();
    void startRun();
    void launch();
    void onFinished();

    const SchedulerRegistry &m_registry;
    views::WorkbenchState *m_state;
    BackendRegistry *m_backends = nullptr;
    QString m_meterChoice = kEstimated;    // kEstimated, kDefaultMeter or a backend name
    std::unique_ptr<BackendMeter> m_meter; // only the running schedule's worker touches it
    MeterReport m_meterReport;

    QUndoStack *m_undo;
    QAction *m_undoAction;
    QAction *m_redoAction;
    bool m_autoRun = true;

    QTimer m_debounce;
    QFutureWatcher<Outcome> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    bool m_pending = false; // a superseding run waits for the cancelled one to return
    bool m_inFlight = false;
    quint64 m_generation = 0;
};

} // namespace tessera::gui
