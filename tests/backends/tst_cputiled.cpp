// Tiled tasks on the CPU backend (backends/cpu/tiled.cpp): plans whose tasks
// compute tiles (GraphTurbo instances, Welder tiles, BrickDL bricks, and the
// test planner's row/channel tiles) run oneDNN and LLVM code over their boxes
// and match the reference backend (relative L2 under 1e-4); what cannot be
// expressed exactly (a channel tile across convolution groups, a Gemm with
// alpha != 1) stays on the reference kernel, reported as a fallback, and still
// matches. Each positive test beside its negative twin.
#include "backends/cpu/cpu.h"
#include "backends/cpu/ompteam.h"
#include "backends/reference/reference.h"
#include "core/backend/outputcheck.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <omp.h>
#include <set>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"

namespace fs = std::filesystem;
using namespace tessera;
using tessera::testgraphs::op;

namespace {

constexpr double kTolerance = 1e-4;

// g scheduled by the algorithm tessera registers as `algorithm`.
Expected<ExecutionPlan> plan(const Graph &g, const std::string &algorithm)
{
    return planutil::schedulePlan(g, test::registeredScheduler(algorithm));
}

// How many of a run's oneDNN ops run oneDNN's own reference code (reported
// by the backend as "slow_path/<op>: <why>"): correct, but a tiled
// MatMul there took ViT-B/32's GraphTurbo plan from 0.8 s to 140 s.
double referenceImpls(const RunResult &r)
{
    double n = 0;
    for (const auto &[key, value] : r.metrics)
        if (key.rfind("slow_path/", 0) == 0)
            n += value;
    return n;
}

bool tiled(const ExecutionPlan &p)
{
    for (const Task &t : p.tasks)
        for (const NodeTile &tile : t.tiles)
            if (!tile.region.empty())
                return true;
    return false;
}

class CpuTiledTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("tessera-cputiled-" + std::to_string(::getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    Graph sample(const std::string &name, int imageSize)
    {
        samples::SampleOptions o;
        if (imageSize > 0)
            o.imageSize = imageSize;
        auto g = test::importRegisteredSample(name, o, (dir / (name + ".onnx")).string());
        EXPECT_TRUE(g.isOk()) << g.status().str();
        return g ? std::move(*g) : Graph{};
    }

    // `g`'s layer-fusion plan with its tasks cut into tiles (planutil::tiledPlan's `parts`, `dim`).
    ExecutionPlan fusedTiles(const Graph &g, int parts, int dim)
    {
        auto base = plan(g, "layer-fusion");
        EXPECT_TRUE(base.isOk()) << base.status().str();
        return base ? planutil::tiledPlan(g, *base, parts, dim) : ExecutionPlan{};
    }

    // matches() of `g`'s fusedTiles(g, parts, dim).
    RunResult matchesInTiles(const Graph &g, int parts, int dim, const std::string &what)
    {
        return matches(g, fusedTiles(g, parts, dim), what);
    }

    // `p` on the cpu backend against the reference backend running `p`.
    RunResult matches(const Graph &g, const ExecutionPlan &p, const std::string &what)
    {
        auto r = planutil::runAgainstReference(*cpu, *reference, g, p, planutil::makeInputs(g, 13), kTolerance);
        EXPECT_EQ(r.mismatch, "") << what;
        return std::move(r.got);
    }

    fs::path dir;
    std::unique_ptr<IBackend> cpu = createCpuBackend();
    std::unique_ptr<IBackend> reference = createReferenceBackend();
};

// SqueezeNet (224x224: convolutions with halos, MaxPool, Relu, Concat) under
// the three tiling schedulers: the tiles' Conv, MaxPool, Relu and Concat
// nodes all run compiled, none on the reference kernels.
TEST_F(CpuTiledTest, SqueezeNetTilesRunCompiledUnderTilingSchedulers)
{
    const Graph g = sample("squeezenet", 0);
    for (const std::string algo : {"graphturbo", "welder", "brickdl"}) {
        auto p = plan(g, algo);
        ASSERT_TRUE(p.isOk()) << algo << ": " << p.status().str();
        ASSERT_TRUE(tiled(*p)) << algo;
        RunResult r = matches(g, *p, algo);
        EXPECT_GT(r.metrics["ops/onednn"], 0) << algo;
        EXPECT_GT(r.metrics["ops/llvm-jit"], 0) << algo;
        EXPECT_GT(r.metrics["ops/copy"], 0) << algo; // the Concats' tiles
        EXPECT_EQ(r.metrics["ops/reference"], 0) << algo;
    }
}

// Twin: with oneDNN and the JIT switched off, the same tiled plan runs every
// tile on the reference kernels (each counted as a fallback) and matches.
TEST_F(CpuTiledTest, SqueezeNetTilesOnReferenceKernelsWhenEnginesAreOff)
{
    const Graph g = sample("squeezenet", 0);
    auto p = plan(g, "welder");
    ASSERT_TRUE(p.isOk()) << p.status().str();
    ::setenv("TESSERA_CPU_ENGINES", "copy", 1);
    RunResult r = matches(g, *p, "welder, copies only");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(r.metrics["ops/onednn"], 0);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    EXPECT_GT(planutil::fallbacks(r, "Conv"), 0);
    EXPECT_GT(r.metrics["ops/reference"], 0);
}

// A residual block (conv3x3 -> relu -> conv3x3 -> add(x) -> relu, twice) tiled
// along rows: interior tiles read their halo rows, padding only at the true
// borders; the Add+Relu chains run as LLVM code over the row boxes.
TEST_F(CpuTiledTest, ResidualBlockRowTilesRunCompiled)
{
    const Graph g = testgraphs::residualChain(2);
    const ExecutionPlan p = fusedTiles(g, 3, 2);
    ASSERT_TRUE(tiled(p));
    RunResult r = matches(g, p, "residual rows");
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_GE(r.metrics["ops/onednn"], 4 * 3);
    EXPECT_GT(r.metrics["ops/llvm-jit"], 0);
}

// Issue 13 (OpenMP spin in mixed plans, backends/cpu/ompteam.h): a plan with
// tiled tasks compiles and runs its whole-tensor kernels on one OpenMP thread,
// as its tiles; the caller's own OpenMP team size is left as it was, by the
// compile and by the run on the calling thread.
TEST_F(CpuTiledTest, APlanWithTilesRunsItsWholeKernelsOnOneThread)
{
    const Graph g = testgraphs::residualChain(2);
    ExecutionPlan p = fusedTiles(g, 3, 2);
    ASSERT_TRUE(tiled(p));
    // Mixed: the last kernel's tile tasks become one task over its whole tensors.
    const KernelId last = p.tasks.back().kernel;
    std::vector<Task> tasks;
    TaskId whole = -1;
    std::set<TaskId> wholeDeps, dropped;
    for (const Task &t : p.tasks) {
        if (t.kind == TaskKind::Compute && t.kernel == last) {
            wholeDeps.insert(t.deps.begin(), t.deps.end());
            if (whole < 0) {
                whole = t.id;
                tasks.push_back(t);
                tasks.back().tiles.clear();
            } else {
                dropped.insert(t.id);
            }
            continue;
        }
        tasks.push_back(t);
    }
    ASSERT_FALSE(dropped.empty());
    for (Task &t : tasks) {
        if (t.id == whole)
            t.deps.assign(wholeDeps.begin(), wholeDeps.end());
        std::set<TaskId> deps;
        for (TaskId d : t.deps)
            deps.insert(dropped.count(d) ? whole : d);
        deps.erase(t.id);
        t.deps.assign(deps.begin(), deps.end());
    }
    p.tasks = std::move(tasks);
    ASSERT_TRUE(tiled(p));
    omp_set_num_threads(3);
    RunResult r = matches(g, p, "mixed residual rows");
    EXPECT_EQ(r.metrics["omp_team_threads"], 1);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_EQ(omp_get_max_threads(), 3) << "the caller's team size is restored";
    omp_set_num_threads(cpu::wholeKernelThreads(false));
}

// Twin: the same graph's plan without tiles keeps the host's OpenMP team for
// its whole-tensor kernels (the calling thread's default).
TEST_F(CpuTiledTest, APlanWithoutTilesKeepsTheHostsTeam)
{
    const Graph g = testgraphs::residualChain(2);
    auto p = plan(g, "layer-fusion");
    ASSERT_TRUE(p.isOk()) << p.status().str();
    ASSERT_FALSE(tiled(*p));
    RunResult r = matches(g, *p, "whole residual");
    EXPECT_EQ(r.metrics["omp_team_threads"], omp_get_max_threads());
    EXPECT_EQ(r.metrics["omp_team_threads"], cpu::wholeKernelThreads(false));

    // A cap on the plan's threads (`tessera-cli run --threads 1`) caps its team too.
    CompileContext capped;
    capped.options["threads"] = "1";
    auto compiled = cpu->compileFor(g, *p, capped);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    auto run = cpu->run(**compiled, planutil::makeInputs(g, 13), {});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->metrics["omp_team_threads"], 1);
    EXPECT_EQ(run->metrics["threads"], 1);
}

// Issue 13 sweep (BrickDL's ViT plan, 131829 tasks, compiled past 10 minutes):
// a plan of more tasks than CpuBackendOptions::maxTasksSharingArena gives each
// intermediate its own bytes, without the tasks² ancestor matrix, and still
// matches.
TEST_F(CpuTiledTest, APlanOfManyTasksGivesEachIntermediateItsOwnBytes)
{
    const Graph g = testgraphs::residualChain(2);
    const ExecutionPlan p = fusedTiles(g, 3, 2);
    ASSERT_GT(p.tasks.size(), 4u);
    cpu = createCpuBackend({.maxTasksSharingArena = 4});
    RunResult own = matches(g, p, "own bytes");
    EXPECT_EQ(own.metrics["arena_shared"], 0);
    cpu = createCpuBackend();
    RunResult shared = matches(g, p, "shared bytes");
    EXPECT_EQ(shared.metrics["arena_shared"], 1);
    EXPECT_GT(own.metrics["arena_bytes"], shared.metrics["arena_bytes"]) << "the residual chain reuses bytes";
}

// Twin: at the limit itself the plan still shares.
TEST_F(CpuTiledTest, APlanAtTheTaskLimitStillSharesItsArena)
{
    const Graph g = testgraphs::residualChain(2);
    const ExecutionPlan p = fusedTiles(g, 3, 2);
    cpu = createCpuBackend({.maxTasksSharingArena = p.tasks.size()});
    RunResult r = matches(g, p, "at the limit");
    EXPECT_EQ(r.metrics["arena_shared"], 1);
}

// x[1,4,8,8] -> Conv (4 outputs, 2 groups, 3x3, pad 1) -> Relu.
Graph groupedConv()
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 4, 8, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId c = op(g, "c", "Conv", {x, testgraphs::weight(g, "c/w", {4, 2, 3, 3})}, {1, 4, 8, 8},
                          {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                           {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}},
                           {"group", {std::int64_t{2}}}});
    g.outputs = {op(g, "r", "Relu", {c}, {1, 4, 8, 8})};
    return g;
}

