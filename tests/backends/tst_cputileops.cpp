// Tiles of reductions, LayerNormalization, Slice, Split, Gather, Pad, Cast and Resize on the
// CPU backend (backends/cpu/tiledops.cpp): small graphs whose layer-fusion
// plan is cut into row or column tiles (odd tile edges, negative axes, a
// halo read by a convolution after a Pad) run those tiles compiled — LLVM
// row kernels (reductions over trailing axes, LayerNormalization boxes that
// keep the normalised dims whole: backends/cpu/rowops.cpp), oneDNN
// primitives on views or copies of contiguous runs, none listed as a
// fallback — and match the reference backend running the same plan
// (relative L2 under 1e-5); Cast and Resize also over whole tensors. Each beside its negative twin: a variant the
// tile lowering does not take (a reduction over an extent-1 axis without the JIT, a used
// Mean output, Pad's reflect mode, a cast to bool, a resize across channels,
// the copy engine switched off) still falls
// back with its reason and still matches.
#include "backends/cpu/cpu.h"
#include "backends/reference/reference.h"
#include "core/backend/outputcheck.h"
#include "core/plan/tiles.h"
#include "core/sched/session.h"
#include "plugins/layerfusion/layerfusion.h"

#include <cmath>
#include <cstdlib>
#include <gtest/gtest.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using tessera::testgraphs::ints;
using tessera::testgraphs::op;
using Ints = std::vector<std::int64_t>;

namespace {

constexpr double kTolerance = 1e-5;

// The number of tasks of `p` whose tiles are short of their whole tensor.
int tiledTasks(const Graph &g, const ExecutionPlan &p)
{
    int n = 0;
    for (const Task &t : p.tasks) {
        bool part = false;
        for (const NodeTile &tile : t.tiles)
            part = part || (!tile.region.empty() &&
                            ops::regionElements(tile.region) < g.tensor(g.node(tile.node).outputs[0]).elements());
        n += part ? 1 : 0;
    }
    return n;
}

class CpuTileOpsTest : public ::testing::Test
{
protected:
    // `g`'s layer-fusion plan (or, `oneKernel`, one kernel of every node)
    // with its tasks cut into `parts` tiles along `dim`.
    ExecutionPlan tiles(const Graph &g, int parts, int dim, bool oneKernel = false)
    {
        ExecutionPlan base;
        if (oneKernel) {
            std::vector<NodeId> all;
            for (std::size_t n = 0; n < g.nodeCount(); ++n)
                all.push_back(static_cast<NodeId>(n));
            base = planutil::wholePlan(g, {all});
        } else {
            auto run = planutil::schedulePlan(g, *createLayerFusionScheduler());
            EXPECT_TRUE(run.isOk()) << run.status().str();
            if (!run)
                return {};
            base = std::move(*run);
        }
        ExecutionPlan p = planutil::tiledPlan(g, base, parts, dim);
        EXPECT_GT(tiledTasks(g, p), 1) << "the plan is not tiled";
        return p;
    }

    // `p` on the cpu backend against the reference backend running `p`.
    RunResult matches(const Graph &g, const ExecutionPlan &p, const std::string &what, std::int64_t intRange = 2)
    {
        auto r =
            planutil::runAgainstReference(*cpu, *reference, g, p, planutil::makeInputs(g, 29, intRange), kTolerance);
        EXPECT_EQ(r.mismatch, "") << what;
        return std::move(r.got);
    }

