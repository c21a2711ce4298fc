// PCGC's learned cost model (plugins/pcgc: features, regressor, costlearn,
// learnedcost; pcgc §3.5 Algorithm 1): trained on the simulator backend,
// scored on held-back labels, persisted per device and used by the
// re-cutting — each beside its negative twin: too few labels refused, a
// corrupt / foreign / other-device model file refused with a message and the
// analytic model used, a device without a power model trains time only.
#include "backends/reference/reference.h"
#include "backends/sim/sim.h"
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/plan/verify.h"
#include "core/support/fileio.h"
#include "plugins/pcgc/costlearn.h"
#include "plugins/pcgc/pcgc.h"
#include "plugins/pcgc/projectmodels.h"
#include "samples/builder.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"

using namespace tessera;
using namespace tessera::pcgc;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

const Device &stcp920()
{
    static const Device d = *DeviceRegistry::standard().lookup("stcp920");
    return d;
}

std::filesystem::path tempDir()
{
    static const auto dir = [] {
        auto d = std::filesystem::temp_directory_path() / ("tessera-pcgclearn-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

Graph importSample(const std::string &name, int imageSize)
{
    SampleOptions o;
    o.imageSize = imageSize;
    o.seqLen = 32;
    auto m = test::buildRegisteredSample(name, o);
    EXPECT_TRUE(m.isOk()) << m.status().str();
    std::string bytes;
    (*m)->SerializeToString(&bytes);
    auto imported = importModelFromBytes(bytes, name + ".onnx");
    EXPECT_TRUE(imported.isOk()) << imported.status().str();
    Graph g = std::move(imported->graph);
    g.name = name;
    return g;
}

// The training set of these tests: three sample networks at small sizes.
const std::vector<Graph> &trainingGraphs()
{
    static const std::vector<Graph> graphs = [] {
        std::vector<Graph> v;
        v.push_back(importSample("resnet50", 64));
        v.push_back(importSample("mobilenetv2", 64));
        v.push_back(importSample("bert", 0));
        return v;
    }();
    return graphs;
}

std::vector<const Graph *> graphPointers()
{
    std::vector<const Graph *> p;
    for (const Graph &g : trainingGraphs())
        p.push_back(&g);
    return p;
}

IBackend &sim()
{
    static const std::unique_ptr<IBackend> backend = createSimBackend(nullptr);
    return *backend;
}

// One model trained for stcp920, shared by the tests (training is the slow part).
// Never destroyed: XGBoost's own statics may be gone by then.
const LearnedCostModel &trained()
{
    static const LearnedCostModel *model = [] {
        const auto start = std::chrono::steady_clock::now();
        auto m = trainCostModel(graphPointers(), stcp920(), sim());
        EXPECT_TRUE(m.isOk()) << m.status().str();
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const TrainingSummary &t = (*m)->summary();
        std::printf("trained stcp920: %d ops, %d measured, %d held back, %d pseudo-labelled in %d rounds, %.2f s\n",
                    t.ops, t.measured, t.heldBack, t.pseudoLabelled, t.rounds, s);
        for (const char *what : {"time", "power"}) {
            const Accuracy &a = std::string(what) == "time" ? (*m)->time().accuracy : (*m)->power()->accuracy;
            std::printf("  %s: MAPE %.2f %% (analytic %.2f %%), R2 %.4f on %d\n", what, a.mape * 100,
                        a.analyticMape * 100, a.r2, a.count);
        }
        return m->release();
    }();
    return *model;
}

// conv → relu: a graph with far too few ops to train on.
Graph tiny()
{
    Graph g;
    g.name = "tiny";
    const TensorId x = tensor(g, "x", {1, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId c =
        op(g, "conv", "Conv", {x, weight(g, "w", {8, 8, 3, 3})}, {1, 8, 16, 16},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    g.outputs = {op(g, "relu", "Relu", {c}, {1, 8, 16, 16})};
    return g;
}

Expected<ScheduleRun> schedule(const Graph &g, std::map<std::string, std::string> opts)
{
    static const std::unique_ptr<IScheduler> scheduler = createPcgcScheduler();
    static const DeviceCostModel cost(stcp920());
    auto values = OptionValues::resolve(scheduler->info().options, opts);
    if (!values)
        return values.status();
    ScheduleRequest req;
    req.graph = &g;
    req.device = &stcp920();
    req.cost = &cost;
    req.options = *values;
    return runSchedule(*scheduler, req);
}

std::string writeTemp(const std::string &name, const std::string &text)
{
    const std::string path = (tempDir() / name).string();
    EXPECT_TRUE(writeFileAtomic(path, text).isOk());
    return path;
}

} // namespace

// Built with XGBoost (the default when libxgboost-dev is found) the regressor
// trains; built without it (-DTESSERA_PCGC_XGBOOST=OFF) training and loading
// are refused as Unavailable with the reason, and the scheduler falls back.
TEST(PcgcLearn, RegressorAvailableOrSaysWhy)
{
    if (Regressor::available()) {
        auto r = Regressor::train({{0.f}, {1.f}, {2.f}, {3.f}}, {0.f, 1.f, 2.f, 3.f}, {});
        ASSERT_TRUE(r.isOk()) << r.status().str();
        auto p = r->predict({{0.f}, {3.f}});
        ASSERT_TRUE(p.isOk());
        EXPECT_LT((*p)[0], (*p)[1]);
        return;
    }
    EXPECT_NE(Regressor::unavailableReason().find("XGBoost"), std::string::npos);
    auto m = trainCostModel(graphPointers(), stcp920(), sim());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), ErrorCode::Unavailable);
    auto run = schedule(trainingGraphs()[0], {{"cost_model", "learned"}, {"model_file", "/nonexistent.json"}});
    ASSERT_TRUE(run.isOk());
    EXPECT_EQ(run->result.stats.at("learned_model"), 0.0);
}

// Algorithm 1 on the simulator: the held-back labels are predicted far better
// than by the analytic model (which, for a kernel alone, is 2–2500× off the
// simulator: it keeps small kernels on few cores and charges the launch), and
// training stays far below 30 s. Bounds: with 43 measured labels the time
// model reaches ~28 % MAPE, the power model ~3 %. Power: since STCP920's DDR
// efficiency was fitted (issue 12 item 6, 0.8 -> 0.35) both the simulator and
// the analytic model are DDR-bound on most kernels, so the analytic power
// error fell from ~13 % to ~6 % while the learned one stays ~2 %: the learned
// model must beat it by 2x for power, by 5x for time (analytic ~235 %).
TEST(PcgcLearn, TrainsOnSimulatorAndScoresHeldBackLabels)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const LearnedCostModel &m = trained();
    const TrainingSummary &s = m.summary();
    EXPECT_GT(s.ops, 200);
    EXPECT_NEAR(double(s.measured) / double(s.ops - s.heldBack), 0.10, 0.02); // 10 % measured
    EXPECT_GT(s.pseudoLabelled, 0);                                           // semi-supervised rounds ran
    EXPECT_GE(double(s.measured + s.pseudoLabelled) / double(s.ops - s.heldBack), s.ac);
    EXPECT_LT(s.seconds, 30);
    ASSERT_NE(m.power(), nullptr);
    for (const auto &[t, factor] : {std::pair{&m.time(), 5.0}, std::pair{m.power(), 2.0}}) {
        EXPECT_EQ(t->accuracy.count, s.heldBack);
        EXPECT_EQ(t->heldBack.size(), std::size_t(s.heldBack));
        EXPECT_GT(t->accuracy.r2, 0.8);
        EXPECT_LT(t->accuracy.mape, t->accuracy.analyticMape / factor);
    }
    EXPECT_LT(m.time().accuracy.mape, 0.35);
    EXPECT_LT(m.power()->accuracy.mape, 0.10);
}

// Negative twin: a graph with a handful of ops gives too few labels; refused, with the fallback named.
TEST(PcgcLearn, TooFewLabelsAreRefused)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const Graph g = tiny();
    auto m = trainCostModel({&g}, stcp920(), sim());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(m.status().message().find("too few labels"), std::string::npos) << m.status().message();
    EXPECT_NE(m.status().message().find("analytic"), std::string::npos) << m.status().message();
}

// Seeded: the same graphs and seed give the same model; another seed another split.
TEST(PcgcLearn, TrainingIsDeterministic)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const Graph &g = trainingGraphs()[0];
    TrainOptions o;
    o.minLabels = 5;
    auto a = trainCostModel({&g}, stcp920(), sim(), o);
    auto b = trainCostModel({&g}, stcp920(), sim(), o);
    ASSERT_TRUE(a.isOk() && b.isOk()) << a.status().str();
    EXPECT_EQ(*(*a)->time().regressor.save(), *(*b)->time().regressor.save());
    o.seed = 18;
    auto c = trainCostModel({&g}, stcp920(), sim(), o);
    ASSERT_TRUE(c.isOk());
    EXPECT_NE(*(*a)->time().regressor.save(), *(*c)->time().regressor.save());
}

