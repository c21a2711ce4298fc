// ScheduleController (see schedulecontroller.h).
#include "views/widgets/schedulecontroller.h"

#include "core/sched/session.h"

#include <QAction>
#include <QMetaObject>
#include <QUndoCommand>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

namespace tessera::views {

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

ScheduleController::ScheduleController(const SchedulerRegistry &registry, QObject *parent)
    : QObject(parent), m_registry(registry), m_undo(new QUndoStack(this))
{
    m_undoAction = m_undo->createUndoAction(this, tr("Undo"));
    m_redoAction = m_undo->createRedoAction(this, tr("Redo"));
    m_undoAction->setObjectName(QStringLiteral("undoOverrideAction"));
    m_redoAction->setObjectName(QStringLiteral("redoOverrideAction"));
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(120);
    connect(&m_debounce, &QTimer::timeout, this, &ScheduleController::startRun);
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &ScheduleController::onFinished);
}

ScheduleController::~ScheduleController()
{
    // The worker posts progress to `this`: it must be gone before we are.
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

void ScheduleController::setGraph(std::shared_ptr<const Graph> graph, std::map<std::string, std::string> modelProperties)
{
    m_graph = std::move(graph);
    m_modelProperties = std::move(modelProperties);
    inputsChanged();
}

void ScheduleController::setDevice(Device device)
{
    m_device = std::move(device);
    inputsChanged();
}

void ScheduleController::setScheduler(const QString &name)
{
    const bool changed = name != m_scheduler;
    m_scheduler = name;
    if (changed)
        emit setupChanged();
    inputsChanged();
}

void ScheduleController::setOptions(std::map<std::string, std::string> options)
{
    const bool changed = options != m_options;
    m_options = std::move(options);
    if (changed)
        emit setupChanged();
    inputsChanged();
}

void ScheduleController::setSearchSpaceRequest(std::optional<SearchSpaceRequest> request)
{
    const bool changed = request.has_value() != m_searchSpace.has_value() ||
                         (request && (request->maxStates != m_searchSpace->maxStates ||
                                      request->maxTransitions != m_searchSpace->maxTransitions ||
                                      request->scope != m_searchSpace->scope));
    m_searchSpace = std::move(request);
    if (changed)
        inputsChanged();
}

void ScheduleController::inputsChanged()
{
    if (m_autoRun)
        requestRun();
}

void ScheduleController::setOverride(const std::string &key, const std::string &optionId)
{
    if (auto it = m_overrides.find(key); it != m_overrides.end() && it->second == optionId)
        return;
    Overrides after = m_overrides;
    after[key] = optionId;
    pushOverrides(std::move(after),
                  tr("Use '%1' for %2").arg(QString::fromStdString(optionId), QString::fromStdString(key)));
}

void ScheduleController::clearOverride(const std::string &key)
{
    if (!m_overrides.count(key))
        return;
    Overrides after = m_overrides;
    after.erase(key);
    pushOverrides(std::move(after), tr("Clear override of %1").arg(QString::fromStdString(key)));
}

void ScheduleController::clearOverrides()
{
    if (!m_overrides.empty())
        pushOverrides({}, tr("Clear all overrides"));
}

void ScheduleController::pushOverrides(Overrides after, const QString &text)
{
    m_undo->push(new OverridesCommand(this, m_overrides, std::move(after), text)); // push() runs redo()
}

void ScheduleController::loadOverrides(Overrides overrides)
{
    m_undo->clear();
    applyOverrides(std::move(overrides));
}

void ScheduleController::applyOverrides(Overrides overrides)
{
    m_overrides = std::move(overrides);
    emit overridesChanged();
    requestRun();
}

bool ScheduleController::isReady() const
{
    return m_graph && m_device && !m_scheduler.isEmpty();
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
    auto scheduler = m_registry.get(m_scheduler.toStdString());
    if (!scheduler) {
        emit failed(QString::fromStdString(scheduler.status().message()));
        return;
    }
    const quint64 generation = m_generation;
    m_cancel = std::make_shared<std::atomic<bool>>(false);

    ScheduleSetup setup;
    setup.options = m_options;
    setup.modelProperties = m_modelProperties;
    setup.searchSpace = m_searchSpace;
    setup.overrides = m_overrides;
    setup.cancel = m_cancel.get();
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
                if (generation == m_generation)
                    emit progress(fraction);
            },
            Qt::QueuedConnection);
    };

    emit started();
    m_inFlight = true;
    m_watcher.setFuture(QtConcurrent::run([graph = m_graph, device = *m_device, sched = *scheduler,
                                           setup = std::move(setup), cancel = m_cancel, generation]() -> Outcome {
        auto run = scheduleGraph(*graph, device, *sched, setup);
        if (!run)
            return {nullptr, QString::fromStdString(run.status().message()), generation};
        return {std::make_shared<const ScheduleRun>(std::move(*run)), {}, generation};
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
        } else {
            emit failed(tr("cancelled")); // superseded, then the successor was cancelled before it began
        }
        return;
    }
    if (!outcome.run) {
        emit failed(outcome.error);
        return;
    }
    m_lastRun = outcome.run;
    emit finished(outcome.run);
}

} // namespace tessera::views