// Channel tiles of a grouped convolution that cover whole groups (two tiles
// of two channels) run on oneDNN, the Relu tiles as their post-op.
TEST_F(CpuTiledTest, GroupAlignedChannelTilesRunOnOneDnn)
{
    RunResult r = matchesInTiles(groupedConv(), 2, 1, "two channel tiles");
    EXPECT_EQ(r.metrics["ops/onednn"], 2);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
}

// Twin: one-channel tiles cut the groups; the convolution tiles fall back to
// the reference kernel, say why, and still match; the Relu tiles are JIT code.
TEST_F(CpuTiledTest, ChannelTilesAcrossGroupsFallBackAndMatch)
{
    RunResult r = matchesInTiles(groupedConv(), 4, 1, "four channel tiles");
    EXPECT_EQ(r.metrics["ops/onednn"], 0);
    EXPECT_EQ(r.metrics["ops/reference"], 4);
    EXPECT_EQ(r.metrics["fallback/Conv: tiled: a channel box across groups"], 4);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 4); // the Relu tiles
}

// A constant f32 [n] with values 0.5, 0.6, ... (a valid variance).
TensorId positive(Graph &g, const std::string &name, std::int64_t n)
{
    const TensorId t = testgraphs::weight(g, name, {n});
    auto data = std::make_shared<TensorData>(*g.tensor(t).data);
    for (std::int64_t i = 0; i < n; ++i) {
        const float v = 0.5f + 0.1f * static_cast<float>(i);
        std::memcpy(data->bytes.data() + i * 4, &v, 4);
    }
    g.tensor(t).data = std::move(data);
    return t;
}

