// MainWindow's docks (see mainwindow.h): every panel is built here, given
// the WorkbenchState it follows, and placed; the wiring is in mainwindow.cpp.
#include "app/gui/mainwindow.h"
#include "app/gui/schedulecontroller.h"
#include "views/models/hierarchymodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/diagnosticspanel.h"
#include "views/widgets/graphview.h"
#include "views/widgets/inspectorwidget.h"
#include "views/widgets/metricspanel.h"
#include "views/widgets/minimap.h"
#include "views/widgets/optionseditor.h"
#include "views/widgets/runcomparisonwidget.h"
#include "views/widgets/runpanel.h"
#include "views/widgets/searchexplorer.h"
#include "views/widgets/searchpanel.h"
#include "views/widgets/stageview.h"
#include "views/widgets/stepperwidget.h"
#include "views/widgets/summarywidget.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QScrollArea>
#include <QTabBar>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>

namespace tessera::gui {

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
    m_summaryDock = makeDock(tr("Summary"), QStringLiteral("summaryDock"), m_summary);
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
    m_stepper = new views::StepperWidget(m_state, m_schedule->undoStack(), this);
    m_comparison = new views::RunComparisonWidget(m_state, this);
    m_stepperDock = makeDock(tr("Stepper"), QStringLiteral("stepperDock"), scrollable(m_stepper));
    m_comparisonDock = makeDock(tr("Comparison"), QStringLiteral("comparisonDock"), scrollable(m_comparison));
    addDockWidget(Qt::BottomDockWidgetArea, m_stepperDock);
    tabifyDockWidget(m_summaryDock, m_comparisonDock);
    // Right, beside the summary: the algorithm's description and typed options.
    m_optionsEditor = new views::OptionsEditor(m_state, this);
    m_optionsDock = makeDock(tr("Algorithm"), QStringLiteral("optionsDock"), scrollable(m_optionsEditor));
    tabifyDockWidget(m_comparisonDock, m_optionsDock);

    // Bottom, beside the stepper (tabs): the schedule's stages with a small toolbar.
    m_stageView = new views::StageView(this);
    m_stageView->setState(m_state);
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
    m_runPanel = new views::RunPanel(m_state, this);
    m_runPanel->setBackends(&m_backends);
    m_runDock = makeDock(tr("Run"), QStringLiteral("runDock"), scrollable(m_runPanel));
    tabifyDockWidget(m_stageDock, m_runDock);
    // Beside the run: its live charts (throughput, occupancy, utilisation).
    m_metricsPanel = new views::MetricsPanel(m_state, this);
    m_metricsDock = makeDock(tr("Metrics"), QStringLiteral("metricsDock"), m_metricsPanel);
    tabifyDockWidget(m_runDock, m_metricsDock);
    m_explorer = new views::SearchExplorer(this);
    m_explorer->setState(m_state);
    m_explorerDock = makeDock(tr("DP Explorer"), QStringLiteral("explorerDock"), scrollable(m_explorer));
    tabifyDockWidget(m_metricsDock, m_explorerDock);
    m_stepperDock->raise();
    m_summaryDock->raise();
}

// The first-start arrangement for a screen of `available` size: the window
// fills it, the bottom docks (stepper, stages, run, plugins' views) span the
// whole width so a step list and its details are readable side by side even
// at 1366×768, and the side docks take a quarter of the width each.
void MainWindow::applyDefaultLayout(const QSize &available)
{
    const QSize size = available.expandedTo(QSize(800, 560));
    resize(size);
    fitToolBars(); // the scheduling pickers' row, if the width needs one, before the docks share the height
    setCorner(Qt::BottomLeftCorner, Qt::BottomDockWidgetArea);
    setCorner(Qt::BottomRightCorner, Qt::BottomDockWidgetArea);
    const int side = std::clamp(size.width() / 4, 280, 460);
    resizeDocks({m_outlineDock, m_summaryDock}, {side, side}, Qt::Horizontal);
    const int bottom = std::clamp(size.height() / 3, 220, 420);
    resizeDocks({m_stepperDock}, {bottom}, Qt::Vertical);
    const int sideHeight = size.height() - bottom; // what the side docks share above the bottom ones
    resizeDocks({m_outlineDock, m_searchDock}, {sideHeight * 62 / 100, sideHeight * 38 / 100}, Qt::Vertical);
    // A third to the MiniMap: usable under a second toolbar row at 1366×768.
    resizeDocks({m_summaryDock, m_miniMapDock}, {sideHeight * 66 / 100, sideHeight * 34 / 100}, Qt::Vertical);
    unclipDockTabs();
}

// Tabs of docks show their whole title and scroll when they do not fit:
// Qt's default elides them to "Inspec…", which reads as nothing.
void MainWindow::unclipDockTabs()
{
    for (QTabBar *bar : findChildren<QTabBar *>(QString(), Qt::FindDirectChildrenOnly)) {
        bar->setElideMode(Qt::ElideNone);
        bar->setUsesScrollButtons(true);
    }
}

} // namespace tessera::gui
