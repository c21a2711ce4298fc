// MainWindow (see mainwindow.h): builds the docks, menus and toolbar, and
// wires the views together. Selection flows graph → inspector + outline, and
// outline/search/diagnostics → graph; m_syncing stops the echo.
#include "app/gui/mainwindow.h"

#include "app/gui/modelloader.h"
#include "app/gui/projectsession.h"
#include "app/gui/recentfiles.h"
#include "app/gui/samplecache.h"
#include "app/gui/scheduleexport.h"
#include "app/registerbuiltins.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/support/fileio.h"
#include "samples/catalog.h"
#include "views/models/format.h"
#include "views/models/hierarchymodel.h"
#include "views/models/nodeinspectormodel.h"
#include "views/widgets/diagnosticspanel.h"
#include "views/widgets/graphview.h"
#include "views/widgets/inspectorwidget.h"
#include "views/widgets/minimap.h"
#include "views/widgets/optionseditor.h"
#include "views/widgets/runcomparisonwidget.h"
#include "views/widgets/runcontroller.h"
#include "views/widgets/runpanel.h"
#include "views/widgets/schedulecontroller.h"
#include "views/widgets/searchexplorer.h"
#include "views/widgets/searchpanel.h"
#include "views/widgets/stageview.h"
#include "views/widgets/stepperwidget.h"
#include "views/widgets/summarywidget.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>

#include <limits>
#include <utility>

namespace tessera::gui {

namespace {
constexpr int kStateVersion = 1;
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

MainWindow::MainWindow(QWidget *parent)
    : QMainWindow(parent), m_loader(new ModelLoader(this)), m_graphView(new GraphView(this))
{
    setWindowTitle(tr("Tessera"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);
    setCentralWidget(m_graphView);
    setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);

    registerBuiltinSchedulers(m_schedulers, &m_pluginProblems);
    registerBuiltinBackends(m_backends);
    m_schedule = new views::ScheduleController(m_schedulers, this);
    createActions();
    createDocks();
    createMenus();
    createToolBar();
    createStatusBar();
    connectViews();
    if (!m_pluginProblems.empty())
        showDiagnostics({});
    restoreLayout();
    m_session = new ProjectSession({this, m_loader, m_schedule, m_stepper, m_graphView, &m_devices}, this);
    connectSession();
    updateScheduleActions();
}

MainWindow::~MainWindow()
{
    // The session saves while every view still exists; closing the docks below would call it back.
    delete std::exchange(m_session, nullptr);
}

// --- construction ----------------------------------------------------------

void MainWindow::createActions()
{
    m_openAction = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open an ONNX model"));
    connect(m_openAction, &QAction::triggered, this, [this] {
        QSettings settings;
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Model"),
                                                          settings.value(QStringLiteral("lastOpenDir")).toString(),
                                                          tr("ONNX models (*.onnx);;All files (*)"));
        if (path.isEmpty())
            return;
        settings.setValue(QStringLiteral("lastOpenDir"), QFileInfo(path).absolutePath());
        openFile(path);
    });

    m_exportSvgAction = new QAction(tr("Export &SVG…"), this);
    connect(m_exportSvgAction, &QAction::triggered, this, [this] { exportImage(true); });
    m_exportPngAction = new QAction(tr("Export &PNG…"), this);
    connect(m_exportPngAction, &QAction::triggered, this, [this] { exportImage(false); });

    createProjectActions();

    m_quitAction = new QAction(tr("&Quit"), this);
    m_quitAction->setShortcut(QKeySequence::Quit);
    m_quitAction->setMenuRole(QAction::QuitRole);
    connect(m_quitAction, &QAction::triggered, this, &QWidget::close);

    m_cancelAction = new QAction(style()->standardIcon(QStyle::SP_DialogCancelButton), tr("Cancel Loading"), this);
    m_cancelAction->setShortcut(Qt::Key_Escape);
    m_cancelAction->setEnabled(false);
    connect(m_cancelAction, &QAction::triggered, m_loader, &ModelLoader::cancel);

