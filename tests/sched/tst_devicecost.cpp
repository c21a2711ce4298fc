// The device cost model (core/cost/devicecost.h): the GPU effects of ios thesis
// §2.3, the parts of an estimate, one number per plan whatever scheduler made
// it, and the device file's calibration reaching every scheduler's estimate.
#include "core/cost/devicecost.h"
#include "core/cost/measuredcost.h"
#include "core/hw/devicejson.h"
#include "core/hw/deviceregistry.h"
#include "core/sched/session.h"
#include "plugins/greedy/greedy.h"
#include "plugins/layerfusion/layerfusion.h"
#include "plugins/sequential/sequential.h"

#include <gtest/gtest.h>

#include "tests/common/onenodemeter.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using namespace tessera::testgraphs;

namespace {

const Device &v100()
{
    static const Device d = [] {
        auto dev = DeviceRegistry::standard().lookup("nvidia-v100");
        EXPECT_TRUE(dev.isOk()) << dev.status().str();
        return *dev;
    }();
    return d;
}

// Per-SM peak (f32) and HBM bandwidth of the V100 as the model uses them, per ns.
double peakPerSm()
{
    return 15.7e12 * v100().calibration.computeEfficiency / 80 / 1e9;
}
double bandwidthPerSm()
{
    return 900e9 * v100().calibration.memoryEfficiency / 80 / 1e9;
}

KernelEstimate one(const Launch &l)
{
    KernelEstimate e;
    e.launches = {l};
    return e;
}

// A chain of convolutions: no fusion, no concurrency — sequential and
// layer-fusion build the same plan.
Graph convChain()
{
    Graph g;
    g.name = "convs";
    const TensorId x = tensor(g, "x", {1, 32, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    TensorId t = x;
    for (int i = 0; i < 4; ++i)
        t = conv28(g, "c" + std::to_string(i), t, 32, 32, 3);
    g.outputs = {t};
    return g;
}

double latencyOf(const Graph &g, const Device &d, const IScheduler &s)
{
    auto run = scheduleGraph(g, d, s, {});
    EXPECT_TRUE(run.isOk()) << run.status().str();
    return run ? run->result.plan.estimatedLatencyNs() : 0.0;
}

} // namespace

TEST(DeviceCostModel, ReproducesTheLowUtilisationEffects)
{
    const DeviceCostModel m(v100());
    const double P = peakPerSm(), B = bandwidthPerSm();

    // §2.3's cuDNN kernel: 375 → 750 channels, 3×3, 15×15 output: 48 thread
    // blocks of 256 threads × 126 registers, 2 resident per SM.
    const Launch small = m.finish(DeviceCostModel::convLaunch(1, 375, 750, 1, 3, 3, 15, 15), P, B);
    EXPECT_EQ(small.blocks, 48);
    EXPECT_EQ(small.residentBlocks, 2);
    EXPECT_LT(small.demandCores, 0.5 * 80); // a small kernel leaves most SMs idle

    // Concurrency helps small kernels: two side by side take about as long as one.
    const KernelEstimate k = one(small);
    const double launch = v100().overheads.kernelLaunchNs;
    const double alone = m.stageSpanNs({{&k}});
    const double serial = m.stageSpanNs({{&k, &k}});
    const double side = m.stageSpanNs({{&k}, {&k}});
    // One stream: issued while the stage before ran (S5), its launches hide
    // behind the kernels. Two streams: issued after a synchronisation, one
    // launch each.
    EXPECT_NEAR(serial, 2 * alone, 1e-6 * alone);
    EXPECT_NEAR(side, alone + 2 * launch, 1e-6 * alone);
    EXPECT_LT(side, 0.6 * serial);

    // Negative twin: a kernel that fills the device (64 registers: 4 blocks of
    // 8 warps per SM) gains nothing from a partner.
    Launch big = DeviceCostModel::convLaunch(8, 256, 1024, 1, 3, 3, 56, 56);
    big.registersPerThread = 64;
    big.cores = 80;
    big = m.finish(big, P, B);
    EXPECT_NEAR(big.demandCores, 80, 0.05 * 80);
    const KernelEstimate b = one(big);
    EXPECT_GT(m.stageSpanNs({{&b}, {&b}}), 0.95 * m.stageSpanNs({{&b, &b}}));

    // Tail effect: one block more than a full wave costs a whole block time more.
    Launch wave;
    wave.flops = 1e9;
    wave.blocks = 160; // 80 SMs × 2 resident
    wave.threadsPerBlock = 256;
    wave.registersPerThread = 126;
    wave.cores = 80;
    const Launch full = m.finish(wave, P, B);
    wave.flops = 1e9 * 161.0 / 160.0;
    wave.blocks = 161;
    const Launch tail = m.finish(wave, P, B);
    EXPECT_GT(tail.aloneNs, 1.4 * full.aloneNs);
    EXPECT_LT(tail.demandCores, 0.7 * full.demandCores);

    // Low occupancy: the register-limited conv uses half the SM's warps; a
    // light element-wise kernel fits beside it.
    Launch light;
    light.bytes = 4e6;
    light.blocks = 1000;
    light.cores = 80;
    const Launch lightL = m.finish(light, P, B);
    EXPECT_EQ(lightL.residentBlocks, 8);
    EXPECT_TRUE(lightL.memoryBound);
    const KernelEstimate f = one(full), l = one(lightL);
    // (net of the two launches a stage on two streams waits for, S5)
    EXPECT_LT(m.stageSpanNs({{&f}, {&l}}) - 2 * launch, m.stageSpanNs({{&f, &l}}));
}

// S5: a one-stream stage needs no synchronisation after it and its first launch
// waits for no issue; a stage on several streams pays both.
// S2: a depthwise convolution is one implicit GEMM per group (cuDNN 7.6),
// its one output channel filling a whole 64-wide tile: MobileNet's 32-channel
// 3×3 depthwise layer at 112×112 is 32 × 196 blocks, each a whole tile's
// FLOPs, and takes far longer alone than its FLOPs at the SM peak would.
TEST(DeviceCostModel, DepthwiseConvolutionsAreGroupedImplicitGemms)
{
    const DeviceCostModel m(v100());
    const double P = peakPerSm(), B = bandwidthPerSm();
    const Launch dw = m.finish(DeviceCostModel::convLaunch(1, 32, 32, 32, 3, 3, 112, 112), P, B);
    EXPECT_EQ(dw.blocks, 32 * 196);
    EXPECT_DOUBLE_EQ(dw.tileFlops, 2.0 * 64 * 64 * 9);
    EXPECT_GT(dw.aloneNs, 30.0 * dw.flops / (80 * P));

    // Twin: the dense convolution of the same FLOPs (1 → 32 channels) uses its
    // tile's channels, so its blocks are 32× fewer for the same work.
    const Launch dense = m.finish(DeviceCostModel::convLaunch(1, 1, 32, 1, 3, 3, 112, 112), P, B);
    EXPECT_DOUBLE_EQ(dense.flops, dw.flops);
    EXPECT_EQ(dense.blocks, 196);
    EXPECT_LT(dense.aloneNs, dw.aloneNs / 8);
}

TEST(DeviceCostModel, OnlyStagesOnSeveralStreamsSynchronise)
{
    const DeviceCostModel m(v100());
    const Graph g = fig34();
    const KernelEstimate a = m.estimateKernel(g, {0}, {});
    const double launch = v100().overheads.kernelLaunchNs;
    EXPECT_EQ(m.barrierAfterNs(1), 0.0);
    EXPECT_EQ(m.barrierAfterNs(2), v100().overheads.syncNs);
    const StageEstimate one = m.estimateStage({{&a}});
    EXPECT_EQ(one.costs[0][0].launchNs, 0.0);
    EXPECT_NEAR(one.spanNs, a.cost.timeNs - launch, 1e-6 * a.cost.timeNs); // alone, it is issued first
    // Negative twin: the same kernel beside another waits for its issue.
    const StageEstimate two = m.estimateStage({{&a}, {&a}});
    EXPECT_NEAR(two.costs[0][0].launchNs, launch, 1e-9);
    EXPECT_GT(two.spanNs, one.spanNs + launch);
}

// The parts of every task add up to its time; a concurrent stage shows contention.
TEST(DeviceCostModel, EstimatesCarryTheirParts)
{
    const DeviceCostModel m(v100());
    const Graph g = fig34();
    const KernelEstimate a = m.estimateKernel(g, {0}, {});
    const KernelEstimate c = m.estimateKernel(g, {2}, {});
    EXPECT_EQ(a.cost.kind, CostKind::Estimated);
    EXPECT_NEAR(a.cost.launchNs, v100().overheads.kernelLaunchNs, 1e-9);
    EXPECT_EQ(a.cost.contentionNs, 0);
    EXPECT_GT(a.cost.computeNs + a.cost.memoryNs, 0);
    EXPECT_GT(a.cost.bytesByLevel.at("HBM"), 0);

    Launch heavy = DeviceCostModel::convLaunch(8, 256, 1024, 1, 3, 3, 56, 56);
    heavy.cores = 80;
    const KernelEstimate h = one(m.finish(heavy, peakPerSm(), bandwidthPerSm()));
    const StageEstimate stage = m.estimateStage({{&h, &a}, {&h, &c}});
    for (const auto &stream : stage.costs)
        for (const TaskCost &t : stream)
            EXPECT_NEAR(t.timeNs, t.launchNs + t.computeNs + t.memoryNs + t.contentionNs + t.syncNs, 1e-6 * t.timeNs);
    EXPECT_GT(stage.costs[1][0].contentionNs, 0); // two device-filling kernels share the SMs
    EXPECT_NEAR(std::max(stage.endNs[0][1], stage.endNs[1][1]), stage.spanNs, 1e-9);
}

// A kernel whose layers pass their tensors inside a faster level (a GraphTurbo instance in its
// local buffer): with a named intermediate level those tensors move there, not at the I/O level.
TEST(DeviceCostModel, IntermediatesMoveAtTheNamedLevel)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    const DeviceCostModel m(*stcp);
    const Graph g = convChain();
    const std::vector<NodeId> all = {0, 1, 2, 3};
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    KernelPlacement local = ddr;
    local.intermediateLevel = "L1";
    const KernelEstimate slow = m.estimateKernel(g, all, ddr);
    const KernelEstimate fast = m.estimateKernel(g, all, local);
    EXPECT_EQ(slow.cost.bytesByLevel.count("L1"), 0u);
    ASSERT_EQ(fast.cost.bytesByLevel.count("L1"), 1u);
    EXPECT_GT(fast.cost.bytesByLevel.at("L1"), 0);
    EXPECT_LT(fast.cost.bytesByLevel.at("DDR"), slow.cost.bytesByLevel.at("DDR"));
    EXPECT_EQ(fast.cost.bytesByLevel.at("DDR") + fast.cost.bytesByLevel.at("L1"), slow.cost.bytesByLevel.at("DDR"));
    EXPECT_LE(fast.cost.memoryNs, slow.cost.memoryNs);
    EXPECT_LE(fast.cost.timeNs, slow.cost.timeNs);
    EXPECT_LT(fast.cost.energyJ, slow.cost.energyJ); // L1 bytes cost less energy than DDR bytes

    // Negative twin: one layer alone has no intermediates; naming the level changes nothing.
    const KernelEstimate one = m.estimateKernel(g, {0}, ddr);
    const KernelEstimate oneLocal = m.estimateKernel(g, {0}, local);
    EXPECT_EQ(oneLocal.cost.bytesByLevel, one.cost.bytesByLevel);
    EXPECT_DOUBLE_EQ(oneLocal.cost.timeNs, one.cost.timeNs);
    // An unknown level is ignored, not guessed.
    KernelPlacement unknown = ddr;
    unknown.intermediateLevel = "no-such-level";
    EXPECT_DOUBLE_EQ(m.estimateKernel(g, all, unknown).cost.timeNs, slow.cost.timeNs);
}

// A kernel whose inputs a copy task already brought into a faster level (a GraphTurbo instance
// reading producer slices promoted into its local buffer): they are read there, not at the I/O level.
TEST(DeviceCostModel, InputsMoveAtTheNamedInputLevel)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    const DeviceCostModel m(*stcp);
    const Graph g = convChain();
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    KernelPlacement local = ddr;
    local.inputLevel = "L1";
    const KernelEstimate slow = m.estimateKernel(g, {1}, ddr);
    const KernelEstimate fast = m.estimateKernel(g, {1}, local);
    ASSERT_EQ(fast.cost.bytesByLevel.count("L1"), 1u);
    EXPECT_GT(fast.cost.bytesByLevel.at("L1"), 0);
    EXPECT_EQ(fast.cost.bytesByLevel.at("DDR") + fast.cost.bytesByLevel.at("L1"), slow.cost.bytesByLevel.at("DDR"));
    EXPECT_LE(fast.cost.timeNs, slow.cost.timeNs);
    EXPECT_LT(fast.cost.energyJ, slow.cost.energyJ);
    // Negative twin: an unknown level is ignored, not guessed.
    KernelPlacement unknown = ddr;
    unknown.inputLevel = "no-such-level";
    EXPECT_EQ(m.estimateKernel(g, {1}, unknown).cost.bytesByLevel, slow.cost.bytesByLevel);
    EXPECT_DOUBLE_EQ(m.estimateKernel(g, {1}, unknown).cost.timeNs, slow.cost.timeNs);
}

