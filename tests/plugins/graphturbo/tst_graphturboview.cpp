// The "Sub-graph Instances" dock on the Fig. 3 example (four stages on 8
// images, 2 KiB LB per core): the occupancy columns follow the plan's L1
// buffers, the table lists the instances in schedule order, and a grab is
// saved to <build>/screenshots/graphturbo-instances.png for a person to look at.
// Negative twins: an empty plan draws no columns; a plan without L1 buffers
// has zero occupancy. The Fig. 12 liveness and Fig. 13 overlap timelines are
// grabbed to graphturbo-liveness.png and graphturbo-overlap.png, each beside a
// twin (nothing spilled with 64 KiB of L1; nothing overlapped in the split
// variant); clicking a bar selects its sub-graph's nodes.
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "core/support/units.h"
#include "plugins/graphturbo/graphturbo.h"
#include "plugins/graphturbo/gui/graphturbogui.h"
#include "plugins/graphturbo/gui/instanceview.h"
#include "plugins/graphturbo/gui/timelineviews.h"
#include "views/widgets/planextensions.h"

#include <QApplication>
#include <QPixmap>
#include <QStandardItemModel>

#include <algorithm>
#include <gtest/gtest.h>
#include <iostream>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
namespace tg = tessera::testgraphs;

namespace {

// One application for the process, never destroyed: gtest_main owns main(),
// and a static QApplication would be torn down after Qt's own statics.
QApplication &app()
{
    static int argc = 1;
    static char name[] = "tst_graphturboview";
    static char *argv[] = {name, nullptr};
    static QApplication *a = [] {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        return new QApplication(argc, argv);
    }();
    return *a;
}

Device fig3Device()
{
    Device d = *DeviceRegistry::standard().lookup("stcp920");
    d.levels[0].capacityBytes = 2048;
    return d;
}

Graph fig3Stages()
{
    Graph g;
    g.name = "fig3";
    const std::int64_t n = 8;
    TensorId x = tg::tensor(g, "x", {n, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    auto conv = [](std::int64_t stride) {
        return AttrMap{{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                       {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}},
                       {"strides", {std::vector<std::int64_t>{stride, stride}}}};
    };
    std::int64_t c = 8, h = 16;
    for (int s = 1; s <= 4; ++s) {
        const std::string p = "stage" + std::to_string(s) + "/";
        if (s > 1) {
            x = tg::op(g, p + "down", "Conv", {x, tg::weight(g, p + "wd", {c * 2, c, 3, 3})}, {n, c * 2, h / 2, h / 2},
                       conv(2));
            c *= 2;
            h /= 2;
        }
        x = tg::op(g, p + "conv1", "Conv", {x, tg::weight(g, p + "w1", {c, c, 3, 3})}, {n, c, h, h}, conv(1));
        x = tg::op(g, p + "relu1", "Relu", {x}, {n, c, h, h});
    }
    g.outputs = {x};
    return g;
}

TEST(GraphTurboView, Fig3InstancesAndOccupancy)
{
    app();
    const Graph g = fig3Stages();
    const Device d = fig3Device();
    ScheduleSetup setup;
    setup.options = {{"clusters", "1"}}; // Fig. 3b is one cluster's view
    auto run = scheduleGraph(g, d, *createGraphTurboScheduler(), setup);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &plan = run->result.plan;

    const auto occ = graphturbo::lbOccupancy(plan, &d);
    EXPECT_EQ(occ.level, "L1");
    EXPECT_EQ(occ.capacity, 2048);
    EXPECT_EQ(occ.columns.size(), 15u); // 8 + 4 + 2 + 1 instances
    for (const auto &c : occ.columns)
        EXPECT_LE(c.bytes, occ.capacity);
    EXPECT_TRUE(std::any_of(occ.columns.begin(), occ.columns.end(), [](const auto &c) { return c.bytes > 0; }));
    const auto counts = graphturbo::scopeCounts(plan, &d);
    ASSERT_EQ(counts.size(), 3u);
    EXPECT_EQ(counts[0].first, "L1");
    EXPECT_EQ(counts[0].second + counts[1].second + counts[2].second, 15);

    views::PlanExtensions ext;
    registerGraphturboPluginViews(ext);
    ASSERT_EQ(ext.docks().size(), 3u); // instances, tensor liveness, instruction overlap
    const views::PlanDock &dock = ext.docks().front();
    EXPECT_TRUE(views::PlanExtensions::applies(dock.algorithms, "graphturbo"));
    EXPECT_FALSE(views::PlanExtensions::applies(dock.algorithms, "sequential"));
    QWidget *w = dock.create(nullptr);
    views::PlanShown shown;
    shown.graph = std::make_shared<const Graph>(g);
    shown.run = std::make_shared<const ScheduleRun>(std::move(*run));
    shown.device = &d;
    dock.show(w, shown);
    auto *view = static_cast<graphturbo::InstanceView *>(w);
    EXPECT_EQ(view->model()->rowCount(), 15);
    int inL1 = 0;
    for (int r = 0; r < view->model()->rowCount(); ++r) {
        const QString level = view->model()->index(r, 4).data().toString();
        EXPECT_TRUE(d.level(level.toStdString()) != nullptr) << level.toStdString();
        inL1 += level == QStringLiteral("L1");
    }
    EXPECT_EQ(inL1, counts[0].second);
    w->resize(760, 520);
    w->show();
    QApplication::processEvents();
    const QString path = testshots::screenshotPath(QStringLiteral("graphturbo-instances.png"));
    EXPECT_TRUE(w->grab().save(path));
    delete w;
}

TEST(GraphTurboView, EmptyAndForeignPlans)
{
    app();
    const Device d = fig3Device();
    EXPECT_TRUE(graphturbo::lbOccupancy(ExecutionPlan{}, &d).columns.empty());
    // A plan with one compute task and no buffers: one column, nothing live.
    ExecutionPlan p;
    Task t;
    t.kernel = p.addKernel("k", {0});
    p.addTask(t);
    const auto occ = graphturbo::lbOccupancy(p, &d);
    ASSERT_EQ(occ.columns.size(), 1u);
    EXPECT_EQ(occ.columns[0].bytes, 0);
    // A task on another cluster is listed but draws no column (the chart is cluster 0's core 0).
    Task other;
    other.kernel = 0;
    other.binding.cluster = 1;
    p.addTask(other);
    EXPECT_EQ(graphturbo::lbOccupancy(p, &d).columns.size(), 1u);
    graphturbo::InstanceView v;
    v.setPlan(p, &d);
    EXPECT_EQ(v.model()->rowCount(), 2);
    EXPECT_EQ(v.model()->index(1, 5).data().toString(), QStringLiteral("c1: –"));
}

Expected<ScheduleRun> scheduleFig3(const Device &d, const std::string &variant = "full")
{
    ScheduleSetup setup;
    setup.options = {{"clusters", "1"}, {"variant", variant}};
    return scheduleGraph(fig3Stages(), d, *createGraphTurboScheduler(), setup);
}

int markedBars(const std::vector<views::TimelineRow> &rows)
{
    int n = 0;
    for (const auto &r : rows)
        for (const auto &b : r.bars)
            n += b.marked;
    return n;
}

// Shows a dock of the registered extensions on a run and saves its grab.
void grabDock(const QString &objectName, const Graph &g, ScheduleRun run, const Device &d, const QString &file)
{
    views::PlanExtensions ext;
    registerGraphturboPluginViews(ext);
    const auto it = std::find_if(ext.docks().begin(), ext.docks().end(),
                                 [&](const views::PlanDock &k) { return k.objectName == objectName; });
    ASSERT_NE(it, ext.docks().end());
    QWidget *w = it->create(nullptr);
    views::PlanShown shown;
    shown.graph = std::make_shared<const Graph>(g);
    shown.run = std::make_shared<const ScheduleRun>(std::move(run));
    shown.device = &d;
    it->show(w, shown);
    w->resize(820, 560);
    w->show();
    QApplication::processEvents();
    EXPECT_TRUE(w->grab().save(testshots::screenshotPath(file)));
    delete w;
}

// Issue 18 item 5: the instance table's times go through the one helper (a unit, four figures).
TEST(GraphTurboView, InstanceTimesUseTheOneFormattingHelper)
{
    app();
    const Device d = fig3Device();
    auto run = scheduleFig3(d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    graphturbo::InstanceView view;
    view.setPlan(run->result.plan, &d);
    const QStandardItemModel *m = view.model();
    const int time = m->columnCount() - 1;
    EXPECT_EQ(m->horizontalHeaderItem(time)->text(), QStringLiteral("Est. time"));
    ASSERT_GT(m->rowCount(), 0);
    const Task *first = nullptr;
    for (const Task &t : run->result.plan.tasks)
        if (!first && t.kind == TaskKind::Compute)
            first = &t;
    ASSERT_NE(first, nullptr);
    EXPECT_EQ(m->item(0, time)->text().toStdString(), units::durationNs(first->cost.timeNs));
}

// Negative twin: no row reads as a bare number.
TEST(GraphTurboView, NoInstanceTimeIsABareNumber)
{
    app();
    const Device d = fig3Device();
    auto run = scheduleFig3(d);
    ASSERT_TRUE(run.isOk());
    graphturbo::InstanceView view;
    view.setPlan(run->result.plan, &d);
    const QStandardItemModel *m = view.model();
    for (int r = 0; r < m->rowCount(); ++r) {
        bool bare = false;
        m->item(r, m->columnCount() - 1)->text().toDouble(&bare);
        EXPECT_FALSE(bare) << m->item(r, m->columnCount() - 1)->text().toStdString();
    }
}

TEST(GraphTurboView, Fig12LivenessBarsFollowTheBuffersAndMarkTheSpills)
{
    // Fig. 12 on the Fig. 3 example with 2 KiB of L1 per core: outputs that do not fit L1
    // live in LLB, and §4.3's spill victims (named in the trace) are hatched.
    app();
    const Device d = fig3Device();
    auto run = scheduleFig3(d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &plan = run->result.plan;
    const auto moved = graphturbo::movedOutOfLb(&run->trace);
    const auto rows = graphturbo::livenessRows(plan, &d, moved);
    ASSERT_GE(rows.size(), 15u); // one output slice per instance, plus the input slices
    int inL1 = 0, below = 0;
    for (const auto &r : rows) {
        ASSERT_EQ(r.bars.size(), 1u);
        EXPECT_LT(r.bars[0].start, r.bars[0].end);
        EXPECT_LE(r.bars[0].end, 15) << "over the 15 compute tasks";
        (r.bars[0].tip.contains(QStringLiteral(" in L1,")) ? inL1 : below) += 1;
    }
    EXPECT_GT(inL1, 0);
    EXPECT_GT(below, 0);
    EXPECT_EQ(markedBars(rows) > 0, !moved.empty());
    EXPECT_GT(run->result.stats.at("spills"), 0);
    EXPECT_GT(markedBars(rows), 0);
    grabDock(QStringLiteral("graphturboLivenessDock"), fig3Stages(), std::move(*run), d,
             QStringLiteral("graphturbo-liveness.png"));
}

TEST(GraphTurboView, Fig12NothingHatchedWhenEverythingFitsL1)
{
    // Negative twin: STCP920's own 64 KiB per core holds every tensor, nothing is spilled.
    app();
    const Device d = *DeviceRegistry::standard().lookup("stcp920");
    auto run = scheduleFig3(d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("spills"), 0);
    const auto rows = graphturbo::livenessRows(run->result.plan, &d, graphturbo::movedOutOfLb(&run->trace));
    EXPECT_FALSE(rows.empty());
    EXPECT_EQ(markedBars(rows), 0);
}

TEST(GraphTurboView, Fig13OverlapHidesWeightPromotionBehindCompute)
{
    // Fig. 13: in the full variant a sub-graph's weights are promoted while the sub-graph
    // before it computes; the estimated timeline shows those transfers behind compute.
    app();
    const Device d = fig3Device();
    auto run = scheduleFig3(d, "full");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    graphturbo::OverlapSummary sum;
    const auto rows = graphturbo::overlapRows(run->result.plan, &d, &sum);
    ASSERT_FALSE(rows.empty());
    EXPECT_GT(sum.transferNs, 0);
    EXPECT_GT(sum.hiddenNs, 0);
    EXPECT_GT(markedBars(rows), 0);
    EXPECT_TRUE(
        std::any_of(rows.begin(), rows.end(), [](const auto &r) { return r.label == QStringLiteral("DMA weights"); }));
    // The picture: the same stages in f16, where the convolutions run on the MME and the
    // transfers are not dwarfed by the compute.
    Graph half = fig3Stages();
    for (std::size_t t = 0; t < half.tensorCount(); ++t)
        half.tensor(static_cast<TensorId>(t)).dtype = DType::Float16;
    ScheduleSetup setup;
    setup.options = {{"clusters", "1"}, {"variant", "full"}};
    auto f16 = scheduleGraph(half, d, *createGraphTurboScheduler(), setup);
    ASSERT_TRUE(f16.isOk()) << f16.status().str();
    grabDock(QStringLiteral("graphturboOverlapDock"), half, std::move(*f16), d,
             QStringLiteral("graphturbo-overlap.png"));
}

TEST(GraphTurboView, Fig13NothingOverlapsWithoutAcrossLayerScheduling)
{
    // Negative twin: the "split" variant (§5.3, no across-layer scheduling) moves data on the
    // instance's cores in order, so no transfer runs beside a compute task.
    app();
    const Device d = fig3Device();
    auto run = scheduleFig3(d, "split");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    graphturbo::OverlapSummary sum;
    const auto rows = graphturbo::overlapRows(run->result.plan, &d, &sum);
    EXPECT_GT(sum.transferNs, 0);
    EXPECT_EQ(sum.hiddenNs, 0);
    EXPECT_EQ(markedBars(rows), 0);
}

TEST(GraphTurboView, ClickingATimelineBarSelectsItsSubGraph)
{
    app();
    const Device d = fig3Device();
    auto run = scheduleFig3(d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &plan = run->result.plan;
    graphturbo::TimelineDock dock(graphturbo::TimelineDock::Kind::Overlap);
    std::vector<NodeId> selected;
    dock.setPlan(plan, &d, &run->trace, [&](std::vector<NodeId> nodes) { selected = std::move(nodes); });
    const auto &rows = dock.timeline()->rows();
    ASSERT_FALSE(rows.empty());
    ASSERT_FALSE(rows[0].bars.empty());
    dock.timeline()->barClicked(0, 0); // the first compute task: an instance of sub-graph 0
    const Task &t = plan.tasks[static_cast<std::size_t>(rows[0].bars[0].tag)];
    ASSERT_EQ(t.kind, TaskKind::Compute);
    EXPECT_EQ(selected, plan.kernels[static_cast<std::size_t>(t.kernel)].nodes);
    // Negative twin: without a workbench to select in, a click selects nothing and does not fail.
    selected.clear();
    graphturbo::TimelineDock alone(graphturbo::TimelineDock::Kind::Liveness);
    alone.setPlan(plan, &d, &run->trace);
    alone.timeline()->barClicked(0, 0);
    EXPECT_TRUE(selected.empty());
}

} // namespace