    std::unique_ptr<IBackend> cpu = createCpuBackend();
    std::unique_ptr<IBackend> reference = createReferenceBackend();
};

// x -> Relu -> <reduction> (the Relu keeps the plan's kernel from being the reduction alone).
Graph reduction(const std::string &type, const Shape &x, const Ints &axes, bool keepDims, const Shape &y)
{
    Graph g;
    const TensorId in = testgraphs::tensor(g, "x", x, Tensor::Kind::Input);
    g.inputs = {in};
    const TensorId r = op(g, "relu", "Relu", {in}, x);
    g.outputs = {op(g, "reduce", type, {r}, y, {{"axes", {axes}}, {"keepdims", {std::int64_t{keepDims ? 1 : 0}}}})};
    return g;
}

struct ReductionCase {
    std::string type;
    Shape x;
    Ints axes;
    bool keep;
    Shape y;
    int parts, dim;
};

// Row and column tiles (odd edges: 7 or 5 rows in 3 or 2 tiles) of
// reductions over the trailing axes (kept or dropped, positive and negative)
// run as the whole tensor's LLVM row kernel per tile, reading the Relu's
// tile-sized buffer; ReduceLogSumExp too, which oneDNN has no primitive for.
TEST_F(CpuTileOpsTest, ReductionTilesOverTrailingAxesRunAsRowKernels)
{
    const ReductionCase cases[] = {
        {"ReduceMean", {2, 7, 10}, {-1}, true, {2, 7, 1}, 3, 1},
        {"ReduceSumSquare", {2, 9, 3, 4}, {2, 3}, true, {2, 9, 1, 1}, 4, 1},
        {"ReduceLogSumExp", {3, 5, 6}, {-1}, false, {3, 5}, 2, 1},
        {"ReduceMax", {6, 4, 8}, {1, 2}, false, {6}, 3, 0},
    };
    for (const ReductionCase &c : cases) {
        const Graph g = reduction(c.type, c.x, c.axes, c.keep, c.y);
        RunResult r = matches(g, tiles(g, c.parts, c.dim), c.type);
        EXPECT_EQ(planutil::fallbacks(r, c.type), 0) << c.type;
        EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit[tiled]:" + c.type), c.parts) << c.type;
        EXPECT_EQ(r.metrics["fused_intermediates/tensors"], 1) << c.type;
        EXPECT_EQ(r.metrics["ops/onednn"], 0) << c.type;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.type;
    }
}

// Twin: over a leading or middle axis a reduction is no row kernel; its
// tiles run on oneDNN.
TEST_F(CpuTileOpsTest, ReductionTilesOverOtherAxesRunOnOneDnn)
{
    const ReductionCase cases[] = {
        {"ReduceSum", {3, 5, 6}, {1}, false, {3, 6}, 2, 1},
        {"ReduceMax", {4, 6, 9}, {0, -1}, true, {1, 6, 1}, 3, 1},
        {"ReduceL2", {5, 4, 8}, {-2}, false, {5, 8}, 2, 0},
    };
    for (const ReductionCase &c : cases) {
        const Graph g = reduction(c.type, c.x, c.axes, c.keep, c.y);
        RunResult r = matches(g, tiles(g, c.parts, c.dim), c.type);
        EXPECT_EQ(planutil::fallbacks(r, c.type), 0) << c.type;
        EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit[tiled]:" + c.type), 0) << c.type;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.type;
        EXPECT_GE(r.metrics["ops/onednn"], c.parts) << c.type;
    }
}

// A reduction over an axis of extent 1 is a copy: a row kernel of rows of
// one element. Twin: without the JIT it goes to oneDNN, which refuses it
// (src == dst); its tiles fall back, saying so, and match.
TEST_F(CpuTileOpsTest, ReductionOverAnExtentOneAxisIsARowKernelElseFallsBack)
{
    const Graph g = reduction("ReduceSum", {4, 1, 6}, {1}, true, {4, 1, 6});
    RunResult jit = matches(g, tiles(g, 2, 0), "ReduceSum over an extent-1 axis");
    EXPECT_EQ(planutil::opsRunAs(jit, "llvm-jit[tiled]:ReduceSum"), 2);
    EXPECT_EQ(jit.metrics["ops/reference"], 0);
    ::setenv("TESSERA_CPU_ENGINES", "onednn,copy", 1);
    RunResult r = matches(g, tiles(g, 2, 0), "ReduceSum over an extent-1 axis, no JIT");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(r.metrics["fallback/ReduceSum: tiled: every reduced axis has extent 1 (a copy)"], 2);
    EXPECT_EQ(r.metrics["ops/onednn"], 0);
}

// x[2,6,16] -> Relu -> LayerNormalization (axis, scale and bias), optionally
// with its Mean output a graph output.
Graph layerNorm(const Shape &x, std::int64_t axis, bool meanUsed)
{
    Graph g;
    const TensorId in = testgraphs::tensor(g, "x", x, Tensor::Kind::Input);
    g.inputs = {in};
    const TensorId r = op(g, "relu", "Relu", {in}, x);
    std::int64_t L = 1;
    Shape stats = x;
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(x.size()) : axis);
    Shape norm(x.begin() + static_cast<long>(a), x.end());
    for (std::size_t d = a; d < x.size(); ++d) {
        L *= x[d];
        stats[d] = 1;
    }
    const TensorId y = op(g, "ln", "LayerNormalization",
                          {r, testgraphs::weight(g, "ln/scale", norm), testgraphs::weight(g, "ln/bias", norm)}, x,
                          {{"axis", {axis}}, {"epsilon", {1e-5}}});
    g.outputs = {y};
    if (meanUsed) {
        const TensorId mean = testgraphs::tensor(g, "ln/mean", stats);
        g.node(g.tensor(y).producer).outputs.push_back(mean);
        g.tensor(mean).producer = g.tensor(y).producer;
        g.outputs.push_back(mean);
    }
    return g;
}

