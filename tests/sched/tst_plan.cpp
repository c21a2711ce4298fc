// ExecutionPlan verifier: a valid plan passes; each broken invariant is named.
#include "core/cost/devicecost.h"
#include "core/hw/device.h"
#include "core/ops/indexmap.h"
#include "core/plan/taskmaps.h"
#include "core/plan/tiles.h"
#include "core/plan/verify.h"
#include "core/sched/scheduler.h"
#include "plugins/sequential/sequential.h"

#include <atomic>
#include <gtest/gtest.h>

#include "tests/common/testgraphs.h"

using namespace tessera;

namespace {

Device device()
{
    Device d;
    d.id = "test-dsa";
    d.kind = DeviceKind::Dsa;
    d.topology = {2, 4, 1};
    d.levels = {{"L1", MemoryScope::PerCore, 4096, 1e12, 32, 32, 1, 0},
                {"DDR", MemoryScope::Shared, std::int64_t(1) << 30, 1e11, 64, 64, 100, 0}};
    ComputeUnit v;
    v.kind = UnitKind::Vector;
    v.name = "VEC";
    v.peakOpsPerSec = {{DType::Float32, 1e12}};
    v.opClasses = {OpClass::Gemm, OpClass::Elementwise, OpClass::Reduction, OpClass::Movement, OpClass::Other};
    d.units = {v};
    return d;
}

class PlanVerify : public ::testing::Test
{
protected:
    void SetUp() override
    {
        graph = testgraphs::residualChain(1);
        DeviceCostModel cost(dev);
        ScheduleRequest r;
        r.graph = &graph;
        r.device = &dev;
        r.cost = &cost;
        auto sequential = createSequentialScheduler();
        auto options = OptionValues::resolve(sequential->info().options, {{"epilogues", "false"}}); // a kernel per node
        ASSERT_TRUE(options.isOk());
        r.options = *options;
        auto run = runSchedule(*sequential, r);
        ASSERT_TRUE(run.isOk()) << run.status().str();
        plan = run->result.plan;
    }
    std::string error(const ExecutionPlan &p) { return verifyPlan(p, graph, &dev).str(); }
    TaskId taskOf(const std::string &node)
    {
        for (const Task &t : plan.tasks)
            if (t.kind == TaskKind::Compute && graph.node(plan.kernels[t.kernel].nodes.front()).name == node)
                return t.id;
        return -1;
    }

    Device dev = device();
    Graph graph;
    ExecutionPlan plan;
};

} // namespace

TEST_F(PlanVerify, SequentialPlanIsValid)
{
    EXPECT_TRUE(verifyPlan(plan, graph, &dev).isOk());
}

// Verification looks at a cancel token (scheduleGraph passes its own): a set
// token ends it as Cancelled; a clear one changes nothing.
TEST_F(PlanVerify, ASetCancelTokenStopsVerification)
{
    std::atomic<bool> cancel{true};
    const Status s = verifyPlan(plan, graph, &dev, &cancel);
    EXPECT_EQ(s.code(), ErrorCode::Cancelled) << s.str();
    EXPECT_EQ(s.message(), "verification was cancelled");
}

TEST_F(PlanVerify, AClearCancelTokenChangesNothing)
{
    std::atomic<bool> cancel{false};
    EXPECT_TRUE(verifyPlan(plan, graph, &dev, &cancel).isOk());
    ExecutionPlan p = plan;
    p.kernels[2].nodes = {p.kernels[1].nodes.front()};
    EXPECT_EQ(verifyPlan(p, graph, &dev, &cancel).str(), verifyPlan(p, graph, &dev).str());
    EXPECT_FALSE(verifyPlan(p, graph, &dev, &cancel).isOk());
}

TEST_F(PlanVerify, MissingNodeIsReported)
{
    ExecutionPlan p = plan; // kernel 2 (conv2) recomputes relu1 instead

    p.kernels[2].nodes = {p.kernels[1].nodes.front()};
    EXPECT_NE(error(p).find("node 'block0/conv2': error: node is not computed"), std::string::npos) << error(p);
}

TEST_F(PlanVerify, DuplicateComputationNeedsRecompute)
{
    ExecutionPlan p = plan;
    Task again = p.tasks[static_cast<std::size_t>(taskOf("block0/relu1"))];
    again.deps = {static_cast<TaskId>(p.tasks.size() - 1)};
    p.addTask(again);
    EXPECT_NE(error(p).find("computed twice"), std::string::npos) << error(p);
    p.tasks.back().recompute = true;
    EXPECT_TRUE(verifyPlan(p, graph, &dev).isOk()) << error(p);
}

