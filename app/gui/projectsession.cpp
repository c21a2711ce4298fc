// ProjectSession (see projectsession.h).
//
// Opening runs in stages; a failing stage returns before the session changes:
//   S1 file     Project::open (read-write, read-only fallback) and, when
//               writable, an empty IMMEDIATE transaction: the write lock
//   S2 content  model reference, setup, overrides and state read back; the
//               device and algorithm known here; the model file found
//   S3 model    imported off the GUI thread with the stored settings and
//               checked against the stored structure hash (ModelLoader)
//   S4 commit   the window shows the model; setup, overrides and expansion
//               restored; the previous project was closed just before
//   S5 restore  after the first schedule and layout: selected step, view
#include "app/gui/projectsession.h"

#include "app/gui/samplecache.h"
#include "app/gui/schedulecontroller.h"
#include "app/gui/scheduleexport.h"
#include "core/backend/kernelmeter.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/ir/precision.h"
#include "core/plugin/extensions.h"
#include "core/store/replay.h"
#include "core/support/activity.h"
#include "core/support/assert.h"
#include "views/models/modeldata.h"
#include "views/widgets/graphview.h"
#include "views/widgets/runcomparisonwidget.h"
#include "views/widgets/stepperwidget.h"

#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMainWindow>
#include <QScrollBar>
#include <QStandardPaths>
#include <QUndoStack>
#include <QtConcurrent/QtConcurrentRun>

#include <set>
#include <tuple>
#include <utility>