// A kernel that reads its weight from a nearer level, and only its slice (a GraphTurbo instance
// whose weight was promoted into GB, or whose tile partitions the weight): the weight's bytes move
// at the named level, its other inputs as before.
TEST(DeviceCostModel, WeightsMoveAtTheNamedLevelInTheNamedAmount)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    const DeviceCostModel m(*stcp);
    const Graph g = convChain();
    const TensorId w = g.node(1).inputs.at(1);
    ASSERT_TRUE(g.tensor(w).isConstant());
    const auto wBytes = g.tensor(w).bytes();
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    KernelPlacement resident = ddr;
    resident.weightReads[w] = {"LLB", double(wBytes) / 4};
    const KernelEstimate slow = m.estimateKernel(g, {1}, ddr);
    const KernelEstimate fast = m.estimateKernel(g, {1}, resident);
    ASSERT_EQ(fast.cost.bytesByLevel.count("LLB"), 1u);
    EXPECT_EQ(fast.cost.bytesByLevel.at("LLB"), wBytes / 4);
    EXPECT_EQ(fast.cost.bytesByLevel.at("DDR"), slow.cost.bytesByLevel.at("DDR") - wBytes);
    EXPECT_LE(fast.cost.timeNs, slow.cost.timeNs);
    EXPECT_LT(fast.cost.energyJ, slow.cost.energyJ);
    // The slice alone, at the I/O level: a quarter of the weight's bytes there.
    KernelPlacement slice = ddr;
    slice.weightReads[w] = {"DDR", double(wBytes) / 4};
    EXPECT_EQ(m.estimateKernel(g, {1}, slice).cost.bytesByLevel.at("DDR"),
              slow.cost.bytesByLevel.at("DDR") - wBytes + wBytes / 4);
}

