// MainWindow's actions, menus, toolbar (with the algorithm and device
// pickers) and status bar (see mainwindow.h); the docks are built in
// mainwindowdocks.cpp, the wiring in mainwindow.cpp.
#include "app/gui/mainwindow.h"
#include "app/gui/modelloader.h"
#include "app/gui/projectsession.h"
#include "app/gui/recentfiles.h"
#include "app/gui/schedulecontroller.h"
#include "core/backend/kernelmeter.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/precision.h"
#include "core/plugin/extensions.h"
#include "views/models/metrics.h"
#include "views/widgets/graphview.h"
#include "views/widgets/runcomparisonwidget.h"
#include "views/widgets/searchpanel.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QToolButton>

#include <algorithm>

namespace tessera::gui {

void MainWindow::createActions()
{
    m_openAction = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this);
    m_openAction->setShortcut(QKeySequence::Open);
    m_openAction->setStatusTip(tr("Open an ONNX model"));
    connect(m_openAction, &QAction::triggered, this, [this] {
        QSettings settings;
        QString filters = tr("ONNX models (*.onnx)");
        for (const ModelFormat &f : m_extensions.modelFormats()) {
            QStringList patterns;
            for (const std::string &suffix : f.suffixes)
                patterns << QStringLiteral("*") + QString::fromStdString(suffix);
            filters +=
                QStringLiteral(";;%1 (%2)").arg(QString::fromStdString(f.title), patterns.join(QLatin1Char(' ')));
        }
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open Model"),
            dialogFolder(settings.value(QStringLiteral("lastOpenDir")).toString(), currentModelPath()),
            filters + tr(";;All files (*)"));
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
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open Project"),
            dialogFolder(settings.value(QStringLiteral("lastProjectDir")).toString(), currentModelPath()),
            tr("Tessera projects (*.tessera);;All files (*)"));
        if (path.isEmpty())
            return;
        settings.setValue(QStringLiteral("lastProjectDir"), QFileInfo(path).absolutePath());
        openProject(path);
    });
    m_embedModelAction = new QAction(tr("&Embed the Model in the Project"), this);
    m_embedModelAction->setCheckable(true);
    m_embedModelAction->setStatusTip(tr("Keep a copy of the model file (and its weights) inside the project, so it "
                                        "opens where the file is missing or changed"));
    connect(m_embedModelAction, &QAction::triggered, this, [this](bool on) {
        if (!m_session->setModelEmbedded(on).isOk())
            m_embedModelAction->setChecked(m_session->modelIsEmbedded());
        else
            statusBar()->showMessage(on ? tr("The model is embedded in the project")
                                        : tr("The model is no longer embedded in the project"),
                                     5000);
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
    for (const ScheduleFormat &f : m_extensions.scheduleFormats()) {
        auto *action = new QAction(QString::fromStdString(f.title) + QStringLiteral("…"), this);
        action->setStatusTip(QString::fromStdString(f.summary));
        connect(action, &QAction::triggered, this, [this, &f] { chooseFormatExportFile(f); });
        m_exportFormatActions.emplace_back(&f, action);
    }
    m_importOverridesAction = new QAction(tr("&Overrides…"), this);
    m_importOverridesAction->setStatusTip(tr("Apply decision overrides from a file (an override map or a schedule)"));
    connect(m_importOverridesAction, &QAction::triggered, this, [this] {
        QSettings settings;
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Import Overrides"),
            dialogFolder(settings.value(QStringLiteral("lastExportDir")).toString(), currentModelPath()),
            tr("JSON files (*.json);;All files (*)"));
        if (!path.isEmpty())
            (void)importOverrides(path);
    });
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_openAction);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recent = new RecentFiles(m_recentMenu, this);
    QMenu *samplesMenu = file->addMenu(tr("Open &Sample"));
    for (const SampleNetwork &s : m_extensions.samples()) {
        const QString name = QString::fromStdString(s.info.name);
        QAction *a = samplesMenu->addAction(QString::fromStdString(s.info.title));
        a->setStatusTip(QString::fromStdString(s.info.description));
        connect(a, &QAction::triggered, this, [this, name] { openSample(name); });
    }
    file->addSeparator();
    file->addAction(m_newProjectAction);
    file->addAction(m_openProjectAction);
    file->addAction(m_saveProjectAsAction);
    file->addAction(m_embedModelAction);
    file->addAction(m_closeProjectAction);
    file->addSeparator();
    QMenu *exportMenu = file->addMenu(tr("&Export"));
    exportMenu->addAction(m_exportScheduleAction);
    exportMenu->addAction(m_exportTimelineAction);
    for (const auto &[format, action] : m_exportFormatActions)
        exportMenu->addAction(action);
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
    view->addAction(tr("Reset Layout"), this, [this] {
        restoreState(m_defaultDockState, kDockStateVersion);
        applyDefaultLayout(screen() ? screen()->availableGeometry().size() : size());
    });
    for (QDockWidget *dock :
         {m_outlineDock, m_searchDock, m_inspectorDock, m_summaryDock, m_diagnosticsDock, m_miniMapDock, m_stepperDock,
          m_stageDock, m_runDock, m_metricsDock, m_explorerDock, m_comparisonDock, m_optionsDock})
        view->addAction(dock->toggleViewAction());
    view->addSeparator(); // the plugins' docks join here when first shown (showPluginViews)

    QMenu *schedule = menuBar()->addMenu(tr("&Schedule"));
    QAction *undo = m_schedule->undoAction();
    undo->setShortcut(QKeySequence::Undo);
    QAction *redo = m_schedule->redoAction();
    redo->setShortcut(QKeySequence::Redo);
    schedule->addAction(undo);
    schedule->addAction(redo);
    schedule->addSeparator();
    schedule->addAction(m_comparison->pinAction());
    if (!m_planExtensions.actions().empty())
        schedule->addSeparator();
    for (const views::PlanAction &a : m_planExtensions.actions()) {
        auto *action = schedule->addAction(a.text);
        action->setObjectName(a.objectName);
        action->setStatusTip(a.statusTip);
        connect(action, &QAction::triggered, this, [this, &a] {
            if (m_schedule->lastRun())
                a.trigger(planShown(), this);
        });
        m_pluginActions.emplace_back(&a, action);
    }

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
    // The schedule on the graph: any scheduler's plan, through the ExecutionPlan.
    m_colourBy->insertSeparator(m_colourBy->count());
    for (views::PlanFacet f : views::kAllPlanFacets)
        m_colourBy->addItem(tr("plan: %1").arg(views::planFacetName(f)), kFacetData + static_cast<int>(f));
    m_colourBy->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_colourBy->setToolTip(tr("What the node colours show"));
    bar->addWidget(m_colourBy);
    bar->addAction(m_logScaleAction);
    m_logScaleAction->setEnabled(false);
    m_mainBar = bar;
    m_viewMenu->addAction(bar->toggleViewAction());

    bar = m_scheduleBar = addToolBar(tr("Scheduling"));
    bar->setObjectName(QStringLiteral("scheduleToolBar"));
    bar->setMovable(false);
    createScheduling();
    auto *algoLabel = new QLabel(tr("Schedule with:"), bar);
    algoLabel->setContentsMargins(6, 0, 4, 0);
    bar->addWidget(algoLabel);
    bar->addWidget(m_algorithmBox);
    auto *deviceLabel = new QLabel(tr("on"), bar);
    deviceLabel->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(deviceLabel);
    bar->addWidget(m_deviceBox);
    auto *precisionLabel = new QLabel(tr("at"), bar);
    precisionLabel->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(precisionLabel);
    bar->addWidget(m_precisionBox);
    auto *costLabel = new QLabel(tr("with"), bar);
    costLabel->setContentsMargins(4, 0, 4, 0);
    bar->addWidget(costLabel);
    bar->addWidget(m_costBox);
    m_viewMenu->addAction(bar->toggleViewAction());
}

