// MainWindow (see mainwindow.h): builds the docks, menus and toolbar, and
// wires the views to the WorkbenchState they follow. Selection flows through
// the state: graph, outline, search and diagnostics set it; the inspector,
// the outline and (for a choice made elsewhere) the graph follow it;
// m_syncing stops the outline's echo.
#include "app/gui/mainwindow.h"

#include "app/gui/modelloader.h"
#include "app/gui/projectsession.h"
#include "app/gui/recentfiles.h"
#include "app/gui/runcontroller.h"
#include "app/gui/samplecache.h"
#include "app/gui/schedulecontroller.h"
#include "app/gui/scheduleexport.h"
#include "app/registerbuiltins.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/support/activity.h"
#include "core/support/fileio.h"
#include "views/models/format.h"
#include "views/models/hierarchymodel.h"
#include "views/models/nodeinspectormodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/diagnosticspanel.h"
#include "views/widgets/graphview.h"
#include "views/widgets/inspectorwidget.h"
#include "views/widgets/searchpanel.h"
#include "views/widgets/summarywidget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>

#include <limits>
#include <utility>

#include "registerallpluginviews.h" // generated: registerAllPluginViews()

namespace tessera::gui {

namespace {
constexpr int kMaxSyncedGroups = 4000; // the outline mirrors view expansion up to this many groups

bool isProjectFile(const QString &path)
{
    return path.endsWith(QLatin1String(".tessera"), Qt::CaseInsensitive);
}

QString droppedModel(const QMimeData *mime)
{
    for (const QUrl &url : mime->urls())
        if (url.isLocalFile() && (url.toLocalFile().endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive) ||
                                  isProjectFile(url.toLocalFile())))
            return url.toLocalFile();
    return {};
}

QString displayName(const QString &path)
{
    const QString name = QFileInfo(path).fileName();
    return isCachedSample(path) ? QObject::tr("%1 (sample)").arg(name) : name;
}
} // namespace

MainWindow::MainWindow(QWidget *parent, const PluginSet &plugins)
    : QMainWindow(parent), m_loader(new ModelLoader(this)), m_graphView(new GraphView(this))
{
    setWindowTitle(tr("Tessera"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setCentralWidget(m_graphView);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    registerBuiltins(m_extensions, &m_pluginProblems, plugins.core ? plugins.core : &registerAllPlugins);
    (plugins.views ? plugins.views : &registerAllPluginViews)(m_planExtensions);
    m_loader->setExtensions(&m_extensions);
    registerBuiltinBackends(m_backends);
    m_state = new views::WorkbenchState(this);
    m_schedule = new ScheduleController(m_schedulers, m_state, this);
    m_schedule->setBackends(&m_backends);
    m_runs = new RunController(m_state, this);
    createActions();
    createDocks();
    m_defaultDockState = saveState(kDockStateVersion);
    createMenus();
    createToolBar();
    createStatusBar();
    connectViews();
    if (!m_pluginProblems.empty())
        showDiagnostics({});
    restoreLayout();
    m_session = new ProjectSession(
        {this, m_loader, m_schedule, m_stepper, m_graphView, &m_devices, &m_extensions, m_comparison}, this);
    connectSession();
    updateScheduleActions();
}

MainWindow::~MainWindow()
{
    // The session saves while every view still exists; closing the docks below would call it back.
    delete std::exchange(m_session, nullptr);
    // Cancel and wait for running work while the registries it uses exist.
    delete std::exchange(m_runs, nullptr);
    delete std::exchange(m_schedule, nullptr);
}

// --- construction (actions and menus: mainwindowactions.cpp; docks: mainwindowdocks.cpp)

void MainWindow::connectViews()
{
    connect(m_loader, &ModelLoader::started, this, &MainWindow::onLoadStarted);
    connect(m_loader, &ModelLoader::progress, this, [this](const QString &stage) {
        statusBar()->showMessage(tr("Loading %1: %2…").arg(displayName(m_loader->source()), stage));
    });
    connect(m_loader, &ModelLoader::finished, this, &MainWindow::onLoadFinished);
    connect(m_loader, &ModelLoader::failed, this, &MainWindow::onLoadFailed);
    connect(m_loader, &ModelLoader::cancelled, this, [this] {
        onLoadEnded();
        statusBar()->showMessage(tr("Loading cancelled"), 5000);
        if (m_session) // a project waiting for this model is dropped
            m_session->modelLoadFailed(Status::error(ErrorCode::Cancelled, "loading cancelled").diagnostic());
    });

    // The graph outlines the state's highlight (search matches, a step's or a stage's nodes).
    connect(m_state, &views::WorkbenchState::highlightChanged, this, [this](bool centre) {
        const std::vector<NodeId> &nodes = m_state->highlighted();
        m_graphView->setHighlighted(nodes);
        if (centre && !nodes.empty())
            m_graphView->centerOnNode(nodes.front());
    });
    // Selection: the graph, the outline, search and diagnostics set the
    // state's; the inspector follows it, and so do the outline and (when the
    // choice came from elsewhere) the graph.
    connect(m_state, &views::WorkbenchState::modelChanged, this, &MainWindow::onModelChanged);
    m_inspector->setState(m_state);
    m_summary->setState(m_state);
    m_search->setState(m_state);
    connect(m_state, &views::WorkbenchState::selectionChanged, this, &MainWindow::onSelectionChanged);
    connect(m_graphView, &GraphView::nodeSelected, m_state, [this](NodeId n) { m_state->selectNode(n); });
    connect(m_graphView, &GraphView::groupSelected, m_state, [this](GroupId g) { m_state->selectGroup(g); });
    connect(m_graphView, &GraphView::layoutStarted, this, [this] { m_layoutLabel->setText(tr("laying out…")); });
    connect(m_graphView, &GraphView::layoutFinished, this, &MainWindow::onLayoutFinished);

    connect(m_outline->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { onOutlineCurrentChanged(current); });
    connect(m_outline, &QTreeView::expanded, this, [this](const QModelIndex &index) {
        if (!m_syncing)
            m_graphView->expandGroup(m_outlineModel->groupAt(index));
    });
    connect(m_outline, &QTreeView::collapsed, this, [this](const QModelIndex &index) {
        if (!m_syncing)
            m_graphView->collapseGroup(m_outlineModel->groupAt(index));
    });

    connect(m_diagnostics, &views::DiagnosticsPanel::nodeRequested, this, [this](const QString &name) {
        if (!m_model)
            return;
        if (const NodeId n = m_model->graph->findNode(name.toStdString()); n != kInvalidId)
            m_state->selectNode(n, /*reveal=*/true);
    });
    connect(m_summary, &views::SummaryWidget::dagWidthReady, this, &MainWindow::maybeTakeScreenshot);

    connect(m_recent, &RecentFiles::fileTriggered, this, &MainWindow::openFile);
    connect(m_recent, &RecentFiles::pruned, this, [this](const QStringList &missing) {
        QStringList names;
        for (const QString &f : missing)
            names << QFileInfo(f).fileName();
        statusBar()->showMessage(
            tr("Removed from Open Recent (file no longer exists): %1").arg(names.join(QStringLiteral(", "))), 8000);
    });

    connect(m_colourBy, &QComboBox::currentIndexChanged, this, &MainWindow::applyOverlay);
    connect(m_logScaleAction, &QAction::toggled, this, &MainWindow::applyOverlay);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    const bool restored = restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()) &&
                          restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kDockStateVersion);
    if (!restored)
        applyDefaultLayout(screen() ? screen()->availableGeometry().size() : QSize(1440, 900));
    unclipDockTabs();
    m_colourBy->setCurrentIndex(
        qBound(0, settings.value(QStringLiteral("view/colourBy"), 0).toInt(), m_colourBy->count() - 1));
    m_logScaleAction->setChecked(settings.value(QStringLiteral("view/logScale"), true).toBool());
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState(kDockStateVersion));
    settings.setValue(QStringLiteral("view/colourBy"), m_colourBy->currentIndex());
    settings.setValue(QStringLiteral("view/logScale"), m_logScaleAction->isChecked());
}