// Negative twin: an unknown level reads the named bytes at the I/O level; an activation listed
// as a weight, or a weight of another node, changes nothing.
TEST(DeviceCostModel, WeightReadsOfUnknownLevelsOrOtherTensorsFallBack)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    const DeviceCostModel m(*stcp);
    const Graph g = convChain();
    const TensorId w = g.node(1).inputs.at(1);
    const auto wBytes = g.tensor(w).bytes();
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    const KernelEstimate slow = m.estimateKernel(g, {1}, ddr);
    KernelPlacement unknown = ddr;
    unknown.weightReads[w] = {"no-such-level", double(wBytes)};
    EXPECT_EQ(m.estimateKernel(g, {1}, unknown).cost.bytesByLevel, slow.cost.bytesByLevel);
    KernelPlacement others = ddr;
    others.weightReads[g.node(1).inputs.at(0)] = {"LLB", 1.0}; // an activation
    others.weightReads[g.node(2).inputs.at(1)] = {"LLB", 1.0}; // another node's weight
    EXPECT_EQ(m.estimateKernel(g, {1}, others).cost.bytesByLevel, slow.cost.bytesByLevel);
    EXPECT_DOUBLE_EQ(m.estimateKernel(g, {1}, others).cost.timeNs, slow.cost.timeNs);
}

