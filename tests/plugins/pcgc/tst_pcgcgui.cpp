// PCGC's dock (plugins/pcgc/gui): the rule firings and the re-cutting table
// of a run, and the learned cost model's predicted-vs-measured scatter,
// grabbed to PNGs under <build>/screenshots.
#include "backends/sim/sim.h"
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/store/project.h"
#include "core/support/fileio.h"
#include "plugins/pcgc/costlearn.h"
#include "plugins/pcgc/gui/pcgcgui.h"
#include "plugins/pcgc/pcgc.h"
#include "plugins/pcgc/projectmodels.h"
#include "views/widgets/planextensions.h"

#include <QApplication>
#include <QChartView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QTabWidget>
#include <QTreeWidget>

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <thread>
#include <unistd.h>

#include "tests/common/screenshots.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"

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

Shown scheduleShown(Graph graph, const Device &device, std::map<std::string, std::string> options = {})
{
    Shown s;
    s.model = std::make_unique<DeviceCostModel>(device);
    auto scheduler = createPcgcScheduler();
    auto g = std::make_shared<const Graph>(std::move(graph));
    ScheduleRequest req;
    req.graph = g.get();
    req.device = &device;
    req.cost = s.model.get();
    options.emplace("target", "power");
    req.options = *OptionValues::resolve(scheduler->info().options, options);
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

    // The fusion records as a tree: the sub-graphs static fusion left at the
    // top, each fusion's two merged groups below it, single ops as leaves.
    auto *records = view->findChild<QTreeWidget *>(QStringLiteral("pcgcFusionRecords"));
    ASSERT_NE(records, nullptr);
    ASSERT_GE(records->topLevelItemCount(), 2); // {relu0..conv5} and the concat's group at least
    int leaves = 0, stableRecords = 0, splitPoints = 0, judged = 0;
    std::function<void(QTreeWidgetItem *)> walk = [&](QTreeWidgetItem *item) {
        if (item->childCount() == 0)
            ++leaves;
        else
            EXPECT_EQ(item->childCount(), 2) << item->text(0).toStdString(); // a record merges two groups
        stableRecords += item->text(2).startsWith(QStringLiteral("stable"));
        splitPoints += item->text(2) == QStringLiteral("split point");
        judged += !item->text(3).isEmpty();
        for (int i = 0; i < item->childCount(); ++i)
            walk(item->child(i));
    };
    for (int i = 0; i < records->topLevelItemCount(); ++i)
        walk(records->topLevelItem(i));
    EXPECT_EQ(leaves, 6);        // relu0, conv3, relu1, conv1, conv5, cat: every op once (cat, never fused, a root)
    EXPECT_GE(stableRecords, 1); // conv3 + relu1 (S1)
    EXPECT_GE(splitPoints, 1);   // the siblings' fusion
    EXPECT_GE(judged, 1);        // the re-cutting's verdict on the group it judged

    // Selecting a row outlines its ops in the graph view.
    std::vector<NodeId> highlighted;
    views::PlanShown linked = shown.plan;
    linked.highlightNodes = [&](std::vector<NodeId> nodes) { highlighted = std::move(nodes); };
    dock.show(view.get(), linked);
    auto *firing = rules->findItems(QStringLiteral("rule S1 fires"), Qt::MatchContains, 1).value(0);
    ASSERT_NE(firing, nullptr);
    rules->setCurrentItem(firing);
    std::vector<std::string> names;
    for (NodeId n : highlighted)
        names.push_back(shown.plan.graph->node(n).name);
    std::sort(names.begin(), names.end());
    EXPECT_FALSE(names.empty());
    EXPECT_TRUE(std::find(names.begin(), names.end(), "conv3") != names.end()) << ::testing::PrintToString(names);
    highlighted.clear();
    records->setCurrentItem(records->topLevelItem(0));
    EXPECT_FALSE(highlighted.empty());
    // Twin: outside the workbench (no highlightNodes) selecting does nothing and does not crash.
    dock.show(view.get(), shown.plan);
    highlighted.clear();
    rules->setCurrentItem(rules->topLevelItem(0));
    EXPECT_TRUE(highlighted.empty());

    view->resize(1100, 360);
    view->show(); // lay out the tabs before grabbing (offscreen platform)
    tabs->setCurrentIndex(0);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_rule_firings.png"))));
    tabs->setCurrentIndex(1);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_fusion_records.png"))));
    tabs->setCurrentIndex(2);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_recut.png"))));

    // Twin: a plan with stable fusions only has nothing to re-cut; the tables are refilled.
    const Shown stable = scheduleShown(block(false), device);
    dock.show(view.get(), stable.plan);
    EXPECT_EQ(recut->topLevelItemCount(), 0);
    EXPECT_GE(rules->topLevelItemCount(), 1);
}

Graph resnet(int imageSize)
{
    SampleOptions o;
    o.imageSize = imageSize;
    auto m = test::buildRegisteredSample("resnet50", o);
    EXPECT_TRUE(m.isOk()) << m.status().str();
    std::string bytes;
    (*m)->SerializeToString(&bytes);
    auto imported = importModelFromBytes(bytes, "resnet50.onnx");
    EXPECT_TRUE(imported.isOk()) << imported.status().str();
    return std::move(imported->graph);
}

