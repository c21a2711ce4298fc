// The Bricks dock (plugins/brickdl/gui): registered for brickdl plans only,
// shows a padded and a memoized plan of a small convolution chain; the
// memoized one is saved as screenshots/brickdl-bricks.png for people to look at.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "plugins/brickdl/brickdl.h"
#include "plugins/brickdl/gui/brickdlgui.h"
#include "plugins/brickdl/gui/brickview.h"
#include "views/widgets/planextensions.h"

#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QMouseEvent>
#include <QSlider>

#include <gtest/gtest.h>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

const Device &a100()
{
    static const Device d = *DeviceRegistry::standard().lookup("nvidia-a100");
    return d;
}

// x [1, 4, 40, 40] → conv 3×3 → relu → conv 3×3 → maxpool 2×2/2.
std::shared_ptr<const Graph> chain()
{
    auto g = std::make_shared<Graph>();
    g->name = "bricks";
    const TensorId x = tensor(*g, "x", {1, 4, 40, 40}, Tensor::Kind::Input);
    g->inputs = {x};
    const AttrMap conv{{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                       {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}};
    TensorId t = op(*g, "conv1", "Conv", {x, weight(*g, "w1", {4, 4, 3, 3})}, {1, 4, 40, 40}, conv);
    t = op(*g, "relu1", "Relu", {t}, {1, 4, 40, 40});
    t = op(*g, "conv2", "Conv", {t, weight(*g, "w2", {4, 4, 3, 3})}, {1, 4, 40, 40}, conv);
    t = op(*g, "pool", "MaxPool", {t}, {1, 4, 20, 20},
           {{"kernel_shape", {std::vector<std::int64_t>{2, 2}}}, {"strides", {std::vector<std::int64_t>{2, 2}}}});
    g->outputs = {t};
    return g;
}

std::shared_ptr<const ScheduleRun> schedule(const Graph &g, const std::string &delta)
{
    static const auto scheduler = createBrickdlScheduler();
    static const DeviceCostModel cost(a100());
    ScheduleRequest req;
    req.graph = &g;
    req.device = &a100();
    req.cost = &cost;
    req.options = *OptionValues::resolve(scheduler->info().options, {{"delta", delta}});
    auto run = runSchedule(*scheduler, req);
    EXPECT_TRUE(run.isOk()) << run.status().str();
    return run ? std::make_shared<ScheduleRun>(std::move(*run)) : nullptr;
}

} // namespace

TEST(BrickdlGui, DockShowsBricksAndLiveness)
{
    views::PlanExtensions ext;
    registerBrickdlPluginViews(ext);
    ASSERT_EQ(ext.docks().size(), 1u);
    const views::PlanDock &dock = ext.docks()[0];
    EXPECT_TRUE(views::PlanExtensions::applies(dock.algorithms, "brickdl"));
    EXPECT_FALSE(views::PlanExtensions::applies(dock.algorithms, "sequential"));

    const auto g = chain();
    for (const std::string delta : {"100", "0"}) {
        const auto run = schedule(*g, delta);
        ASSERT_NE(run, nullptr);
        std::unique_ptr<QWidget> w(dock.create(nullptr));
        NodeId selected = kInvalidId;
        dock.show(w.get(), {.graph = g, .run = run, .device = &a100(), .selectNode = [&](NodeId n) { selected = n; }});
        auto *view = static_cast<brickdl::BrickView *>(w.get());
        auto *layers = w->findChild<QComboBox *>(QStringLiteral("brickdlLayer"));
        ASSERT_NE(layers, nullptr);
        EXPECT_EQ(layers->count(), 4); // every node ran as bricks
        // Memoized: conv2 (index 2); padded: conv1, whose padded bricks carry a halo.
        view->setLayer(delta == "0" ? 2 : 0);
        const auto *layer = view->layer();
        ASSERT_NE(layer, nullptr);
        ASSERT_FALSE(layer->touches.empty());
        view->setTime(layer->touches[layer->touches.size() / 2].task);
        EXPECT_NE(
            w->findChild<QLabel *>(QStringLiteral("brickdlInfo"))->text().indexOf(delta == "0" ? "memoized" : "padded"),
            -1);
        w->resize(900, 700);
        const QImage shot = w->grab().toImage();
        ASSERT_FALSE(shot.isNull());
        const QString name = delta == "0" ? QStringLiteral("brickdl-bricks.png") : QStringLiteral("brickdl-padded.png");
        EXPECT_TRUE(shot.save(testshots::screenshotPath(name)));
        // Clicking a brick selects the layer's node; a click beside the grid selects nothing.
        auto *map = w->findChild<QWidget *>(QStringLiteral("brickdlMap"));
        ASSERT_NE(map, nullptr);
        auto click = [&](QPointF at) {
            QMouseEvent press(QEvent::MouseButtonPress, at, map->mapToGlobal(at), Qt::LeftButton, Qt::LeftButton,
                              Qt::NoModifier);
            QApplication::sendEvent(map, &press);
        };
        click(QPointF(2, 2));
        EXPECT_EQ(selected, kInvalidId);
        click(QPointF(map->width() / 2.0, map->height() / 2.0));
        EXPECT_EQ(selected, layer->node);
        // Some bricks complete, some not started, one running: three colours at least.
        int orange = 0;
        for (int y = 0; y < shot.height(); y += 2)
            for (int x = 0; x < shot.width(); x += 2)
                orange += shot.pixelColor(x, y) == QColor(245, 150, 40);
        EXPECT_GT(orange, 0);
    }
}

// Negative twin: a plan with no brick tasks shows an empty chooser, no crash.
TEST(BrickdlGui, LibraryOnlyPlanShowsNoLayers)
{
    auto g = std::make_shared<Graph>();
    const TensorId x = tensor(*g, "x", {4, 16}, Tensor::Kind::Input);
    g->inputs = {x};
    g->outputs = {op(*g, "relu", "Relu", {x}, {4, 16})};
    const auto run = schedule(*g, "0.15");
    ASSERT_NE(run, nullptr);
    brickdl::BrickView view;
    view.setPlan(g, run, &a100());
    EXPECT_EQ(view.layer(), nullptr);
    EXPECT_EQ(view.findChild<QComboBox *>(QStringLiteral("brickdlLayer"))->count(), 0);
    view.resize(400, 300);
    EXPECT_FALSE(view.grab().toImage().isNull());
}

int main(int argc, char **argv)
{
    if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv); // on the stack: destroyed before Qt's own statics
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