// A Gather reads the rows it gathers, not its whole table (an embedding lookup: 16 tokens of a
// 1000-row table). Graph: ids [2, 8] (int64) gather rows of table [1000, 64] → [2, 8, 64],
// then a MatMul by w [64, 32].
Graph embedding()
{
    Graph g;
    g.name = "embed";
    const TensorId ids =
        g.addTensor({.name = "ids", .dtype = DType::Int64, .shape = {2, 8}, .kind = Tensor::Kind::Input});
    g.inputs = {ids};
    const TensorId e = op(g, "gather", "Gather", {weight(g, "table", {1000, 64}), ids}, {2, 8, 64});
    g.outputs = {op(g, "mm", "MatMul", {e, weight(g, "w", {64, 32})}, {2, 8, 32})};
    return g;
}

TEST(DeviceCostModel, GatherReadsTheRowsItGathersNotItsTable)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    const DeviceCostModel m(*stcp);
    const Graph g = embedding();
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    // ids 2×8×8 B, 16 rows of 64 floats read, 16×64 floats written.
    const std::int64_t gathered = 16 * 64 * 4;
    EXPECT_EQ(m.estimateKernel(g, {0}, ddr).cost.bytesByLevel.at("DDR"), 128 + gathered + gathered);
    // Half the output (a tile) gathers half the rows.
    KernelPlacement half = ddr;
    half.workFraction = 0.5;
    EXPECT_EQ(m.estimateKernel(g, {0}, half).cost.bytesByLevel.at("DDR"), 64 + gathered / 2 + gathered / 2);
    // A named read of the table (a GraphTurbo instance's region of it) is capped the same way.
    KernelPlacement named = ddr;
    named.weightReads[g.node(0).inputs[0]] = {"LLB", 1000.0 * 64 * 4};
    EXPECT_EQ(m.estimateKernel(g, {0}, named).cost.bytesByLevel.at("LLB"), gathered);
}