int scatterPoints(QWidget *view, const QString &chart, const QString &series)
{
    auto *v = view->findChild<QChartView *>(chart);
    if (!v || !v->chart())
        return -1;
    for (QAbstractSeries *s : v->chart()->series())
        if (s->name() == series)
            return static_cast<int>(qobject_cast<QScatterSeries *>(s)->count());
    return 0;
}

// The cost-model tab: a model trained on the simulator (ResNet-50 ops), used by
// the run — its held-back points in both scatters; twin: a run whose model
// file is corrupt, with no saved model for the device — no points, and the tab
// says why and how to train one.
TEST(PcgcGui, CostModelTabShowsPredictedVsMeasured)
{
    if (!pcgc::Regressor::available())
        GTEST_SKIP() << pcgc::Regressor::unavailableReason();
    const auto dir = std::filesystem::temp_directory_path() / ("tessera-pcgcgui-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    qputenv("XDG_DATA_HOME", QByteArray::fromStdString((dir / "data").string())); // no saved model there
    const Device device = *DeviceRegistry::standard().lookup("stcp920");
    const Graph g = resnet(64);
    auto sim = createSimBackend(nullptr);
    pcgc::TrainOptions o;
    o.minLabels = 5;
    auto model = pcgc::trainCostModel({&g}, device, *sim, o);
    ASSERT_TRUE(model.isOk()) << model.status().str();
    const std::string path = (dir / "stcp920.json").string();
    ASSERT_TRUE((*model)->save(path).isOk());

    views::PlanExtensions ext;
    registerPcgcPluginViews(ext);
    const views::PlanDock &dock = ext.docks()[0];
    std::unique_ptr<QWidget> view(dock.create(nullptr));
    auto *tabs = qobject_cast<QTabWidget *>(view.get());
    auto *summary = view->findChild<QLabel *>(QStringLiteral("pcgcModelSummary"));
    ASSERT_TRUE(tabs && summary);

    const Shown used = scheduleShown(g, device, {{"cost_model", "learned"}, {"model_file", path}});
    EXPECT_EQ(used.plan.run->result.stats.at("learned_model"), 1.0);
    dock.show(view.get(), used.plan);
    EXPECT_TRUE(summary->text().startsWith(QStringLiteral("Learned model for stcp920")))
        << summary->text().toStdString();
    const int held = (*model)->summary().heldBack;
    EXPECT_EQ(scatterPoints(view.get(), QStringLiteral("pcgcScatterTime"), QStringLiteral("learned model")), held);
    EXPECT_EQ(scatterPoints(view.get(), QStringLiteral("pcgcScatterPower"), QStringLiteral("learned model")), held);
    view->resize(1200, 520);
    view->show();
    tabs->setCurrentIndex(3);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_cost_model.png"))));

    const std::string corrupt = (dir / "corrupt.json").string();
    ASSERT_TRUE(writeFileAtomic(corrupt, "not a model").isOk());
    const Shown fallback = scheduleShown(g, device, {{"cost_model", "learned"}, {"model_file", corrupt}});
    EXPECT_EQ(fallback.plan.run->result.stats.at("learned_model"), 0.0);
    dock.show(view.get(), fallback.plan);
    EXPECT_TRUE(summary->text().startsWith(QStringLiteral("No learned cost model"))) << summary->text().toStdString();
    EXPECT_TRUE(summary->text().contains(QStringLiteral("pcgc-train --device stcp920")));
    EXPECT_TRUE(summary->text().contains(QStringLiteral("used the analytic one: PCGC cost model")));
    EXPECT_TRUE(summary->text().contains(QStringLiteral("not JSON")));
    EXPECT_EQ(scatterPoints(view.get(), QStringLiteral("pcgcScatterTime"), QStringLiteral("learned model")), 0);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_cost_model_none.png"))));
    std::filesystem::remove_all(dir);
}

// Waits (processing events) until the Train action is idle again.
bool waitTrainingDone(QWidget *view, int seconds)
{
    auto *train = view->findChild<QPushButton *>(QStringLiteral("pcgcTrain"));
    auto *status = view->findChild<QLabel *>(QStringLiteral("pcgcTrainStatus"));
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < until) {
        QApplication::processEvents();
        const QString t = status->text();
        if (train->isEnabled() && (t.startsWith(QStringLiteral("Finished")) || t.startsWith(QStringLiteral("Failed")) ||
                                   t.startsWith(QStringLiteral("Cancelled"))))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

// The Train action: training runs off the GUI thread (events keep being
// processed while the progress bar moves), finishes with the model saved and
// its scatter shown; twins: Cancel stops it with nothing saved, a graph with
// too few ops fails with the reason, and without a simulator Train is disabled.
TEST(PcgcGui, TrainActionTrainsOffTheGuiThread)
{
    if (!pcgc::Regressor::available())
        GTEST_SKIP() << pcgc::Regressor::unavailableReason();
    const auto dir = std::filesystem::temp_directory_path() / ("tessera-pcgctrain-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    qputenv("XDG_DATA_HOME", QByteArray::fromStdString((dir / "data").string()));
    const Device device = *DeviceRegistry::standard().lookup("stcp920");
    BackendRegistry backends;
    backends.add(createSimBackend(nullptr));

    views::PlanExtensions ext;
    registerPcgcPluginViews(ext);
    const views::PlanDock &dock = ext.docks()[0];
    std::unique_ptr<QWidget> view(dock.create(nullptr));
    auto *tabs = qobject_cast<QTabWidget *>(view.get());
    auto *train = view->findChild<QPushButton *>(QStringLiteral("pcgcTrain"));
    auto *cancel = view->findChild<QPushButton *>(QStringLiteral("pcgcTrainCancel"));
    auto *bar = view->findChild<QProgressBar *>(QStringLiteral("pcgcTrainProgress"));
    auto *status = view->findChild<QLabel *>(QStringLiteral("pcgcTrainStatus"));
    ASSERT_TRUE(tabs && train && cancel && bar && status);

    Shown shown = scheduleShown(resnet(64), device);
    dock.show(view.get(), shown.plan);
    EXPECT_FALSE(train->isEnabled()); // twin: no backends, no training
    shown.plan.backends = &backends;
    dock.show(view.get(), shown.plan);
    ASSERT_TRUE(train->isEnabled()) << train->toolTip().toStdString();

    // Cancel right after starting.
    train->click();
    EXPECT_FALSE(train->isEnabled());
    EXPECT_TRUE(cancel->isEnabled());
    cancel->click();
    ASSERT_TRUE(waitTrainingDone(view.get(), 120));
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("Cancelled"))) << status->text().toStdString();
    const std::string path = pcgc::defaultModelPath("stcp920");
    EXPECT_FALSE(std::filesystem::exists(path));

    // Train to the end: the model is saved where the scheduler reads it and in
    // the open project, and the scatter shows it.
    const std::string modelFile = (dir / "net.onnx").string();
    ASSERT_TRUE(writeFileAtomic(modelFile, "model").isOk());
    ProjectInfo info;
    info.model.path = modelFile;
    info.setup = {"pcgc", "stcp920", {}};
    auto project = Project::create((dir / "p.tessera").string(), info);
    ASSERT_TRUE(project.isOk()) << project.status().str();
    shown.plan.project = &*project;
    dock.show(view.get(), shown.plan);
    train->click();
    int progressSeen = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(180);
    while (!train->isEnabled() && std::chrono::steady_clock::now() < until) {
        QApplication::processEvents(); // the GUI thread stays free while training runs
        if (bar->value() > 0 && bar->value() < 100)
            progressSeen = std::max(progressSeen, bar->value());
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(waitTrainingDone(view.get(), 5));
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("Finished"))) << status->text().toStdString();
    EXPECT_TRUE(status->text().endsWith(QStringLiteral("and to the project"))) << status->text().toStdString();
    auto kept = pcgc::loadModelFromProject(*project, device);
    ASSERT_TRUE(kept.isOk()) << kept.status().str();
    EXPECT_TRUE(*kept);
    EXPECT_GT(progressSeen, 0);
    EXPECT_EQ(bar->value(), 100);
    auto report = pcgc::readModelReport(path);
    ASSERT_TRUE(report.isOk()) << report.status().str();
    EXPECT_EQ(scatterPoints(view.get(), QStringLiteral("pcgcScatterTime"), QStringLiteral("learned model")),
              report->summary.heldBack);
    view->resize(1200, 560);
    view->show();
    tabs->setCurrentIndex(3);
    QApplication::processEvents();
    EXPECT_TRUE(view->grab().save(testshots::screenshotPath(QStringLiteral("pcgc_train.png"))));

    // Reopened without the file in the data folder: a new dock restores the project's model.
    std::filesystem::remove(path);
    {
        std::unique_ptr<QWidget> reopened(dock.create(nullptr));
        dock.show(reopened.get(), shown.plan);
        auto *again = reopened->findChild<QLabel *>(QStringLiteral("pcgcTrainStatus"));
        EXPECT_EQ(again->text(), QStringLiteral("Restored the project's cost model for stcp920"));
        EXPECT_TRUE(pcgc::LearnedCostModel::load(path, device).isOk());
    }
    shown.plan.project = nullptr;

    // Twin: conv3 → relu1 has too few ops to train on.
    Shown small = scheduleShown(block(false), device);
    small.plan.backends = &backends;
    dock.show(view.get(), small.plan);
    ASSERT_TRUE(train->isEnabled());
    train->click();
    ASSERT_TRUE(waitTrainingDone(view.get(), 60));
    EXPECT_TRUE(status->text().startsWith(QStringLiteral("Failed: too few labels"))) << status->text().toStdString();
    std::filesystem::remove_all(dir);
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