// x[1,8,12,12] -> Conv 3x3 (pad 1) -> BatchNormalization -> Relu; the
// normalisation's scale a constant, or a graph input (`runtimeScale`).
Graph convBnRelu(bool runtimeScale)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 8, 12, 12}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId scale = runtimeScale ? testgraphs::tensor(g, "scale", {8}, Tensor::Kind::Input)
                                        : testgraphs::weight(g, "bn/scale", {8});
    if (runtimeScale)
        g.inputs.push_back(scale);
    const TensorId c =
        op(g, "c", "Conv", {x, testgraphs::weight(g, "c/w", {8, 8, 3, 3})}, {1, 8, 12, 12},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    const TensorId bn = op(
        g, "bn", "BatchNormalization",
        {c, scale, testgraphs::weight(g, "bn/b", {8}), testgraphs::weight(g, "bn/mean", {8}), positive(g, "bn/var", 8)},
        {1, 8, 12, 12});
    g.outputs = {op(g, "r", "Relu", {bn}, {1, 8, 12, 12})};
    return g;
}

// Row tiles of Conv+BatchNormalization+Relu: one oneDNN primitive per tile,
// the normalisation a per-channel multiply-add post-op, the Relu an eltwise one.
TEST_F(CpuTiledTest, ConvTilesTakeBatchNormAndReluAsPostOps)
{
    const Graph g = convBnRelu(false);
    RunResult r = matches(g, fusedTiles(g, 3, 2), "conv+bn+relu rows");
    EXPECT_EQ(r.metrics["ops/onednn"], 3);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
}

