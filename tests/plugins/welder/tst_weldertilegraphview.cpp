// The Welder tile-graph dock (plugins/welder/gui): edges coloured by the level they are connected
// at, nodes labelled with their tiles; screenshots for a person to look at.
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "plugins/welder/gui/fusionpatterns.h"
#include "plugins/welder/gui/tilegraphview.h"
#include "plugins/welder/welder.h"

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
