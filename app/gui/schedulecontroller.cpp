// ScheduleController (see schedulecontroller.h).
#include "app/gui/schedulecontroller.h"

#include "core/backend/kernelmeter.h"
#include "core/sched/session.h"
#include "core/support/activity.h"
#include "core/support/threadpriority.h"
#include "views/models/workerpool.h"

#include <QAction>
#include <QMetaObject>
#include <QUndoCommand>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

namespace tessera::gui {

// One edit of the override map; redo/undo install the after/before maps.
class OverridesCommand final : public QUndoCommand
{
public:
    OverridesCommand(ScheduleController *controller, Overrides before, Overrides after, const QString &text)
        : QUndoCommand(text), m_controller(controller), m_before(std::move(before)), m_after(std::move(after))
    {}
    void redo() override { m_controller->applyOverrides(m_after); }
    void undo() override { m_controller->applyOverrides(m_before); }

private:
    ScheduleController *m_controller;
    Overrides m_before, m_after;
};

ScheduleController::ScheduleController(const SchedulerRegistry &registry, views::WorkbenchState *state, QObject *parent)
    : QObject(parent), m_registry(registry), m_state(state ? state : new views::WorkbenchState(this)),
      m_undo(new QUndoStack(this))
{
    if (!m_state->schedulers())
        m_state->setSchedulers(&m_registry);
    m_undoAction = m_undo->createUndoAction(this, tr("Undo"));
    m_redoAction = m_undo->createRedoAction(this, tr("Redo"));
    m_undoAction->setObjectName(QStringLiteral("undoOverrideAction"));
    m_redoAction->setObjectName(QStringLiteral("redoOverrideAction"));
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(120);
    connect(&m_debounce, &QTimer::timeout, this, &ScheduleController::startRun);
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &ScheduleController::onFinished);

    using views::WorkbenchState;
    connect(m_state, &WorkbenchState::inputsChanged, this, &ScheduleController::inputsChanged);
    connect(m_state, &WorkbenchState::setupChanged, this, &ScheduleController::setupChanged);
    connect(m_state, &WorkbenchState::overridesChanged, this, &ScheduleController::onOverridesChanged);
    connect(m_state, &WorkbenchState::overrideRequested, this, &ScheduleController::setOverride);
    connect(m_state, &WorkbenchState::clearOverrideRequested, this, &ScheduleController::clearOverride);
    connect(m_state, &WorkbenchState::clearOverridesRequested, this, &ScheduleController::clearOverrides);
}

