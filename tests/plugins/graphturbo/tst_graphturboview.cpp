// The "Sub-graph Instances" dock on the Fig. 3 example (four stages on 8
// images, 2 KiB LB per core): the occupancy columns follow the plan's L1
// buffers, the table lists the instances in schedule order, and a grab is
// saved to <build>/screenshots/graphturbo-instances.png for a person to look at.
// Negative twins: an empty plan draws no columns; a plan without L1 buffers
// has zero occupancy.
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "plugins/graphturbo/graphturbo.h"
#include "plugins/graphturbo/gui/graphturbogui.h"
#include "plugins/graphturbo/gui/instanceview.h"
#include "views/widgets/planextensions.h"

#include <QApplication>
#include <QPixmap>
#include <QStandardItemModel>

#include <gtest/gtest.h>

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
    ASSERT_EQ(ext.docks().size(), 1u);
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

} // namespace
