// Fused intermediates on the CPU backend (backends/cpu/fusedintermediates.cpp,
// issue 13 item 1): the intermediates of a tiled task's fused group (Welder's
// conv→relu→conv tile graph, GraphTurbo's sub-graph instances) live in
// tile-sized buffers on the worker's scratch instead of whole tensors in the
// run's arena. Each run matches the reference backend (relative L2 under
// 1e-5) and the arena shrinks against the same plan with the feature off
// (CpuBackendOptions::fuseIntermediates); the twins keep whole tensors where
// an intermediate is read outside its kernel, by another kernel that does not
// compute it, or by a reference fallback. A task with two tiles of each node
// runs tile by tile (its scratch one tile's); uneven tiles keep their hull.
// Views folded into element-wise chains (backends/cpu/viewfold.cpp): a
// Transpose, Slice, Reshape stack or Expand read by a chain is its operand's
// strides, one LLVM op named after both ("llvm-jit:Transpose+Add"), matching
// the reference backend (a negative step included); the twins (a reshape that does not
// compose, a view read by a MatMul, by two nodes, by a declining chain, by an
// unchainable Clip, by an anchor's epilogue) stay copies and still match.
#include "backends/cpu/cpu.h"
#include "backends/reference/reference.h"
#include "core/backend/outputcheck.h"
#include "core/plan/tiles.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"

namespace fs = std::filesystem;
using namespace tessera;
using tessera::testgraphs::op;

namespace {

constexpr double kTolerance = 1e-5;

// g scheduled by the algorithm tessera registers as `algorithm`.
Expected<ExecutionPlan> plan(const Graph &g, const std::string &algorithm)
{
    return planutil::schedulePlan(g, test::registeredScheduler(algorithm));
}

// x[1,16,56,56] -> Conv 3x3 -> `act` -> Conv 3x3; the activation's output is a
// graph output too when `exposed`.
Graph convActConv(const std::string &act, bool exposed)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 16, 56, 56}, Tensor::Kind::Input);
    g.inputs = {x};
    const AttrMap conv{{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                       {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}};
    const TensorId c1 = op(g, "conv1", "Conv", {x, testgraphs::weight(g, "w1", {16, 16, 3, 3})}, {1, 16, 56, 56}, conv);
    const TensorId a = op(g, "act", act, {c1}, {1, 16, 56, 56});
    const TensorId y = op(g, "conv2", "Conv", {a, testgraphs::weight(g, "w2", {16, 16, 3, 3})}, {1, 16, 56, 56}, conv);
    g.outputs = {y};
    if (exposed)
        g.outputs.push_back(a);
    return g;
}

// Whether some tiled task of `p` runs a kernel holding every node named in `names`.
bool fusedTiles(const Graph &g, const ExecutionPlan &p, const std::vector<std::string> &names)
{
    for (const Task &t : p.tasks) {
        if (t.kind != TaskKind::Compute || t.tiles.empty())
            continue;
        const Kernel &k = p.kernels[static_cast<std::size_t>(t.kernel)];
        bool all = true;
        for (const std::string &name : names)
            all = all && std::any_of(k.nodes.begin(), k.nodes.end(), [&](NodeId n) { return g.node(n).name == name; });
        if (all)
            return true;
    }
    return false;
}

std::int64_t tensorBytes(const Graph &g, const std::string &name)
{
    for (std::size_t t = 0; t < g.tensorCount(); ++t)
        if (g.tensor(static_cast<TensorId>(t)).name == name)
            return g.tensor(static_cast<TensorId>(t)).bytes();
    ADD_FAILURE() << "no tensor '" << name << "'";
    return 0;
}

class CpuFusedTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("tessera-cpufused-" + std::to_string(::getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    Graph sample(const std::string &name)
    {
        auto g = test::importRegisteredSample(name, samples::SampleOptions{}, (dir / (name + ".onnx")).string());
        EXPECT_TRUE(g.isOk()) << g.status().str();
        return g ? std::move(*g) : Graph{};
    }

    // `p` on the cpu backend with fused intermediates (`fused`) and without
    // (`whole`), each checked against the reference backend.
    void run(const Graph &g, const ExecutionPlan &p, const std::string &what)
    {
        const auto inputs = planutil::makeInputs(g, 13);
        auto expected = planutil::compileAndRun(*reference, g, p, inputs);
        ASSERT_TRUE(expected.isOk()) << what << ": " << expected.status().str();
        for (auto [backend, result] : {std::pair{fusedCpu.get(), &fused}, std::pair{wholeCpu.get(), &whole}}) {
            auto got = planutil::compileAndRun(*backend, g, p, inputs);
            ASSERT_TRUE(got.isOk()) << what << ": " << got.status().str();
            EXPECT_EQ(planutil::outputMismatches(*got, *expected, kTolerance), "")
                << what << (backend == fusedCpu.get() ? ", fused" : ", whole");
            *result = std::move(*got);
        }
    }

    fs::path dir;
    std::unique_ptr<IBackend> reference = createReferenceBackend();
    std::unique_ptr<IBackend> fusedCpu = createCpuBackend();
    std::unique_ptr<IBackend> wholeCpu = createCpuBackend({.fuseIntermediates = false});
    RunResult fused, whole;
};

// Welder's tile graph conv→relu→conv: the Relu's output (the first
// convolution's, with the Relu as its post-op) lives in a tile-sized buffer;
// the arena shrinks by at least that tensor.
TEST_F(CpuFusedTest, WelderConvReluConvKeepsTheIntermediateInATile)
{
    const Graph g = convActConv("Relu", false);
    auto p = plan(g, "welder");
    ASSERT_TRUE(p.isOk()) << p.status().str();
    ASSERT_TRUE(fusedTiles(g, *p, {"conv1", "act", "conv2"})) << "welder did not fuse conv→relu→conv into tiles";
    run(g, *p, "welder conv→relu→conv");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 1);
    EXPECT_EQ(fused.metrics["fused_intermediates/tensor_bytes"], tensorBytes(g, "act:0"));
    EXPECT_GT(fused.metrics["fused_intermediates/scratch_bytes"], 0);
    EXPECT_LT(fused.metrics["fused_intermediates/scratch_bytes"], tensorBytes(g, "act:0"));
    EXPECT_EQ(whole.metrics["fused_intermediates/tensors"], 0);
    EXPECT_LE(fused.metrics["arena_bytes"] + tensorBytes(g, "act:0"), whole.metrics["arena_bytes"]);
    EXPECT_EQ(fused.metrics["ops/reference"], 0);
}

// conv→act→conv as one kernel cut into four row tiles (a tile graph by hand;
// each tile recomputes the halo rows of the activation it reads).
ExecutionPlan rowTiles(const Graph &g)
{
    std::vector<NodeId> kernel;
    for (std::size_t n = 0; n < g.nodeCount(); ++n)
        kernel.push_back(static_cast<NodeId>(n));
    ExecutionPlan p = planutil::tiledPlan(g, planutil::wholePlan(g, {kernel}), 4, 2);
    for (Task &t : p.tasks)
        t.recompute = true;
    return p;
}

// The same tile graph by hand: four row tiles of conv→relu→conv, each with
// its halo rows of the Relu's output in a tile-sized buffer.
TEST_F(CpuFusedTest, RowTilesKeepTheIntermediateInATile)
{
    const Graph g = convActConv("Relu", false);
    run(g, rowTiles(g), "row tiles of conv→relu→conv");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 1);
    EXPECT_LE(fused.metrics["arena_bytes"] + tensorBytes(g, "act:0"), whole.metrics["arena_bytes"]);
}

// Twin: the Relu's output is also a graph output (read outside the kernel):
// it keeps its whole tensor, nothing is fused, the arena is the same.
TEST_F(CpuFusedTest, IntermediateReadOutsideTheKernelKeepsItsTensor)
{
    const Graph g = convActConv("Relu", true);
    run(g, rowTiles(g), "row tiles of conv→relu→conv, relu exposed");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 0);
    EXPECT_EQ(fused.metrics["fused_intermediates/scratch_bytes"], 0);
    EXPECT_EQ(fused.metrics["arena_bytes"], whole.metrics["arena_bytes"]);
}

// x -> Conv 3x3 -> Relu -> Conv 3x3, and beside it x -> Sigmoid (a second
// output node of the same kernel).
Graph convReluConvAndSigmoid()
{
    Graph g = convActConv("Relu", false);
    g.outputs.push_back(op(g, "sig", "Sigmoid", {g.inputs[0]}, {1, 16, 56, 56}));
    return g;
}