// --- opening -----------------------------------------------------------------

void MainWindow::openFile(const QString &path)
{
    if (isProjectFile(path)) {
        openProject(path);
        return;
    }
    if (!QFileInfo::exists(path)) {
        m_recent->remove(path);
        onLoadFailed(
            Diagnostic{Severity::Error, ErrorCode::Io, "file not found", Location{path.toStdString(), -1, {}, {}}});
        return;
    }
    m_requestedSample.clear();
    m_loader->load(QFileInfo(path).absoluteFilePath());
}

void MainWindow::openProject(const QString &path)
{
    if (!QFileInfo::exists(path))
        m_recent->remove(path);
    // The session shows the message (errorReported); loadFailed carries the
    // error's kind, so `tessera --project missing.tessera` exits 3 like the CLI.
    if (const Status s = m_session->open(path); !s.isOk())
        emit loadFailed(Diagnostic{Severity::Error, s.code(), s.message(), Location{path.toStdString(), -1, {}, {}}});
}

void MainWindow::openSample(const QString &name)
{
    m_requestedSample = name;
    m_loader->loadSample(name);
}

// --- unsaved overrides -------------------------------------------------------

void MainWindow::updateUnsavedSession()
{
    if (m_restoringUnsaved)
        return; // the stored session stays until its overrides are back on screen
    const bool projectHoldsThem = m_session && m_session->isOpen() && !m_session->isReadOnly();
    if (projectHoldsThem || m_schedule->overrides().empty() || !m_model) {
        discardUnsavedSession();
        return;
    }
    UnsavedSession s;
    s.sample = m_sampleName;
    s.model = QString::fromStdString(m_model->path);
    s.algorithm = m_schedule->schedulerName();
    s.device = m_deviceBox->currentData().toString();
    s.options = m_schedule->options();
    s.overrides = m_schedule->overrides();
    if (const Status st = saveUnsavedSession(s); !st.isOk())
        statusBar()->showMessage(QString::fromStdString(st.str()), 10000);
}