ScheduleController::~ScheduleController()
{
    // The worker posts progress to `this`: it must be gone before we are.
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

void ScheduleController::setGraph(std::shared_ptr<const Graph> graph,
                                  std::map<std::string, std::string> modelProperties)
{
    m_state->setGraph(std::move(graph), std::move(modelProperties));
}

void ScheduleController::setDevice(Device device)
{
    m_state->setDevice(std::move(device));
}

void ScheduleController::setScheduler(const QString &name)
{
    m_state->setScheduler(name);
}

void ScheduleController::setOptions(std::map<std::string, std::string> options)
{
    m_state->setOptions(std::move(options));
}

void ScheduleController::setPrecision(DType precision)
{
    m_state->setPrecision(precision);
}

void ScheduleController::setSearchSpaceRequest(std::optional<SearchSpaceRequest> request)
{
    m_state->setSearchSpaceRequest(std::move(request));
}

void ScheduleController::setCostMeter(const QString &meter)
{
    if (meter == m_meterChoice)
        return;
    m_meterChoice = meter;
    if (m_autoRun)
        requestRun();
}

QString ScheduleController::meterBackend() const
{
    if (m_meterChoice.isEmpty() || m_meterChoice == kEstimated)
        return {};
    if (m_meterChoice != kDefaultMeter)
        return m_meterChoice;
    const Device *device = m_state->device();
    return device ? QString::fromStdString(defaultMeterBackend(*device)) : QString();
}

Status ScheduleController::checkCostMeter(const QString &choice, const Device *device) const
{
    if (choice.isEmpty() || choice == kEstimated)
        return Status::ok();
    if (!device)
        device = m_state->device();
    const std::string name = choice != kDefaultMeter ? choice.toStdString()
                             : device                ? defaultMeterBackend(*device)
                                                     : std::string();
    if (!m_backends)
        return Status::error(ErrorCode::Unavailable, "measured costs: no backends to measure on");
    auto backend = m_backends->get(name);
    if (!backend)
        return backend.status();
    const BackendInfo &info = (*backend)->info();
    if (!info.available)
        return Status::error(ErrorCode::Unavailable,
                             "measured costs: backend '" + name + "' is unavailable: " + info.unavailableReason);
    if (!info.capabilities.measured && !info.capabilities.timing)
        return Status::error(ErrorCode::Usage, "measured costs: backend '" + name + "' reports no time");
    return Status::ok();
}

Expected<BackendMeter *> ScheduleController::meter()
{
    const std::string name = meterBackend().toStdString();
    const Device &device = *m_state->device();
    if (m_meter && m_meter->backendName() == name && m_meter->device().id == device.id)
        return m_meter.get();
    m_meter.reset();
    TS_TRY(checkCostMeter(m_meterChoice));
    auto backend = m_backends->get(name);
    if (!backend)
        return backend.status();
    m_meter = std::make_unique<BackendMeter>(**backend, device);
    return m_meter.get();
}

void ScheduleController::inputsChanged()
{
    if (m_autoRun)
        requestRun();
}

void ScheduleController::setOverride(const std::string &key, const std::string &optionId)
{
    const Overrides &current = m_state->overrides();
    if (auto it = current.find(key); it != current.end() && it->second == optionId)
        return;
    Overrides after = current;
    after[key] = optionId;
    pushOverrides(std::move(after),
                  tr("Use '%1' for %2").arg(QString::fromStdString(optionId), QString::fromStdString(key)));
}

void ScheduleController::clearOverride(const std::string &key)
{
    if (!m_state->overrides().count(key))
        return;
    Overrides after = m_state->overrides();
    after.erase(key);
    pushOverrides(std::move(after), tr("Clear override of %1").arg(QString::fromStdString(key)));
}

void ScheduleController::clearOverrides()
{
    if (!m_state->overrides().empty())
        pushOverrides({}, tr("Clear all overrides"));
}

void ScheduleController::pushOverrides(Overrides after, const QString &text)
{
    m_undo->push(new OverridesCommand(this, m_state->overrides(), std::move(after), text)); // push() runs redo()
}

void ScheduleController::loadOverrides(Overrides overrides)
{
    m_undo->clear();
    applyOverrides(std::move(overrides));
}

void ScheduleController::applyOverrides(Overrides overrides)
{
    m_state->setOverrides(std::move(overrides)); // onOverridesChanged() replays
}

void ScheduleController::onOverridesChanged()
{
    emit overridesChanged();
    requestRun();
}

void ScheduleController::requestRun()
{
    if (isReady())
        m_debounce.start();
}

void ScheduleController::runNow()
{
    m_debounce.stop();
    startRun();
}

void ScheduleController::cancel()
{
    m_debounce.stop();
    m_pending = false;
    if (m_cancel)
        m_cancel->store(true);
}

void ScheduleController::startRun()
{
    if (!isReady())
        return;
    ++m_generation; // whatever runs now is superseded
    if (isRunning()) {
        m_cancel->store(true);
        m_pending = true; // launched when the cancelled run returns
        return;
    }
    launch();
}

void ScheduleController::launch()
{
    auto scheduler = m_registry.get(m_state->schedulerName().toStdString());
    if (!scheduler) {
        const QString message = QString::fromStdString(scheduler.status().message());
        m_state->failSchedule(message);
        emit failed(message);
        return;
    }
    BackendMeter *meter = nullptr;
    if (!meterBackend().isEmpty()) {
        auto m = this->meter();
        if (!m) {
            const QString message = QString::fromStdString(m.status().message());
            m_state->failSchedule(message);
            emit failed(message);
            return;
        }
        meter = *m;
    }
    const quint64 generation = m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    if (meter)
        meter->setCancel(m_cancel.get()); // the worker holds m_cancel while it measures

    ScheduleSetup setup;
    setup.options = m_state->options();
    setup.precision = m_state->precision();
    setup.modelProperties = m_state->modelProperties();
    setup.searchSpace = m_state->searchSpaceRequest();
    setup.overrides = m_state->overrides();
    setup.cancel = m_cancel.get();
    setup.meter = meter;
    // Reports whole per-cent steps only, queued to the GUI thread; a report
    // from a superseded run is dropped there.
    setup.progress = [this, generation, last = std::make_shared<int>(-1)](double fraction) {
        const int pct = static_cast<int>(fraction * 100);
        if (pct == *last)
            return;
        *last = pct;
        QMetaObject::invokeMethod(
            this,
            [this, generation, fraction] {
                if (generation != m_generation)
                    return;
                m_state->reportScheduleProgress(fraction);
                emit progress(fraction);
            },
            Qt::QueuedConnection);
    };

    m_inFlight = true;
    m_state->beginSchedule();
    emit started();
    m_watcher.setFuture(
        QtConcurrent::run(views::workerPool(),
                          [graph = m_state->graph(), device = *m_state->device(), sched = *scheduler,
                           setup = std::move(setup), cancel = m_cancel, generation, meter]() -> Outcome {
                              useBackgroundPriority();
                              MeterReport report;
                              if (meter) {
                                  report.backend = QString::fromStdString(meter->backendName());
                                  report.timed = -meter->measured();
                                  report.cacheHits = -meter->cacheHits();
                              }
                              auto run = scheduleGraph(*graph, device, *sched, setup);
                              if (meter) {
                                  report.timed += meter->measured();
                                  report.cacheHits += meter->cacheHits();
                              }
                              if (!run)
                                  return {nullptr, QString::fromStdString(run.status().message()), generation, report};
                              return {std::make_shared<const ScheduleRun>(std::move(*run)), {}, generation, report};
                          }));
}

void ScheduleController::onFinished()
{
    m_inFlight = false;
    const Outcome outcome = m_watcher.result();
    if (outcome.generation != m_generation) {
        if (m_pending) {
            m_pending = false;
            launch();
        } else { // superseded, then the successor was cancelled before it began
            m_state->failSchedule(tr("cancelled"));
            emit failed(tr("cancelled"));
        }
        return;
    }
    if (!outcome.run) {
        m_state->failSchedule(outcome.error);
        emit failed(outcome.error);
        return;
    }
    const ActivityScope activity("workbench: show schedule");
    m_meterReport = outcome.meter;
    m_state->finishSchedule(outcome.run);
    emit finished(outcome.run);
}

} // namespace tessera::gui