// rowTiles(g) with tasks 0+1 and 2+3 merged: two tasks of two row tiles of
// each output node; `hullSigmoid` gives each task one Sigmoid tile, the hull
// of its two.
ExecutionPlan twoTilesPerTask(const Graph &g, bool hullSigmoid)
{
    const ExecutionPlan four = rowTiles(g);
    ExecutionPlan p = four;
    p.tasks.clear();
    for (std::size_t i = 0; i + 1 < four.tasks.size(); i += 2) {
        Task t = four.tasks[i];
        t.deps.clear();
        for (const NodeTile &tile : four.tasks[i + 1].tiles) {
            auto it =
                std::find_if(t.tiles.begin(), t.tiles.end(), [&](const NodeTile &x) { return x.node == tile.node; });
            if (hullSigmoid && g.node(tile.node).opType == "Sigmoid")
                it->region = regionHull(it->region, tile.region);
            else
                t.tiles.push_back(tile);
        }
        p.addTask(std::move(t));
    }
    return p;
}

// A task with two tiles of each output node runs tile by tile: its scratch
// holds one tile's intermediates at a time, as much as with one tile per task.
TEST_F(CpuFusedTest, TwoTilesPerTaskRunTileByTile)
{
    const Graph g = convReluConvAndSigmoid();
    run(g, rowTiles(g), "four tasks of one tile");
    const double oneTile = fused.metrics["fused_intermediates/scratch_bytes"];
    ASSERT_GT(oneTile, 0);
    run(g, twoTilesPerTask(g, false), "two tasks of two tiles");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 1);
    EXPECT_EQ(fused.metrics["fused_intermediates/scratch_bytes"], oneTile);
}

// Twin: with one Sigmoid tile beside two convolution tiles the tiles do not
// pair up; the task runs whole, its buffer the hull of both tiles' rows.
TEST_F(CpuFusedTest, UnevenTilesKeepTheirHull)
{
    const Graph g = convReluConvAndSigmoid();
    run(g, rowTiles(g), "four tasks of one tile");
    const double oneTile = fused.metrics["fused_intermediates/scratch_bytes"];
    run(g, twoTilesPerTask(g, true), "two tasks, uneven tiles");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 1);
    EXPECT_GT(fused.metrics["fused_intermediates/scratch_bytes"], oneTile * 1.5);
}

// Twin: a second kernel recomputes the last convolution whole from the
// Relu's output, which it does not compute itself: that output stays in the
// arena (the row tiles write it), nothing is fused, the run matches.
TEST_F(CpuFusedTest, IntermediateReadByAnotherKernelKeepsItsTensor)
{
    const Graph g = convActConv("Relu", false);
    ExecutionPlan p = rowTiles(g);
    NodeId conv2 = kInvalidId;
    for (std::size_t n = 0; n < g.nodeCount(); ++n)
        if (g.node(static_cast<NodeId>(n)).name == "conv2")
            conv2 = static_cast<NodeId>(n);
    Task again;
    again.kernel = p.addKernel("conv2 again", {conv2});
    again.recompute = true;
    for (const Task &t : p.tasks)
        again.deps.push_back(t.id);
    p.addTask(std::move(again));
    run(g, p, "row tiles, conv2 again whole");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 0);
    EXPECT_EQ(fused.metrics["fused_intermediates/scratch_bytes"], 0);
}

// Twin: an activation no engine compiles over tiles (Sin) runs on the
// reference kernel, which reads and writes whole tensors: its input and
// output stay in the arena, and the run still matches.
TEST_F(CpuFusedTest, IntermediateOfAReferenceFallbackKeepsItsTensor)
{
    const Graph g = convActConv("Sin", false);
    auto p = plan(g, "welder");
    ASSERT_TRUE(p.isOk()) << p.status().str();
    ASSERT_TRUE(fusedTiles(g, *p, {"conv1", "act", "conv2"})) << "welder did not fuse conv→sin→conv into tiles";
    run(g, *p, "welder conv→sin→conv");
    EXPECT_GT(fused.metrics["ops/reference"], 0);
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 0);
    EXPECT_EQ(fused.metrics["arena_bytes"], whole.metrics["arena_bytes"]);
}