    m_fitAction = new QAction(tr("&Fit"), this);
    m_fitAction->setShortcut(Qt::CTRL | Qt::Key_0);
    m_fitAction->setToolTip(tr("Fit the whole graph in the window (Ctrl+0)"));
    connect(m_fitAction, &QAction::triggered, m_graphView, &GraphView::fitAll);
    m_zoomInAction = new QAction(tr("Zoom &In"), this);
    m_zoomInAction->setShortcut(QKeySequence::ZoomIn);
    connect(m_zoomInAction, &QAction::triggered, m_graphView, &GraphView::zoomIn);
    m_zoomOutAction = new QAction(tr("Zoom &Out"), this);
    m_zoomOutAction->setShortcut(QKeySequence::ZoomOut);
    connect(m_zoomOutAction, &QAction::triggered, m_graphView, &GraphView::zoomOut);
    m_resetZoomAction = new QAction(tr("&Actual Size"), this);
    m_resetZoomAction->setShortcut(Qt::CTRL | Qt::Key_1);
    connect(m_resetZoomAction, &QAction::triggered, m_graphView, &GraphView::resetZoom);

    m_expandAllAction = new QAction(tr("&Expand All"), this);
    m_expandAllAction->setShortcut(Qt::CTRL | Qt::Key_E);
    m_expandAllAction->setToolTip(tr("Expand every group (Ctrl+E)"));
    connect(m_expandAllAction, &QAction::triggered, m_graphView, &GraphView::expandAll);
    m_collapseAllAction = new QAction(tr("&Collapse All"), this);
    m_collapseAllAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_E);
    m_collapseAllAction->setToolTip(tr("Collapse every group (Ctrl+Shift+E)"));
    connect(m_collapseAllAction, &QAction::triggered, m_graphView, &GraphView::collapseAll);

    m_findAction = new QAction(tr("&Find Nodes…"), this);
    m_findAction->setShortcut(QKeySequence::Find);
    connect(m_findAction, &QAction::triggered, this, [this] {
        m_searchDock->show();
        m_searchDock->raise();
        m_search->focusQuery();
    });

    m_logScaleAction = new QAction(tr("Log scale"), this);
    m_logScaleAction->setCheckable(true);
    m_logScaleAction->setChecked(true);
    m_logScaleAction->setToolTip(tr("Map the overlay metric through log10 (costs span orders of magnitude)"));
}