TEST_F(PlanVerify, MissingDependencyIsReported)
{
    ExecutionPlan p = plan;
    p.tasks[static_cast<std::size_t>(taskOf("block0/add"))].deps.clear();
    EXPECT_NE(error(p).find("without depending on it"), std::string::npos) << error(p);
}

TEST_F(PlanVerify, DependencyOnLaterTaskIsReported)
{
    ExecutionPlan p = plan;
    p.tasks[0].deps = {3};
    EXPECT_NE(error(p).find("not issued before"), std::string::npos) << error(p);
}

TEST_F(PlanVerify, KernelNodesOutOfOrderAreReported)
{
    ExecutionPlan p = plan;
    p.kernels[0].nodes = {p.kernels[1].nodes[0], p.kernels[0].nodes[0]}; // relu1 before conv1
    EXPECT_NE(error(p).find("topological order"), std::string::npos) << error(p);
}

TEST_F(PlanVerify, BindingOutsideTheDeviceIsReported)
{
    ExecutionPlan p = plan;
    p.tasks[0].binding.cluster = 5;
    EXPECT_NE(error(p).find("bound to cluster 5"), std::string::npos) << error(p);
    p.tasks[0].binding = {0, 3, 2, -1, -1};
    EXPECT_NE(error(p).find("bound to cores [3, 5)"), std::string::npos) << error(p);
}

TEST_F(PlanVerify, CapacityIsChecked)
{
    ExecutionPlan p = plan;
    Buffer b;
    b.tensor = graph.findTensor("block0/conv1:0");
    b.level = "L1";
    b.scopeIndex = 0;
    b.bytes = graph.tensor(b.tensor).bytes(); // 8 KiB > 4 KiB of L1
    const BufferId id = p.addBuffer(b);
    p.tasks[0].writes.push_back(id);
    EXPECT_NE(error(p).find("level L1[0] holds 8192 bytes"), std::string::npos) << error(p);
    p.buffers[static_cast<std::size_t>(id)].level = "HBM";
    EXPECT_NE(error(p).find("level 'HBM'"), std::string::npos) << error(p);
    p.buffers[static_cast<std::size_t>(id)].level = "DDR";
    EXPECT_TRUE(verifyPlan(p, graph, &dev).isOk()) << error(p);
}

TEST_F(PlanVerify, TilesMustCoverTheOutputExactlyOnce)
{
    // Split the first conv into two row halves.
    ExecutionPlan p = plan;
    const TaskId t = taskOf("block0/conv1");
    const NodeId conv = graph.findNode("block0/conv1");
    Task top = p.tasks[static_cast<std::size_t>(t)];
    top.tiles = {{conv, 0, {{0, 1}, {0, 8}, {0, 8}, {0, 16}}}};
    Task bottom = top;
    bottom.tiles = {{conv, 0, {{0, 1}, {0, 8}, {8, 16}, {0, 16}}}};
    p.tasks[static_cast<std::size_t>(t)] = top;
    // Insert the bottom half right after by appending and making relu1 depend on it too.
    ExecutionPlan q;
    q.kernels = p.kernels;
    q.buffers = p.buffers;
    for (const Task &x : p.tasks) {
        Task c = x;
        for (TaskId &d : c.deps)
            d += d > t ? 1 : 0;
        if (x.id > t)
            for (TaskId &d : c.deps)
                if (d == t)
                    c.deps.push_back(t + 1);
        q.addTask(c);
        if (x.id == t) {
            Task b = bottom;
            b.deps = c.deps;
            q.addTask(b);
        }
    }
    EXPECT_TRUE(verifyPlan(q, graph, &dev).isOk()) << error(q);

    ExecutionPlan overlap = q;
    overlap.tasks[static_cast<std::size_t>(t + 1)].tiles[0].region[2] = {4, 16};
    EXPECT_NE(error(overlap).find("computed twice"), std::string::npos) << error(overlap);

    ExecutionPlan gap = q;
    gap.tasks[static_cast<std::size_t>(t + 1)].tiles[0].region[2] = {9, 16};
    EXPECT_NE(error(gap).find("tiles cover 1920 of 2048"), std::string::npos) << error(gap);

    ExecutionPlan outside = q;
    outside.tasks[static_cast<std::size_t>(t + 1)].tiles[0].region[2] = {8, 17};
    EXPECT_NE(error(outside).find("outside the output's bounds"), std::string::npos) << error(outside);
}

