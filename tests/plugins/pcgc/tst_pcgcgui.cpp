// PCGC's dock (plugins/pcgc/gui): the rule firings and the re-cutting table
// of a run, grabbed to PNGs under <build>/screenshots.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "plugins/pcgc/gui/pcgcgui.h"
#include "plugins/pcgc/pcgc.h"
#include "views/widgets/planextensions.h"

#include <QApplication>
#include <QTabWidget>
#include <QTreeWidget>

#include <gtest/gtest.h>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

TensorId conv(Graph &g, const std::string &name, TensorId in, std::int64_t cin, std::int64_t cout, std::int64_t k,
              std::int64_t size)
{
    const std::int64_t p = k / 2;
    return op(g, name, "Conv", {in, weight(g, name + "/w", {cout, cin, k, k})}, {1, cout, size, size},
              {{"kernel_shape", {std::vector<std::int64_t>{k, k}}}, {"pads", {std::vector<std::int64_t>{p, p, p, p}}}});
}

// relu0 → conv3 → relu1 → {conv1 (1×1), conv5 (5×5)} → concat.
Graph block(bool withSiblings)
{
    Graph g;
    g.name = "block";
    const TensorId x = tensor(g, "x", {1, 64, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    // Without the siblings: conv3 → relu1 alone (one stable fusion, nothing to re-cut).
    const TensorId r = withSiblings ? op(g, "relu0", "Relu", {x}, {1, 64, 28, 28}) : x;
    const TensorId c = op(g, "relu1", "Relu", {conv(g, "conv3", r, 64, 64, 3, 28)}, {1, 64, 28, 28});
    if (!withSiblings) {
        g.outputs = {c};
        return g;
    }
    const TensorId a = conv(g, "conv1", c, 64, 64, 1, 28);
    const TensorId b = conv(g, "conv5", c, 64, 32, 5, 28);
    g.outputs = {op(g, "cat", "Concat", {a, b}, {1, 96, 28, 28}, {{"axis", {std::int64_t{1}}}})};
    return g;
}

struct Shown {
    views::PlanShown plan;
    std::unique_ptr<DeviceCostModel> model;
};

Shown scheduleShown(Graph graph, const Device &device)
{
    Shown s;
    s.model = std::make_unique<DeviceCostModel>(device);
    auto scheduler = createPcgcScheduler();
    auto g = std::make_shared<const Graph>(std::move(graph));
    ScheduleRequest req;
    req.graph = g.get();
    req.device = &device;
    req.cost = s.model.get();
    req.options = *OptionValues::resolve(scheduler->info().options, {{"objective", "energy"}});
    auto run = runSchedule(*scheduler, req);
    EXPECT_TRUE(run.isOk()) << run.status().str();
    s.plan.graph = g;
    s.plan.run = std::make_shared<const ScheduleRun>(std::move(*run));
    s.plan.device = &device;
    return s;
}

TEST(PcgcGui, DockShowsRuleFiringsAndRecutting)
{
    views::PlanExtensions ext;
    registerPcgcPluginViews(ext);
    ASSERT_EQ(ext.docks().size(), 1u);
    const views::PlanDock &dock = ext.docks()[0];
    EXPECT_TRUE(views::PlanExtensions::applies(dock.algorithms, "pcgc"));
    EXPECT_FALSE(views::PlanExtensions::applies(dock.algorithms, "layer-fusion"));

    const Device device = *DeviceRegistry::standard().lookup("stcp920");
    std::unique_ptr<QWidget> view(dock.create(nullptr));
    auto *tabs = qobject_cast<QTabWidget *>(view.get());
    ASSERT_NE(tabs, nullptr);
    auto *rules = view->findChild<QTreeWidget *>(QStringLiteral("pcgcRuleFirings"));
    auto *recut = view->findChild<QTreeWidget *>(QStringLiteral("pcgcRecut"));
    ASSERT_TRUE(rules && recut);

    const Shown shown = scheduleShown(block(true), device);
    dock.show(view.get(), shown.plan);
    EXPECT_GE(rules->topLevelItemCount(), 4);
    EXPECT_FALSE(rules->findItems(QStringLiteral("rule S1 fires"), Qt::MatchContains, 1).isEmpty());
    EXPECT_FALSE(rules->findItems(QStringLiteral("P1"), Qt::MatchContains, 1).isEmpty()); // Concat refused
    EXPECT_GE(recut->topLevelItemCount(), 1);
    EXPECT_GT(recut->topLevelItem(0)->text(2).toDouble(), 0); // time before, µs

    view->resize(1100, 360);
    view->show(); // lay out the tabs before grabbing (offscreen platform)
    tabs->setCurrentIndex(0);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_rule_firings.png"))));
    tabs->setCurrentIndex(1);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_recut.png"))));

    // Twin: a plan with stable fusions only has nothing to re-cut; the tables are refilled.
    const Shown stable = scheduleShown(block(false), device);
    dock.show(view.get(), stable.plan);
    EXPECT_EQ(recut->topLevelItemCount(), 0);
    EXPECT_GE(rules->topLevelItemCount(), 1);
}

} // namespace

int main(int argc, char **argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