namespace tessera::gui {

namespace {

// UI state keys (Project::setState).
constexpr char kSelectedStep[] = "selected_step";
constexpr char kExpandedGroups[] = "expanded_groups";
constexpr char kView[] = "view";
constexpr char kDockState[] = "dock_state";
constexpr char kPinnedRuns[] = "pinned_runs";

// The workbench's cost choice (ScheduleController::costMeter: kEstimated,
// kDefaultMeter or a backend's name) as a project stores it, and back.
QString costChoiceOf(const ProjectSetup &setup)
{
    if (setup.cost != kCostMeasured)
        return ScheduleController::kEstimated;
    return setup.meter.empty() ? ScheduleController::kDefaultMeter : QString::fromStdString(setup.meter);
}

ProjectSetup setupOf(const ScheduleController &controller)
{
    ProjectSetup setup{controller.schedulerName().toStdString(), controller.device()->id, controller.options(),
                       controller.precision()};
    const QString choice = controller.costMeter();
    if (!choice.isEmpty() && choice != ScheduleController::kEstimated) {
        setup.cost = kCostMeasured;
        if (choice != ScheduleController::kDefaultMeter)
            setup.meter = choice.toStdString();
    }
    return setup;
}

// A schedule run as a stored document holds it: plan, statistics, trace,
// decisions (asked again in order, so the overrides apply as they did), search time.
std::shared_ptr<const ScheduleRun> runOfDocument(const ScheduleDocument &doc)
{
    auto run = std::make_shared<ScheduleRun>();
    run->result.plan = doc.plan;
    run->result.stats = doc.stats;
    run->searchMs = doc.searchMs;
    run->decisions = DecisionContext(doc.overrides);
    for (const DecisionRecord &r : doc.decisions)
        (void)run->decisions.decide(r.key, r.role, r.options, r.preferred);
    run->overrideReports = doc.overrideReports;
    for (const TraceStep &step : doc.trace)
        run->trace.add(step.phase, step.title, step.conclusion, step.why) = step;
    return run;
}

std::vector<const QUndoCommand *> commandsOf(const QUndoStack *stack)
{
    std::vector<const QUndoCommand *> out;
    out.reserve(static_cast<std::size_t>(stack->count()));
    for (int i = 0; i < stack->count(); ++i)
        out.push_back(stack->command(i));
    return out;
}

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QStringList sampleNames(const Extensions *extensions)
{
    QStringList out;
    if (extensions)
        for (const SampleNetwork &s : extensions->samples())
            out << QString::fromStdString(s.info.name);
    return out;
}

// A model from the sample cache is referenced by sample name and version, any
// other file by its path (relative to the project), content hash and data files.
ModelRef modelRefOf(const views::ModelData &model, const ImportOptions &import, const Extensions *extensions)
{
    ModelRef ref;
    ref.path = model.path;
    ref.structureHash = modelStructureHash(*model.graph);
    const QString sample = isCachedSample(QString::fromStdString(model.path))
                               ? sampleNameOfCachePath(QString::fromStdString(model.path), sampleNames(extensions))
                               : QString();
    if (const SampleNetwork *s = sample.isEmpty() ? nullptr : extensions->findSample(sample.toStdString())) {
        ref.sample = s->info.name;
        ref.sampleVersion = s->info.version;
    } else {
        ref.dataFiles = externalDataFiles(*model.graph, model.path);
    }
    ref.batch = import.batchSize;
    ref.seqLen = import.seqLen;
    for (const auto &[name, value] : import.dims)
        ref.dims[name] = value;
    return ref;
}

} // namespace

ProjectSession::ProjectSession(const SessionViews &views, QObject *parent)
    : QObject(parent), m_views(views), m_writtenPlanId(std::make_shared<std::atomic<std::int64_t>>(0))
{
    TS_ASSERT(views.window && views.loader && views.controller && views.stepper && views.graph && views.devices);
    m_writer.setMaxThreadCount(1);
    ScheduleController *controller = m_views.controller;
    connect(controller, &ScheduleController::overridesChanged, this, &ProjectSession::onOverridesChanged);
    connect(controller->undoStack(), &QUndoStack::indexChanged, this, &ProjectSession::onUndoIndexChanged);
    connect(controller, &ScheduleController::started, this, &ProjectSession::syncSetup);
    connect(controller, &ScheduleController::finished, this, &ProjectSession::onScheduleFinished);
    connect(controller, &ScheduleController::failed, this, &ProjectSession::onScheduleFailed);
    connect(m_views.stepper, &views::StepperWidget::currentStepChanged, this, &ProjectSession::recordStep);
    connect(m_views.graph, &GraphView::viewportChanged, this, &ProjectSession::recordView);
    connect(m_views.graph, &GraphView::layoutFinished, this, &ProjectSession::onLayoutFinished);
    if (m_views.comparison)
        connect(m_views.comparison, &views::RunComparisonWidget::pinnedChanged, this, &ProjectSession::recordPins);
    for (QDockWidget *dock : m_views.window->findChildren<QDockWidget *>()) {
        connect(dock, &QDockWidget::visibilityChanged, this, &ProjectSession::recordDocks);
        connect(dock, &QDockWidget::dockLocationChanged, this, &ProjectSession::recordDocks);
        connect(dock, &QDockWidget::topLevelChanged, this, &ProjectSession::recordDocks);
    }
    m_stackCommands = commandsOf(controller->undoStack());
    m_stackIndex = controller->undoStack()->index();
}

ProjectSession::~ProjectSession()
{
    (void)closeCurrent(false);
    m_pending.reset();
}

bool ProjectSession::isReadOnly() const
{
    return m_project && m_project->readOnly();
}

QString ProjectSession::path() const
{
    return m_project ? qs(m_project->path()) : QString();
}

QString ProjectSession::displayName() const
{
    return m_project ? QFileInfo(path()).completeBaseName() : QString();
}

bool ProjectSession::writable() const
{
    return m_project && !m_project->readOnly() && !m_applying;
}

Status ProjectSession::refuse(const QString &title, Status status)
{
    emit errorReported(title, qs(status.str()));
    return status;
}

Status ProjectSession::reportSave(Status status)
{
    if (!status.isOk()) {
        const QString message = tr("Could not save the project: %1").arg(qs(status.str()));
        if (message != m_lastSaveError) // a lock or a full disk fails every save: say it once
            emit saveFailed(message);
        m_lastSaveError = message;
        qWarning("%s", qPrintable(message));
    } else {
        m_lastSaveError.clear();
    }
    return status;
}

// --- opening -------------------------------------------------------------------

Status ProjectSession::open(const QString &path, OpenMode mode)
{
    const QString title = tr("Could not open project");
    const std::string file = path.toStdString();
    if (m_project && QFileInfo(path).absoluteFilePath() == QFileInfo(this->path()).absoluteFilePath()) {
        emit notice(tr("%1 is already open").arg(QFileInfo(path).fileName()));
        return Status::ok();
    }
    // S1: the file, and the write lock when it can be written.
    auto project = Project::open(file, mode, {.busyTimeoutMs = m_busyTimeoutMs});
    if (!project)
        return refuse(title, project.status());
    if (!project->readOnly()) {
        Status lock = project->transaction([] { return Status::ok(); });
        if (!lock.isOk())
            return refuse(title, lock);
    }
    // S2: what it holds, and whether this machine can schedule it.
    Pending data;
    auto model = project->model();
    auto setup = project->setup();
    auto overrides = project->overrides();
    auto state = project->allState();
    for (const Status &s : {model.status(), setup.status(), overrides.status(), state.status()})
        if (!s.isOk())
            return refuse(title, s);
    if (auto s = m_views.controller->registry().get(setup->algorithm); !s)
        return refuse(title, s.status().at({.file = file}));
    if (auto d = m_views.devices->lookup(setup->device); !d)
        return refuse(title, d.status().at({.file = file}));
    data.model = *model;
    data.setup = *setup;
    data.overrides = *overrides;
    data.state = *state;
    // The model: a sample by name (or, before schema v3, a path into a sample cache), else a file.
    QString sample = qs(data.model.sample);
    if (sample.isEmpty() && !data.model.absolutePath.empty()) {
        sample = sampleNameOfCachePath(qs(data.model.absolutePath), sampleNames(m_views.extensions));
        data.sampleFromCachePath = !sample.isEmpty();
    }
    if (!sample.isEmpty()) {
        const SampleNetwork *registered =
            m_views.extensions ? m_views.extensions->findSample(sample.toStdString()) : nullptr;
        if (!registered)
            return refuse(title, Status::invalid("the project's model is the sample '" + sample.toStdString() +
                                                     "', which this Tessera does not build",
                                                 {.file = file}));
        if (!data.sampleFromCachePath && registered->info.version != data.model.sampleVersion)
            data.notes << tr("The project was made with version %1 of the sample %2; this Tessera builds version %3.")
                              .arg(data.model.sampleVersion)
                              .arg(qs(registered->info.name))
                              .arg(registered->info.version);
        data.model.sample = registered->info.name;
        data.model.sampleVersion = registered->info.version;
        data.model.path.clear(); // the loader builds it
    } else {
        ModelResolver resolver;
        resolver.extractDir = (QStandardPaths::writableLocation(QStandardPaths::CacheLocation) +
                               QStringLiteral("/embedded/") + qs(data.model.contentHash))
                                  .toStdString();
        auto resolved = resolveProjectModel(*project, resolver);
        if (!resolved)
            return refuse(title, resolved.status().at({.file = file}));
        for (const Diagnostic &d : resolved->notes.items())
            data.notes << qs(d.message);
        if (resolved->contentChanged)
            data.notes << tr("The model file changed since the project was saved (its structure is the same; "
                             "weights may differ): %1")
                              .arg(QFileInfo(qs(resolved->path)).fileName());
        data.model.path = QFileInfo(qs(resolved->path)).absoluteFilePath().toStdString();
    }

    // S3: a load already running (another project's model) is cancelled by the
    // loader; drop its project first so that cancellation is not ours.
    m_pending.reset();
    LoadOptions load;
    load.import = importOptionsOf(data.model);
    load.expectedHash = data.model.structureHash;
    if (!data.model.sample.empty())
        m_views.loader->loadSample(qs(data.model.sample), load);
    else
        m_views.loader->load(qs(data.model.path), load);
    m_pending = std::make_unique<Project>(std::move(*project));
    m_pendingData = std::move(data);
    return Status::ok();
}

void ProjectSession::modelAboutToChange()
{
    (void)closeCurrent(true);
}

void ProjectSession::modelChanged(std::shared_ptr<const views::ModelData> model)
{
    m_model = std::move(model);
    m_import = ImportOptions{};
    if (m_pending)
        commit();
}

void ProjectSession::modelLoadFailed(const Diagnostic &diagnostic)
{
    if (!m_pending)
        return;
    const QString file = qs(m_pending->path());
    m_pending.reset(); // closes: nothing was written
    if (diagnostic.code == ErrorCode::Cancelled) {
        emit notice(tr("Opening %1 cancelled").arg(QFileInfo(file).fileName()));
        return;
    }
    emit errorReported(tr("Could not open project"),
                       tr("%1: error: cannot load its model: %2").arg(file, qs(diagnostic.str())));
}

// S4: the project's model is on screen.
void ProjectSession::commit()
{
    std::unique_ptr<Project> project = std::move(m_pending);
    Pending data = std::move(m_pendingData);
    m_import = importOptionsOf(data.model);

    if (data.model.path.empty() && m_model) // a sample: the file the loader built
        data.model.path = m_model->path;
    m_applying = true;
    adopt(std::move(project), data.model);
    if (data.sampleFromCachePath && !m_project->readOnly()) {
        // Schema v3 migration of the reference itself: the cache path becomes the sample's name.
        if (reportSave(m_project->setModel(data.model)).isOk())
            data.notes << tr("The project now refers to the sample %1 by name (it stored a path into a sample "
                             "cache).")
                              .arg(qs(data.model.sample));
    }
    m_savedSetup = data.setup;
    m_savedOverrides = data.overrides;
    if (auto plans = m_project->plans(); plans && !plans->empty())
        m_lastPlanId = plans->back().id;
    m_stateCache = data.state;

    if (auto it = data.state.find(kDockState); it != data.state.end())
        m_views.window->restoreState(QByteArray::fromBase64(QByteArray::fromStdString(it->second)), kDockStateVersion);
    ScheduleController *controller = m_views.controller;
    // The cost source: a meter this build cannot use (its backend missing or
    // unavailable here) falls back to estimated costs, said in a note; the
    // file keeps its choice until another cost source is picked.
    QString cost = costChoiceOf(data.setup);
    m_unusableCost.reset();
    if (auto device = m_views.devices->lookup(data.setup.device); cost != ScheduleController::kEstimated && device) {
        if (Status s = controller->checkCostMeter(cost, &*device); !s.isOk()) {
            const QString meter = cost != ScheduleController::kDefaultMeter ? cost : qs(defaultMeterBackend(*device));
            data.notes << tr("The project schedules with costs measured on %1, which cannot be used here (%2); "
                             "scheduling with estimated costs.")
                              .arg(meter, qs(s.message()));
            cost = ScheduleController::kEstimated;
            m_unusableCost = {data.setup.cost, data.setup.meter};
        }
    }
    emit setupRestored(qs(data.setup.algorithm), qs(data.setup.device),
                       qs(std::string(precisionName(data.setup.precision))), cost);
    controller->setScheduler(qs(data.setup.algorithm));
    if (auto device = m_views.devices->lookup(data.setup.device)) // checked in open()
        controller->setDevice(*device);
    controller->setOptions(data.setup.options);
    controller->setPrecision(data.setup.precision);
    controller->setCostMeter(cost);
    controller->loadOverrides(data.overrides);
    if (auto it = data.state.find(kExpandedGroups); it != data.state.end())
        applyExpansion(it->second);
    m_applying = false;

    // S5 waits for the first schedule and layout of the restored setup.
    m_restore = {};
    m_restore.active = true;
    if (auto it = data.state.find(kSelectedStep); it != data.state.end()) {
        bool ok = false;
        const int step = qs(it->second).toInt(&ok);
        if (ok)
            m_restore.step = step;
    }
    if (auto it = data.state.find(kView); it != data.state.end())
        m_restore.view = it->second;
    m_restore.layoutDone = !m_views.graph->isLayoutPending();
    m_restore.scheduleDone = !controller->isReady();

    emit opened(path());
    // After opened(), so the status bar keeps the note.
    for (const Diagnostic &note : m_project->notes())
        emit notice(qs(note.message));
    if (m_project->readOnly() && m_project->notes().empty())
        emit notice(tr("%1 is open read-only; changes will not be saved").arg(QFileInfo(path()).fileName()));
    for (const QString &note : data.notes)
        emit notice(note);
    if (m_restore.layoutDone && m_restore.scheduleDone)
        finishRestore();
}

void ProjectSession::adopt(std::unique_ptr<Project> project, const ModelRef &model)
{
    m_project = std::move(project);
    m_modelRef = model;
    // The newest stored plan: a reopened session's first plan is compared with it (storePlan).
    std::int64_t newest = 0;
    if (auto plans = m_project->plans(); plans && !plans->empty())
        newest = plans->back().id;
    m_lastPlanId = newest;
    m_writtenPlanId->store(newest);
    m_lastSaveError.clear();
    m_stateCache.clear();
    if (!m_project->readOnly())
        m_autosaver = std::make_unique<Autosaver>(*m_project);
    QUndoStack *stack = m_views.controller->undoStack();
    m_stackCommands = commandsOf(stack);
    m_stackIndex = stack->index();
}

void ProjectSession::onLayoutFinished()
{
    if (!m_restore.active) {
        recordExpansion();
        return;
    }
    if (m_views.graph->isLayoutPending())
        return;
    m_restore.layoutDone = true;
    finishRestore();
}

void ProjectSession::onScheduleFailed(const QString &message)
{
    if (m_restore.active && message != QLatin1String("cancelled") && !m_views.controller->isBusy()) {
        m_restore.scheduleDone = true; // no trace to select a step in
        finishRestore();
    }
}

// S5: the step first (the window centres on its nodes), then the view over it.
void ProjectSession::finishRestore()
{
    const ActivityScope activity("project: restore session");
    if (!m_restore.active || !m_restore.scheduleDone || !m_restore.layoutDone)
        return;
    if (!m_restore.stepApplied) {
        m_restore.stepApplied = true;
        if (m_restore.step)
            m_views.stepper->setCurrentStep(*m_restore.step);
        if (m_views.graph->isLayoutPending()) { // centring on the step expanded a group
            m_restore.layoutDone = false;
            return;
        }
    }
    if (m_restore.view)
        applyView(*m_restore.view);
    m_restore = {};
    recordAll(); // what is on screen now, e.g. a step clamped to a shorter trace
    restoreNewestRun();
    restorePins();
    emit restored();
}

// The plan on show is the newest stored one when the replay reproduced it
// (storePlan stores only a changed plan, and a changed one has no runs yet).
// A trace that no longer reads is a notice, not a failed open.
void ProjectSession::restoreNewestRun()
{
    const std::shared_ptr<const ScheduleRun> run = m_views.controller->lastRun();
    if (!m_project || !run)
        return;
    waitForPlans();
    auto runs = m_project->runs(m_lastPlanId);
    if (!runs || runs->empty())
        return;
    const RunRecord &newest = runs->back();
    auto timeline = m_project->runTimeline(newest.id);
    Expected<RunResult> result =
        timeline ? runFromPerfettoTraceJson(*timeline, run->result.plan.tasks.size(), m_project->path())
                 : Expected<RunResult>(timeline.status());
    if (!result) {
        emit notice(tr("The stored run of this plan cannot be shown: %1").arg(qs(result.status().message())));
        return;
    }
    result->latencyMs = newest.latencyMs;
    result->metrics = newest.metrics;
    const QDateTime created = QDateTime::fromString(qs(newest.created), Qt::ISODateWithMs);
    emit runRestored(qs(newest.backend), std::make_shared<const RunResult>(std::move(*result)),
                     created.isValid() ? created.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm"))
                                       : qs(newest.created));
}

// --- creating, saving as, closing ----------------------------------------------------

Status ProjectSession::create(const QString &path, bool overwrite)
{
    const QString title = tr("Could not create project");
    if (!m_model || m_model->path.empty())
        return refuse(title, Status::error(ErrorCode::Usage, "open a model first", {.file = path.toStdString()}));
    if (m_project && QFileInfo(path).absoluteFilePath() == QFileInfo(this->path()).absoluteFilePath())
        return refuse(title, Status::error(ErrorCode::Usage, "that is the open project; choose another file name",
                                           {.file = path.toStdString()}));
    if (m_pending)
        return refuse(title,
                      Status::error(ErrorCode::Usage, "a project is still opening", {.file = path.toStdString()}));
    ScheduleController *controller = m_views.controller;
    if (!controller->device() || controller->schedulerName().isEmpty())
        return refuse(title, Status::error(ErrorCode::Usage, "pick an algorithm and a device first",
                                           {.file = path.toStdString()}));
    (void)flush(); // the current project keeps everything up to now

    ProjectInfo info;
    info.model = modelRefOf(*m_model, m_import, m_views.extensions);
    info.setup = {controller->schedulerName().toStdString(), controller->device()->id, controller->options()};
    info.overrides = controller->overrides();
    auto created = Project::create(path.toStdString(), info, overwrite, {.busyTimeoutMs = m_busyTimeoutMs});
    if (!created)
        return refuse(title, created.status());
    auto project = std::make_unique<Project>(std::move(*created));

    (void)closeCurrent(true);
    adopt(std::move(project), info.model);
    m_savedSetup = info.setup;
    m_savedOverrides = info.overrides;
    if (auto run = controller->lastRun())
        storePlan(run, "created");
    recordAll();
    recordPins();
    Status s = flush();
    emit opened(this->path());
    return s;
}

Status ProjectSession::saveAs(const QString &path, bool overwrite)
{
    if (!m_project)
        return create(path, overwrite);
    const QString title = tr("Could not save project");
    if (QFileInfo(path).absoluteFilePath() == QFileInfo(this->path()).absoluteFilePath())
        return refuse(title, Status::error(ErrorCode::Usage, "that is the open project; choose another file name",
                                           {.file = path.toStdString()}));
    (void)flush();
    Project &from = *m_project;
    auto model = from.model();
    auto setup = from.setup();
    auto overrides = from.overrides();
    auto plans = from.plans();
    auto state = from.allState();
    for (const Status &s : {model.status(), setup.status(), overrides.status(), plans.status(), state.status()})
        if (!s.isOk())
            return refuse(title, s);
    ModelRef ref = *model;
    ref.path = m_modelRef.path; // the file imported here
    // What is on screen wins over what the file holds (a read-only project was not saved).
    ScheduleController *controller = m_views.controller;
    ProjectSetup current = *setup;
    if (controller->device() && !controller->schedulerName().isEmpty())
        current = setupOf(*controller);
    auto created = Project::create(path.toStdString(), {ref, current, controller->overrides()}, overwrite,
                                   {.busyTimeoutMs = m_busyTimeoutMs});
    if (!created)
        return refuse(title, created.status());
    auto project = std::make_unique<Project>(std::move(*created));

    // Plans with their runs, then the state, in one transaction.
    std::int64_t lastPlan = 0;
    Status copied = project->transaction([&]() -> Status {
        for (const PlanSummary &plan : *plans) {
            auto json = from.planJson(plan.id);
            if (!json)
                return json.status();
            auto id = project->addPlan(*json, plan);
            if (!id)
                return id.status();
            lastPlan = *id;
            auto runs = from.runs(plan.id);
            if (!runs)
                return runs.status();
            for (const RunRecord &run : *runs) {
                auto timeline = from.runTimeline(run.id);
                if (!timeline)
                    return timeline.status();
                auto runId = project->addRun(*id, run, *timeline);
                if (!runId)
                    return runId.status();
            }
        }
        std::map<std::string, std::string> values = *state;
        for (const auto &[key, value] : m_stateCache)
            values[key] = value;
        for (const auto &[key, value] : values)
            TS_TRY(project->setState(key, value));
        auto pluginData = from.allPluginData();
        if (!pluginData)
            return pluginData.status();
        for (const auto &[key, bytes] : *pluginData)
            TS_TRY(project->setPluginData(key.first, key.second, bytes));
        return Status::ok();
    });
    if (!copied.isOk()) {
        (void)project->close();
        QFile::remove(path); // our own half-copied file, never the one we read
        return refuse(title, copied);
    }
    const std::map<std::string, std::string> cache = m_stateCache;
    (void)closeCurrent(true);
    adopt(std::move(project), ref);
    m_savedSetup = current;
    m_savedOverrides = m_views.controller->overrides();
    m_lastPlanId = lastPlan;
    m_writtenPlanId->store(lastPlan);
    m_stateCache = cache;
    emit opened(this->path());
    return Status::ok();
}

Status ProjectSession::close()
{
    return closeCurrent(true);
}

Status ProjectSession::closeCurrent(bool report)
{
    if (!m_project)
        return Status::ok();
    m_restore = {};
    recordDocks();
    Status s = flush();
    m_autosaver.reset();
    Status closing = m_project->close();
    if (s.isOk())
        s = closing;
    const QString closedPath = path();
    m_project.reset();
    m_modelRef = {};
    m_lastPlanId = 0;
    m_stateCache.clear();
    if (report) {
        if (!s.isOk())
            (void)reportSave(s);
        emit closed(closedPath);
    }
    return s;
}

Status ProjectSession::flush()
{
    if (!m_project)
        return Status::ok();
    syncOverrides();
    syncSetup();
    waitForPlans();
    if (!m_autosaver)
        return Status::ok();
    return reportSave(m_autosaver->flush());
}

// --- overrides ---------------------------------------------------------------------

void ProjectSession::onOverridesChanged()
{
    // A stack command is saved by onUndoIndexChanged right after this; what
    // is left at the end of the event (loadOverrides) is saved by syncOverrides.
    if (m_syncQueued || !writable())
        return;
    m_syncQueued = true;
    QMetaObject::invokeMethod(this, &ProjectSession::syncOverrides, Qt::QueuedConnection);
}

void ProjectSession::syncOverrides()
{
    m_syncQueued = false;
    if (!writable())
        return;
    const Overrides &current = m_views.controller->overrides();
    if (current == m_savedOverrides)
        return;
    if (reportSave(m_project->setOverrides(current, current.empty() ? "clear overrides" : "load overrides")).isOk())
        m_savedOverrides = current;
}

void ProjectSession::onUndoIndexChanged(int index)
{
    QUndoStack *stack = m_views.controller->undoStack();
    std::vector<const QUndoCommand *> now = commandsOf(stack);
    const std::vector<const QUndoCommand *> before = std::exchange(m_stackCommands, now);
    const int previous = std::exchange(m_stackIndex, index);
    if (!writable() || now.empty()) // cleared by loadOverrides: syncOverrides saves what follows
        return;
    Status s;
    if (now == before && index < previous)
        s = moveHistory(-1, previous - index);
    else if (now == before && index > previous)
        s = moveHistory(+1, index - previous);
    else if (now != before && index > 0) // a push (after an undo it replaced the redo tail)
        s = m_project->setOverrides(m_views.controller->overrides(), stack->text(index - 1).toStdString());
    if (reportSave(s).isOk())
        m_savedOverrides = m_views.controller->overrides();
}

// Moves the project's cursor with the stack; when the file's history does not
// hold these steps (trimmed to kMaxHistory, or made before this session) the
// state is recorded as a new step instead.
Status ProjectSession::moveHistory(int direction, int steps)
{
    const Overrides &current = m_views.controller->overrides();
    auto history = m_project->overrideHistory();
    if (!history)
        return history.status();
    std::int64_t available = 0;
    for (const OverrideStep &step : history->steps)
        available += direction < 0 ? step.step < history->current : step.step > history->current;
    if (available >= steps) {
        Expected<Overrides> moved = Overrides{};
        for (int i = 0; i < steps && moved; ++i)
            moved = direction < 0 ? m_project->undoOverrides() : m_project->redoOverrides();
        if (!moved)
            return moved.status();
        if (*moved == current)
            return Status::ok();
    }
    const QUndoStack *stack = m_views.controller->undoStack();
    const QString what = direction < 0 ? tr("undo %1").arg(stack->redoText()) : tr("redo %1").arg(stack->undoText());
    return m_project->setOverrides(current, what.toStdString());
}

// The Comparison dock's pins as {"serial": N, "pins": [{"title": T, "schedule": DOCUMENT}, ...]}.
void ProjectSession::recordPins()
{
    if (!writable() || m_restore.active || !m_views.comparison || !m_model)
        return;
    QJsonArray pins;
    for (const views::RunComparisonWidget::PinnedRun &pin : m_views.comparison->pinned()) {
        if (!pin.run || pin.run->result.plan.modelHash != m_modelRef.structureHash)
            continue;
        const std::string json =
            scheduleDocumentJson(*pin.run, *m_model->graph, std::string(), m_views.controller->options());
        pins.append(QJsonObject{
            {QStringLiteral("title"), pin.title},
            {QStringLiteral("schedule"), QJsonDocument::fromJson(QByteArray::fromStdString(json)).object()}});
    }
    const QJsonObject root{{QStringLiteral("serial"), m_views.comparison->pinSerial()}, {QStringLiteral("pins"), pins}};
    setState(kPinnedRuns, QJsonDocument(root).toJson(QJsonDocument::Compact).toStdString());
}

void ProjectSession::restorePins()
{
    if (!m_project || !m_views.comparison || !m_model)
        return;
    auto stored = m_project->state(kPinnedRuns);
    if (!stored || !*stored)
        return;
    const QJsonObject root = QJsonDocument::fromJson(QByteArray::fromStdString(**stored)).object();
    std::vector<views::RunComparisonWidget::PinnedRun> pins;
    int dropped = 0;
    for (const QJsonValue &v : root.value(QStringLiteral("pins")).toArray()) {
        const QJsonObject pin = v.toObject();
        const QByteArray json = QJsonDocument(pin.value(QStringLiteral("schedule")).toObject()).toJson();
        auto doc = scheduleFromJson(json.toStdString(), *m_model->graph, m_project->path());
        if (!doc) {
            ++dropped;
            continue;
        }
        pins.push_back({runOfDocument(*doc), pin.value(QStringLiteral("title")).toString()});
    }
    m_views.comparison->setPinned(std::move(pins), root.value(QStringLiteral("serial")).toInt());
    if (dropped > 0)
        emit notice(tr("%n pinned plan(s) no longer match the model and were not restored", nullptr, dropped));
}

Status ProjectSession::setModelEmbedded(bool embed)
{
    const QString title = tr("Could not change the project");
    if (!m_project)
        return refuse(title, Status::error(ErrorCode::Usage, "no project is open"));
    if (m_project->readOnly())
        return refuse(title, Status::error(ErrorCode::Io, "project is read-only", {.file = m_project->path()}));
    if (!m_modelRef.sample.empty())
        return refuse(title, Status::error(ErrorCode::Usage,
                                           "the model is the sample '" + m_modelRef.sample +
                                               "', rebuilt from its name: there is nothing to embed",
                                           {.file = m_project->path()}));
    auto stored = m_project->model();
    if (!stored)
        return refuse(title, stored.status());
    ModelRef ref = *stored;
    // The project's own file when it is there (the model on screen may be the embedded copy written out).
    auto own = m_project->modelPath();
    if (own && m_project->checkModelContent(*own).isOk())
        ref.path = *own;
    else if (!embed)
        return refuse(title, Status::invalid("the embedded copy is the only intact one (" +
                                                 (own ? "'" + *own + "' changed" : own.status().message()) +
                                                 "); put the file back before dropping the copy",
                                             {.file = m_project->path()}));
    else
        ref.path = m_modelRef.path; // the file imported here
    ref.embed = embed;
    if (Status s = m_project->setModel(ref); !s.isOk())
        return refuse(title, s);
    m_modelRef.embed = embed;
    return Status::ok();
}

// --- setup, plans, runs ----------------------------------------------------------------

void ProjectSession::syncSetup()
{
    const ScheduleController *controller = m_views.controller;
    if (!writable() || !controller->device() || controller->schedulerName().isEmpty())
        return;
    ProjectSetup setup = setupOf(*controller);
    if (m_unusableCost && controller->costMeter() == ScheduleController::kEstimated)
        std::tie(setup.cost, setup.meter) = *m_unusableCost; // still the file's choice
    else
        m_unusableCost.reset();
    if (setup.algorithm == m_savedSetup.algorithm && setup.device == m_savedSetup.device &&
        setup.options == m_savedSetup.options && setup.precision == m_savedSetup.precision &&
        setup.cost == m_savedSetup.cost && setup.meter == m_savedSetup.meter)
        return;
    if (reportSave(m_project->setSetup(setup)).isOk())
        m_savedSetup = std::move(setup);
}

void ProjectSession::onScheduleFinished(std::shared_ptr<const ScheduleRun> run)
{
    if (m_project && run && run->result.plan.modelHash == m_modelRef.structureHash)
        storePlan(run, "workbench");
    // A result that arrives while a newer request waits (the restored setup) is not the one to restore on.
    if (m_restore.active && !m_views.controller->isBusy()) {
        m_restore.scheduleDone = true;
        finishRestore();
    }
}

// The document is written on the writer thread: a large model's trace and
// decisions take a while to serialise. Plans land in finishing order.
void ProjectSession::storePlan(std::shared_ptr<const ScheduleRun> run, std::string label)
{
    if (!m_project || m_project->readOnly() || !m_model || !run ||
        run->result.plan.modelHash != m_modelRef.structureHash)
        return;
    // Documents name the model as the project does: a sample by name, a file relative to the project's folder.
    std::string model = !m_modelRef.sample.empty()
                            ? "sample:" + m_modelRef.sample
                            : QDir(QFileInfo(path()).absolutePath())
                                  .relativeFilePath(QFileInfo(qs(m_modelRef.path)).absoluteFilePath())
                                  .toStdString();
    QPointer<ProjectSession> self(this);
    (void)QtConcurrent::run(&m_writer, [self, project = m_project.get(), graph = m_model->graph, run,
                                        model = std::move(model), options = m_views.controller->options(),
                                        label = std::move(label), written = m_writtenPlanId]() {
        const std::string json = scheduleDocumentJson(*run, *graph, model, options);
        // A plan the newest stored one already is (a reopen or a replay that changed nothing) is not
        // stored again.
        if (const std::int64_t last = written->load(); last > 0)
            if (auto previous = project->planJson(last); previous && sameScheduleDocument(*previous, json))
                return;
        auto id = project->addPlan(json, planSummaryOf(*run, label));
        if (id)
            written->store(*id);
        QMetaObject::invokeMethod(
            self.data(),
            [self, status = id.status(), planId = id ? *id : 0]() {
                if (!self)
                    return;
                if (!self->reportSave(status).isOk())
                    return;
                self->m_lastPlanId = std::max(self->m_lastPlanId, planId);
                emit self->planStored(planId);
            },
            Qt::QueuedConnection);
    });
}

void ProjectSession::waitForPlans()
{
    m_writer.waitForDone();
    m_lastPlanId = std::max(m_lastPlanId, m_writtenPlanId->load());
}

Expected<std::int64_t> ProjectSession::recordRun(const RunRecord &run, std::string_view timelineJson)
{
    if (!m_project)
        return Status::error(ErrorCode::Usage, "no project is open");
    if (m_project->readOnly())
        return Status::error(ErrorCode::Io, "project is read-only (saving a run refused)", {.file = m_project->path()});
    waitForPlans();
    RunRecord record = run;
    if (record.planId == 0)
        record.planId = m_lastPlanId;
    if (record.planId == 0)
        return Status::error(ErrorCode::Usage, "the project has no plan to attach the run to",
                             {.file = m_project->path()});
    auto id = m_project->addRun(record.planId, record, timelineJson);
    (void)reportSave(id.status());
    return id;
}

// --- UI state ----------------------------------------------------------------------------

void ProjectSession::setState(const std::string &key, std::string value)
{
    if (!m_autosaver || m_applying || m_restore.active)
        return;
    auto it = m_stateCache.find(key);
    if (it != m_stateCache.end() && it->second == value)
        return;
    m_stateCache[key] = value;
    m_autosaver->setState(key, std::move(value));
}

void ProjectSession::recordStep()
{
    if (m_project)
        setState(kSelectedStep, std::to_string(m_views.stepper->currentStep()));
}

void ProjectSession::recordView()
{
    if (m_project && m_model)
        setState(kView, viewState());
}

void ProjectSession::recordExpansion()
{
    if (m_project && m_model)
        setState(kExpandedGroups, expansionState());
}

void ProjectSession::recordDocks()
{
    if (m_project)
        setState(kDockState, m_views.window->saveState(kDockStateVersion).toBase64().toStdString());
}

void ProjectSession::recordAll()
{
    recordStep();
    recordView();
    recordExpansion();
    recordDocks();
}

std::string ProjectSession::expansionState() const
{
    const Hierarchy &h = m_views.graph->hierarchy();
    QJsonArray expanded;
    for (GroupId g = 1; g < static_cast<GroupId>(h.groups().size()); ++g)
        if (m_views.graph->isExpanded(g))
            expanded.append(qs(h.group(g).path));
    return QJsonDocument(expanded).toJson(QJsonDocument::Compact).toStdString();
}

void ProjectSession::applyExpansion(const std::string &json)
{
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(json));
    if (!doc.isArray())
        return;
    std::set<std::string> wanted;
    for (const QJsonValue &v : doc.array())
        wanted.insert(v.toString().toStdString());
    const Hierarchy &h = m_views.graph->hierarchy();
    for (GroupId g = 1; g < static_cast<GroupId>(h.groups().size()); ++g) {
        const bool on = wanted.count(h.group(g).path) > 0;
        if (m_views.graph->isExpanded(g) == on)
            continue;
        if (on)
            m_views.graph->expandGroup(g);
        else
            m_views.graph->collapseGroup(g);
    }
}

std::string ProjectSession::viewState() const
{
    const GraphView *view = m_views.graph;
    const QPointF centre = view->mapToScene(view->viewport()->rect().center());
    const QJsonObject o{{QStringLiteral("zoom"), view->zoomLevel()},
                        {QStringLiteral("x"), centre.x()},
                        {QStringLiteral("y"), centre.y()}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toStdString();
}

void ProjectSession::applyView(const std::string &json)
{
    const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
    const double zoom = o.value(QStringLiteral("zoom")).toDouble();
    if (!(zoom > 0) || !o.contains(QStringLiteral("x")) || !o.contains(QStringLiteral("y")))
        return;
    GraphView *view = m_views.graph;
    view->setTransform(QTransform::fromScale(zoom, zoom));
    view->centerOn(QPointF(o.value(QStringLiteral("x")).toDouble(), o.value(QStringLiteral("y")).toDouble()));
    emit view->viewportChanged(); // the mini map follows
}

} // namespace tessera::gui