// Persisted per device: save, load, the same predictions.
TEST(PcgcLearn, SavedModelLoadsWithSamePredictions)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const std::string path = (tempDir() / "stcp920.json").string();
    ASSERT_TRUE(trained().save(path).isOk());
    auto loaded = LearnedCostModel::load(path, stcp920());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().str();
    const Graph &g = trainingGraphs()[0];
    for (NodeId n = 0; n < NodeId(g.nodeCount()); n += 7) {
        auto a = trained().predict(g, {n});
        auto b = (*loaded)->predict(g, {n});
        ASSERT_TRUE(a.isOk() && b.isOk());
        EXPECT_DOUBLE_EQ(a->timeNs, b->timeNs);
        EXPECT_DOUBLE_EQ(a->energyJ, b->energyJ);
    }
    EXPECT_EQ((*loaded)->summary().ops, trained().summary().ops);
    EXPECT_EQ((*loaded)->time().heldBack.size(), trained().time().heldBack.size());
    EXPECT_DOUBLE_EQ((*loaded)->time().accuracy.mape, trained().time().accuracy.mape);
}

// Negative twins: a corrupt file, a foreign JSON file, a model of another
// device, a model whose regressor was damaged: each refused with its reason.
TEST(PcgcLearn, CorruptOrForeignModelsAreRefused)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const std::string good = (tempDir() / "good.json").string();
    ASSERT_TRUE(trained().save(good).isOk());
    const std::string text = *readFile(good);

    auto expectRefused = [&](const std::string &path, const Device &d, const std::string &why) {
        auto m = LearnedCostModel::load(path, d);
        ASSERT_FALSE(m.isOk()) << path;
        EXPECT_EQ(m.status().code(), ErrorCode::InvalidInput);
        EXPECT_NE(m.status().message().find(why), std::string::npos) << m.status().message();
        EXPECT_NE(m.status().message().find(path), std::string::npos) << m.status().message();
    };
    expectRefused(writeTemp("garbage.json", "\x01\x02 not a model"), stcp920(), "not JSON");
    expectRefused(writeTemp("truncated.json", text.substr(0, text.size() / 2)), stcp920(), "not JSON");
    expectRefused(writeTemp("foreign.json", R"({"format": "something-else", "version": 1})"), stcp920(),
                  "not a PCGC cost model");
    expectRefused(good, *DeviceRegistry::standard().lookup("nvidia-v100"), "trained for device 'stcp920'");
    Device changed = stcp920();
    changed.overheads.kernelLaunchNs *= 2;
    expectRefused(good, changed, "changed since the model was trained");
    std::string damaged = text;
    const auto at = damaged.find("\"model\": \"");
    ASSERT_NE(at, std::string::npos);
    damaged.replace(at + 10, 40, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    expectRefused(writeTemp("damaged.json", damaged), stcp920(), "model");
}

