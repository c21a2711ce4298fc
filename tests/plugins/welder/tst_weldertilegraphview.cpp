// The Welder tile-graph dock (plugins/welder/gui): edges coloured by the level they are connected
// at, nodes labelled with their tiles, the Fig. 5 drill-down (L0 ⊇ L1 ⊇ L2 groups), a click
// selecting the node, traffic per level before/after connecting; screenshots for a person to look at.
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "plugins/welder/gui/fusionpatterns.h"
#include "plugins/welder/gui/tilegraphpanel.h"
#include "plugins/welder/gui/tilegraphview.h"
#include "plugins/welder/gui/weldergui.h"
#include "plugins/welder/welder.h"
#include "views/widgets/planextensions.h"

#include <QComboBox>
#include <QImage>
#include <QtTest>

#include "tests/common/screenshots.h"
#include "tests/plugins/welder/weldertest.h"

using namespace tessera;

class TestWelderTileGraphView : public QObject
{
    Q_OBJECT

    ScheduleRun schedule(const Graph &g, const std::string &variant)
    {
        auto dev = DeviceRegistry::standard().lookup("nvidia-v100");
        ScheduleSetup s;
        s.options["variant"] = variant;
        auto run = scheduleGraph(g, *dev, *createWelderScheduler(), s);
        if (!run)
            qFatal("%s", run.status().str().c_str());
        return *run;
    }

private slots:
    void connectedEdgesAreColouredByLevel()
    {
        const Graph g = weldertest::convReluPool(8, 16, 32);
        const ScheduleRun run = schedule(g, "welder");
        welder::TileGraphView view;
        view.setRun(g, run);
        view.setGroupDepth(1);
        view.resize(view.sizeHint());
        int connected = 0;
        for (const auto &[e, level] : view.edgeLevels())
            connected += level != QLatin1String("HBM");
        QVERIFY(connected >= 1);
        QVERIFY(view.nodeLabel(g.findNode("pool")).startsWith(QLatin1String("out ")));
        const QImage img = view.grab().toImage();
        QVERIFY(img.save(testshots::screenshotPath(QStringLiteral("welder-tilegraph.png"))));
        // Some pixel carries a connected level's colour.
        bool coloured = false;
        for (int y = 0; y < img.height() && !coloured; y += 1)
            for (int x = 0; x < img.width() && !coloured; ++x) {
                const QColor c = img.pixelColor(x, y);
                coloured = c == welder::TileGraphView::levelColor(QStringLiteral("SMEM")) ||
                           c == welder::TileGraphView::levelColor(QStringLiteral("REG"));
            }
        QVERIFY(coloured);
    }