void MainWindow::createDocks()
{
    const auto makeDock = [this](const QString &title, const QString &objectName, QWidget *widget) {
        auto *dock = new QDockWidget(title, this);
        dock->setObjectName(objectName);
        dock->setWidget(widget);
        return dock;
    };
    // Panels whose controls need a wide row (stepper, run, comparison, explorer)
    // scroll instead: a dock's minimum width would otherwise squeeze the outline.
    const auto scrollable = [this](QWidget *widget) {
        auto *scroll = new QScrollArea(this);
        scroll->setWidget(widget);
        scroll->setWidgetResizable(true);
        scroll->setFrameShape(QFrame::NoFrame);
        return scroll;
    };

    m_outlineModel = new views::HierarchyModel(this);
    m_outline = new QTreeView(this);
    m_outline->setModel(m_outlineModel);
    m_outline->setUniformRowHeights(true);
    m_outline->setAlternatingRowColors(true);
    m_outline->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_outline->setTextElideMode(Qt::ElideRight);
    m_outline->setIndentation(14);
    QHeaderView *header = m_outline->header();
    header->setStretchLastSection(false);
    header->setSectionResizeMode(views::HierarchyModel::NameColumn, QHeaderView::Stretch);
    const int digit = m_outline->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_outline->setColumnWidth(views::HierarchyModel::KindColumn, 12 * digit);
    m_outline->setColumnWidth(views::HierarchyModel::NodesColumn, 6 * digit);
    m_outline->setColumnWidth(views::HierarchyModel::FlopsColumn, 12 * digit);

    m_search = new views::SearchPanel(this);
    m_inspector = new views::InspectorWidget(this);
    m_summary = new views::SummaryWidget(this);
    m_diagnostics = new views::DiagnosticsPanel(this);
    m_miniMap = new MiniMap(m_graphView, this);

    m_outlineDock = makeDock(tr("Outline"), QStringLiteral("outlineDock"), m_outline);
    m_searchDock = makeDock(tr("Search"), QStringLiteral("searchDock"), m_search);
    m_summaryDock = makeDock(tr("Model Summary"), QStringLiteral("summaryDock"), m_summary);
    m_inspectorDock = makeDock(tr("Inspector"), QStringLiteral("inspectorDock"), m_inspector);
    m_miniMapDock = makeDock(tr("Mini Map"), QStringLiteral("miniMapDock"), m_miniMap);
    m_diagnosticsDock = makeDock(tr("Diagnostics"), QStringLiteral("diagnosticsDock"), m_diagnostics);

    // Left: outline above search and diagnostics (tabs). Right: summary and
    // inspector (tabs) above the mini map. The graph keeps the full height.
    // Split before tabifying: splitting a tabbed dock only adds another tab.
    addDockWidget(Qt::LeftDockWidgetArea, m_outlineDock);
    splitDockWidget(m_outlineDock, m_searchDock, Qt::Vertical);
    tabifyDockWidget(m_searchDock, m_diagnosticsDock);
    addDockWidget(Qt::RightDockWidgetArea, m_summaryDock);
    splitDockWidget(m_summaryDock, m_miniMapDock, Qt::Vertical);
    tabifyDockWidget(m_summaryDock, m_inspectorDock);
    m_searchDock->raise();
    m_summaryDock->raise();

    // Bottom: the schedule stepper; right: run comparison beside the summary.
    m_stepper = new views::StepperWidget(m_schedule, this);
    m_comparison = new views::RunComparisonWidget(m_schedule, this);
    m_stepperDock = makeDock(tr("Schedule Stepper"), QStringLiteral("stepperDock"), scrollable(m_stepper));
    m_comparisonDock = makeDock(tr("Run Comparison"), QStringLiteral("comparisonDock"), scrollable(m_comparison));
    addDockWidget(Qt::BottomDockWidgetArea, m_stepperDock);
    tabifyDockWidget(m_summaryDock, m_comparisonDock);
    // Right, beside the summary: the algorithm's description and typed options.
    m_optionsEditor = new views::OptionsEditor(m_schedule, this);
    m_optionsDock = makeDock(tr("Algorithm"), QStringLiteral("optionsDock"), scrollable(m_optionsEditor));
    tabifyDockWidget(m_comparisonDock, m_optionsDock);

    // Bottom, beside the stepper (tabs): the schedule's stages with a small toolbar.
    m_stageView = new views::StageView(this);
    auto *stagePanel = new QWidget(this);
    auto *stageLayout = new QVBoxLayout(stagePanel);
    stageLayout->setContentsMargins(0, 0, 0, 0);
    stageLayout->setSpacing(0);
    auto *stageBar = new QToolBar(stagePanel);
    stageBar->setIconSize(QSize(16, 16));
    stageBar->addAction(m_stageView->equalWidthsAction());
    stageBar->addAction(m_stageView->zoomInAction());
    stageBar->addAction(m_stageView->zoomOutAction());
    stageBar->addAction(m_stageView->fitAction());
    stageLayout->addWidget(stageBar);
    stageLayout->addWidget(m_stageView, 1);
    m_stageDock = makeDock(tr("Stages"), QStringLiteral("stageDock"), stagePanel);
    tabifyDockWidget(m_stepperDock, m_stageDock);
    m_runPanel = new views::RunPanel(this);
    m_runPanel->setBackends(&m_backends);
    m_runDock = makeDock(tr("Run"), QStringLiteral("runDock"), scrollable(m_runPanel));
    tabifyDockWidget(m_stageDock, m_runDock);
    m_explorer = new views::SearchExplorer(this);
    m_explorerDock = makeDock(tr("DP Explorer"), QStringLiteral("explorerDock"), scrollable(m_explorer));
    tabifyDockWidget(m_runDock, m_explorerDock);
    m_stepperDock->raise();
    m_summaryDock->raise();

    resizeDocks({m_outlineDock, m_summaryDock}, {380, 390}, Qt::Horizontal);
    resizeDocks({m_stepperDock}, {260}, Qt::Vertical);
    resizeDocks({m_outlineDock, m_searchDock}, {540, 280}, Qt::Vertical);
    resizeDocks({m_summaryDock, m_miniMapDock}, {600, 210}, Qt::Vertical);
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recent = new RecentFiles(m_recentMenu, this);
    QMenu *samplesMenu = file->addMenu(tr("Open &Sample"));
    for (const auto &s : samples::sampleCatalog()) {
        const QString name = QString::fromStdString(s.name);
        QAction *a = samplesMenu->addAction(QString::fromStdString(s.title));
        a->setStatusTip(QString::fromStdString(s.description));
        connect(a, &QAction::triggered, this, [this, name] { openSample(name); });
    }
    file->addSeparator();
    file->addAction(m_newProjectAction);
    file->addAction(m_openProjectAction);
    file->addAction(m_saveProjectAsAction);
    file->addAction(m_closeProjectAction);
    file->addSeparator();
    QMenu *exportMenu = file->addMenu(tr("&Export"));
    exportMenu->addAction(m_exportScheduleAction);
    exportMenu->addAction(m_exportTimelineAction);
    exportMenu->addAction(m_exportIosAction);
    exportMenu->addSeparator();
    exportMenu->addAction(m_exportSvgAction);
    exportMenu->addAction(m_exportPngAction);
    QMenu *importMenu = file->addMenu(tr("&Import"));
    importMenu->addAction(m_importOverridesAction);
    file->addSeparator();
    file->addAction(m_cancelAction);
    file->addSeparator();
    file->addAction(m_quitAction);

    QMenu *view = m_viewMenu = menuBar()->addMenu(tr("&View"));
    view->addAction(m_fitAction);
    view->addAction(m_zoomInAction);
    view->addAction(m_zoomOutAction);
    view->addAction(m_resetZoomAction);
    view->addSeparator();
    view->addAction(m_expandAllAction);
    view->addAction(m_collapseAllAction);
    view->addSeparator();
    view->addAction(m_findAction);
    view->addSeparator();
    for (QDockWidget *dock : {m_outlineDock, m_searchDock, m_inspectorDock, m_summaryDock, m_diagnosticsDock,
                              m_miniMapDock, m_stepperDock, m_stageDock, m_runDock, m_explorerDock,
                              m_comparisonDock, m_optionsDock})
        view->addAction(dock->toggleViewAction());

    QMenu *schedule = menuBar()->addMenu(tr("&Schedule"));
    QAction *undo = m_schedule->undoAction();
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_schedule->redoAction();
    redo->setShortcut(QKeySequence::Redo);
    schedule->addAction(undo);
    schedule->addAction(redo);
    schedule->addSeparator();
    schedule->addAction(m_comparison->pinAction());

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Tessera"), this, &MainWindow::about);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::createToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_openAction);
    bar->addSeparator();
    bar->addAction(m_fitAction);
    bar->addAction(m_zoomInAction);
    bar->addAction(m_zoomOutAction);
    bar->addSeparator();
    bar->addAction(m_expandAllAction);
    bar->addAction(m_collapseAllAction);
    bar->addSeparator();

    auto *label = new QLabel(tr("Colour by:"), bar);
    label->setContentsMargins(6, 0, 4, 0);
    bar->addWidget(label);
    m_colourBy = new QComboBox(bar);
    m_colourBy->addItem(tr("op type"));
    for (views::Metric m : views::kAllMetrics)
        m_colourBy->addItem(views::metricName(m), static_cast<int>(m));
    m_colourBy->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_colourBy->setToolTip(tr("What the node colours show"));
    bar->addWidget(m_colourBy);
    bar->addAction(m_logScaleAction);
    m_logScaleAction->setEnabled(false);
    bar->addSeparator();
    createScheduling();
    auto *algoLabel = new QLabel(tr("Schedule with:"), bar);
    algoLabel->setContentsMargins(6, 0, 4, 0);
    bar->addWidget(algoLabel);
    bar->addWidget(m_algorithmBox);
    auto *deviceLabel = new QLabel(tr("on"), bar);
    deviceLabel->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(deviceLabel);
    bar->addWidget(m_deviceBox);
    m_viewMenu->addAction(bar->toggleViewAction());
}