// SqueezeNet's fire modules under Welder and GraphTurbo: fused groups keep
// their intermediates in tiles, the arena shrinks, outputs match.
TEST_F(CpuFusedTest, SqueezeNetFusedGroupsShrinkTheArena)
{
    const Graph g = sample("squeezenet");
    for (const std::string algo : {"welder", "graphturbo"}) {
        auto p = plan(g, algo);
        ASSERT_TRUE(p.isOk()) << algo << ": " << p.status().str();
        run(g, *p, algo);
        EXPECT_GT(fused.metrics["fused_intermediates/tensors"], 0) << algo;
        EXPECT_LT(fused.metrics["arena_bytes"], whole.metrics["arena_bytes"]) << algo;
    }
}

// Twin: BrickDL's bricks are single nodes: no intermediate inside a tiled
// task, so nothing is fused and the arena is the same.
TEST_F(CpuFusedTest, SqueezeNetBricksHaveNoFusedIntermediates)
{
    const Graph g = sample("squeezenet");
    auto p = plan(g, "brickdl");
    ASSERT_TRUE(p.isOk()) << p.status().str();
    run(g, *p, "brickdl");
    EXPECT_EQ(fused.metrics["fused_intermediates/tensors"], 0);
    EXPECT_EQ(fused.metrics["arena_bytes"], whole.metrics["arena_bytes"]);
}

// --- views folded into element-wise chains (backends/cpu/viewfold.cpp) ------

using Ints = std::vector<std::int64_t>;

// g as one kernel of all its nodes, whole tensors, on the cpu backend against
// the reference backend (outputs must match); the cpu run. `foldViews`
// false: TESSERA_CPU_FOLD_VIEWS=0 (every view lowered where it stands).
RunResult oneKernel(const Graph &g, const std::string &what, bool foldViews = true)
{
    std::vector<NodeId> all;
    for (std::size_t i = 0; i < g.nodes().size(); ++i)
        all.push_back(static_cast<NodeId>(i));
    auto cpu = createCpuBackend();
    auto reference = createReferenceBackend();
    if (!foldViews)
        ::setenv("TESSERA_CPU_FOLD_VIEWS", "0", 1);
    auto r = planutil::runAgainstReference(*cpu, *reference, g, planutil::wholePlan(g, {all}),
                                           planutil::makeInputs(g, 17), kTolerance);
    ::unsetenv("TESSERA_CPU_FOLD_VIEWS");
    EXPECT_EQ(r.mismatch, "") << what;
    return std::move(r.got);
}

// x[1,6,4,8] -> Transpose(0,2,1,3) -> + y[1,4,6,8] (BERT's heads back to
// tokens, then an element-wise op).
Graph transposeAdd()
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 6, 4, 8}, Tensor::Kind::Input);
    const TensorId y = testgraphs::tensor(g, "y", {1, 4, 6, 8}, Tensor::Kind::Input);
    g.inputs = {x, y};
    const TensorId t = op(g, "transpose", "Transpose", {x}, {1, 4, 6, 8}, {{"perm", {Ints{0, 2, 1, 3}}}});
    g.outputs = {op(g, "add", "Add", {t, y}, {1, 4, 6, 8})};
    return g;
}

// The Transpose is the Add's operand strides: one LLVM op, no copy, and its
// output has no storage; with folding off (the twin) it is a copy before the chain.
TEST(CpuViews, TransposeFeedingAnAddIsReadThroughStrides)
{
    const Graph g = transposeAdd();
    RunResult folded = oneKernel(g, "transpose→add");
    EXPECT_EQ(planutil::opsRunAs(folded, "llvm-jit:Transpose+Add"), 1);
    EXPECT_EQ(folded.metrics["ops/copy"], 0);
    EXPECT_EQ(folded.metrics["ops/llvm-jit"], 1);
    RunResult copied = oneKernel(g, "transpose→add, views not folded", false);
    EXPECT_EQ(planutil::opsRunAs(copied, "copy:Transpose"), 1);
    EXPECT_EQ(planutil::opsRunAs(copied, "llvm-jit:Add"), 1);
    EXPECT_LT(folded.metrics["arena_bytes"], copied.metrics["arena_bytes"]);
}