    // Twin: welder-none connects nothing — every edge is drawn at the slowest level.
    void unconnectedPlanShowsOnlyGlobalEdges()
    {
        const Graph g = testgraphs::residualChain(1);
        const ScheduleRun run = schedule(g, "none");
        welder::TileGraphView view;
        view.setRun(g, run);
        view.resize(view.sizeHint());
        for (const auto &[e, level] : view.edgeLevels())
            QCOMPARE(level, QStringLiteral("HBM"));
        QVERIFY(view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-none.png"))));
    }

    // Table 4: the two residual blocks fuse alike — one pattern seen twice.
    void fusionPatternsCountRepeatedKernels()
    {
        const Graph g = testgraphs::residualChain(3);
        const ScheduleRun run = schedule(g, "welder");
        const auto patterns = welder::fusionPatterns(g, run.result.plan);
        QVERIFY(!patterns.empty());
        QVERIFY2(patterns.front().occurrences >= 2, patterns.front().ops.c_str());
        QVERIFY(patterns.front().opCount >= 2);
        welder::FusionPatternView view;
        view.setPlan(g, run.result.plan);
        view.resize(640, 160);
        QCOMPARE(view.rowCount(), int(patterns.size()));
        QVERIFY(view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-fusionpatterns.png"))));
        // Twin: welder-none fuses nothing, so there is no pattern.
        QVERIFY(welder::fusionPatterns(g, schedule(g, "none").result.plan).empty());
    }

    // Fig. 5 drill-down: the level-0 groups are the plan's kernels, and every group one level up
    // lies inside one group of the level below (L0 ⊇ L1 ⊇ L2).
    void drillDownGroupsNestLevelByLevel()
    {
        const Graph g = testgraphs::residualChain(2);
        const ScheduleRun run = schedule(g, "welder");
        welder::TileGraphView view;
        view.setRun(g, run);
        QCOMPARE(view.levelNames(), QStringList({"HBM", "SMEM", "REG"}));
        QCOMPARE(view.groups(0).size(), run.result.plan.kernels.size());
        for (int l = 0; l + 1 < view.levelNames().size(); ++l)
            for (const auto &inner : view.groups(l + 1)) {
                bool inside = false;
                for (const auto &outer : view.groups(l))
                    inside |= std::all_of(inner.begin(), inner.end(), [&](NodeId n) {
                        return std::find(outer.begin(), outer.end(), n) != outer.end();
                    });
                QVERIFY(inside);
            }
        QVERIFY(view.groups(0).front().size() >= 2); // a block's operators share a kernel
        view.setGroupDepth(2);
        view.resize(view.sizeHint());
        QVERIFY(view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-groups.png"))));
        // Fig. 2/5: Matmul → Softmax connect at shared memory: one L0 kernel, two L1 sub-graphs.
        const Graph ms = weldertest::matmulSoftmax(4096);
        view.setRun(ms, schedule(ms, "welder"));
        QCOMPARE(view.groups(0).size(), std::size_t{1});
        QCOMPARE(view.groups(1).size(), std::size_t{2});
        view.resize(view.sizeHint());
        QVERIFY(view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-fig5.png"))));
        // Twin: welder-none connects nothing — every group at every level is one operator.
        const ScheduleRun none = schedule(g, "none");
        view.setRun(g, none);
        QCOMPARE(view.groups(0).size(), g.nodeCount());
    }

    // Clicking a node selects it in the graph view (the callback the workbench passes).
    void clickingANodeSelectsIt()
    {
        const Graph g = weldertest::convReluPool(8, 16, 32);
        const ScheduleRun run = schedule(g, "welder");
        welder::TileGraphView view;
        view.setRun(g, run);
        view.resize(view.sizeHint());
        std::vector<NodeId> selected;
        view.setSelectNode([&](NodeId n) { selected.push_back(n); });
        const NodeId relu = g.findNode("relu");
        QTest::mouseClick(&view, Qt::LeftButton, {}, view.nodeRect(relu).center().toPoint());
        QCOMPARE(selected, std::vector<NodeId>{relu});
        QCOMPARE(view.selectedNode(), relu);
        QVERIFY(view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-selected.png"))));
        // Twin: a click off the nodes selects nothing.
        QTest::mouseClick(&view, Qt::LeftButton, {}, QPoint(2, 2));
        QCOMPARE(selected.size(), std::size_t{1});
        QCOMPARE(view.selectedNode(), kInvalidId);

        // The dock as the workbench makes it: PlanShown::selectNode reaches the click.
        views::PlanExtensions ext;
        registerWelderPluginViews(ext);
        const views::PlanDock *dock = nullptr;
        for (const views::PlanDock &d : ext.docks())
            if (d.objectName == QLatin1String("welderTileGraphDock"))
                dock = &d;
        QVERIFY(dock);
        std::unique_ptr<QWidget> widget(dock->create(nullptr));
        views::PlanShown shown;
        shown.graph = std::make_shared<const Graph>(g);
        shown.run = std::make_shared<const ScheduleRun>(run);
        std::vector<NodeId> fromDock;
        shown.selectNode = [&](NodeId n) { fromDock.push_back(n); };
        dock->show(widget.get(), shown);
        auto *panel = static_cast<welder::TileGraphPanel *>(widget.get());
        const NodeId pool = g.findNode("pool");
        QTest::mouseClick(panel->view(), Qt::LeftButton, {}, panel->view()->nodeRect(pool).center().toPoint());
        QCOMPARE(fromDock, std::vector<NodeId>{pool});
    }

    // §3.2: connecting moves traffic from global memory up a level; the panel shows both.
    void trafficPerLevelBeforeAndAfterConnecting()
    {
        const Graph g = testgraphs::residualChain(2);
        const ScheduleRun run = schedule(g, "welder");
        const auto &st = run.result.stats;
        QVERIFY(st.count("traffic_before_HBM") && st.count("traffic_after_HBM") && st.count("traffic_before_SMEM"));
        QVERIFY(st.at("traffic_after_HBM") < st.at("traffic_before_HBM"));
        welder::TileGraphPanel panel;
        panel.setRun(g, run);
        panel.resize(1400, 560);
        QCOMPARE(panel.traffic()->rowCount(), 2);
        QCOMPARE(panel.traffic()->item(0, 0)->text(), QStringLiteral("HBM"));
        QVERIFY(panel.traffic()->item(0, 3)->text().startsWith(QLatin1Char('-')));
        QCOMPARE(panel.groupBox()->count(), 3); // nothing, L0 kernels, L0 → L1
        panel.groupBox()->setCurrentIndex(2);
        QCOMPARE(panel.view()->groupDepth(), 1);
        QVERIFY(panel.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-panel.png"))));
        // Twin: welder-none — before and after are the same kernels, the same traffic.
        const ScheduleRun none = schedule(g, "none");
        QCOMPARE(none.result.stats.at("traffic_after_HBM"), none.result.stats.at("traffic_before_HBM"));
    }

    // A branching graph (two rows): halos follow the edges between rows too.
    void branchingGraphScreenshot()
    {
        const Graph g = testgraphs::diamond();
        const ScheduleRun run = schedule(g, "welder");
        welder::TileGraphView view;
        view.setRun(g, run);
        view.setGroupDepth(1);
        view.resize(view.sizeHint());
        QCOMPARE(view.groups(0).size(), run.result.plan.kernels.size());
        QVERIFY(
            view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-branching.png"))));
    }

    void residualChainScreenshot()
    {
        const Graph g = testgraphs::residualChain(2);
        const ScheduleRun run = schedule(g, "welder");
        welder::TileGraphView view;
        view.setRun(g, run);
        view.resize(view.sizeHint());
        QVERIFY(view.grab().toImage().save(testshots::screenshotPath(QStringLiteral("welder-tilegraph-residual.png"))));
    }
};

QTEST_MAIN(TestWelderTileGraphView)
#include "tst_weldertilegraphview.moc"