void MainWindow::createScheduling()
{
    m_algorithmBox = new QComboBox(this);
    for (const IScheduler *s : m_schedulers.all())
        m_algorithmBox->addItem(QString::fromStdString(s->info().title), QString::fromStdString(s->info().name));
    m_algorithmBox->setToolTip(tr("Scheduling algorithm; its steps and decisions appear in the stepper"));
    m_deviceBox = new QComboBox(this);
    for (const Device &d : m_devices.devices())
        m_deviceBox->addItem(QString::fromStdString(d.id), QVariant::fromValue(QString::fromStdString(d.id)));
    m_deviceBox->setToolTip(tr("Target device model"));
    const auto applyDevice = [this] {
        if (auto d = m_devices.lookup(m_deviceBox->currentData().toString().toStdString()))
            m_schedule->setDevice(*d);
    };
    QSettings settings;
    const int algo = m_algorithmBox->findData(settings.value(QStringLiteral("schedule/algorithm"), QStringLiteral("layer-fusion")));
    m_algorithmBox->setCurrentIndex(std::max(0, algo));
    const int dev = m_deviceBox->findData(settings.value(QStringLiteral("schedule/device"), QStringLiteral("stcp920")));
    m_deviceBox->setCurrentIndex(std::max(0, dev));
    applyDevice();
    m_schedule->setScheduler(m_algorithmBox->currentData().toString());
    connect(m_algorithmBox, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(QStringLiteral("schedule/algorithm"), m_algorithmBox->currentData());
        m_schedule->loadOverrides({}); // overrides and options belong to one algorithm
        m_schedule->setOptions({});
        m_schedule->setScheduler(m_algorithmBox->currentData().toString());
        if (m_session)
            m_session->syncSetup();
    });
    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this, applyDevice] {
        QSettings().setValue(QStringLiteral("schedule/device"), m_deviceBox->currentData());
        applyDevice();
        if (m_session)
            m_session->syncSetup();
    });
}