// x[7,10,9] sliced with steps 2, 3, 2 from (1, 0, -7), a constant [3,4,1]
// multiplied in; `lastStep` is the last axis's step (negative: from its end).
Graph sliceMul(std::int64_t lastStep)
{
    Graph g;
    g.opsetVersion = 13;
    const TensorId x = testgraphs::tensor(g, "x", {7, 10, 9}, Tensor::Kind::Input);
    g.inputs = {x};
    const Ints starts{1, 0, lastStep > 0 ? -7 : -1}, ends{7, 10, lastStep > 0 ? 9 : -9};
    const TensorId s = op(g, "slice", "Slice",
                          {x, testgraphs::ints(g, "starts", starts), testgraphs::ints(g, "ends", ends),
                           testgraphs::ints(g, "axes", {0, 1, 2}), testgraphs::ints(g, "steps", {2, 3, lastStep})},
                          {3, 4, 4});
    g.outputs = {op(g, "mul", "Mul", {s, testgraphs::weight(g, "w", {3, 4, 1})}, {3, 4, 4})};
    return g;
}

// The Slice's start is the operand's base element and its steps scale the
// strides: Slice+Mul is one LLVM op.
TEST(CpuViews, SliceWithStepsFeedingAMulIsReadThroughStrides)
{
    RunResult r = oneKernel(sliceMul(2), "slice→mul");
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit:Slice+Mul"), 1);
    EXPECT_EQ(r.metrics["ops/copy"], 0);
}

// A negative step is a negative stride from the slice's first element (the
// generated offsets claim no unsigned wrap only for positive strides).
TEST(CpuViews, SliceWithANegativeStepIsReadBackwards)
{
    RunResult r = oneKernel(sliceMul(-2), "reversed slice→mul");
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit:Slice+Mul"), 1);
    EXPECT_EQ(r.metrics["ops/copy"], 0);
}

// x[2,3,4,8] -> Transpose(perm) -> Reshape(shape) -> Relu.
Graph transposeReshapeRelu(const Ints &perm, const Shape &transposed, const Shape &reshaped)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId t = op(g, "transpose", "Transpose", {x}, transposed, {{"perm", {perm}}});
    const Ints shape(reshaped.begin(), reshaped.end());
    const TensorId r = op(g, "reshape", "Reshape", {t, testgraphs::ints(g, "shape", shape)}, reshaped);
    g.outputs = {op(g, "relu", "Relu", {r}, reshaped)};
    return g;
}

// Stacked views compose: merging the last two dims of the transposed tensor
// (walked as one) keeps both views in the chain.
TEST(CpuViews, ReshapeOfATransposeFoldsBoth)
{
    RunResult r = oneKernel(transposeReshapeRelu({1, 0, 2, 3}, {3, 2, 4, 8}, {3, 2, 32}), "reshape(transpose)→relu");
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit:Transpose+Reshape+Relu"), 1);
    EXPECT_EQ(r.metrics["ops/copy"], 0);
}

// Twin: merging dims the transpose swapped ([2,4,3,8] to [2,12,8]) has no
// strides: the Transpose is copied and the Reshape of that copy folds.
TEST(CpuViews, ReshapeThatDoesNotComposeCopiesTheTranspose)
{
    RunResult r = oneKernel(transposeReshapeRelu({0, 2, 1, 3}, {2, 4, 3, 8}, {2, 12, 8}), "reshape(transpose)→relu");
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Transpose"), 1);
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit:Reshape+Relu"), 1);
}

// An Expand (no copy op: the reference kernel before) is stride 0 along its
// broadcast dims: Expand+Add is one LLVM op.
TEST(CpuViews, ExpandFeedingAnAddIsBroadcastStrides)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {4, 1}, Tensor::Kind::Input);
    const TensorId y = testgraphs::tensor(g, "y", {3, 4, 5}, Tensor::Kind::Input);
    g.inputs = {x, y};
    const TensorId e = op(g, "expand", "Expand", {x, testgraphs::ints(g, "shape", {3, 4, 5})}, {3, 4, 5});
    g.outputs = {op(g, "add", "Add", {y, e}, {3, 4, 5})};
    RunResult r = oneKernel(g, "expand→add");
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit:Expand+Add"), 1);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
}