// Row tiles (odd edges) and tiles over the outer dim of a two-dim
// normalisation (axis 1) keep the normalised dims whole: LLVM row kernels,
// reading the Relu's tile-sized buffer (a fused intermediate).
TEST_F(CpuTileOpsTest, LayerNormTilesRunAsRowKernels)
{
    struct Case {
        Shape x;
        std::int64_t axis;
        int parts, dim;
        std::string what;
    };
    const Case cases[] = {{{2, 7, 16}, -1, 3, 1, "row tiles"}, {{5, 3, 8}, 1, 2, 0, "outer tiles, axis 1"}};
    for (const Case &c : cases) {
        const Graph g = layerNorm(c.x, c.axis, false);
        RunResult r = matches(g, tiles(g, c.parts, c.dim), c.what);
        EXPECT_EQ(planutil::fallbacks(r, "LayerNormalization"), 0) << c.what;
        EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit[tiled]:LayerNormalization"), c.parts) << c.what;
        EXPECT_EQ(r.metrics["fused_intermediates/tensors"], 1) << c.what;
        EXPECT_EQ(r.metrics["ops/onednn"], 0) << c.what;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.what;
    }
}

// Twin: column tiles split the normalised dim; no row kernel takes them,
// oneDNN computes each over its whole rows.
TEST_F(CpuTileOpsTest, LayerNormColumnTilesRunOnOneDnn)
{
    const Graph g = layerNorm({2, 6, 20}, -1, false);
    RunResult r = matches(g, tiles(g, 3, 2), "column tiles");
    EXPECT_EQ(planutil::fallbacks(r, "LayerNormalization"), 0);
    EXPECT_EQ(planutil::opsRunAs(r, "llvm-jit[tiled]:LayerNormalization"), 0);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_GE(r.metrics["ops/onednn"], 3);
}

// Twin: with its Mean output used the normalisation's tiles stay on the
// reference kernel (which writes it), say why, and match.
TEST_F(CpuTileOpsTest, LayerNormWithUsedMeanFallsBackAndMatches)
{
    const Graph g = layerNorm({2, 7, 16}, -1, true);
    RunResult r = matches(g, tiles(g, 3, 1), "LayerNormalization with Mean");
    EXPECT_GT(r.metrics["fallback/LayerNormalization: tiled: the Mean or InvStdDev output is used"], 0);
    EXPECT_EQ(r.metrics["ops/onednn"], 0);
}

// x[3,10,12] -> Relu -> Slice(starts, ends, axes, steps as constant inputs) -> Relu.
Graph slice(const Ints &starts, const Ints &ends, const Ints &axes, const Ints &steps, const Shape &y)
{
    Graph g;
    const TensorId in = testgraphs::tensor(g, "x", {3, 10, 12}, Tensor::Kind::Input);
    g.inputs = {in};
    const TensorId r = op(g, "relu", "Relu", {in}, {3, 10, 12});
    const TensorId s =
        op(g, "slice", "Slice",
           {r, ints(g, "starts", starts), ints(g, "ends", ends), ints(g, "axes", axes), ints(g, "steps", steps)}, y);
    g.outputs = {op(g, "relu2", "Relu", {s}, y)};
    return g;
}

// Slices with negative axes and starts, a step of 2 and a step of -1 along
// the last dim (element-by-element runs), cut into odd row tiles: copies.
TEST_F(CpuTileOpsTest, SliceTilesRunAsCopies)
{
    struct Case {
        Ints starts, ends, axes, steps;
        Shape y;
    };
    const Case cases[] = {{{1, -9}, {9, 12}, {1, -1}, {1, 1}, {3, 8, 9}},
                          {{0, 1}, {10, 12}, {-2, 2}, {1, 2}, {3, 10, 6}},
                          {{8, -1}, {1, 0}, {1, 2}, {-2, -1}, {3, 4, 11}}};
    for (const Case &c : cases) {
        const Graph g = slice(c.starts, c.ends, c.axes, c.steps, c.y);
        RunResult r = matches(g, tiles(g, 3, 1), "slice");
        EXPECT_EQ(planutil::fallbacks(r, "Slice"), 0);
        EXPECT_EQ(r.metrics["ops/reference"], 0);
        EXPECT_GE(r.metrics["ops/copy"], 3);
    }
}

