// The AStitch baseline (graphturbo-osdi23 §5.2): compute-intensive ops one
// kernel each, memory-intensive ops stitched while convex, tensors kept in L1
// as far as they fit (spills LB → GB → DDR, §4.3), the batch spread over the
// clusters, no instance split. Each focused test sits beside a negative twin.
// Every plan passes verifyPlan; the reference backend computes the sequential
// plan's outputs from it; the simulator runs it.
#include "backends/reference/reference.h"
#include "backends/sim/sim.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/plan/verify.h"
#include "core/sched/session.h"
#include "plugins/astitch/astitch.h"
#include "samples/builder.h"
#include "samples/catalog.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <set>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"

namespace fs = std::filesystem;
using namespace tessera;
namespace tg = tessera::testgraphs;

namespace {

const Device &stcp920()
{
    static const Device d = *DeviceRegistry::standard().lookup("stcp920");
    return d;
}

// STCP920 with an L1 of `bytes` per core.
Device smallL1(std::int64_t bytes)
{
    Device d = stcp920();
    d.levels.front().capacityBytes = bytes;
    return d;
}

Expected<ScheduleRun> schedule(const Graph &g, const Device &d, Overrides overrides = {},
                               std::map<std::string, std::string> options = {})
{
    static const auto scheduler = createAstitchScheduler();
    ScheduleSetup setup;
    setup.overrides = std::move(overrides);
    setup.options = std::move(options);
    return scheduleGraph(g, d, *scheduler, setup); // verifies the plan against the device
}

void expectSameOutputs(const Graph &g, const ExecutionPlan &plan)
{
    auto backend = createReferenceBackend();
    const Status same = planutil::sameOutputsAsSequential(*backend, g, plan, 11);
    EXPECT_TRUE(same.isOk()) << same.str();
}

double simMs(const Graph &g, const ExecutionPlan &p, const Device &d)
{
    auto sim = createSimBackend(nullptr);
    CompileContext ctx{&d, {}};
    auto c = sim->compileFor(g, p, ctx);
    EXPECT_TRUE(c.isOk()) << c.status().str();
    if (!c)
        return -1;
    auto r = sim->run(**c, planutil::makeInputs(g, 1));
    EXPECT_TRUE(r.isOk()) << r.status().str();
    return r ? r->metrics.at("sim_time_ms") : -1;
}

// The kernel computing node `name`, -1 if none.
int kernelOf(const Graph &g, const ExecutionPlan &p, const std::string &name)
{
    for (const Kernel &k : p.kernels)
        for (NodeId n : k.nodes)
            if (g.node(n).name == name)
                return k.id;
    return -1;
}

// x[batch, 8, 16, 16] -> conv3x3 -> BN-like Mul/Add -> relu -> conv3x3 -> add(x) -> relu.
Graph batchedBlock(std::int64_t batch)
{
    Graph g;
    g.name = "batched_block";
    const Shape s{batch, 8, 16, 16};
    const TensorId x = tg::tensor(g, "x", s, Tensor::Kind::Input);
    g.inputs = {x};
    AttrMap conv{{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                 {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}};
    const TensorId c1 = tg::op(g, "conv1", "Conv", {x, tg::weight(g, "w1", {8, 8, 3, 3})}, s, conv);
    const TensorId m = tg::op(g, "scale", "Mul", {c1, tg::weight(g, "gamma", {1, 8, 1, 1})}, s);
    const TensorId b = tg::op(g, "shift", "Add", {m, tg::weight(g, "beta", {1, 8, 1, 1})}, s);
    const TensorId r = tg::op(g, "relu1", "Relu", {b}, s);
    const TensorId c2 = tg::op(g, "conv2", "Conv", {r, tg::weight(g, "w2", {8, 8, 3, 3})}, s, conv);
    const TensorId a = tg::op(g, "add", "Add", {c2, x}, s);
    g.outputs = {tg::op(g, "relu2", "Relu", {a}, s)};
    return g;
}

// --- A1 stitching -----------------------------------------------------------

TEST(AstitchStitching, ComputeOpsStayAloneAndMemoryOpsAreStitched)
{
    const Graph g = tg::residualChain(2);
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    for (const Kernel &k : p.kernels)
        for (NodeId n : k.nodes)
            if (g.node(n).opType == "Conv") {
                EXPECT_EQ(k.nodes.size(), 1u) << k.name << ": a convolution is a kernel of its own";
            }
    // block0's add reads conv2 and the graph input; relu2 joins it.
    EXPECT_EQ(kernelOf(g, p, "block0/relu2"), kernelOf(g, p, "block0/add"));
    EXPECT_EQ(run->result.stats.at("stitched_ops"), 2) << "block0/relu2 and block1/relu2";
    expectSameOutputs(g, p);
}

TEST(AstitchStitching, AStitchThatWouldLeaveAndReturnIsRefused)
{
    // Twin: block1/add reads block0/relu2's kernel directly (the residual) and through
    // conv1 → relu1 → conv2; stitching it there would make that kernel non-convex.
    const Graph g = tg::residualChain(2);
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_NE(kernelOf(g, p, "block1/add"), kernelOf(g, p, "block0/relu2"));
    EXPECT_EQ(run->decisions.find(decisionKey("astitch.stitch", {"block1/add"})), nullptr)
        << "no stitch is offered for it";
}

TEST(AstitchStitching, AStitchThatWouldMakeTwoKernelsWaitForEachOtherIsRefused)
{
    // a = Relu(x), b = Sigmoid(x), c = Add(b, a), d = Mul(a, b): c joins b's kernel; d joining
    // a's kernel would make {a, d} wait for {b, c} (b → d) and {b, c} for {a, d} (a → c), a cycle
    // between convex kernels, so d joins b's kernel instead (the first candidate refused).
    Graph g;
    g.name = "crossed";
    const TensorId x = tg::tensor(g, "x", {2, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = tg::op(g, "a", "Relu", {x}, {2, 8});
    const TensorId b = tg::op(g, "b", "Sigmoid", {x}, {2, 8});
    g.outputs = {tg::op(g, "c", "Add", {b, a}, {2, 8}), tg::op(g, "d", "Mul", {a, b}, {2, 8})};
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_EQ(kernelOf(g, p, "c"), kernelOf(g, p, "b"));
    EXPECT_EQ(kernelOf(g, p, "d"), kernelOf(g, p, "b"));
    EXPECT_NE(kernelOf(g, p, "a"), kernelOf(g, p, "b"));
    expectSameOutputs(g, p);
    // Twin: without c, nothing ties b's kernel to a's, and d joins a's kernel (its first input).
    Graph h;
    h.name = "uncrossed";
    const TensorId y = tg::tensor(h, "x", {2, 8}, Tensor::Kind::Input);
    h.inputs = {y};
    const TensorId ha = tg::op(h, "a", "Relu", {y}, {2, 8});
    const TensorId hb = tg::op(h, "b", "Sigmoid", {y}, {2, 8});
    h.outputs = {tg::op(h, "d", "Mul", {ha, hb}, {2, 8})};
    auto twin = schedule(h, stcp920());
    ASSERT_TRUE(twin.isOk()) << twin.status().str();
    EXPECT_EQ(kernelOf(h, twin->result.plan, "d"), kernelOf(h, twin->result.plan, "a"));
    expectSameOutputs(h, twin->result.plan);
}

TEST(AstitchStitching, OverridingAStitchReplaysAndStillVerifies)
{
    const Graph g = tg::residualChain(2);
    auto base = schedule(g, stcp920());
    ASSERT_TRUE(base.isOk()) << base.status().str();
    const std::string key = decisionKey("astitch.stitch", {"block0/relu2"});
    ASSERT_NE(base->decisions.find(key), nullptr);
    auto forced = schedule(g, stcp920(), {{key, "separate"}});
    ASSERT_TRUE(forced.isOk()) << forced.status().str();
    EXPECT_EQ(forced->result.plan.kernels.size(), base->result.plan.kernels.size() + 1);
    EXPECT_NE(kernelOf(g, forced->result.plan, "block0/relu2"), kernelOf(g, forced->result.plan, "block0/add"));
    EXPECT_TRUE(forced->decisions.find(key)->overridden);
    expectSameOutputs(g, forced->result.plan);
    // Twin: an option the decision does not have is rejected, the preferred one is used.
    auto bad = schedule(g, stcp920(), {{key, "fuse-twice"}});
    ASSERT_TRUE(bad.isOk()) << bad.status().str();
    EXPECT_EQ(bad->result.plan.kernels.size(), base->result.plan.kernels.size());
    const auto reports = bad->decisions.overrideReports();
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports.front().outcome, OverrideReport::Outcome::Rejected);
}

// --- Plans: verifier and reference backend ------------------------------------

TEST(AstitchPlans, TestGraphsComputeTheSequentialOutputs)
{
    for (const Graph &g : {tg::residualChain(3), tg::diamond(), tg::fan(4), tg::fig34(), batchedBlock(4)}) {
        SCOPED_TRACE(g.name);
        auto run = schedule(g, stcp920());
        ASSERT_TRUE(run.isOk()) << run.status().str();
        EXPECT_TRUE(verifyPlan(run->result.plan, g, &stcp920()).isOk());
        expectSameOutputs(g, run->result.plan);
        EXPECT_GT(simMs(g, run->result.plan, stcp920()), 0);
    }
}

// --- A3 levels ----------------------------------------------------------------

TEST(AstitchLevels, TensorsStayInL1WhenTheyFit)
{
    // residual_chain's tensors are 8 KiB: spread over 8 cores of 64 KiB each they all fit.
    const Graph g = tg::residualChain(3);
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const auto &st = run->result.stats;
    EXPECT_EQ(st.at("spills"), 0);
    EXPECT_EQ(st.at("scope_slowest"), 1) << "only the graph output lives in DDR";
    EXPECT_EQ(st.at("scope_next"), 0);
    EXPECT_GT(st.at("scope_fast"), 5);
    int l1 = 0;
    for (const Buffer &b : run->result.plan.buffers)
        l1 += b.level == "L1";
    EXPECT_GT(l1, 0);
}

TEST(AstitchLevels, ASmallL1SpillsTheLongestLivedTensorToLlb)
{
    // Twin: 1.5 KiB of L1 per core holds one 8 KiB tensor over 8 cores (1 KiB each) but not
    // two: the residual input (live across its block) is spilled first.
    const Graph g = tg::residualChain(2);
    const Device d = smallL1(1536);
    auto run = schedule(g, d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const auto &st = run->result.stats;
    EXPECT_GT(st.at("spills"), 0);
    EXPECT_GT(st.at("scope_next"), 0);
    EXPECT_TRUE(verifyPlan(run->result.plan, g, &d).isOk());
    const DecisionRecord *first = nullptr;
    for (const DecisionRecord &r : run->decisions.records())
        if (r.role == "astitch.spill" && !first)
            first = &r;
    ASSERT_NE(first, nullptr);
    const DecisionOption &victim = first->options[static_cast<std::size_t>(first->chosen)];
    for (const DecisionOption &o : first->options)
        EXPECT_GE(o.cost, victim.cost) << "the victim lives longest (cost = -liveness)";
    expectSameOutputs(g, run->result.plan);
}

TEST(AstitchLevels, OverridingASpillVictimReplaysAndStillVerifies)
{
    const Graph g = tg::residualChain(2);
    const Device d = smallL1(1536);
    auto base = schedule(g, d);
    ASSERT_TRUE(base.isOk()) << base.status().str();
    const DecisionRecord *spill = nullptr;
    for (const DecisionRecord &r : base->decisions.records())
        if (r.role == "astitch.spill" && r.options.size() > 1 && !spill)
            spill = &r;
    ASSERT_NE(spill, nullptr);
    const std::string other = spill->options[1].id;
    auto forced = schedule(g, d, {{spill->key, other}});
    ASSERT_TRUE(forced.isOk()) << forced.status().str();
    const DecisionRecord *again = forced->decisions.find(spill->key);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(again->overridden);
    EXPECT_EQ(again->options[static_cast<std::size_t>(again->chosen)].id, other);
    std::vector<std::string> levelsBase, levelsForced;
    for (const Buffer &b : base->result.plan.buffers)
        levelsBase.push_back(b.level);
    for (const Buffer &b : forced->result.plan.buffers)
        levelsForced.push_back(b.level);
    EXPECT_NE(levelsBase, levelsForced) << "another tensor left L1";
    EXPECT_TRUE(verifyPlan(forced->result.plan, g, &d).isOk());
    expectSameOutputs(g, forced->result.plan);
}

// --- A2 cluster parts -----------------------------------------------------------

TEST(AstitchClusters, ABatchOfFourIsSpreadOverTheFourClusters)
{
    const Graph g = batchedBlock(4);
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_EQ(run->result.stats.at("spread_kernels"), run->result.stats.at("kernels"));
    std::set<int> clusters;
    for (const Task &t : p.tasks) {
        clusters.insert(t.binding.cluster);
        EXPECT_EQ(t.binding.coreCount, 8) << "no instance split: a kernel uses the whole cluster";
    }
    EXPECT_EQ(clusters, (std::set<int>{0, 1, 2, 3}));
    EXPECT_EQ(p.tasks.size(), 4 * p.kernels.size());
    expectSameOutputs(g, p);
}

TEST(AstitchClusters, ABatchOfThreeRunsWholeOnOneCluster)
{
    const Graph g = batchedBlock(3);
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_EQ(run->result.stats.at("spread_kernels"), 0);
    for (const Task &t : p.tasks)
        EXPECT_EQ(t.binding.cluster, 0);
    EXPECT_EQ(p.tasks.size(), p.kernels.size());
    expectSameOutputs(g, p);
}

// --- A real sample ----------------------------------------------------------------

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("tessera-astitch-" + std::to_string(::getpid()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() { fs::remove_all(path); }
};

Expected<Graph> importSample(const TempDir &dir, const std::string &name, const samples::SampleOptions &o)
{
    auto m = test::buildRegisteredSample(name, o); // the catalog's and the plugins' (IOS networks)
    if (!m)
        return m.status();
    const std::string path = (dir.path / (name + ".onnx")).string();
    TS_TRY(samples::saveModel(**m, path, true));
    auto r = importModel(path);
    if (!r)
        return r.status();
    return std::move(r->graph);
}

// The IOS benchmark networks join branches through concatenations whose inputs cross
// (RandWire, NasNet-A): every stitch keeps the kernel graph acyclic and the plan verifies.
TEST(AstitchModels, CrossingBranchesOfRandWireAndNasNetSchedule)
{
    const TempDir dir;
    for (const char *name : {"randwire", "nasnet-a"}) {
        auto g = importSample(dir, name, {});
        ASSERT_TRUE(g.isOk()) << name << ": " << g.status().str();
        auto run = schedule(*g, stcp920());
        ASSERT_TRUE(run.isOk()) << name << ": " << run.status().str();
        EXPECT_GT(run->result.stats.at("stitched_ops"), 0) << name;
        EXPECT_TRUE(verifyPlan(run->result.plan, *g, &stcp920()).isOk()) << name;
    }
}

TEST(AstitchModels, ResNet50ComputesTheSequentialOutputsAndRunsOnTheSimulator)
{
    samples::SampleOptions o;
    o.imageSize = 64;
    o.batch = 4;
    const TempDir dir;
    auto imported = importSample(dir, "resnet50", o);
    ASSERT_TRUE(imported.isOk()) << imported.status().str();
    const Graph &g = *imported;
    auto run = schedule(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const auto &st = run->result.stats;
    std::cout << "resnet50@64 b4: " << st.at("kernels") << " kernels, " << st.at("spread_kernels") << " spread, "
              << st.at("spills") << " spills, scopes L1/LLB/DDR " << st.at("scope_fast") << "/" << st.at("scope_next")
              << "/" << st.at("scope_slowest") << ", schedule " << run->searchMs << " ms\n";
    EXPECT_GT(st.at("stitched_ops"), 0);
    EXPECT_GT(st.at("spread_kernels"), 0);
    EXPECT_GT(simMs(g, run->result.plan, stcp920()), 0);
    expectSameOutputs(g, run->result.plan);
}

} // namespace