// Negative twin: the MatMul's weight is read whole, and a table that another op of the launch
// reads too is read whole.
TEST(DeviceCostModel, TablesReadByOtherOpsAndWeightsAreReadWhole)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    const DeviceCostModel m(*stcp);
    const Graph g = embedding();
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    // The MatMul alone: its input 2×8×64 floats, its whole weight, its output.
    EXPECT_EQ(m.estimateKernel(g, {1}, ddr).cost.bytesByLevel.at("DDR"), 16 * 64 * 4 + 64 * 32 * 4 + 16 * 32 * 4);
    Graph h;
    h.name = "table-twice";
    const TensorId ids = h.addTensor({.name = "ids", .dtype = DType::Int64, .shape = {4}, .kind = Tensor::Kind::Input});
    h.inputs = {ids};
    const TensorId table = weight(h, "table", {100, 8});
    const TensorId rows = op(h, "gather", "Gather", {table, ids}, {4, 8});
    const TensorId sum = op(h, "sum", "ReduceSum", {table}, {1, 8}, {{"keepdims", Attribute{std::int64_t{1}}}});
    h.outputs = {op(h, "add", "Add", {rows, sum}, {4, 8})};
    const KernelEstimate e = m.estimateKernel(h, {0, 1, 2}, ddr);
    EXPECT_GE(e.cost.bytesByLevel.at("DDR"), 100 * 8 * 4);
}