bool MainWindow::offerUnsavedSession()
{
    auto stored = loadUnsavedSession();
    if (!stored) {
        reportError(tr("Unsaved overrides"), QString::fromStdString(stored.status().str()));
        return false;
    }
    if (!*stored || !m_interactive)
        return false;
    const UnsavedSession &s = **stored;
    const QDateTime saved = QDateTime::fromString(s.saved, Qt::ISODate);
    const QString what =
        tr("%n override(s) of %1 with %2 on %3, from %4, were not saved in a project.", nullptr,
           static_cast<int>(s.overrides.size()))
            .arg(s.sample.isEmpty() ? QFileInfo(s.model).fileName() : s.sample, s.algorithm, s.device,
                 saved.isValid() ? saved.toLocalTime().toString(QStringLiteral("yyyy-MM-dd hh:mm")) : s.saved);
    const auto answer =
        QMessageBox::question(this, tr("Restore unsaved overrides?"), what + QLatin1Char('\n') + tr("Restore them?"),
                              QMessageBox::Yes | QMessageBox::Discard, QMessageBox::Yes);
    if (answer != QMessageBox::Yes) {
        discardUnsavedSession();
        return false;
    }
    restoreUnsavedSession(s);
    return true;
}

// The setup first (choosing a scheduler clears overrides), then the model;
// the overrides once it is on screen (a new model clears them too).
void MainWindow::restoreUnsavedSession(const UnsavedSession &session)
{
    m_restoringUnsaved = session;
    selectSetup(session.algorithm, session.device);
    m_schedule->setOptions(session.options);
    auto *once = new QObject(this);
    const auto done = [this, once] {
        m_restoringUnsaved.reset();
        once->deleteLater();
    };
    connect(this, &MainWindow::modelLoaded, once, [this, done] {
        if (!m_restoringUnsaved)
            return;
        const Overrides overrides = m_restoringUnsaved->overrides;
        done();
        m_schedule->loadOverrides(overrides); // writes the file again, now from the screen
        statusBar()->showMessage(tr("Restored %n unsaved override(s)", nullptr, static_cast<int>(overrides.size())),
                                 8000);
    });
    connect(this, &MainWindow::loadFailed, once, done); // the file stays for the next start
    if (!session.sample.isEmpty())
        openSample(session.sample);
    else
        openFile(session.model);
}

void MainWindow::openDefault()
{
    const QString recent = m_recent->mostRecent();
    if (recent.isEmpty())
        openSample(QStringLiteral("resnet50"));
    else
        openFile(recent);
}

void MainWindow::onLoadStarted(const QString &source)
{
    m_cancelAction->setEnabled(true);
    statusBar()->showMessage(tr("Loading %1…").arg(displayName(source)));
}

void MainWindow::onLoadEnded()
{
    if (m_loader->isLoading())
        return;
    m_cancelAction->setEnabled(false);
    statusBar()->clearMessage();
}

void MainWindow::onLoadFinished(std::shared_ptr<const views::ModelData> model)
{
    const ActivityScope activity("workbench: show model");
    m_session->modelAboutToChange(); // closes an open project unless this is the model of one opening
    m_awaitingFirstLayout = true;
    m_sampleName = m_requestedSample;
    m_state->setModel(std::move(model)); // every view follows (onModelChanged first)
    const QString path = QString::fromStdString(m_model->path);

    m_summaryDock->raise();
    showDiagnostics(m_model->diagnostics);
    if (!m_model->diagnostics.empty())
        m_diagnosticsDock->raise();

    setWindowFilePath(path);
    if (!isCachedSample(path))
        m_recent->add(path);
    m_modelLabel->setText(tr("%1 nodes · %2 · %3 params")
                              .arg(m_model->graph->nodeCount())
                              .arg(views::formatFlops(m_model->metrics.total.flops),
                                   views::formatCount(static_cast<double>(m_model->metrics.parameters))));
    onLoadEnded();
    statusBar()->showMessage(tr("Loaded %1").arg(displayName(path)), 5000);
    m_session->modelChanged(m_model); // completes a project being opened
    updateTitle();
    updateScheduleActions();
    emit modelLoaded(path);
}

// A new model in the state: the graph first — the panels that follow the
// state next (inspector, summary, search) report node ids of the new model to
// it — then a fresh schedule of it and the outline.
void MainWindow::onModelChanged()
{
    const auto &model = m_model = m_state->model();
    m_graphView->setGraph(model->graph, model->hierarchy);
    m_schedule->loadOverrides({});
    m_schedule->setGraph(model->graph, model->properties);
    m_graphView->setNodeFlops(views::metricValues(model->metrics, views::Metric::Flops));
    applyOverlay();
    m_syncing = true;
    m_outlineModel->setModelData(model);
    m_syncing = false;
}

// The model's diagnostics (and whatever else concerns it), after the scheduler
// plugins that were refused at start-up — those stay listed for the session.
void MainWindow::showDiagnostics(std::vector<Diagnostic> diagnostics)
{
    diagnostics.insert(diagnostics.begin(), m_pluginProblems.begin(), m_pluginProblems.end());
    const std::size_t count = diagnostics.size();
    m_diagnostics->setDiagnostics(std::move(diagnostics));
    m_diagnosticsDock->setWindowTitle(count == 0 ? tr("Diagnostics") : tr("Diagnostics (%1)").arg(count));
}

