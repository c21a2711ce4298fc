// The tile-graph interface of Welder (plugins/welder): memory levels, SetConnect /
// ExtractSubgraph, Propagate, MemTraffic and MemFootprint on the paper's worked examples
// (welder-osdi23 §2 / Fig. 2, Fig. 4 / Fig. 5), the traffic counting rules of the reference
// data (transactions over contiguous runs), and the sub-graph search. Each check has a twin
// that must come out differently.
#include "core/plan/verify.h"
#include "plugins/welder/lowering.h"
#include "plugins/welder/memlevels.h"
#include "plugins/welder/propagate.h"
#include "plugins/welder/subgraphtiling.h"
#include "plugins/welder/tilegraph.h"

#include "tests/plugins/welder/weldertest.h"

using namespace tessera;
using namespace tessera::welder;
using namespace tessera::weldertest;

namespace {

std::vector<NodeId> nodesOf(const Graph &g, std::initializer_list<const char *> names)
{
    std::vector<NodeId> out;
    for (const char *n : names)
        out.push_back(g.findNode(n));
    return out;
}

std::int64_t regionSize(const TileConfig &c, const Graph &g, const char *tensor)
{
    const TensorId t = g.findTensor(tensor);
    auto it = c.computed.count(t) ? c.computed.find(t) : c.loaded.find(t);
    EXPECT_TRUE(it != c.loaded.end()) << tensor;
    return it == c.loaded.end() ? -1 : ops::regionElements(it->second);
}

// §2 / Fig. 2's Matmul–Softmax over 98304 rows on a V100 (nothing connected yet).
class MatmulSoftmaxV100 : public ::testing::Test
{
protected:
    // Matmul and Softmax as one kernel connected in shared memory, tiled `tile` over the output.
    Expected<TileConfig> fused(const Shape &tile)
    {
        tg.setConnect(0, 1);
        return propagate(tg, nodesOf(g, {"matmul", "softmax"}), domain, tile);
    }