void MainWindow::createStatusBar()
{
    auto *loading = new QWidget(this);
    auto *row = new QHBoxLayout(loading);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(2);
    m_progress = new QProgressBar(loading);
    m_progress->setRange(0, 0); // busy: the import cannot say how far it is
    m_progress->setMaximumWidth(140);
    m_progress->setMaximumHeight(statusBar()->fontMetrics().height() + 4);
    m_progress->setTextVisible(false);
    auto *cancel = new QToolButton(loading);
    cancel->setDefaultAction(m_cancelAction);
    cancel->setAutoRaise(true);
    row->addWidget(m_progress);
    row->addWidget(cancel);
    loading->setVisible(false);
    statusBar()->addPermanentWidget(loading);
    connect(m_cancelAction, &QAction::changed, loading,
            [this, loading] { loading->setVisible(m_cancelAction->isEnabled()); });

    m_modelLabel = new QLabel(tr("No model"), this);
    m_layoutLabel = new QLabel(this);
    m_layoutLabel->setEnabled(false);
    m_projectLabel = new QLabel(this);
    m_projectLabel->setVisible(false);
    statusBar()->addPermanentWidget(m_layoutLabel);
    statusBar()->addPermanentWidget(m_projectLabel);
    statusBar()->addPermanentWidget(m_modelLabel);
}

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

    connect(m_stepper, &views::StepperWidget::stepActivated, this, [this](const std::vector<NodeId> &nodes) {
        m_graphView->setHighlighted(nodes);
        if (!nodes.empty())
            m_graphView->centerOnNode(nodes.front());
    });
    connect(m_graphView, &GraphView::nodeSelected, this, &MainWindow::showNode);
    connect(m_graphView, &GraphView::groupSelected, this, &MainWindow::showGroup);
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

    connect(m_search, &views::SearchPanel::matchesChanged, this,
            [this](const std::vector<NodeId> &matches) { m_graphView->setHighlighted(matches); });
    connect(m_search, &views::SearchPanel::currentMatchChanged, this, [this](NodeId n) {
        m_graphView->selectNode(n);
        showNode(n);
    });
    connect(m_diagnostics, &views::DiagnosticsPanel::nodeRequested, this, [this](const QString &name) {
        if (!m_model)
            return;
        const NodeId n = m_model->graph->findNode(name.toStdString());
        if (n != kInvalidId) {
            m_graphView->selectNode(n);
            showNode(n);
        }
    });
    connect(m_summary, &views::SummaryWidget::dagWidthReady, this, &MainWindow::maybeTakeScreenshot);

    connect(m_recent, &RecentFiles::fileTriggered, this, &MainWindow::openFile);
    connect(m_recent, &RecentFiles::pruned, this, [this](const QStringList &missing) {
        QStringList names;
        for (const QString &f : missing)
            names << QFileInfo(f).fileName();
        statusBar()->showMessage(tr("Removed from Open Recent (file no longer exists): %1").arg(names.join(QStringLiteral(", "))),
                                 8000);
    });

    connect(m_colourBy, &QComboBox::currentIndexChanged, this, &MainWindow::applyOverlay);
    connect(m_logScaleAction, &QAction::toggled, this, &MainWindow::applyOverlay);
}

void MainWindow::restoreLayout()
{
    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray()))
        resize(1440, 900);
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray(), kStateVersion);
    m_colourBy->setCurrentIndex(qBound(0, settings.value(QStringLiteral("view/colourBy"), 0).toInt(),
                                       m_colourBy->count() - 1));
    m_logScaleAction->setChecked(settings.value(QStringLiteral("view/logScale"), true).toBool());
}

void MainWindow::saveLayout() const
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState(kStateVersion));
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
        onLoadFailed(Diagnostic{Severity::Error, ErrorCode::Io, "file not found", Location{path.toStdString(), -1, {}, {}}});
        return;
    }
    m_loader->load(QFileInfo(path).absoluteFilePath());
}

void MainWindow::openProject(const QString &path)
{
    if (!QFileInfo::exists(path))
        m_recent->remove(path);
    (void)m_session->open(path); // reported through errorReported
}