// Twin: a view read by a matrix product (no chain) is lowered where it
// stands, as a copy; the product runs on oneDNN.
TEST(CpuViews, ViewReadByAMatMulStaysACopy)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId t = op(g, "transpose", "Transpose", {x}, {2, 4, 3}, {{"perm", {Ints{0, 2, 1}}}});
    const TensorId m = op(g, "mm", "MatMul", {t, testgraphs::weight(g, "w", {3, 5})}, {2, 4, 5});
    g.outputs = {op(g, "relu", "Relu", {m}, {2, 4, 5})};
    RunResult r = oneKernel(g, "transpose→matmul");
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Transpose"), 1);
    EXPECT_EQ(r.metrics["ops/onednn"], 1);
}

// Twin: a view with two readers is one copy both read.
TEST(CpuViews, ViewWithTwoReadersStaysACopy)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 6, 4, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId t = op(g, "transpose", "Transpose", {x}, {1, 4, 6, 8}, {{"perm", {Ints{0, 2, 1, 3}}}});
    const TensorId a = op(g, "relu", "Relu", {t}, {1, 4, 6, 8});
    const TensorId b = op(g, "sigmoid", "Sigmoid", {t}, {1, 4, 6, 8});
    g.outputs = {op(g, "add", "Add", {a, b}, {1, 4, 6, 8})};
    RunResult r = oneKernel(g, "transpose→{relu, sigmoid}");
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Transpose"), 1);
    EXPECT_EQ(r.metrics["ops/copy"], 1);
    for (const auto &[key, value] : r.metrics)
        EXPECT_EQ(key.find("Transpose+"), std::string::npos) << key;
}

// Twin: a view whose reader's chain declines (an Identity alone computes
// nothing) is lowered after all, before the Identity's copy that reads it.
TEST(CpuViews, ViewOfADecliningChainIsLoweredBeforeItsReader)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 6, 4, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId t = op(g, "transpose", "Transpose", {x}, {1, 4, 6, 8}, {{"perm", {Ints{0, 2, 1, 3}}}});
    g.outputs = {op(g, "id", "Identity", {t}, {1, 4, 6, 8})};
    RunResult r = oneKernel(g, "transpose→identity");
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Transpose"), 1);
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Identity"), 1);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
}

// Twin: a Clip whose bound is a run-time input cannot join a chain: the
// view feeding it is a copy and the Clip the reference kernel.
TEST(CpuViews, ViewOfAnUnchainableReaderStaysACopy)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 6, 4, 8}, Tensor::Kind::Input);
    const TensorId lo = testgraphs::tensor(g, "lo", {}, Tensor::Kind::Input);
    g.inputs = {x, lo};
    const TensorId t = op(g, "transpose", "Transpose", {x}, {1, 4, 6, 8}, {{"perm", {Ints{0, 2, 1, 3}}}});
    g.outputs = {op(g, "clip", "Clip", {t, lo}, {1, 4, 6, 8})};
    g.opsetVersion = 13;
    RunResult r = oneKernel(g, "transpose→clip(runtime min)");
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Transpose"), 1);
    EXPECT_EQ(planutil::opsRunAs(r, "reference:Clip"), 1);
}

// Twin: a view read by the epilogue of a matrix product is lowered before
// the product, so the Add stays its post-op (one oneDNN op, no chain).
TEST(CpuViews, ViewReadByAnAnchorsEpilogueIsLoweredBeforeIt)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {4, 16}, Tensor::Kind::Input);
    const TensorId y = testgraphs::tensor(g, "y", {8, 4}, Tensor::Kind::Input);
    g.inputs = {x, y};
    const TensorId t = op(g, "transpose", "Transpose", {y}, {4, 8}, {{"perm", {Ints{1, 0}}}});
    const TensorId m = op(g, "mm", "MatMul", {x, testgraphs::weight(g, "w", {16, 8})}, {4, 8});
    g.outputs = {op(g, "add", "Add", {m, t}, {4, 8})};
    RunResult r = oneKernel(g, "matmul + transpose");
    EXPECT_EQ(planutil::opsRunAs(r, "copy:Transpose"), 1);
    EXPECT_EQ(r.metrics["ops/onednn"], 1);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
}

} // namespace