// The model kept in the project file comes back after a reopen with the same
// predictions and is restored to the path the scheduler reads; twins: a
// changed device refuses it with the reason, a project without one has none,
// and a good model already at the path is not overwritten.
TEST(PcgcLearn, ModelInProjectRestoredOnReopen)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const std::string file = (tempDir() / "models.tessera").string();
    std::filesystem::remove(file);
    {
        ProjectInfo info;
        info.model.path = writeTemp("net.onnx", "model bytes");
        info.setup = {"pcgc", "stcp920", {}};
        auto created = Project::create(file, info);
        ASSERT_TRUE(created.isOk()) << created.status().str();
        ASSERT_TRUE(storeModelInProject(*created, trained()).isOk());
    }
    auto project = Project::open(file);
    ASSERT_TRUE(project.isOk()) << project.status().str();
    auto loaded = loadModelFromProject(*project, stcp920());
    ASSERT_TRUE(loaded.isOk()) << loaded.status().str();
    ASSERT_TRUE(*loaded);
    const Graph &g = trainingGraphs()[0];
    for (NodeId n = 0; n < NodeId(g.nodeCount()); n += 11) {
        auto a = trained().predict(g, {n});
        auto b = (*loaded)->predict(g, {n});
        ASSERT_TRUE(a.isOk() && b.isOk());
        EXPECT_DOUBLE_EQ(a->timeNs, b->timeNs);
        EXPECT_DOUBLE_EQ(a->energyJ, b->energyJ);
    }

    const std::string path = (tempDir() / "restored" / "stcp920.json").string();
    std::filesystem::remove(path);
    auto restored = restoreProjectModel(*project, stcp920(), path);
    ASSERT_TRUE(restored.isOk()) << restored.status().str();
    EXPECT_EQ(*restored, RestoreOutcome::Restored);
    EXPECT_TRUE(LearnedCostModel::load(path, stcp920()).isOk());
    EXPECT_EQ(*restoreProjectModel(*project, stcp920(), path), RestoreOutcome::KeptExisting);

    // Twins.
    Device changed = stcp920();
    changed.overheads.kernelLaunchNs *= 2;
    auto refused = loadModelFromProject(*project, changed);
    ASSERT_FALSE(refused.isOk());
    EXPECT_NE(refused.status().message().find("changed since the model was trained"), std::string::npos)
        << refused.status().message();
    EXPECT_NE(refused.status().message().find(file), std::string::npos) << refused.status().message();
    EXPECT_FALSE(restoreProjectModel(*project, changed, path).isOk());
    const Device v100 = *DeviceRegistry::standard().lookup("nvidia-v100");
    auto none = loadModelFromProject(*project, v100);
    ASSERT_TRUE(none.isOk());
    EXPECT_FALSE(*none);
    EXPECT_EQ(*restoreProjectModel(*project, v100, (tempDir() / "restored" / "v100.json").string()),
              RestoreOutcome::NoneStored);
}