TEST(Tiles, ConvTileNeedsAHalo)
{
    Graph g = testgraphs::residualChain(1);
    Kernel k{0, "k", {g.findNode("block0/conv1")}, {}};
    auto r = taskRegions(g, k, {{k.nodes[0], 0, {{0, 1}, {0, 8}, {0, 8}, {0, 16}}}});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    const ops::Region &x = r->read.at(g.findTensor("x"));
    EXPECT_EQ(x[2], (ops::Interval{0, 9})); // rows 0..7 of a 3x3 pad-1 conv read rows -1..8, clipped to 0..8
    EXPECT_EQ(x[1], (ops::Interval{0, 8})); // all input channels
}

// KernelIndexMaps (type inference once per kernel node) give taskRegions' answer for every tile of
// a residual block fused into one kernel, halos and the skip connection included.
TEST(Tiles, KernelIndexMapsGiveTheSameRegions)
{
    Graph g = testgraphs::residualChain(1);
    Kernel k{0, "block", {}, {}};
    for (const char *n : {"block0/conv1", "block0/relu1", "block0/conv2", "block0/add", "block0/relu2"})
        k.nodes.push_back(g.findNode(n));
    ASSERT_TRUE(std::none_of(k.nodes.begin(), k.nodes.end(), [](NodeId n) { return n == kInvalidId; }));
    const KernelIndexMaps maps(g, k);
    EXPECT_EQ(maps.outputNodes(), kernelOutputNodes(g, k.nodes));
    for (std::int64_t r = 0; r < 16; r += 4)
        for (std::int64_t c = 0; c < 16; c += 8) {
            const std::vector<NodeTile> tiles{{k.nodes.back(), 0, {{0, 1}, {0, 8}, {r, r + 4}, {c, c + 8}}}};
            auto a = taskRegions(g, k, tiles);
            auto b = taskRegions(g, k, tiles, &maps);
            ASSERT_TRUE(a.isOk() && b.isOk());
            EXPECT_EQ(a->computed, b->computed);
            EXPECT_EQ(a->read, b->read);
        }
}

// Twin: a node whose shapes do not infer gives inputRegions' error through its NodeIndexMap too,
// on every call, and a tile outside the output is refused the same way.
TEST(Tiles, NodeIndexMapKeepsInputRegionsErrors)
{
    Graph g = testgraphs::residualChain(1);
    const Node &conv = g.node(g.findNode("block0/conv1"));
    const ops::NodeIndexMap map(g, conv);
    const ops::Region outside{{0, 1}, {0, 8}, {0, 17}, {0, 16}};
    EXPECT_EQ(map.inputRegions(0, outside).status().message(),
              ops::inputRegions(g, conv, 0, outside).status().message());
    EXPECT_FALSE(map.inputRegions(0, outside).isOk());
    Graph bad = g;
    bad.tensor(bad.node(bad.findNode("block0/conv1")).inputs[1]).shape = {8, 3, 3, 3}; // 3 input channels, not 8
    const Node &badConv = bad.node(bad.findNode("block0/conv1"));
    const ops::NodeIndexMap badMap(bad, badConv);
    const ops::Region tile{{0, 1}, {0, 8}, {0, 4}, {0, 4}};
    for (int i = 0; i < 2; ++i) {
        auto r = badMap.inputRegions(0, tile);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), ops::inputRegions(bad, badConv, 0, tile).status().message());
    }
    EXPECT_TRUE(map.inputRegions(0, tile).isOk());
}

// Many tiles (more than the 4096 the pairwise check once stopped at): one-element
// tiles of a Relu cover its output exactly once; moving one tile onto its
// neighbour (same count, one element twice, one missing) is reported as
// computed twice, found through the verifier's region index.
TEST(PlanVerifyMany, EveryTileCountIsCheckedForOverlap)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 1, 128, 64}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {testgraphs::op(g, "relu", "Relu", {x}, {1, 1, 128, 64})};
    ExecutionPlan p;
    const KernelId k = p.addKernel("relu", {0});
    for (std::int64_t r = 0; r < 128; ++r)
        for (std::int64_t c = 0; c < 64; ++c) {
            Task t;
            t.kernel = k;
            t.tiles = {{0, 0, {{0, 1}, {0, 1}, {r, r + 1}, {c, c + 1}}}};
            p.addTask(std::move(t));
        }
    EXPECT_TRUE(verifyPlan(p, g, nullptr).isOk()) << verifyPlan(p, g, nullptr).str();
    ExecutionPlan twice = p;
    twice.tasks[5000].tiles[0].region[3] = {7, 8};
    twice.tasks[5001].tiles[0].region[3] = {7, 8};
    const Status s = verifyPlan(twice, g, nullptr);
    EXPECT_NE(s.str().find("computed twice"), std::string::npos) << s.str();
}