void MainWindow::openSample(const QString &name)
{
    m_loader->loadSample(name);
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
    m_session->modelAboutToChange(); // closes an open project unless this is the model of one opening
    m_model = std::move(model);
    const QString path = QString::fromStdString(m_model->path);

    // The graph first: the panels below report node ids of the new model to it.
    m_awaitingFirstLayout = true;
    m_graphView->setGraph(m_model->graph, m_model->hierarchy);
    m_schedule->loadOverrides({});
    m_schedule->setGraph(m_model->graph, m_model->properties);
    m_graphView->setNodeFlops(views::metricValues(m_model->metrics, views::Metric::Flops));
    applyOverlay();

    m_syncing = true;
    m_outlineModel->setModelData(m_model);
    m_syncing = false;
    m_inspector->clearSelection();
    m_summary->setModelData(m_model);
    m_summaryDock->raise();
    m_search->setModelData(m_model); // re-runs the query: highlights follow
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

// A finished backend run: its measured timeline replaces the estimate in the
// stage view, and the open project stores it with the plan it ran — unless a
// newer schedule replaced that plan meanwhile (then the run is shown, not stored).
void MainWindow::onBackendRunFinished(const std::shared_ptr<const RunResult> &result)
{
    const std::shared_ptr<const ScheduleRun> ran = std::exchange(m_runningSchedule, nullptr);
    if (!result || !ran || ran != m_schedule->lastRun()) {
        statusBar()->showMessage(tr("Run finished for an earlier schedule; not stored"), 5000);
        return;
    }
    m_stageView->setTimeline(result->timeline);
    if (!m_session || !m_session->isOpen() || m_session->isReadOnly())
        return;
    RunRecord record;
    record.backend = m_runPanel->selectedBackend().toStdString();
    record.latencyMs = result->latencyMs;
    record.metrics = result->metrics;
    const auto stored =
        m_session->recordRun(record, perfettoTraceJson(ran->result.plan, *m_schedule->graph(), result.get()));
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
    const bool widthPending = m_summary->dagWidth() < 0 && m_model &&
                              m_model->graph->nodeCount() <= views::SummaryWidget::kDagWidthNodeLimit;
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

void MainWindow::showNode(NodeId node)
{
    if (!m_model)
        return;
    if (node == kInvalidId) {
        m_inspector->clearSelection();
        return;
    }
    if (m_inspector->model()->currentNode() != node)
        m_inspector->showNode(m_model, node);
    m_inspectorDock->raise();
    m_syncing = true;
    const QModelIndex index = m_outlineModel->indexForNode(node);
    m_outline->setCurrentIndex(index);
    m_outline->scrollTo(index);
    m_syncing = false;
}

void MainWindow::showGroup(GroupId group)
{
    if (!m_model || group < 0)
        return;
    m_inspector->showGroup(m_model, group);
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
    const NodeId node = m_outlineModel->nodeAt(index);
    if (node != kInvalidId) {
        m_graphView->selectNode(node); // centres on it
        showNode(node);
    } else {
        showGroup(m_outlineModel->groupAt(index));
    }
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
    if (!data.isValid())
        return std::nullopt;
    return static_cast<views::Metric>(data.toInt());
}

void MainWindow::applyOverlay()
{
    const auto metric = overlayMetric();
    m_logScaleAction->setEnabled(metric.has_value());
    if (!m_model)
        return;
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
    const QString suggested = QSettings().value(QStringLiteral("lastExportDir"), QDir::homePath()).toString() +
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

void MainWindow::createProjectActions()
{
    m_newProjectAction = new QAction(tr("&New Project…"), this);
    m_newProjectAction->setShortcut(QKeySequence::New);
    m_newProjectAction->setStatusTip(tr("Save the model, algorithm, device, options and overrides as a project"));
    connect(m_newProjectAction, &QAction::triggered, this, [this] { chooseProjectFile(false); });
    m_openProjectAction = new QAction(tr("Open &Project…"), this);
    m_openProjectAction->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_O);
    connect(m_openProjectAction, &QAction::triggered, this, [this] {
        QSettings settings;
        const QString path = QFileDialog::getOpenFileName(this, tr("Open Project"),
                                                          settings.value(QStringLiteral("lastProjectDir")).toString(),
                                                          tr("Tessera projects (*.tessera);;All files (*)"));
        if (path.isEmpty())
            return;
        settings.setValue(QStringLiteral("lastProjectDir"), QFileInfo(path).absolutePath());
        openProject(path);
    });
    m_saveProjectAsAction = new QAction(tr("Save Project &As…"), this);
    m_saveProjectAsAction->setShortcut(QKeySequence::SaveAs);
    connect(m_saveProjectAsAction, &QAction::triggered, this, [this] { chooseProjectFile(true); });
    m_closeProjectAction = new QAction(tr("Close Pro&ject"), this);
    connect(m_closeProjectAction, &QAction::triggered, this, [this] { (void)m_session->close(); });

    m_exportScheduleAction = new QAction(tr("Schedule (&JSON)…"), this);
    m_exportScheduleAction->setStatusTip(tr("The last schedule as a schedule document (docs/schedule-schema.json)"));
    connect(m_exportScheduleAction, &QAction::triggered, this, [this] { chooseExportFile(ScheduleExport::Schedule); });
    m_exportTimelineAction = new QAction(tr("&Timeline (Perfetto JSON)…"), this);
    m_exportTimelineAction->setStatusTip(tr("The last schedule's estimated timeline, for ui.perfetto.dev"));
    connect(m_exportTimelineAction, &QAction::triggered, this, [this] { chooseExportFile(ScheduleExport::Timeline); });
    m_exportIosAction = new QAction(tr("&IOS Schedule…"), this);
    m_exportIosAction->setStatusTip(tr("The last IOS schedule in the IOS artifact's format"));
    connect(m_exportIosAction, &QAction::triggered, this, [this] { chooseExportFile(ScheduleExport::Ios); });
    m_importOverridesAction = new QAction(tr("&Overrides…"), this);
    m_importOverridesAction->setStatusTip(tr("Apply decision overrides from a file (an override map or a schedule)"));
    connect(m_importOverridesAction, &QAction::triggered, this, [this] {
        QSettings settings;
        const QString path = QFileDialog::getOpenFileName(this, tr("Import Overrides"),
                                                          settings.value(QStringLiteral("lastExportDir")).toString(),
                                                          tr("JSON files (*.json);;All files (*)"));
        if (!path.isEmpty())
            (void)importOverrides(path);
    });
}

void MainWindow::connectSession()
{
    connect(m_session, &ProjectSession::errorReported, this, &MainWindow::reportError);
    connect(m_session, &ProjectSession::notice, this, [this](const QString &m) { statusBar()->showMessage(m, 10000); });
    connect(m_session, &ProjectSession::saveFailed, this,
            [this](const QString &m) { statusBar()->showMessage(m, 10000); });
    connect(m_session, &ProjectSession::setupRestored, this, &MainWindow::selectSetup);
    connect(m_session, &ProjectSession::opened, this, [this](const QString &path) {
        m_recent->add(path);
        updateTitle();
        statusBar()->showMessage(tr("Opened project %1").arg(QFileInfo(path).fileName()), 5000);
    });
    connect(m_session, &ProjectSession::closed, this, [this] { updateTitle(); });
    connect(m_session, &ProjectSession::restored, this, &MainWindow::maybeTakeScreenshot);
    for (auto signal : {&views::ScheduleController::started, &views::ScheduleController::overridesChanged})
        connect(m_schedule, signal, this, &MainWindow::updateScheduleActions);
    connect(m_schedule, &views::ScheduleController::finished, this, &MainWindow::updateScheduleActions);
    connect(m_schedule, &views::ScheduleController::finished, this,
            [this](const std::shared_ptr<const ScheduleRun> &run) {
                m_stageView->setRun(m_schedule->graph(), run, m_schedule->device());
                m_runPanel->setPlan(m_schedule->graph(), run);
                m_explorer->setSearchSpace(run);
            });
    // Recording the search costs time and memory, so it starts the first time
    // the explorer is shown and then stays on (no replay on every tab switch).
    connect(m_explorerDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible && !m_schedule->searchSpaceRequest()) {
            // A quarter of the core default: NasNet's 867k recorded transitions
            // take ~230 MB (BENCHMARKS.md); parts beyond the cap keep their
            // states and path, and the explorer says so.
            SearchSpaceRequest request;
            request.maxTotalTransitions = 250'000;
            m_schedule->setSearchSpaceRequest(request);
        }
    });
    connect(m_explorer, &views::SearchExplorer::nodesSelected, this, [this](const std::vector<NodeId> &nodes) {
        m_graphView->setHighlighted(nodes);
        if (!nodes.empty())
            m_graphView->centerOnNode(nodes.front());
    });
    connect(m_explorer, &views::SearchExplorer::overrideRequested, this,
            [this](const std::string &key, const std::string &option) { m_schedule->setOverride(key, option); });
    connect(m_runPanel->controller(), &views::RunController::started, this,
            [this] { m_runningSchedule = m_schedule->lastRun(); });
    connect(m_runPanel, &views::RunPanel::runFinished, this, &MainWindow::onBackendRunFinished);
    connect(m_schedule, &views::ScheduleController::setupChanged, this, [this] {
        if (m_session)
            m_session->syncSetup(); // options edited in the Algorithm dock reach the project at once
    });
    connect(m_stageView, &views::StageView::nodesSelected, this, [this](const std::vector<NodeId> &nodes) {
        m_graphView->setHighlighted(nodes);
        if (!nodes.empty())
            m_graphView->centerOnNode(nodes.front());
    });
    connect(m_stageView, &views::StageView::overrideRequested, this,
            [this](const std::string &key, const std::string &option) { m_schedule->setOverride(key, option); });
    connect(m_schedule, &views::ScheduleController::failed, this, &MainWindow::updateScheduleActions);
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
}