// Training reports its progress and stops when cancelled (what the workbench's
// Train action runs off the GUI thread); twin: an uncancelled run reports up to 1.
TEST(PcgcLearn, TrainingReportsProgressAndCancels)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const Graph g = importSample("resnet50", 32);
    std::atomic<bool> cancel{false};
    std::vector<double> seen;
    TrainOptions o;
    o.minLabels = 4;
    o.cancel = &cancel;
    o.progress = [&](double f) {
        seen.push_back(f);
        if (seen.size() == 3)
            cancel = true;
    };
    auto m = trainCostModel({&g}, stcp920(), sim(), o);
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), ErrorCode::Cancelled);
    EXPECT_NE(m.status().message().find("training cancelled after 3 of"), std::string::npos) << m.status().message();
    EXPECT_EQ(seen.size(), 3u);

    cancel = false;
    seen.clear();
    o.progress = [&](double f) { seen.push_back(f); };
    auto full = trainCostModel({&g}, stcp920(), sim(), o);
    ASSERT_TRUE(full.isOk()) << full.status().str();
    ASSERT_FALSE(seen.empty());
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
    EXPECT_DOUBLE_EQ(seen.back(), 1.0);
}

// The re-cutting uses the learned model when asked (stats say so) and the plan verifies.
TEST(PcgcLearn, RecutUsesLearnedModel)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const std::string path = (tempDir() / "recut.json").string();
    ASSERT_TRUE(trained().save(path).isOk());
    const Graph &g = trainingGraphs()[0];
    auto run = schedule(g, {{"cost_model", "learned"}, {"model_file", path}});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("learned_model"), 1.0);
    EXPECT_TRUE(verifyPlan(run->result.plan, g, &stcp920()).isOk());
    auto analytic = schedule(g, {});
    ASSERT_TRUE(analytic.isOk());
    EXPECT_EQ(analytic->result.stats.at("learned_model"), 0.0);
    // The learned model's figures differ from the analytic ones it corrects.
    EXPECT_NE(run->result.stats.at("model_time_ns"), analytic->result.stats.at("model_time_ns"));
    // A split must beat keeping by twice the model's held-back error (recut.h);
    // the analytic model's estimates are the plan's own: no margin.
    EXPECT_DOUBLE_EQ(run->result.stats.at("split_margin"), 2 * trained().time().accuracy.mape);
    EXPECT_EQ(analytic->result.stats.at("split_margin"), 0.0);
    auto exact = schedule(g, {{"cost_model", "learned"}, {"model_file", path}, {"margin", "0"}});
    ASSERT_TRUE(exact.isOk()) << exact.status().str();
    EXPECT_EQ(exact->result.stats.at("split_margin"), 0.0);
    EXPECT_GE(exact->result.stats.at("splits"), run->result.stats.at("splits"));
}