void MainWindow::raiseDock(const QString &objectName)
{
    if (auto *dock = findChild<QDockWidget *>(objectName)) {
        dock->show();
        dock->raise();
    }
}

// A finished backend run: the open project stores it with the plan it ran —
// unless a newer schedule replaced that plan meanwhile (then the run is shown,
// not stored; the stage view makes the same check for its timeline).
void MainWindow::onBackendRunFinished(const std::shared_ptr<const RunResult> &result)
{
    const std::shared_ptr<const ScheduleRun> ran = m_state->backendRunSchedule();
    if (!result || !m_state->resultIsCurrent()) {
        statusBar()->showMessage(tr("Run finished for an earlier schedule; not stored"), 5000);
        return;
    }
    if (!m_session || !m_session->isOpen() || m_session->isReadOnly())
        return;
    RunRecord record;
    record.backend = m_state->backendRunBackend().toStdString();
    record.latencyMs = result->latencyMs;
    record.metrics = result->metrics;
    const auto stored =
        m_session->recordRun(record, perfettoTraceJson(ran->result.plan, *m_state->graph(), result.get()));
    if (!stored)
        reportError(tr("Cannot store the run"), QString::fromStdString(stored.status().message()));
    else
        statusBar()->showMessage(tr("Run stored in the project"), 3000);
}

void MainWindow::onLoadFailed(const Diagnostic &diagnostic)
{
    onLoadEnded();
    if (m_session->isOpening()) { // the session reports it as a project that cannot be opened
        emit loadFailed(diagnostic);
        m_session->modelLoadFailed(diagnostic);
        return;
    }
    emit loadFailed(diagnostic);
    reportError(tr("Could not open model"), QString::fromStdString(diagnostic.str()));
}

void MainWindow::onLayoutFinished(qint64 ms)
{
    m_layoutLabel->setText(tr("layout %1 ms").arg(ms));
    syncOutlineExpansion();
    if (m_awaitingFirstLayout) {
        m_awaitingFirstLayout = false;
        maybeTakeScreenshot();
    }
}

void MainWindow::maybeTakeScreenshot()
{
    // Wait for both the layout and the summary's DAG width, so the picture is final.
    const bool widthPending =
        m_summary->dagWidth() < 0 && m_model && m_model->graph->nodeCount() <= views::SummaryWidget::kDagWidthNodeLimit;
    const bool projectPending = m_session && (m_session->isOpening() || m_session->isRestoring());
    if (m_screenshotPath.isEmpty() || !m_model || m_awaitingFirstLayout || widthPending || projectPending)
        return;
    const QString path = std::exchange(m_screenshotPath, QString());
    // Let the scene paint once before grabbing it.
    QTimer::singleShot(200, this, [this, path] {
        if (saveScreenshot(path))
            emit screenshotSaved(path);
        else
            reportError(tr("Screenshot failed"), tr("%1: error: could not write the screenshot").arg(path));
    });
}

bool MainWindow::saveScreenshot(const QString &path)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    return grab().save(path);
}

// --- selection ---------------------------------------------------------------

// The state's selection changed (the inspector follows it by itself): the
// graph selects a node chosen elsewhere, the inspector comes forward and the
// outline moves to it.
void MainWindow::onSelectionChanged(bool reveal)
{
    if (!m_model)
        return;
    if (const GroupId group = m_state->selectedGroup(); group >= 0) {
        showGroup(group);
        return;
    }
    const NodeId node = m_state->selectedNode();
    if (reveal)
        m_graphView->selectNode(node); // centres on it
    if (node != kInvalidId)
        showNode(node);
}

void MainWindow::showNode(NodeId node)
{
    m_inspectorDock->raise();
    m_syncing = true;
    const QModelIndex index = m_outlineModel->indexForNode(node);
    m_outline->setCurrentIndex(index);
    m_outline->scrollTo(index);
    m_syncing = false;
}

void MainWindow::showGroup(GroupId group)
{
    m_inspectorDock->raise();
    m_syncing = true;
    const QModelIndex index = m_outlineModel->indexForGroup(group);
    if (index.isValid()) {
        m_outline->setCurrentIndex(index);
        m_outline->scrollTo(index);
    }
    m_syncing = false;
}

void MainWindow::onOutlineCurrentChanged(const QModelIndex &index)
{
    if (m_syncing || !m_model || !index.isValid())
        return;
    if (const NodeId node = m_outlineModel->nodeAt(index); node != kInvalidId)
        m_state->selectNode(node, /*reveal=*/true);
    else if (const GroupId group = m_outlineModel->groupAt(index); group >= 0)
        m_state->selectGroup(group);
}

void MainWindow::syncOutlineExpansion()
{
    if (!m_model || m_model->hierarchy.groups().size() > static_cast<std::size_t>(kMaxSyncedGroups))
        return;
    m_syncing = true;
    for (GroupId g = 1; g < static_cast<GroupId>(m_model->hierarchy.groups().size()); ++g)
        m_outline->setExpanded(m_outlineModel->indexForGroup(g), m_graphView->isExpanded(g));
    m_syncing = false;
}