    const Graph g = matmulSoftmax(98304);
    const Expected<WelderLevels> levels = memLevels(device("nvidia-v100"));
    TileGraph tg{g};
    const ops::Region domain = ops::fullRegion({98304, 128});
};
class WelderFig2 : public MatmulSoftmaxV100
{
};
class WelderFootprint : public MatmulSoftmaxV100
{
};

// The sub-graph search (Fig. 7 SubGraphTiling) at level 0 for the single node `node` of `g`
// over `extent` on a V100, keeping the `k` best tiles.
Tiling searchOnV100(const Graph &g, const char *node, const Shape &extent, int k)
{
    const TileGraph tg(g);
    const auto levels = memLevels(device("nvidia-v100"));
    const DeviceCostModel cost(device("nvidia-v100"));
    const TilingContext ctx{&tg, &*levels, &device("nvidia-v100"), &cost, {}};
    return subGraphTiling(ctx, {g.findNode(node)}, 0, ops::fullRegion(extent), k);
}

// Swin V2-T's patch embedding (torch corpus): Conv → Transpose → LayerNorm fused with the first
// window partition (Pad → Reshape → Transpose → Reshape), the LayerNorm output also leaving for
// the residual Add. Propagate's alignment looks at the representative tile and its neighbours;
// the reshapes' hulls made other boxes compute overlapping LayerNorm regions, each written by
// its task (verifyPlan: "output computed twice"). Lowering now gives such a kernel one task.
// Here the same happens in small: a ReLU output leaves the kernel and a 3×3 Conv inside reads it
// with a halo, so every box would write its halo'd ReLU region.
Graph escapingHalo(bool reluEscapes)
{
    using namespace testgraphs;
    Graph h;
    h.name = "escaping_halo";
    const TensorId x = tensor(h, "x", {1, 4, 8, 8}, Tensor::Kind::Input);
    h.inputs = {x};
    const TensorId a = op(h, "a", "Relu", {x}, {1, 4, 8, 8});
    const TensorId b =
        op(h, "b", "Conv", {a, weight(h, "w", {4, 4, 3, 3})}, {1, 4, 8, 8},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    h.outputs = reluEscapes ? std::vector<TensorId>{a, b} : std::vector<TensorId>{b};
    return h;
}

// Relu a and Conv b of escapingHalo as one kernel tiled [1×4×2×2] over the Conv's output (16 tiles).
Expected<TileConfig> propagateHalo(const TileGraph &tg)
{
    const Graph &h = tg.graph();
    return propagate(tg, {h.findNode("a"), h.findNode("b")}, ops::fullRegion({1, 4, 8, 8}), {1, 4, 2, 2});
}

} // namespace

// §3.3 / §4: a GPU schedules on global memory, shared memory and registers (L2 is a cache);
// capacities are Welder's arch_configs (smem_cap 48 KiB per block, reg_cap 65536 registers).
TEST(WelderMemLevels, V100HasGlobalSharedAndRegisters)
{
    auto l = memLevels(device("nvidia-v100"));
    ASSERT_TRUE(l.isOk()) << l.status().str();
    ASSERT_EQ(l->levels.size(), 3u);
    EXPECT_EQ(l->at(0).name, "HBM");
    EXPECT_EQ(l->at(1).name, "SMEM");
    EXPECT_EQ(l->at(1).capacityBytes, 48 * 1024);
    EXPECT_EQ(l->at(2).name, "REG");
    EXPECT_EQ(l->at(2).capacityBytes, 65536 * 4);
    EXPECT_EQ(l->at(0).readTransactionBytes, 128);
    EXPECT_EQ(l->at(0).writeTransactionBytes, 32);
}

// Twin: a DSA has no registers level but two scratchpads (per-cluster LLB, per-core L1).
TEST(WelderMemLevels, DsaUsesItsScratchpadsAndNoRegisters)
{
    auto l = memLevels(device("stcp920"));
    ASSERT_TRUE(l.isOk()) << l.status().str();
    ASSERT_EQ(l->levels.size(), 3u);
    EXPECT_EQ(l->at(0).name, "DDR");
    EXPECT_EQ(l->at(1).name, "LLB");
    EXPECT_EQ(l->at(2).name, "L1");
    for (const WelderLevel &w : l->levels)
        EXPECT_FALSE(w.deviceLevel.empty());
}

// Fig. 7 lines 26–31: ExtractSubgraph follows only edges connected above the level.
TEST(WelderTileGraph, ExtractSubgraphFollowsConnectedEdges)
{
    const Graph g = convReluPool(8, 16, 16);
    TileGraph tg(g);
    const NodeId conv = g.findNode("conv"), relu = g.findNode("relu"), pool = g.findNode("pool");
    EXPECT_EQ(tg.extractSubgraph(relu, 0), std::vector<NodeId>{relu}); // nothing connected
    tg.setConnect(tg.edgeIndex(conv, relu), 2);                        // Fig. 5: Conv–ReLU at L0 (top)
    tg.setConnect(tg.edgeIndex(relu, pool), 1);                        // ReLU–MaxPool at L1
    EXPECT_EQ(tg.extractSubgraph(pool, 0), (std::vector<NodeId>{conv, relu, pool}));
    EXPECT_EQ(tg.extractSubgraph(pool, 1), std::vector<NodeId>{pool});
    EXPECT_EQ(tg.extractSubgraph(conv, 1), (std::vector<NodeId>{conv, relu}));
    EXPECT_EQ(tg.subgraphs(1).size(), 2u);
    EXPECT_EQ(tg.subgraphs(0).size(), 1u);
}

// A convex sub-graph can be one kernel; a set that a path leaves and re-enters cannot.
TEST(WelderTileGraph, NonConvexSetIsDetected)
{
    const Graph g = testgraphs::diamond(); // x -> {a: relu, b: sigmoid -> tanh} -> add
    TileGraph tg(g);
    std::vector<NodeId> all;
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
        all.push_back(n);
    EXPECT_EQ(tg.wouldCycle(all), kInvalidId);
    // Without the middle of branch b: b's head → tail path leaves the set.
    std::vector<NodeId> holed;
    for (NodeId n : all)
        if (g.node(n).opType != "Tanh")
            holed.push_back(n);
    EXPECT_NE(tg.wouldCycle(holed), kInvalidId);
}

// Found on RandWire: kernels run as units, so a merge is refused when a path leaves it and comes
// back through another fused kernel even if no node path does. A = {a1, a2}, B = {b0, b1, b2}:
// a1 → b1 and b2 → a2 make A → B → A once B is one kernel.
TEST(WelderTileGraph, CycleThroughAnotherKernelIsDetected)
{
    using namespace testgraphs;
    Graph g;
    const TensorId x = tensor(g, "x", {4, 4}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a1 = op(g, "a1", "Relu", {x}, {4, 4});
    const TensorId b0 = op(g, "b0", "Relu", {x}, {4, 4});
    const TensorId b1 = op(g, "b1", "Add", {a1, b0}, {4, 4});
    const TensorId b2 = op(g, "b2", "Relu", {b0}, {4, 4});
    const TensorId a2 = op(g, "a2", "Add", {a1, b2}, {4, 4});
    g.outputs = {b1, a2};
    TileGraph tg(g);
    const std::vector<NodeId> a{g.findNode("a1"), g.findNode("a2")};
    EXPECT_EQ(tg.wouldCycle(a), kInvalidId); // B not fused: b1 and b2 run on their own
    tg.setConnect(tg.edgeIndex(g.findNode("b0"), g.findNode("b1")), 1);
    tg.setConnect(tg.edgeIndex(g.findNode("b0"), g.findNode("b2")), 1);
    EXPECT_NE(tg.wouldCycle(a), kInvalidId);
}

// §2: "the total traffic incurred in global memory for an individual output tile is 35KB
// ((4*64+64*128+4*128)*4 Bytes) ... a total global memory traffic of 840MB" with [4×128],
// "changing the output tile to [16×128] will reduce the total traffic to only 264MB".
TEST_F(WelderFig2, MatmulSoftmaxTrafficIs840MBand264MB)
{
    ASSERT_TRUE(levels.isOk());
    auto small = fused({4, 128});
    ASSERT_TRUE(small.isOk()) << small.status().str();
    EXPECT_EQ(small->tileCount, 24576);
    EXPECT_EQ(regionSize(*small, g, "A"), 4 * 64);
    EXPECT_EQ(regionSize(*small, g, "B"), 64 * 128);
    const Traffic t4 = memTraffic(tg, *small, *levels, 0);
    EXPECT_EQ(t4.perTile, 35840.0); // 35 KB
    EXPECT_EQ(t4.total, 840.0 * 1024 * 1024);

    auto large = fused({16, 128});
    ASSERT_TRUE(large.isOk());
    EXPECT_EQ(large->tileCount, 6144);
    EXPECT_EQ(memTraffic(tg, *large, *levels, 0).total, 264.0 * 1024 * 1024);
}

// Twin: unconnected, the intermediate C goes through global memory — stored by the Matmul's
// kernel and loaded again by the Softmax's: 4·128·4 B twice more per tile.
TEST_F(WelderFig2, UnconnectedIntermediateCostsTraffic)
{
    auto mm = propagate(tg, nodesOf(g, {"matmul"}), domain, {4, 128});
    auto sm = propagate(tg, nodesOf(g, {"softmax"}), domain, {4, 128});
    ASSERT_TRUE(mm.isOk() && sm.isOk());
    const double separate = memTraffic(tg, *mm, *levels, 0).total + memTraffic(tg, *sm, *levels, 0).total;
    EXPECT_EQ(separate, (35840.0 + 2 * 4 * 128 * 4) * 24576);
    EXPECT_GT(separate, 840.0 * 1024 * 1024);
}

// §3.1 footprint: best-fit in topological order; A, B and C live together, D reuses A/B's space.
// [16×128]: 4096 + 32768 + 8192 = 45056 B fits 48 KiB with K whole.
TEST_F(WelderFootprint, BestFitReusesFreedTiles)
{
    auto c = fused({16, 128});
    ASSERT_TRUE(c.isOk());
    const Footprint f = memFootprint(tg, *c, *levels, 0);
    EXPECT_TRUE(f.fits);
    EXPECT_EQ(f.rstep, 0);
    EXPECT_EQ(f.bytes, 45056);
}

// Twin: [32×128] needs A 8 + B 32 + C 16 KiB with K whole (D then fits into A and B's space):
// 56 KiB > 48 KiB. Splitting the reduction axis K into steps of 32 (A [32×32], B [32×128])
// brings it to 4 + 16 + 16 KiB = 36 KiB, D again in the freed space.
TEST_F(WelderFootprint, ReductionAxisIsSplitWhenTheTileDoesNotFit)
{
    auto c = fused({32, 128});
    ASSERT_TRUE(c.isOk());
    const Footprint f = memFootprint(tg, *c, *levels, 0);
    EXPECT_TRUE(f.fits);
    EXPECT_EQ(f.rstep, 32);
    EXPECT_EQ(f.bytes, (32 * 32 + 32 * 128 + 32 * 128) * 4);
    // [64×128]: C and D (32 KiB each) are live together: no reduction step helps.
    auto big = fused({64, 128});
    ASSERT_TRUE(big.isOk());
    EXPECT_FALSE(memFootprint(tg, *big, *levels, 0).fits);
}

// Fig. 4(c): the MaxPool operator-tile [1×1×F] needs a [2×2×F] reuse-tile of the ReLU and so
// of the Conv, whose 3×3 window then reads a [4×4×C] input tile (an interior tile).
TEST(WelderFig4, ConvReluMaxPoolReuseTileIs2x2xF)
{
    const Graph g = convReluPool(8, 16, 16);
    TileGraph tg(g);
    tg.setConnect(0, 2);
    tg.setConnect(1, 1);
    auto c = propagate(tg, nodesOf(g, {"conv", "relu", "pool"}), ops::fullRegion({1, 16, 8, 8}), {1, 16, 1, 1});
    ASSERT_TRUE(c.isOk()) << c.status().str();
    EXPECT_EQ(c->tileCount, 64);
    const TensorId reluOut = g.node(g.findNode("relu")).outputs[0];
    const TensorId convOut = g.node(g.findNode("conv")).outputs[0];
    EXPECT_EQ(ops::regionElements(c->computed.at(reluOut)), 2 * 2 * 16);
    EXPECT_EQ(ops::regionElements(c->computed.at(convOut)), 2 * 2 * 16);
    EXPECT_EQ(regionSize(*c, g, "x"), 4 * 4 * 8);
    EXPECT_EQ(c->escaping, std::vector<TensorId>{g.outputs[0]});
}

// §3.1 multiple outputs: with ReLU's output also a graph output, it escapes; the walk back from
// the MaxPool's tile reaches it and its [2×2×F] tiles partition it, so the two outputs align.
// Twin: an escaping tensor read by a 3×3 Conv inside needs overlapping (halo) tiles: not aligned.
TEST(WelderPropagate, MultipleOutputsAlignOrAreRefused)
{
    Graph g = convReluPool(8, 16, 16);
    g.outputs.push_back(g.node(g.findNode("relu")).outputs[0]);
    TileGraph tg(g);
    auto c = propagate(tg, nodesOf(g, {"conv", "relu", "pool"}), ops::fullRegion({1, 16, 8, 8}), {1, 16, 1, 1});
    ASSERT_TRUE(c.isOk()) << c.status().str();
    EXPECT_EQ(c->escaping.size(), 2u);
    EXPECT_EQ(c->primary, g.outputs[0]); // the sink, not the larger ReLU output
    EXPECT_TRUE(c->aligned) << c->why;

    // Relu a escapes and the 3×3 Conv b reads it: a's and b's tiles disagree by a halo.
    const Graph h = escapingHalo(true);
    const TileGraph th(h);
    auto d = propagateHalo(th);
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_FALSE(d->aligned);
    EXPECT_NE(d->why.find("overlap"), std::string::npos) << d->why;
}

// reference/welder README: "rounds each tensor access up to whole transactions using the
// contiguous innermost run of the tile". A [4×32] FP32 tile of a [100×100] tensor is 4 runs of
// 128 B: exactly 4 read transactions; a [4×3] tile is 4 runs of 12 B: still 4 × 128 B.
TEST(WelderTraffic, AccessesRoundUpToTransactionsPerContiguousRun)
{
    const Shape s{100, 100};
    EXPECT_EQ(accessBytes(s, {{0, 4}, {0, 32}}, 4, 128), 512);
    EXPECT_EQ(accessBytes(s, {{0, 4}, {0, 3}}, 4, 128), 512);
    // Full rows are contiguous: 4 × 100 × 4 B = 1600 B in one run → 13 transactions.
    EXPECT_EQ(accessBytes(s, {{0, 4}, {0, 100}}, 4, 128), 13 * 128);
    // Writes: 32 B transactions.
    EXPECT_EQ(accessBytes(s, {{0, 4}, {0, 3}}, 4, 32), 4 * 32);
}

// Twin: the search prefers the wide, coalesced tile: for an element-wise op over [1024×1024]
// the best candidate covers whole 128-byte lines (innermost extent ≥ 32 floats).
TEST(WelderSearch, BestTileIsCoalescedAndFitsSharedMemory)
{
    using namespace testgraphs;
    Graph g;
    const TensorId x = tensor(g, "x", {1024, 1024}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {op(g, "r", "Relu", {x}, {1024, 1024})};
    const Tiling t = searchOnV100(g, "r", {1024, 1024}, 4);
    ASSERT_FALSE(t.candidates.empty()) << t.failure;
    const TileChoice &best = t.candidates.front();
    EXPECT_GE(best.config.tile[1], 32);
    EXPECT_LE(best.footprint.bytes, 48 * 1024);
    // Every returned candidate is feasible; traffic never below the compulsory 2 × 4 MiB.
    for (const TileChoice &c : t.candidates) {
        EXPECT_TRUE(c.footprint.fits);
        EXPECT_GE(c.traffic.total, 2.0 * 4 * 1024 * 1024);
    }
}

// Bad input: a MaxPool with a 128×128 window needs a 64 KiB input tile for a single output:
// nothing fits shared memory (windows are not reduction axes, so no step splits them), and the
// failure says by how much.
TEST(WelderSearch, NothingFitsReportsTheSmallestFootprint)
{
    const Tiling t = searchOnV100(hugeWindowPool(), "pool", {1, 1, 33, 33}, 4);
    EXPECT_TRUE(t.candidates.empty());
    EXPECT_NE(t.failure.find("no tile fits SMEM"), std::string::npos) << t.failure;
    EXPECT_GE(t.smallestFootprint, 128 * 128 * 4);
}

// Bad input: an opaque operator has no index map; Propagate says so and names it.
TEST(WelderPropagate, OpaqueOperatorIsRefusedWithItsName)
{
    using namespace testgraphs;
    Graph g;
    const TensorId x = tensor(g, "x", {8, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {op(g, "mystery", "Relu", {x}, {8, 8})};
    g.node(g.findNode("mystery")).opaque = true;
    TileGraph tg(g);
    auto c = propagate(tg, {g.findNode("mystery")}, ops::fullRegion({8, 8}), {2, 8});
    ASSERT_FALSE(c.isOk());
    EXPECT_NE(c.status().str().find("mystery"), std::string::npos) << c.status().str();
}

// §4.1 "Support TensorCore": an FP16 GEMM runs on the V100's tensor cores, so its tiles are
// multiples of the 16×16 MMA fragment on the output's two axes.
TEST(WelderSearch, Fp16GemmTilesAreTensorCoreAligned)
{
    using namespace testgraphs;
    Graph g;
    const TensorId a = tensor(g, "a", {256, 64}, Tensor::Kind::Input);
    const TensorId b = tensor(g, "b", {64, 128}, Tensor::Kind::Input);
    g.tensor(a).dtype = g.tensor(b).dtype = DType::Float16;
    g.inputs = {a, b};
    const TensorId c = op(g, "mm", "MatMul", {a, b}, {256, 128});
    g.tensor(c).dtype = DType::Float16;
    g.outputs = {c};
    const Tiling t = searchOnV100(g, "mm", {256, 128}, 8);
    ASSERT_FALSE(t.candidates.empty()) << t.failure;
    EXPECT_EQ(t.start, (Shape{16, 16}));
    for (const TileChoice &ch : t.candidates) {
        EXPECT_EQ(ch.config.tile[0] % 16, 0) << ch.label();
        EXPECT_EQ(ch.config.tile[1] % 16, 0) << ch.label();
    }
}

// Twin: in FP32 the GEMM runs on the CUDA cores and the search starts from a 1×1 tile.
TEST(WelderSearch, Fp32GemmStartsFromOneElement)
{
    const Tiling t = searchOnV100(matmulSoftmax(256), "matmul", {256, 128}, 8);
    ASSERT_FALSE(t.candidates.empty()) << t.failure;
    EXPECT_EQ(t.start, (Shape{1, 1}));
}

namespace {

// escapingHalo's two nodes as one kernel (propagateHalo), lowered and checked with verifyPlan;
// the number of its compute tasks.
Expected<std::size_t> loweredComputeTasks(bool reluEscapes)
{
    const Graph h = escapingHalo(reluEscapes);
    const TileGraph tg(h);
    LoweredKernel lk;
    lk.nodes = {h.findNode("a"), h.findNode("b")};
    auto c = propagateHalo(tg);
    if (!c)
        return c.status();
    lk.config = *c;
    auto levels = memLevels(device("nvidia-v100"));
    if (!levels)
        return levels.status();
    auto plan = lowerTileGraph(tg, *levels, {lk}, 64);
    if (!plan)
        return plan.status();
    if (Status st = verifyPlan(*plan, h, &device("nvidia-v100")); !st.isOk())
        return st;
    return static_cast<std::size_t>(std::count_if(plan->tasks.begin(), plan->tasks.end(),
                                                  [](const Task &t) { return t.kind == TaskKind::Compute; }));
}

} // namespace

TEST(WelderLowering, KernelWhoseBoxesOverlapOnAnEscapingOutputIsOneTask)
{
    const auto tasks = loweredComputeTasks(true);
    ASSERT_TRUE(tasks.isOk()) << tasks.status().str();
    EXPECT_EQ(*tasks, 1u);
}

// Twin: with only the Conv's output leaving, the 16 tiles are 16 tasks that partition it.
TEST(WelderLowering, KernelWhoseBoxesPartitionItsOutputsKeepsItsTiles)
{
    const auto tasks = loweredComputeTasks(false);
    ASSERT_TRUE(tasks.isOk()) << tasks.status().str();
    EXPECT_EQ(*tasks, 16u);
}