// Twin: with the copy engine switched off the Slice tiles fall back, saying
// so, and match.
TEST_F(CpuTileOpsTest, SliceTilesWithCopiesOffFallBackAndMatch)
{
    const Graph g = slice({1, -9}, {9, 12}, {1, -1}, {1, 1}, {3, 8, 9});
    const ExecutionPlan p = tiles(g, 3, 1);
    ::setenv("TESSERA_CPU_ENGINES", "onednn,llvm-jit", 1);
    RunResult r = matches(g, p, "slice, copies off");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(r.metrics["fallback/Slice: tiled: copies disabled by TESSERA_CPU_ENGINES"], 3);
}

// x[2,9,8] -> Relu -> Split(axis -2: 2, 3, 4 rows) -> Relu each.
Graph split()
{
    Graph g;
    const TensorId in = testgraphs::tensor(g, "x", {2, 9, 8}, Tensor::Kind::Input);
    g.inputs = {in};
    const TensorId r = op(g, "relu", "Relu", {in}, {2, 9, 8});
    const TensorId a =
        op(g, "split", "Split", {r, ints(g, "split/sizes", {2, 3, 4})}, {2, 2, 8}, {{"axis", {std::int64_t{-2}}}});
    Node &s = g.node(g.tensor(a).producer);
    for (std::int64_t rows : {3, 4}) {
        const TensorId t = testgraphs::tensor(g, "split:" + std::to_string(rows), {2, rows, 8});
        g.tensor(t).producer = g.tensor(a).producer;
        s.outputs.push_back(t);
    }
    const std::vector<TensorId> parts = s.outputs;
    for (std::size_t i = 0; i < parts.size(); ++i)
        g.outputs.push_back(op(g, "relu" + std::to_string(i), "Relu", {parts[i]}, g.tensor(parts[i]).shape));
    return g;
}

// Column tiles (3 of 8 columns: odd edges) of every Split output: copies.
TEST_F(CpuTileOpsTest, SplitTilesRunAsCopies)
{
    const Graph g = split();
    RunResult r = matches(g, tiles(g, 3, 2), "split columns");
    EXPECT_EQ(planutil::fallbacks(r, "Split"), 0);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_GE(r.metrics["ops/copy"], 3 * 3);
}

// Twin: copies off, the Split tiles fall back (one per output tile), named.
TEST_F(CpuTileOpsTest, SplitTilesWithCopiesOffFallBackAndMatch)
{
    const Graph g = split();
    const ExecutionPlan p = tiles(g, 3, 2);
    ::setenv("TESSERA_CPU_ENGINES", "onednn,llvm-jit", 1);
    RunResult r = matches(g, p, "split, copies off");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_GE(r.metrics["fallback/Split: tiled: copies disabled by TESSERA_CPU_ENGINES"], 3);
    EXPECT_EQ(r.metrics["ops/copy"], 0);
}

// Embedding lookup: table[12,10] (after a Relu), indices[2,5] (int64 graph
// input, or int32) gathered along `axis` -> Relu.
Graph gather(std::int64_t axis, DType indexType)
{
    Graph g;
    const TensorId table = testgraphs::tensor(g, "table", {12, 10}, Tensor::Kind::Input);
    const TensorId idx = testgraphs::tensor(g, "idx", {2, 5}, Tensor::Kind::Input);
    g.tensor(idx).dtype = indexType;
    g.inputs = {table, idx};
    const TensorId r = op(g, "relu", "Relu", {table}, {12, 10});
    const Shape y = axis == 0 ? Shape{2, 5, 10} : Shape{12, 2, 5};
    const TensorId gathered = op(g, "gather", "Gather", {r, idx}, y, {{"axis", {axis}}});
    g.outputs = {op(g, "relu2", "Relu", {gathered}, y)};
    return g;
}