// --- overlay, export, errors ---------------------------------------------------

std::optional<views::Metric> MainWindow::overlayMetric() const
{
    const QVariant data = m_colourBy->currentData();
    if (!data.isValid() || data.toInt() >= kFacetData)
        return std::nullopt;
    return static_cast<views::Metric>(data.toInt());
}

std::optional<views::PlanFacet> MainWindow::overlayFacet() const
{
    const QVariant data = m_colourBy->currentData();
    if (!data.isValid() || data.toInt() < kFacetData)
        return std::nullopt;
    return static_cast<views::PlanFacet>(data.toInt() - kFacetData);
}

void MainWindow::applyOverlay()
{
    const auto metric = overlayMetric();
    m_logScaleAction->setEnabled(metric.has_value());
    if (!m_model)
        return;
    if (const auto facet = overlayFacet()) {
        const auto run = m_state->lastRun();
        // Only a plan of the graph on screen (a new model's first schedule may still run).
        if (!run || !m_graphView->graph() || run->result.plan.modelHash != modelStructureHash(*m_graphView->graph())) {
            m_graphView->clearOverlay();
            statusBar()->showMessage(tr("Schedule the model to see its plan on the graph"), 5000);
            return;
        }
        views::NodeCategories c = views::planCategories(*m_graphView->graph(), run->result.plan, *facet);
        const QString title = tr("%1 (%2)").arg(views::planFacetName(*facet), QString::number(c.names.size()));
        m_graphView->setCategories(std::move(c.perNode), std::move(c.names), title);
        return;
    }
    if (!metric) {
        m_graphView->clearOverlay();
        return;
    }
    const bool log = m_logScaleAction->isChecked();
    std::vector<double> values = views::metricValues(m_model->metrics, *metric);
    if (log) // log10 has no value for 0 (a Reshape's FLOPs): show such nodes as "no value"
        for (double &v : values)
            if (v <= 0)
                v = std::numeric_limits<double>::quiet_NaN();
    m_graphView->setOverlay(std::move(values), views::metricName(*metric), log);
}

void MainWindow::exportImage(bool svg)
{
    if (!m_model)
        return;
    const QString suffix = svg ? QStringLiteral(".svg") : QStringLiteral(".png");
    const QFileInfo model(QString::fromStdString(m_model->path));
    const QString suggested =
        dialogFolder(QSettings().value(QStringLiteral("lastExportDir")).toString(), model.filePath()) +
        QLatin1Char('/') + model.completeBaseName() + suffix;
    const QString path = QFileDialog::getSaveFileName(this, svg ? tr("Export SVG") : tr("Export PNG"), suggested,
                                                      svg ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"));
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(path).absolutePath());
    const bool ok = svg ? m_graphView->exportSvg(path) : m_graphView->exportPng(path, 2.0);
    if (ok)
        statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    else
        reportError(tr("Export failed"), tr("%1: error: could not write the image").arg(path));
}

void MainWindow::reportError(const QString &title, const QString &message)
{
    statusBar()->showMessage(message, 10000);
    emit errorReported(title, message);
    if (m_interactive)
        QMessageBox::warning(this, title, message);
    else
        qWarning("%s: %s", qPrintable(title), qPrintable(message));
}

void MainWindow::about()
{
    QMessageBox::about(this, tr("About Tessera"),
                       tr("<h3>Tessera %1</h3>"
                          "<p>A workbench for scheduling DNN computational graphs onto accelerators: "
                          "import an ONNX model, explore its structure and costs, and compare schedules.</p>")
                           .arg(QApplication::applicationVersion()));
}

// --- projects, schedule export and import ---------------------------------------