void MainWindow::updateScheduleActions()
{
    const auto run = m_schedule->lastRun();
    const bool current = run && m_model && !m_schedule->isBusy();
    m_exportScheduleAction->setEnabled(current);
    m_exportTimelineAction->setEnabled(current);
    m_exportIosAction->setEnabled(current && isIosAlgorithm(run->result.plan.algorithm));
    m_importOverridesAction->setEnabled(run && m_model);
    if (m_session)
        updateTitle();
}

void MainWindow::selectSetup(const QString &algorithm, const QString &deviceId)
{
    if (const int i = m_algorithmBox->findData(algorithm); i >= 0)
        m_algorithmBox->setCurrentIndex(i);
    if (const int i = m_deviceBox->findData(deviceId); i >= 0)
        m_deviceBox->setCurrentIndex(i);
}

void MainWindow::chooseProjectFile(bool saveAs)
{
    if (!m_model)
        return;
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("lastProjectDir"), QDir::homePath()).toString();
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
    const QString dir = QSettings().value(QStringLiteral("lastExportDir"), QDir::homePath()).toString();
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
    case ScheduleExport::Ios:
        suffix = QStringLiteral(".ios.json"), title = tr("Export IOS Schedule"), filter = tr("IOS schedule (*.json)");
        break;
    }
    const QString path = QFileDialog::getSaveFileName(
        this, title, dir + QLatin1Char('/') + model.completeBaseName() + QLatin1Char('_') + algorithm + suffix, filter);
    if (path.isEmpty())
        return;
    QSettings().setValue(QStringLiteral("lastExportDir"), QFileInfo(path).absolutePath());
    QString config;
    if (kind == ScheduleExport::Ios && !iosConfigFor(model.filePath()).isOk()) {
        config = QFileDialog::getOpenFileName(this, tr("IOS Graph Config of %1").arg(model.fileName()), model.path(),
                                              tr("IOS graph configs (*.json)"));
        if (config.isEmpty())
            return;
    }
    (void)exportSchedule(kind, path, config);
}