// Done-when (issue 10): two schedulers producing the same plan get the same number.
TEST(DeviceCostModel, SamePlanSameNumberWhicheverScheduler)
{
    const Graph g = convChain();
    auto sequential = createSequentialScheduler();
    auto fusion = createLayerFusionScheduler();
    auto a = scheduleGraph(g, v100(), *sequential, {});
    auto b = scheduleGraph(g, v100(), *fusion, {});
    ASSERT_TRUE(a.isOk() && b.isOk());
    ASSERT_EQ(a->result.plan.tasks.size(), b->result.plan.tasks.size());
    for (std::size_t i = 0; i < a->result.plan.tasks.size(); ++i)
        EXPECT_EQ(a->result.plan.tasks[i].cost.timeNs, b->result.plan.tasks[i].cost.timeNs) << i;
    EXPECT_EQ(a->result.plan.estimatedLatencyNs(), b->result.plan.estimatedLatencyNs());
    EXPECT_GT(a->result.plan.estimatedLatencyNs(), 0);

    // Greedy's plan of the chain puts each conv in a stage of its own, one
    // stream each: no synchronisation (S5), the same device time.
    auto greedy = createGreedyScheduler();
    EXPECT_NEAR(latencyOf(g, v100(), *greedy), a->result.plan.estimatedLatencyNs(),
                1e-6 * latencyOf(g, v100(), *greedy));
    // Negative twin: where greedy's plan differs (four branches on four
    // streams, synchronised), so does its number.
    const Graph wide = fan(4);
    EXPECT_NE(latencyOf(wide, v100(), *greedy), latencyOf(wide, v100(), *sequential));
}

// A user edits the calibration in a device file: every scheduler's estimate changes.
TEST(DeviceCostModel, DeviceFileCalibrationReachesEveryScheduler)
{
    const Graph g = fig34();
    Device slow = v100();
    slow.calibration.computeEfficiency = v100().calibration.computeEfficiency / 2;
    slow.calibration.memoryEfficiency = v100().calibration.memoryEfficiency / 2;
    // Through the file format, as a user would.
    auto edited = parseDevice(toJson(slow), "edited.json");
    ASSERT_TRUE(edited.isOk()) << edited.status().str();
    for (auto make : {createSequentialScheduler, createGreedyScheduler, createLayerFusionScheduler}) {
        auto s = make();
        const double base = latencyOf(g, v100(), *s);
        const double slower = latencyOf(g, *edited, *s);
        EXPECT_GT(slower, base * 1.2) << s->info().name;
    }
    Device launch = v100();
    launch.overheads.kernelLaunchNs *= 3;
    auto seq = createSequentialScheduler();
    EXPECT_GT(latencyOf(g, launch, *seq), latencyOf(g, v100(), *seq));
}