void MainWindow::connectSession()
{
    connect(m_session, &ProjectSession::errorReported, this, &MainWindow::reportError);
    connect(m_session, &ProjectSession::notice, this, [this](const QString &m) { statusBar()->showMessage(m, 10000); });
    connect(m_session, &ProjectSession::saveFailed, this,
            [this](const QString &m) { statusBar()->showMessage(m, 10000); });
    connect(m_session, &ProjectSession::setupRestored, this, &MainWindow::selectSetup);
    connect(m_session, &ProjectSession::runRestored, this,
            [this](const QString &backend, std::shared_ptr<const RunResult> result, const QString &when) {
                m_state->restoreBackendRun(m_state->lastRun(), backend, std::move(result), when);
            });
    connect(m_session, &ProjectSession::opened, this, [this](const QString &path) {
        m_recent->add(path);
        updateTitle();
        statusBar()->showMessage(tr("Opened project %1").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(m_session, &ProjectSession::closed, this, [this] { updateTitle(); });
    connect(m_session, &ProjectSession::restored, this, &MainWindow::maybeTakeScreenshot);
    using views::WorkbenchState;
    for (auto signal : {&WorkbenchState::scheduleStarted, &WorkbenchState::overridesChanged})
        connect(m_state, signal, this, &MainWindow::updateScheduleActions);
    for (auto signal : {&WorkbenchState::overridesChanged, &WorkbenchState::setupChanged})
        connect(m_state, signal, this, &MainWindow::updateUnsavedSession);
    connect(m_session, &ProjectSession::opened, this, &MainWindow::updateUnsavedSession);
    connect(m_session, &ProjectSession::closed, this, &MainWindow::updateUnsavedSession);
    connect(m_state, &WorkbenchState::scheduleFinished, this, &MainWindow::updateScheduleActions);
    connect(m_state, &WorkbenchState::scheduleFailed, this, &MainWindow::updateScheduleActions);
    connect(m_state, &WorkbenchState::scheduleFinished, this, &MainWindow::showPluginViews);
    connect(m_schedule, &ScheduleController::finished, this, [this] {
        const ScheduleController::MeterReport &m = m_schedule->lastMeterReport();
        if (!m.backend.isEmpty())
            statusBar()->showMessage(
                tr("Scheduled with costs measured on %1: %n kernel(s) timed, %2 from the cache", nullptr, m.timed)
                    .arg(m.backend)
                    .arg(m.cacheHits),
                10000);
    });
    connect(m_state, &WorkbenchState::scheduleFinished, this, [this] {
        if (overlayFacet())
            applyOverlay(); // the plan on the graph follows every re-schedule
    });
    // Recording the search costs time and memory, so it starts the first time
    // the explorer is shown and then stays on (no replay on every tab switch).
    connect(m_explorerDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !m_state->searchSpaceRequest()) {
            // A quarter of the core default: NasNet's 867k recorded transitions
            // take ~230 MB (BENCHMARKS.md); parts beyond the cap keep their
            // states and path, and the explorer says so.
            SearchSpaceRequest request;
            request.maxTotalTransitions = 250'000;
            m_state->setSearchSpaceRequest(request);
        }
    });
    connect(m_state, &WorkbenchState::backendRunFinished, this, &MainWindow::onBackendRunFinished);
    connect(m_state, &WorkbenchState::setupChanged, this, [this] {
        if (m_session)
            m_session->syncSetup(); // options edited in the Algorithm dock reach the project at once
    });
}

void MainWindow::updateTitle()
{
    const QString model = m_model ? displayName(QString::fromStdString(m_model->path)) : QString();
    QString title = model.isEmpty() ? tr("Tessera") : tr("%1 — Tessera").arg(model);
    if (m_session->isOpen()) {
        const QString name =
            m_session->isReadOnly() ? tr("%1 [read-only]").arg(m_session->displayName()) : m_session->displayName();
        title = model.isEmpty() ? tr("%1 — Tessera").arg(name) : tr("%1 — %2 — Tessera").arg(name, model);
        m_projectLabel->setText(m_session->isReadOnly()
                                    ? tr("Project: %1 (read-only, changes are not saved)").arg(m_session->displayName())
                                    : tr("Project: %1").arg(m_session->displayName()));
        m_projectLabel->setToolTip(QDir::toNativeSeparators(m_session->path()));
    }
    m_projectLabel->setVisible(m_session->isOpen());
    setWindowTitle(title);
    m_saveProjectAsAction->setEnabled(m_model != nullptr);
    m_newProjectAction->setEnabled(m_model != nullptr);
    m_closeProjectAction->setEnabled(m_session->isOpen());
    m_embedModelAction->setEnabled(m_session->isOpen() && !m_session->isReadOnly() && !m_session->modelIsSample());
    m_embedModelAction->setChecked(m_session->modelIsEmbedded());
    m_embedModelAction->setToolTip(m_session->modelIsSample()
                                       ? tr("The model is a bundled sample, referenced by name and version")
                                       : m_embedModelAction->statusTip());
}

void MainWindow::updateScheduleActions()
{
    const auto run = m_schedule->lastRun();
    const bool current = run && m_model && !m_schedule->isBusy();
    m_exportScheduleAction->setEnabled(current);
    m_exportTimelineAction->setEnabled(current);
    for (const auto &[format, action] : m_exportFormatActions)
        action->setEnabled(current && format->accepts(run->result.plan.algorithm));
    for (const auto &[planAction, action] : m_pluginActions)
        action->setEnabled(current &&
                           views::PlanExtensions::applies(planAction->algorithms, run->result.plan.algorithm));
    m_importOverridesAction->setEnabled(run && m_model);
    if (m_session)
        updateTitle();
}

void MainWindow::selectSetup(const QString &algorithm, const QString &deviceId, const QString &precision,
                             const QString &cost)
{
    if (const int i = m_precisionBox->findData(precision); !precision.isEmpty() && i >= 0)
        m_precisionBox->setCurrentIndex(i);
    if (const int i = m_algorithmBox->findData(algorithm); i >= 0)
        m_algorithmBox->setCurrentIndex(i);
    if (const int i = m_deviceBox->findData(deviceId); i >= 0)
        m_deviceBox->setCurrentIndex(i);
    if (const int i = m_costBox->findData(cost); !cost.isEmpty() && i >= 0)
        m_costBox->setCurrentIndex(i);
}

QString MainWindow::currentModelPath() const
{
    return m_model ? QString::fromStdString(m_model->path) : QString();
}

void MainWindow::chooseProjectFile(bool saveAs)
{
    if (!m_model)
        return;
    QSettings settings;
    const QString dir = dialogFolder(settings.value(QStringLiteral("lastProjectDir")).toString(),
                                     QString::fromStdString(m_model->path));
    const QString suggested = dir + QLatin1Char('/') +
                              QFileInfo(QString::fromStdString(m_model->path)).completeBaseName() +
                              QStringLiteral(".tessera");
    QString path = QFileDialog::getSaveFileName(this, saveAs ? tr("Save Project As") : tr("New Project"), suggested,
                                                tr("Tessera projects (*.tessera)"));
    if (path.isEmpty())
        return;
    if (!isProjectFile(path))
        path += QStringLiteral(".tessera");
    settings.setValue(QStringLiteral("lastProjectDir"), QFileInfo(path).absolutePath());
    // The dialog asked before replacing an existing file.
    (void)(saveAs ? m_session->saveAs(path, true) : m_session->create(path, true));
}

void MainWindow::chooseExportFile(ScheduleExport kind)
{
    if (!m_model || !m_schedule->lastRun())
        return;
    const QFileInfo model(QString::fromStdString(m_model->path));
    const QString dir = dialogFolder(QSettings().value(QStringLiteral("lastExportDir")).toString(), model.filePath());
    const QString algorithm = QString::fromStdString(m_schedule->lastRun()->result.plan.algorithm);
    QString suffix, title, filter;
    switch (kind) {
    case ScheduleExport::Schedule:
        suffix = QStringLiteral(".schedule.json"), title = tr("Export Schedule"), filter = tr("Schedule (*.json)");
        break;
    case ScheduleExport::Timeline:
        suffix = QStringLiteral(".trace.json"), title = tr("Export Timeline"),
        filter = tr("Perfetto / Chrome trace (*.json)");
        break;
    }
    const QString path = QFileDialog::getSaveFileName(
        this, title, dir + QLatin1Char('/') + model.completeBaseName() + QLatin1Char('_') + algorithm + suffix, filter);
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(path).absolutePath());
    (void)exportSchedule(kind, path);
}