void MainWindow::fitToolBars()
{
    if (!m_mainBar || !m_scheduleBar)
        return;
    const bool fits = m_mainBar->sizeHint().width() + m_scheduleBar->sizeHint().width() <= width();
    if (!fits && !toolBarBreak(m_scheduleBar))
        insertToolBarBreak(m_scheduleBar);
    else if (fits && toolBarBreak(m_scheduleBar))
        removeToolBarBreak(m_scheduleBar);
}

void MainWindow::resizeEvent(QResizeEvent *event)
{
    QMainWindow::resizeEvent(event);
    fitToolBars();
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
    m_precisionBox = new QComboBox(this);
    for (DType t : {DType::Float32, DType::Float16, DType::BFloat16, DType::Int8}) {
        const QString name = QString::fromUtf8(precisionName(t).data());
        m_precisionBox->addItem(name, name);
    }
    m_precisionBox->setToolTip(tr("Deployment precision: the scheduler sizes buffers and traffic, and the cost model "
                                  "and the simulator pick units and peaks, with float32 tensors as this type "
                                  "(functional backends still compute in float32)"));
    // Estimated costs, or kernels timed on a backend that measures or
    // simulates: the device's default one (named as the device changes) or a
    // named one (`tessera-cli schedule --cost measured [--meter NAME]`).
    m_costBox = new QComboBox(this);
    m_costBox->setObjectName(QStringLiteral("costBox"));
    m_costBox->addItem(tr("estimated costs"), ScheduleController::kEstimated);
    m_costBox->addItem(QString(), ScheduleController::kDefaultMeter);
    for (const IBackend *b : m_backends.all()) {
        const BackendInfo &info = b->info();
        if (info.available && (info.capabilities.measured || info.capabilities.timing))
            m_costBox->addItem(tr("costs %1 on %2")
                                   .arg(info.capabilities.measured ? tr("measured") : tr("simulated"),
                                        QString::fromStdString(info.name)),
                               QString::fromStdString(info.name));
    }
    m_costBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_costBox->setToolTip(tr("Where the scheduler's kernel times come from: the device's cost model, or kernels "
                             "compiled and timed on a backend (slower to schedule; timed kernels are cached, so "
                             "replays after an override are quick)"));
    const auto nameDefaultMeter = [this] {
        const Device *d = m_schedule->device();
        m_costBox->setItemText(1, d ? tr("costs measured (%1)").arg(QString::fromStdString(defaultMeterBackend(*d)))
                                    : tr("costs measured"));
    };
    const auto applyPrecision = [this] {
        if (auto t = precisionFromName(m_precisionBox->currentData().toString().toStdString()))
            m_schedule->setPrecision(*t);
    };
    const auto applyDevice = [this] {
        if (auto d = m_devices.lookup(m_deviceBox->currentData().toString().toStdString()))
            m_schedule->setDevice(*d);
    };
    QSettings settings;
    const int algo =
        m_algorithmBox->findData(settings.value(QStringLiteral("schedule/algorithm"), QStringLiteral("layer-fusion")));
    m_algorithmBox->setCurrentIndex(std::max(0, algo));
    const int dev = m_deviceBox->findData(settings.value(QStringLiteral("schedule/device"), QStringLiteral("stcp920")));
    m_deviceBox->setCurrentIndex(std::max(0, dev));
    applyDevice();
    m_precisionBox->setCurrentIndex(std::max(
        0, m_precisionBox->findData(settings.value(QStringLiteral("schedule/precision"), QStringLiteral("fp32")))));
    applyPrecision();
    nameDefaultMeter();
    m_costBox->setCurrentIndex(std::max(
        0, m_costBox->findData(settings.value(QStringLiteral("schedule/cost"), ScheduleController::kEstimated))));
    m_schedule->setCostMeter(m_costBox->currentData().toString());
    m_schedule->setScheduler(m_algorithmBox->currentData().toString());
    connect(m_algorithmBox, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(QStringLiteral("schedule/algorithm"), m_algorithmBox->currentData());
        m_schedule->loadOverrides({}); // overrides and options belong to one algorithm
        m_schedule->setOptions({});
        m_schedule->setScheduler(m_algorithmBox->currentData().toString());
        if (m_session)
            m_session->syncSetup();
    });
    connect(m_precisionBox, &QComboBox::currentIndexChanged, this, [this, applyPrecision] {
        QSettings().setValue(QStringLiteral("schedule/precision"), m_precisionBox->currentData());
        applyPrecision();
        if (m_session)
            m_session->syncSetup();
    });
    connect(m_costBox, &QComboBox::currentIndexChanged, this, [this] {
        QSettings().setValue(QStringLiteral("schedule/cost"), m_costBox->currentData());
        m_schedule->setCostMeter(m_costBox->currentData().toString());
        if (m_session)
            m_session->syncSetup();
    });
    connect(m_deviceBox, &QComboBox::currentIndexChanged, this, [this, applyDevice, nameDefaultMeter] {
        QSettings().setValue(QStringLiteral("schedule/device"), m_deviceBox->currentData());
        applyDevice();
        nameDefaultMeter();
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

} // namespace tessera::gui