// Twin: a normalisation whose scale is only known at run time is not folded;
// the convolution tiles stay on oneDNN alone and the result matches.
TEST_F(CpuTiledTest, RuntimeBatchNormStaysOutOfTheConvTiles)
{
    const Graph g = convBnRelu(true);
    RunResult r = matches(g, fusedTiles(g, 3, 2), "conv, runtime bn, relu rows");
    EXPECT_EQ(r.metrics["ops/onednn"], 3);
    EXPECT_GT(r.metrics["ops/llvm-jit"] + r.metrics["ops/reference"], 0);
}

// x[16,32] -> Gemm (w[24,32] transposed, bias c[24], alpha) -> Relu ->
// MatMul (w2[24,8]) -> Add (b[8]).
Graph mlp(double alpha)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {16, 32}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a =
        op(g, "fc1", "Gemm", {x, testgraphs::weight(g, "fc1/w", {24, 32}), testgraphs::weight(g, "fc1/b", {24})},
           {16, 24}, {{"transB", {std::int64_t{1}}}, {"alpha", {alpha}}});
    const TensorId r = op(g, "relu", "Relu", {a}, {16, 24});
    const TensorId m = op(g, "fc2", "MatMul", {r, testgraphs::weight(g, "fc2/w", {24, 8})}, {16, 8});
    g.outputs = {op(g, "bias", "Add", {m, testgraphs::weight(g, "bias/b", {8})}, {16, 8})};
    return g;
}

// Row tiles of matrix products (the second reads the first's rows only):
// every tile's Gemm and MatMul on oneDNN, the Relu and the bias Add as their
// post-ops.
TEST_F(CpuTiledTest, MatrixProductRowTilesRunOnOneDnn)
{
    const Graph g = mlp(1.0);
    const ExecutionPlan p = fusedTiles(g, 4, 0);
    ASSERT_TRUE(tiled(p));
    RunResult r = matches(g, p, "mlp rows");
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_GE(r.metrics["ops/onednn"], 8);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    EXPECT_EQ(referenceImpls(r), 0);
}