void MainWindow::chooseFormatExportFile(const ScheduleFormat &format)
{
    if (!m_model || !m_schedule->lastRun())
        return;
    const QFileInfo model(QString::fromStdString(m_model->path));
    const QString dir = dialogFolder(QSettings().value(QStringLiteral("lastExportDir")).toString(), model.filePath());
    const QString title = QString::fromStdString(format.title);
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export %1").arg(title),
        dir + QLatin1Char('/') + model.completeBaseName() + QLatin1Char('_') +
            QString::fromStdString(m_schedule->lastRun()->result.plan.algorithm + format.suffix),
        QString::fromStdString(format.filter));
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(path).absolutePath());
    QString companion;
    if (format.companion && !(format.companion->find && format.companion->find(m_model->path))) {
        companion = QFileDialog::getOpenFileName(
            this, tr("%1 of %2").arg(QString::fromStdString(format.companion->title), model.fileName()), model.path(),
            QString::fromStdString(format.companion->filter));
        if (companion.isEmpty())
            return;
    }
    (void)exportSchedule(QString::fromStdString(format.name), path, companion);
}

Status MainWindow::exportSchedule(const QString &formatName, const QString &path, const QString &companion)
{
    const auto run = m_schedule->lastRun();
    if (!m_model || !run || run->result.plan.modelHash != modelStructureHash(*m_model->graph))
        return writeExport(path, Status::error(ErrorCode::Usage, "there is no schedule of this model to export",
                                               {.file = path.toStdString()}));
    auto format = m_extensions.scheduleFormat(formatName.toStdString());
    if (!format)
        return writeExport(path, format.status());
    if (Status s = (*format)->checkAlgorithm(run->result.plan.algorithm); !s.isOk())
        return writeExport(path, s.at(Location{.file = path.toStdString()}));
    ScheduleExportRequest request;
    request.run = run.get();
    request.graph = m_model->graph.get();
    request.modelProperties = &m_model->properties;
    request.modelPath = m_model->path;
    request.companion = companion.toStdString();
    return writeExport(path, (*format)->write(request));
}

Status MainWindow::writeExport(const QString &path, Expected<std::string> text)
{
    Status s = text ? writeFileAtomic(path.toStdString(), *text) : text.status();
    if (!s.isOk()) {
        reportError(tr("Export failed"), QString::fromStdString(s.str()));
        return s;
    }
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    return Status::ok();
}

QAction *MainWindow::exportFormatAction(const QString &format) const
{
    for (const auto &[f, action] : m_exportFormatActions)
        if (QString::fromStdString(f->name) == format)
            return action;
    return nullptr;
}

QDockWidget *MainWindow::pluginDock(const QString &objectName) const
{
    for (const auto &[d, dock] : m_pluginDocks)
        if (d->objectName == objectName)
            return dock;
    return nullptr;
}

QAction *MainWindow::pluginAction(const QString &objectName) const
{
    for (const auto &[a, action] : m_pluginActions)
        if (a->objectName == objectName)
            return action;
    return nullptr;
}