// Gather tiles along the index dims and the data's kept dims (negative axis
// included; int64 and int32 indices): copies, indices read at run time.
TEST_F(CpuTileOpsTest, GatherTilesRunAsCopies)
{
    for (const auto &[axis, type, dim] :
         {std::tuple{std::int64_t{0}, DType::Int64, 1}, std::tuple{std::int64_t{0}, DType::Int32, 2},
          std::tuple{std::int64_t{-1}, DType::Int64, 0}}) {
        const Graph g = gather(axis, type);
        RunResult r = matches(g, tiles(g, 3, dim), "gather", 10);
        EXPECT_EQ(planutil::fallbacks(r, "Gather"), 0);
        EXPECT_EQ(r.metrics["ops/reference"], 0);
        EXPECT_GE(r.metrics["ops/copy"], 3);
    }
}

// Twin: copies off, the Gather tiles fall back, named, and match.
TEST_F(CpuTileOpsTest, GatherTilesWithCopiesOffFallBackAndMatch)
{
    const Graph g = gather(0, DType::Int64);
    const ExecutionPlan p = tiles(g, 3, 1);
    ::setenv("TESSERA_CPU_ENGINES", "onednn,llvm-jit", 1);
    RunResult r = matches(g, p, "gather, copies off", 10);
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(r.metrics["fallback/Gather: tiled: copies disabled by TESSERA_CPU_ENGINES"], 3);
}

// x[1,4,9,9] -> Pad(mode, pads 1,2 on the rows, 2,1 on the columns) ->
// Conv 3x3 (no padding) -> Relu, planned as one kernel: row tiles of the
// convolution read halo rows of the padded tensor.
Graph padConv(const std::string &mode)
{
    Graph g;
    const TensorId in = testgraphs::tensor(g, "x", {1, 4, 9, 9}, Tensor::Kind::Input);
    g.inputs = {in};
    const TensorId p =
        op(g, "pad", "Pad", {in, ints(g, "pads", {0, 0, 1, 2, 0, 0, 2, 1})}, {1, 4, 12, 12}, {{"mode", {mode}}});
    const TensorId c = op(g, "conv", "Conv", {p, testgraphs::weight(g, "conv/w", {4, 4, 3, 3})}, {1, 4, 10, 10},
                          {{"kernel_shape", {Ints{3, 3}}}});
    g.outputs = {op(g, "relu", "Relu", {c}, {1, 4, 10, 10})};
    return g;
}

// Elements of tensor t that the tasks of `p` compute, summed over tasks
// (more than t's elements: tiles overlap, halos).
std::int64_t computedElements(const Graph &g, const ExecutionPlan &p, TensorId t)
{
    std::int64_t n = 0;
    for (const Task &task : p.tasks) {
        if (task.kernel < 0)
            continue;
        auto regions = taskRegions(g, p.kernels[static_cast<std::size_t>(task.kernel)], task.tiles);
        EXPECT_TRUE(regions.isOk()) << regions.status().str();
        if (regions && regions->computed.count(t))
            n += ops::regionElements(regions->computed.at(t));
    }
    return n;
}

// Constant-mode Pad tiles (with the convolution's halo rows): copies and fills.
TEST_F(CpuTileOpsTest, PadTilesRunAsCopies)
{
    const Graph g = padConv("constant");
    const ExecutionPlan p = tiles(g, 3, 2, true);
    const TensorId padded = g.node(0).outputs[0];
    ASSERT_EQ(g.node(0).opType, "Pad");
    EXPECT_GT(computedElements(g, p, padded), g.tensor(padded).elements()); // the halo rows
    RunResult r = matches(g, p, "pad constant");
    EXPECT_EQ(planutil::fallbacks(r, "Pad"), 0);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    EXPECT_GE(r.metrics["ops/copy"], 3);
}

// Twin: reflect mode is not a copy of runs; its tiles fall back, named, and match.
TEST_F(CpuTileOpsTest, ReflectPadTilesFallBackAndMatch)
{
    const Graph g = padConv("reflect");
    RunResult r = matches(g, tiles(g, 3, 2, true), "pad reflect");
    EXPECT_EQ(r.metrics["fallback/Pad: tiled: mode reflect"], 3);
    EXPECT_EQ(r.metrics["ops/copy"], 0);
}