// Per-level memory and per-class compute efficiencies (calibration.memoryEfficiencyByLevel,
// computeEfficiencyByClass) reach the cost model; each with a twin that names another level or
// class and changes nothing. STCP920 with its maps cleared is the base.
TEST(DeviceCostModel, PerLevelAndPerClassEfficiencies)
{
    auto stcp = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(stcp.isOk());
    Device base = *stcp;
    base.calibration.memoryEfficiencyByLevel.clear();
    base.calibration.computeEfficiencyByClass.clear();
    const double eff = base.calibration.memoryEfficiency;
    auto with = [&](std::map<std::string, double, std::less<>> byLevel,
                    std::map<std::string, double, std::less<>> byClass) {
        Device d = base;
        d.calibration.memoryEfficiencyByLevel = std::move(byLevel);
        d.calibration.computeEfficiencyByClass = std::move(byClass);
        return d;
    };
    // A DDR -> L1 transfer moves at the slower end: DDR's 136 GB/s × its efficiency.
    const std::int64_t bytes = 1 << 20;
    const double ddrNs = static_cast<double>(bytes) / (136e9 * eff) * 1e9;
    EXPECT_NEAR(DeviceCostModel(base).transferCost(bytes, "DDR", "L1").memoryNs, ddrNs, ddrNs * 1e-12);
    EXPECT_NEAR(DeviceCostModel(with({{"DDR", eff / 2}}, {})).transferCost(bytes, "DDR", "L1").memoryNs, 2 * ddrNs,
                ddrNs * 1e-12);
    EXPECT_NEAR(DeviceCostModel(with({{"L1", eff / 2}}, {})).transferCost(bytes, "DDR", "L1").memoryNs, ddrNs,
                ddrNs * 1e-12); // L1 at half is still far faster than DDR

    // A convolution (float32: on the VME) slows with the "conv" efficiency, not with "matmul".
    const Graph g = convChain();
    KernelPlacement ddr;
    ddr.ioLevel = "DDR";
    const double conv = DeviceCostModel(base).estimateKernel(g, {0}, ddr).cost.timeNs;
    EXPECT_GT(DeviceCostModel(with({}, {{"conv", 0.001}})).estimateKernel(g, {0}, ddr).cost.timeNs, 100 * conv);
    EXPECT_DOUBLE_EQ(DeviceCostModel(with({}, {{"matmul", 0.001}})).estimateKernel(g, {0}, ddr).cost.timeNs, conv);
}

// Every preset loads with a calibration that names its source.
TEST(DeviceCostModel, EveryPresetStatesItsCalibration)
{
    const DeviceRegistry registry = DeviceRegistry::standard();
    ASSERT_GE(registry.devices().size(), 9u);
    for (const Device &d : registry.devices()) {
        EXPECT_FALSE(d.calibration.source.empty()) << d.id;
        EXPECT_GT(d.calibration.computeEfficiency, 0) << d.id;
        EXPECT_LE(d.calibration.computeEfficiency, 1) << d.id;
    }
}

// Measured beats modelled: the measured kernel's time replaces the estimate,
// the plan says which numbers are measured, the rest stay estimates.
TEST(DeviceCostModel, MeasuredKernelsReplaceEstimates)
{
    const Graph g = convChain();
    auto sequential = createSequentialScheduler();
    auto modelled = scheduleGraph(g, v100(), *sequential, {});
    ASSERT_TRUE(modelled.isOk());

    test::OneNodeMeter meter;
    meter.node = "c1";
    meter.ns = 1e6; // 1 ms: far slower than the model's estimate
    ScheduleSetup setup;
    setup.meter = &meter;
    auto measured = scheduleGraph(g, v100(), *sequential, setup);
    ASSERT_TRUE(measured.isOk()) << measured.status().str();
    EXPECT_GE(meter.calls, 4);
    int measuredTasks = 0;
    for (const Task &t : measured->result.plan.tasks) {
        const std::string &name = g.node(measured->result.plan.kernels[t.kernel].nodes[0]).name;
        if (name == "c1") {
            EXPECT_EQ(t.cost.kind, CostKind::Measured);
            EXPECT_NEAR(t.cost.computeNs + t.cost.memoryNs, 1e6, 1);
            ++measuredTasks;
        } else {
            EXPECT_EQ(t.cost.kind, CostKind::Estimated) << name;
        }
    }
    EXPECT_EQ(measuredTasks, 1);
    EXPECT_EQ(measured->result.plan.totalCost().kind, CostKind::Estimated); // mixed: an estimate
    EXPECT_GT(measured->result.plan.estimatedLatencyNs(), modelled->result.plan.estimatedLatencyNs() + 0.9e6);
}