// Negative twin: a corrupt model file → the analytic model, a trace step with
// the reason, and the same plan as without the option.
TEST(PcgcLearn, CorruptModelFallsBackToAnalytic)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    const std::string path = writeTemp("corrupt.json", "{ this is not json");
    const Graph &g = trainingGraphs()[0];
    auto run = schedule(g, {{"cost_model", "learned"}, {"model_file", path}});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("learned_model"), 0.0);
    const auto &steps = run->trace.steps();
    EXPECT_TRUE(std::any_of(steps.begin(), steps.end(), [&](const TraceStep &s) {
        return s.title.find("fallback") != std::string::npos && s.conclusion.find("not JSON") != std::string::npos;
    }));
    auto analytic = schedule(g, {});
    ASSERT_TRUE(analytic.isOk());
    EXPECT_EQ(run->result.stats.at("model_time_ns"), analytic->result.stats.at("model_time_ns"));
    EXPECT_EQ(run->result.plan.kernels.size(), analytic->result.plan.kernels.size());
}

// A device without a power model: the time model only, energy the analytic
// model's, a note that says so (stcp920 itself has one: see above).
TEST(PcgcLearn, DeviceWithoutPowerModelTrainsTimeOnly)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    Device d = stcp920();
    d.power = {};
    for (ComputeUnit &u : d.units)
        u.energyPerOpPj.clear();
    for (MemoryLevel &l : d.levels)
        l.energyPerBytePj = 0;
    ASSERT_FALSE(hasPowerModel(d));
    ASSERT_TRUE(hasPowerModel(stcp920()));
    TrainOptions o;
    o.minLabels = 5;
    const Graph &g = trainingGraphs()[0];
    auto m = trainCostModel({&g}, d, sim(), o);
    ASSERT_TRUE(m.isOk()) << m.status().str();
    EXPECT_EQ((*m)->power(), nullptr);
    EXPECT_NE((*m)->powerNote().find("no power model"), std::string::npos);
    auto p = (*m)->predict(g, {0});
    ASSERT_TRUE(p.isOk());
    EXPECT_EQ(p->energyJ, 0.0);
    EXPECT_GT(p->timeNs, 0.0);
}

// A measuring backend that reports no energy (the reference backend: wall
// clock only) trains the time model only and says why; the simulator, which
// reports energy, trains both (TrainsOnSimulatorAndScoresHeldBackLabels).
TEST(PcgcLearn, BackendWithoutEnergyTrainsTimeOnly)
{
    if (!Regressor::available())
        GTEST_SKIP() << Regressor::unavailableReason();
    auto reference = createReferenceBackend();
    ASSERT_TRUE(reference->info().capabilities.measured);
    TrainOptions o;
    o.minLabels = 5;
    const Graph &g = trainingGraphs()[0];
    auto m = trainCostModel({&g}, stcp920(), *reference, o);
    ASSERT_TRUE(m.isOk()) << m.status().str();
    EXPECT_EQ((*m)->power(), nullptr);
    EXPECT_NE((*m)->powerNote().find("reports no energy"), std::string::npos) << (*m)->powerNote();
    EXPECT_EQ((*m)->summary().backend, "reference");
}