// Column tiles: B's columns and the bias's entries from the tile's first column.
TEST_F(CpuTiledTest, MatrixProductColumnTilesRunOnOneDnn)
{
    const Graph g = mlp(1.0);
    const ExecutionPlan p = fusedTiles(g, 2, 1);
    ASSERT_TRUE(tiled(p));
    RunResult r = matches(g, p, "mlp columns");
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_GT(r.metrics["ops/onednn"], 0);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    // A column's output is strided and the bias Add a binary post-op: oneDNN
    // has only its reference code for that, so the tile is computed dense.
    EXPECT_EQ(referenceImpls(r), 0);
}

// x[1,4,6,32] -> MatMul W[32,48] -> + bias, in row tiles: W is seen through
// two leading unit dims (the rank of the output), which oneDNN must not take
// for a batch it has no JIT kernel for.
TEST_F(CpuTiledTest, RankPaddedWeightTilesRunOnOneDnnsJitKernels)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 4, 6, 32}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId m = op(g, "fc", "MatMul", {x, testgraphs::weight(g, "fc/w", {32, 48})}, {1, 4, 6, 48});
    const TensorId y = op(g, "fc/add", "Add", {m, testgraphs::weight(g, "fc/b", {48})}, {1, 4, 6, 48});
    g.outputs = {op(g, "gelu", "Relu", {y}, {1, 4, 6, 48})};
    for (int dim : {1, 2}) {
        const ExecutionPlan p = fusedTiles(g, 2, dim);
        ASSERT_TRUE(tiled(p));
        RunResult r = matches(g, p, "rank-4 MatMul, tiles along dim " + std::to_string(dim));
        EXPECT_EQ(r.metrics["ops/reference"], 0) << dim;
        EXPECT_GE(r.metrics["ops/onednn"], 1) << dim;
        EXPECT_EQ(referenceImpls(r), 0) << dim;
    }
}

// Twin: a Gemm with alpha != 1 is not expressed over tiles; its tiles fall
// back (named), the Relu tiles run as LLVM chains, the MatMul tiles stay on
// oneDNN, and the result matches.
TEST_F(CpuTiledTest, GemmWithAlphaFallsBackOverTilesAndMatches)
{
    const Graph g = mlp(0.5);
    RunResult r = matches(g, fusedTiles(g, 4, 0), "mlp rows, alpha 0.5");
    EXPECT_GT(r.metrics["fallback/Gemm: tiled: alpha or beta other than 1"], 0);
    EXPECT_GT(r.metrics["ops/onednn"], 0);
    EXPECT_GT(r.metrics["ops/llvm-jit"], 0); // the Relu tiles, no anchor to join
}

// A single-head transformer layer: x[1,16,32] -> q, k, v projections ->
// softmax(q·kᵀ)·v -> + x -> FFN (MatMul + bias + Relu, MatMul + bias) -> + .
Graph transformerLayer()
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 16, 32}, Tensor::Kind::Input);
    g.inputs = {x};
    auto proj = [&](const std::string &name, TensorId in, std::int64_t k, std::int64_t n) {
        const TensorId m = op(g, name, "MatMul", {in, testgraphs::weight(g, name + "/w", {k, n})}, {1, 16, n});
        return op(g, name + "/add", "Add", {m, testgraphs::weight(g, name + "/b", {n})}, {1, 16, n});
    };
    const TensorId q = proj("q", x, 32, 32), k = proj("k", x, 32, 32), v = proj("v", x, 32, 32);
    const TensorId kt = op(g, "kt", "Transpose", {k}, {1, 32, 16}, {{"perm", {std::vector<std::int64_t>{0, 2, 1}}}});
    const TensorId s = op(g, "scores", "MatMul", {q, kt}, {1, 16, 16});
    const TensorId p = op(g, "softmax", "Softmax", {s}, {1, 16, 16}, {{"axis", {std::int64_t{-1}}}});
    const TensorId a = op(g, "attend", "MatMul", {p, v}, {1, 16, 32});
    const TensorId h = op(g, "residual", "Add", {a, x}, {1, 16, 32});
    const TensorId f = op(g, "ffn1/relu", "Relu", {proj("ffn1", h, 32, 64)}, {1, 16, 64});
    g.outputs = {op(g, "out", "Add", {proj("ffn2", f, 64, 32), h}, {1, 16, 32})};
    return g;
}