Status MainWindow::exportSchedule(ScheduleExport kind, const QString &path, const QString &iosConfig)
{
    const auto run = m_schedule->lastRun();
    const auto fail = [&](Status s) {
        reportError(tr("Export failed"), QString::fromStdString(s.str()));
        return s;
    };
    if (!m_model || !run || run->result.plan.modelHash != modelStructureHash(*m_model->graph))
        return fail(Status::error(ErrorCode::Usage, "there is no schedule of this model to export",
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
    case ScheduleExport::Ios: {
        if (!isIosAlgorithm(run->result.plan.algorithm))
            return fail(Status::error(ErrorCode::Usage,
                                      "the last schedule was made by '" + run->result.plan.algorithm +
                                          "', not ios: schedule with ios to export an ios schedule",
                                      {.file = path.toStdString()}));
        auto config = iosConfig.isEmpty() ? iosConfigFor(modelPath) : readFile(iosConfig.toStdString(), 256 << 20);
        if (!config)
            return fail(config.status());
        const std::string name = QFileInfo(modelPath).completeBaseName().toStdString() + "_ios";
        auto ios = iosScheduleJson(*run, graph, m_model->properties, *config, name);
        if (!ios)
            return fail(ios.status());
        text = std::move(*ios);
        break;
    }
    }
    if (Status s = writeFileAtomic(path.toStdString(), text); !s.isOk())
        return fail(s);
    statusBar()->showMessage(tr("Exported %1").arg(QDir::toNativeSeparators(path)), 5000);
    return Status::ok();
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