// idx[4,9] (int64 graph input) -> Cast(to `via`) [-> Cast(to float32)] -> Relu.
Graph casts(DType via)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "idx", {4, 9}, Tensor::Kind::Input);
    g.tensor(x).dtype = DType::Int64;
    g.inputs = {x};
    TensorId t = op(g, "cast", "Cast", {x}, {4, 9}, {{"to", {std::int64_t{onnxDType(via)}}}});
    g.tensor(t).dtype = via;
    if (via != DType::Float32)
        t = op(g, "cast2", "Cast", {t}, {4, 9}, {{"to", {std::int64_t{onnxDType(DType::Float32)}}}});
    g.outputs = {op(g, "relu", "Relu", {t}, {4, 9})};
    return g;
}

// Casts from int64 to float32 (and through float64) as typed loops, over
// odd column tiles and over whole tensors.
TEST_F(CpuTileOpsTest, CastsRunAsCopies)
{
    for (DType via : {DType::Float32, DType::Float64}) {
        const Graph g = casts(via);
        RunResult r = matches(g, tiles(g, 3, 1), "cast tiles", 100);
        EXPECT_EQ(planutil::fallbacks(r, "Cast"), 0);
        EXPECT_EQ(r.metrics["ops/reference"], 0);
        EXPECT_GE(r.metrics["ops/copy"], 3);
        auto whole = planutil::baselinePlan(g, "layer-fusion");
        ASSERT_TRUE(whole.isOk()) << whole.status().str();
        RunResult w = matches(g, *whole, "whole cast", 100);
        EXPECT_EQ(w.metrics["ops/reference"], 0);
        EXPECT_GE(w.metrics["ops/copy"], 1);
    }
}

// Twin: a cast to bool and back stays on the reference kernel, over tiles
// with the types named, and matches.
TEST_F(CpuTileOpsTest, CastsThroughBoolFallBackAndMatch)
{
    const Graph g = casts(DType::Bool);
    RunResult r = matches(g, tiles(g, 3, 1), "cast through bool", 100);
    EXPECT_EQ(r.metrics["fallback/Cast: tiled: cast from i64 to bool"], 3);
    EXPECT_EQ(r.metrics["fallback/Cast: tiled: cast from bool to f32"], 3);
}

// x[1,4,5,7] -> Relu -> Resize(mode, coordinate mode, sizes `y`) -> Relu.
Graph resize(const std::string &mode, const std::string &coord, const Shape &y)
{
    Graph g;
    const TensorId in = testgraphs::tensor(g, "x", {1, 4, 5, 7}, Tensor::Kind::Input);
    g.inputs = {in};
    const TensorId r = op(g, "relu", "Relu", {in}, {1, 4, 5, 7});
    const TensorId z = op(g, "resize", "Resize", {r, kInvalidId, kInvalidId, ints(g, "sizes", y)}, y,
                          {{"mode", {mode}}, {"coordinate_transformation_mode", {coord}}});
    g.outputs = {op(g, "relu2", "Relu", {z}, y)};
    return g;
}

// Linear, nearest and cubic image resizes (up and down, several coordinate
// modes) over odd row tiles and whole tensors: the reference kernel's taps,
// compiled.
TEST_F(CpuTileOpsTest, ResizeRunsCompiled)
{
    struct Case {
        std::string mode, coord;
        Shape y;
    };
    const Case cases[] = {{"linear", "half_pixel", {1, 4, 9, 12}},
                          {"linear", "align_corners", {1, 4, 3, 11}},
                          {"nearest", "asymmetric", {1, 4, 10, 14}},
                          {"cubic", "pytorch_half_pixel", {1, 4, 8, 5}}};
    for (const Case &c : cases) {
        const Graph g = resize(c.mode, c.coord, c.y);
        RunResult r = matches(g, tiles(g, 3, 2), c.mode + " " + c.coord);
        EXPECT_EQ(planutil::fallbacks(r, "Resize"), 0) << c.mode;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.mode;
        auto whole = planutil::baselinePlan(g, "layer-fusion");
        ASSERT_TRUE(whole.isOk()) << whole.status().str();
        RunResult w = matches(g, *whole, "whole " + c.mode);
        EXPECT_EQ(w.metrics["ops/reference"], 0) << c.mode;
    }
}

// Twin: a resize that also interpolates the channels falls back, saying so, and matches.
TEST_F(CpuTileOpsTest, ResizeAcrossChannelsFallsBackAndMatches)
{
    const Graph g = resize("linear", "half_pixel", {1, 6, 9, 12});
    RunResult r = matches(g, tiles(g, 3, 2), "resize across channels");
    EXPECT_EQ(r.metrics["fallback/Resize: tiled: interpolation along a dim before the last two"], 3);
}

} // namespace