// The transformer layer under Welder and BrickDL (GraphTurbo keeps this small
// layer whole): every MatMul tile on oneDNN (runtime operands q, kᵀ, p, v
// included), the Softmax as LLVM row kernels (per tile under Welder; BrickDL
// keeps its kernel whole), the Transpose tiles as reorders, the element-wise
// tiles on the JIT; nothing on the reference kernels.
TEST_F(CpuTiledTest, TransformerLayerTilesRunCompiled)
{
    const Graph g = transformerLayer();
    for (const std::string algo : {"welder", "brickdl"}) {
        auto p = plan(g, algo);
        ASSERT_TRUE(p.isOk()) << algo << ": " << p.status().str();
        ASSERT_TRUE(tiled(*p)) << algo;
        RunResult r = matches(g, *p, algo);
        EXPECT_GT(r.metrics["ops/onednn"], 0) << algo;
        EXPECT_GT(r.metrics["ops/llvm-jit"], 0) << algo;
        // Welder tiles the softmax (row kernels per box), BrickDL leaves its kernel whole.
        const int tiles = planutil::opsRunAs(r, "llvm-jit[tiled]:Softmax");
        const int whole = planutil::opsRunAs(r, "llvm-jit:Softmax");
        EXPECT_GT(algo == "welder" ? tiles : whole, 0) << algo;
        EXPECT_EQ(planutil::fallbacks(r, "Softmax"), 0) << algo;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << algo;
        EXPECT_EQ(referenceImpls(r), 0) << algo;
    }
}

// x[1,8,16] -> [Relu ->] Softmax or LogSoftmax over `axis`.
Graph softmaxRows(const std::string &type = "Softmax", bool relu = false, std::int64_t axis = -1)
{
    Graph g;
    TensorId x = testgraphs::tensor(g, "x", {1, 8, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    if (relu)
        x = op(g, "relu", "Relu", {x}, {1, 8, 16});
    g.outputs = {op(g, "softmax", type, {x}, {1, 8, 16}, {{"axis", {axis}}})};
    return g;
}

// Row tiles of a softmax keep each normalised row whole: the whole-tensor
// LLVM row kernel per tile (its rows one run), compiled once for both.
TEST_F(CpuTiledTest, SoftmaxRowTilesRunAsRowKernels)
{
    for (const std::string type : {"Softmax", "LogSoftmax"}) {
        RunResult r = matchesInTiles(softmaxRows(type), 2, 1, type + " rows");
        EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit[tiled]:" + type), 2) << type;
        EXPECT_EQ(r.metrics["ops/onednn"], 0) << type;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << type;
        EXPECT_EQ(r.metrics["jit_kernels_compiled"], 1) << type;
    }
}

// With a Relu before it in the same tiles, the softmax reads the Relu's
// tile-sized buffer (a fused intermediate) and still matches.
TEST_F(CpuTiledTest, SoftmaxRowTilesReadAFusedIntermediate)
{
    RunResult r = matchesInTiles(softmaxRows("Softmax", true), 2, 1, "relu, softmax rows");
    EXPECT_EQ(r.metrics["fused_intermediates/tensors"], 1);
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit[tiled]:Softmax"), 2);
    EXPECT_EQ(r.metrics["ops/onednn"], 0);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
}

// Twin: column tiles split the normalised axis; they fall back, named, and match.
TEST_F(CpuTiledTest, SoftmaxColumnTilesFallBackAndMatch)
{
    RunResult r = matchesInTiles(softmaxRows(), 2, 2, "softmax columns");
    EXPECT_EQ(r.metrics["ops/onednn"], 0);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    EXPECT_EQ(r.metrics["fallback/Softmax: tiled: a box that splits the normalised axis"], 2);
}

// Twin: a softmax over a middle axis is no row kernel; its column tiles
// (each covering that axis) stay on oneDNN and match.
TEST_F(CpuTiledTest, SoftmaxOverAMiddleAxisTilesStayOnOneDnn)
{
    RunResult r = matchesInTiles(softmaxRows("Softmax", false, 1), 2, 2, "softmax over axis 1, columns");
    EXPECT_EQ(r.metrics["ops/onednn"], 2);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
}

} // namespace