// A shaped launch's atomics (brickdl-icpp24 §3.2.2, §4.3.1): overheads.atomic of latency
// each on a block's path; resident blocks wait together, so a block's share adds once per wave.
TEST(DeviceCostModel, ShapedLaunchAtomicsAddOncePerWave)
{
    auto a100 = DeviceRegistry::standard().lookup("nvidia-a100");
    ASSERT_TRUE(a100.isOk()) << a100.status().str();
    const DeviceCostModel model(*a100);
    ShapedLaunch s;
    s.opClass = OpClass::Gemm;
    s.flops = 1e9;
    s.blocks = 108 * 8 * 3; // three full waves of 256-thread blocks
    s.bytesByLevel[""] = 1e6;
    const KernelEstimate plain = model.estimateShapedKernel({s});
    s.atomics = 10.0 * static_cast<double>(s.blocks); // ten per block
    const KernelEstimate atomics = model.estimateShapedKernel({s});
    ASSERT_EQ(atomics.launches.size(), 1u);
    ASSERT_EQ(atomics.launches[0].residentBlocks, 8);
    const double want = 3 * 10 * a100->overheads.atomicNs;
    EXPECT_NEAR(atomics.cost.timeNs - plain.cost.timeNs, want, 1e-6 * want);
    EXPECT_NEAR(atomics.cost.syncNs, want, 1e-6 * want);
    // Negative twin: without atomics no sync time.
    EXPECT_EQ(plain.cost.syncNs, 0);
    EXPECT_NEAR(atomics.cost.launchNs + atomics.cost.computeNs + atomics.cost.memoryNs + atomics.cost.contentionNs +
                    atomics.cost.syncNs,
                atomics.cost.timeNs, 1e-6 * atomics.cost.timeNs);
}

// A shaped launch's device-side calls (brickdl-icpp24 §3.3.4: a library call per
// brick from device code): overheads.deviceLaunch each, serialised device-wide,
// their total added to the launch and shown as launchNs; the parts still add up.
TEST(DeviceCostModel, ShapedLaunchDeviceCallsSerialise)
{
    auto a100 = DeviceRegistry::standard().lookup("nvidia-a100");
    ASSERT_TRUE(a100.isOk()) << a100.status().str();
    ASSERT_GT(a100->overheads.deviceLaunchNs, 0);
    const DeviceCostModel model(*a100);
    ShapedLaunch s;
    s.opClass = OpClass::Gemm;
    s.flops = 1e9;
    s.blocks = 108 * 8 * 3;
    s.bytesByLevel[""] = 1e6;
    const KernelEstimate plain = model.estimateShapedKernel({s});
    s.deviceCalls = 5000;
    const KernelEstimate calls = model.estimateShapedKernel({s});
    const double want = 5000 * a100->overheads.deviceLaunchNs;
    EXPECT_NEAR(calls.cost.timeNs - plain.cost.timeNs, want, 1e-6 * want);
    EXPECT_NEAR(calls.cost.launchNs - plain.cost.launchNs, want, 1e-6 * want);
    EXPECT_NEAR(calls.cost.computeNs + calls.cost.memoryNs, plain.cost.computeNs + plain.cost.memoryNs, 1e-6);
    EXPECT_NEAR(calls.cost.launchNs + calls.cost.computeNs + calls.cost.memoryNs + calls.cost.contentionNs +
                    calls.cost.syncNs,
                calls.cost.timeNs, 1e-6 * calls.cost.timeNs);
}

// Negative twin: a device without a per-call cost (overheads.deviceLaunch = 0, the
// default) charges nothing for the same calls.
TEST(DeviceCostModel, ShapedLaunchDeviceCallsFreeWithoutTheOverhead)
{
    auto a100 = DeviceRegistry::standard().lookup("nvidia-a100");
    ASSERT_TRUE(a100.isOk()) << a100.status().str();
    Device d = *a100;
    d.overheads.deviceLaunchNs = 0;
    const DeviceCostModel model(d);
    ShapedLaunch s;
    s.opClass = OpClass::Gemm;
    s.flops = 1e9;
    s.blocks = 108 * 8 * 3;
    s.bytesByLevel[""] = 1e6;
    const double plain = model.estimateShapedKernel({s}).cost.timeNs;
    s.deviceCalls = 5000;
    EXPECT_EQ(model.estimateShapedKernel({s}).cost.timeNs, plain);
}