views::PlanShown MainWindow::planShown() const
{
    views::PlanShown shown;
    shown.graph = m_schedule->graph();
    shown.run = m_schedule->lastRun();
    shown.device = m_schedule->device();
    shown.backends = &m_backends;
    shown.project = m_session ? m_session->project() : nullptr;
    if (m_model) {
        shown.modelProperties = &m_model->properties;
        shown.modelPath = m_model->path;
    }
    shown.selectNode = [state = m_state](NodeId n) { state->selectNode(n, /*reveal=*/true); };
    shown.highlightNodes = [state = m_state](std::vector<NodeId> nodes) {
        state->setHighlighted(std::move(nodes), /*centre=*/true);
    };
    return shown;
}

void MainWindow::showPluginViews()
{
    const views::PlanShown shown = planShown();
    for (const views::PlanDock &d : m_planExtensions.docks()) {
        const bool applies =
            shown.run && views::PlanExtensions::applies(d.algorithms, shown.run->result.plan.algorithm);
        auto it =
            std::find_if(m_pluginDocks.begin(), m_pluginDocks.end(), [&](const auto &e) { return e.first == &d; });
        QDockWidget *dock = it == m_pluginDocks.end() ? nullptr : it->second;
        if (!applies) {
            if (dock)
                dock->hide();
            continue;
        }
        if (!dock) { // first shown: beside the Stages dock, listed in the View menu
            dock = new QDockWidget(d.title, this);
            dock->setObjectName(d.objectName);
            dock->setWidget(d.create(dock));
            tabifyDockWidget(m_stageDock, dock);
            unclipDockTabs();
            m_viewMenu->addAction(dock->toggleViewAction());
            m_pluginDocks.emplace_back(&d, dock);
        }
        dock->show();
        if (d.show)
            d.show(dock->widget(), shown);
    }
}

Status MainWindow::exportSchedule(ScheduleExport kind, const QString &path)
{
    const auto run = m_schedule->lastRun();
    if (!m_model || !run || run->result.plan.modelHash != modelStructureHash(*m_model->graph))
        return writeExport(path, Status::error(ErrorCode::Usage, "there is no schedule of this model to export",
                                               {.file = path.toStdString()}));
    const Graph &graph = *m_model->graph;
    const QString modelPath = QString::fromStdString(m_model->path);
    std::string text;
    switch (kind) {
    case ScheduleExport::Schedule: {
        const QString model = QFileInfo(path).absoluteDir().relativeFilePath(modelPath);
        text = scheduleDocumentJson(*run, graph, model.toStdString(), m_schedule->options());
        break;
    }
    case ScheduleExport::Timeline: text = timelineJson(*run, graph); break;
    }
    return writeExport(path, std::move(text));
}

Status MainWindow::importOverrides(const QString &path)
{
    const auto fail = [&](Status s) {
        reportError(tr("Could not import overrides"), QString::fromStdString(s.str()));
        return s;
    };
    const auto run = m_schedule->lastRun();
    if (!m_model || !run)
        return fail(Status::error(ErrorCode::Usage, "schedule the model first: overrides answer its decisions",
                                  {.file = path.toStdString()}));
    auto text = readFile(path.toStdString(), std::int64_t(64) << 20);
    if (!text)
        return fail(text.status());
    auto imported = gui::importOverrides(*text, path.toStdString(), *run);
    if (!imported)
        return fail(imported.status());

    std::vector<Diagnostic> diagnostics = m_model->diagnostics;
    diagnostics.insert(diagnostics.end(), imported->rejected.begin(), imported->rejected.end());
    showDiagnostics(diagnostics);
    if (!imported->rejected.empty()) {
        m_diagnosticsDock->show();
        m_diagnosticsDock->raise();
    }
    Overrides changed;
    for (const auto &[key, option] : imported->accepted)
        if (auto it = m_schedule->overrides().find(key); it == m_schedule->overrides().end() || it->second != option)
            changed.emplace(key, option);
    if (!changed.empty()) { // one undo step, one project history step
        m_schedule->undoStack()->beginMacro(
            tr("Import %n override(s) from %1", nullptr, int(changed.size())).arg(QFileInfo(path).fileName()));
        for (const auto &[key, option] : changed)
            m_schedule->setOverride(key, option);
        m_schedule->undoStack()->endMacro();
    }
    statusBar()->showMessage(
        imported->rejected.empty()
            ? tr("Imported %1 override(s) from %2").arg(changed.size()).arg(QFileInfo(path).fileName())
            : tr("Imported %1 override(s) from %2; %3 rejected (see Diagnostics)")
                  .arg(changed.size())
                  .arg(QFileInfo(path).fileName())
                  .arg(imported->rejected.size()),
        8000);
    return Status::ok();
}

// --- events -----------------------------------------------------------------

void MainWindow::closeEvent(QCloseEvent *event)
{
    saveLayout();
    (void)m_session->close(); // saves pending overrides and state; a failure is reported
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (!droppedModel(event->mimeData()).isEmpty())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    const QString path = droppedModel(event->mimeData());
    if (path.isEmpty())
        return;
    event->acceptProposedAction();
    openFile(path);
}

} // namespace tessera::gui
