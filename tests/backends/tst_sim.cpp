// The simulator backend's timing model (backends/sim/simulator.h) on small
// plans whose times are worked out by hand below, each with a twin that
// changes one thing and must give a different, also hand-computed, result;
// plus the one-line refusals of bad plans (bindings, devices, models,
// capacity, deadlock).
//
// The toy device: 1 cluster × 2 cores; per core one "VEC" (vector, f32
// 1 FLOP/ns) and one "MAT" (matrix, gemm only, f32 10 FLOP/ns, f16 20
// FLOP/ns); per-core L1
// of 4096 B at 1 B/ns each (2 GB/s over both), a shared DDR of 1 MiB at
// 1 B/ns with 64-byte transactions. Calibration 1.0, every overhead 0 unless
// a test sets one, latencies 0, static power 1 W, 2 pJ/B at DDR, 1 pJ/B at
// L1, 1 pJ per FLOP on both units.
#include "backends/sim/sim.h"
#include "core/backend/backend.h"
#include "core/hw/device.h"
#include "core/ir/graphhash.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "tests/common/testgraphs.h"

namespace tessera {
namespace {

Device toyDevice()
{
    Device d;
    d.id = "toy";
    d.name = "toy DSA";
    d.kind = DeviceKind::Dsa;
    d.clockHz = 1e9;
    d.topology = {1, 2, 2};
    d.levels.push_back({"L1", MemoryScope::PerCore, 4096, 2e9, 1, 1, 0, 1.0});
    d.levels.push_back({"DDR", MemoryScope::Shared, 1 << 20, 1e9, 64, 64, 0, 2.0});
    ComputeUnit vec;
    vec.kind = UnitKind::Vector;
    vec.name = "VEC";
    vec.peakOpsPerSec[DType::Float32] = 2e9;
    vec.opClasses = {OpClass::Elementwise, OpClass::Reduction, OpClass::Movement, OpClass::Other};
    vec.energyPerOpPj[DType::Float32] = 1.0;
    ComputeUnit mat;
    mat.kind = UnitKind::Matrix;
    mat.name = "MAT";
    mat.peakOpsPerSec[DType::Float32] = 2e10;
    mat.peakOpsPerSec[DType::Float16] = 4e10;
    mat.opClasses = {OpClass::Gemm};
    mat.energyPerOpPj[DType::Float32] = 1.0;
    d.units = {vec, mat};
    d.power.staticWatts = 1.0;
    d.calibration.source = "the test's hand-picked numbers";
    return d;
}

// A[10,10] x W[10,10] -> Relu: MatMul 2·10·10·10 = 2000 FLOPs on MAT, Relu
// 100 FLOPs (one per element) on VEC.
Graph matmulGraph()
{
    Graph g;
    g.name = "mm";
    TensorId a = testgraphs::tensor(g, "a", {10, 10}, Tensor::Kind::Input);
    TensorId w = testgraphs::weight(g, "w", {10, 10});
    TensorId y = testgraphs::op(g, "mm", "MatMul", {a, w}, {10, 10});
    TensorId z = testgraphs::op(g, "relu", "Relu", {y}, {10, 10});
    g.outputs = {z};
    return g;
}

class SimTiming : public ::testing::Test
{
protected:
    ExecutionPlan emptyPlan() const
    {
        ExecutionPlan p;
        p.algorithm = "hand";
        p.device = device.id;
        p.modelHash = modelStructureHash(graph);
        return p;
    }
    BufferId buffer(ExecutionPlan &p, const std::string &level, std::int64_t bytes, int scope = -1)
    {
        Buffer b;
        b.level = level;
        b.bytes = bytes;
        b.scopeIndex = scope;
        return p.addBuffer(b);
    }
    // A DDR -> L1 copy of `bytes` onto `core`.
    TaskId copy(ExecutionPlan &p, std::int64_t bytes, int core, std::vector<TaskId> deps = {},
                const std::string &label = {})
    {
        Task t;
        t.kind = TaskKind::Copy;
        t.reads = {buffer(p, "DDR", bytes)};
        t.writes = {buffer(p, "L1", bytes, core)};
        t.binding.core = core;
        t.binding.cluster = 0;
        t.deps = std::move(deps);
        t.label = label;
        return p.addTask(t);
    }
    TaskId matmul(ExecutionPlan &p, Binding binding, std::vector<TaskId> deps = {})
    {
        const KernelId k = p.addKernel("k0:mm+relu", {0, 1});
        Task t;
        t.kind = TaskKind::Compute;
        t.kernel = k;
        t.binding = binding;
        t.deps = std::move(deps);
        t.label = "mm+relu";
        return p.addTask(t);
    }
    Expected<RunResult> run(const ExecutionPlan &p, std::map<std::string, std::string> options = {})
    {
        auto backend = createSimBackend(nullptr);
        CompileContext ctx{&device, std::move(options)};
        auto c = backend->compileFor(graph, p, ctx);
        if (!c)
            return c.status();
        return backend->run(**c, {HostTensor{.name = "a"}});
    }
    static double endOf(const RunResult &r, TaskId t) { return r.timeline.at(static_cast<std::size_t>(t)).endNs; }
    static double startOf(const RunResult &r, TaskId t) { return r.timeline.at(static_cast<std::size_t>(t)).startNs; }

    Device device = toyDevice();
    Graph graph = matmulGraph();
};

// One DMA: 1000 B from DDR to core 0's L1 after a 100 ns DMA setup.
// DDR side: 1000 B rounds up to 16 transactions of 64 B = 1024 B at 1 B/ns
// = 1024 ns; L1 side: 1000 B at 1 B/ns (one instance) = 1000 ns, in parallel.
// End = 100 + max(1024, 1000) = 1124 ns.
// Energy: 1 W × 1124 ns = 1124e-9 J static + (1024 B × 2 pJ + 1000 B × 1 pJ)
// = 3048 pJ = 3.048e-9 J.
TEST_F(SimTiming, OneDma)
{
    device.overheads.dmaSetupNs = 100;
    ExecutionPlan p = emptyPlan();
    copy(p, 1000, 0);
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(r->metrics.at("sim_time_ms"), 1124e-6, 1e-12);
    EXPECT_NEAR(endOf(*r, 0), 1124, 1e-6);
    EXPECT_EQ(r->metrics.at("bytes_by_level/DDR"), 1024);
    EXPECT_EQ(r->metrics.at("bytes_by_level/L1"), 1000);
    EXPECT_NEAR(r->metrics.at("energy_j"), 1124e-9 + 3048e-12, 1e-15);
    EXPECT_EQ(r->metrics.at("peak_occupancy_by_level/L1"), 1000);
    EXPECT_EQ(r->laneNames.at(static_cast<std::size_t>(r->timeline[0].lane)), "DMA to L1");
    EXPECT_TRUE(r->outputs.empty()); // timing only
}

// Per-level memory efficiency (calibration.memoryEfficiencyByLevel): the
// same 1000 B copy with DDR at 0.5 — DDR side 1024 B at 0.5 B/ns = 2048 ns,
// L1 side 1000 ns: 100 + 2048 = 2148 ns. Twin: L1 at 0.5 instead — L1 side
// 1000 B at 0.5 B/ns = 2000 ns, DDR 1024 ns: 100 + 2000 = 2100 ns.
TEST_F(SimTiming, PerLevelMemoryEfficiency)
{
    device.overheads.dmaSetupNs = 100;
    ExecutionPlan p = emptyPlan();
    copy(p, 1000, 0);
    device.calibration.memoryEfficiencyByLevel = {{"DDR", 0.5}};
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, 0), 2148, 1e-6);
    device.calibration.memoryEfficiencyByLevel = {{"L1", 0.5}};
    r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, 0), 2100, 1e-6);
}

// Per-class compute efficiency (calibration.computeEfficiencyByClass): the
// MatMul+Relu kernel on core 0 with "matmul" at 0.5 — MAT 2000 FLOPs at
// 5 FLOP/ns = 400 ns, VEC 100 ns: 400 ns. Twins: "elementwise" at 0.5 — MAT
// 200 ns, VEC 100 FLOPs at 0.5 FLOP/ns = 200 ns: 200 ns; "conv" at 0.5 (no
// convolution here) — 200 ns; "gemm" at 0.25 (the fallback of "matmul") —
// 2000 / 2.5 = 800 ns.
TEST_F(SimTiming, PerClassComputeEfficiency)
{
    ExecutionPlan p = emptyPlan();
    const TaskId mm = matmul(p, {.cluster = 0, .core = 0});
    const std::pair<std::map<std::string, double, std::less<>>, double> cases[] = {
        {{{"matmul", 0.5}}, 400}, {{{"elementwise", 0.5}}, 200}, {{{"conv", 0.5}}, 200}, {{{"gemm", 0.25}}, 800}};
    for (const auto &[byClass, endNs] : cases) {
        device.calibration.computeEfficiencyByClass = byClass;
        auto r = run(p);
        ASSERT_TRUE(r.isOk()) << r.status().str();
        EXPECT_NEAR(endOf(*r, mm), endNs, 1e-6) << byClass.begin()->first;
    }
}

// Twin: 1024 B is a whole number of DDR transactions, so both sides take
// 1024 ns: 100 + 1024 = 1124 ns too — but 1025 B takes 17 transactions,
// 1088 ns: 100 + 1088 = 1188 ns.
TEST_F(SimTiming, OneDmaOneByteMoreIsOneTransactionMore)
{
    device.overheads.dmaSetupNs = 100;
    ExecutionPlan p = emptyPlan();
    copy(p, 1025, 0);
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, 0), 1188, 1e-6);
    EXPECT_EQ(r->metrics.at("bytes_by_level/DDR"), 1088);
}

// Two overlapping DMAs: a (1024 B to core 0) and b (3072 B to core 1) start
// together; each has its own L1 but they share DDR's 1 B/ns equally.
//   0 .. 2048 ns: both at 0.5 B/ns on DDR; a's 1024 B are done at 2048.
//   b has moved 1024 B, 2048 B left at the full 1 B/ns: ends at 4096 ns.
// (b's L1 side, 3072 ns alone, is never the bottleneck.)
TEST_F(SimTiming, TwoOverlappingDmasShareBandwidth)
{
    ExecutionPlan p = emptyPlan();
    const TaskId a = copy(p, 1024, 0, {}, "a");
    const TaskId b = copy(p, 3072, 1, {}, "b");
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(startOf(*r, a), 0, 1e-9);
    EXPECT_NEAR(startOf(*r, b), 0, 1e-9);
    EXPECT_NEAR(endOf(*r, a), 2048, 1e-6);
    EXPECT_NEAR(endOf(*r, b), 4096, 1e-6);
    // Two transfers at once to L1 get two channels of the DMA engine.
    EXPECT_NE(r->timeline[0].lane, r->timeline[1].lane);
}

// Twin: b waits for a, so nothing is shared: a ends at 1024 ns, b runs
// 3072 ns alone and ends at 4096 ns. Same end (DDR is busy either way), but a
// finishes twice as early.
TEST_F(SimTiming, SequentialDmasDoNotShare)
{
    ExecutionPlan p = emptyPlan();
    const TaskId a = copy(p, 1024, 0, {}, "a");
    const TaskId b = copy(p, 3072, 1, {a}, "b");
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, a), 1024, 1e-6);
    EXPECT_NEAR(startOf(*r, b), 1024, 1e-6);
    EXPECT_NEAR(endOf(*r, b), 4096, 1e-6);
}

// Compute/DMA overlap: the MatMul+Relu kernel on core 0 (MAT: 2000 FLOPs at
// 10 FLOP/ns = 200 ns; VEC: 100 FLOPs at 1 FLOP/ns = 100 ns, pipelined with
// MAT, so the task takes 200 ns) and an independent 1024 B copy to core 1
// (1024 ns) run at once: the plan ends at max(200, 1024) = 1024 ns.
// Utilisation of MAT: 200 ns busy on 1 of 2 instances over 1024 ns =
// 200 / (2 × 1024) = 0.09765625.
TEST_F(SimTiming, ComputeOverlapsDma)
{
    ExecutionPlan p = emptyPlan();
    const TaskId mm = matmul(p, {.cluster = 0, .core = 0});
    const TaskId c = copy(p, 1024, 1);
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, mm), 200, 1e-6);
    EXPECT_NEAR(endOf(*r, c), 1024, 1e-6);
    EXPECT_NEAR(r->metrics.at("sim_time_ms"), 1024e-6, 1e-12);
    EXPECT_NEAR(r->metrics.at("utilisation_by_unit/MAT"), 200.0 / 2048.0, 1e-12);
    EXPECT_NEAR(r->metrics.at("utilisation_by_unit/VEC"), 100.0 / 2048.0, 1e-12);
    EXPECT_EQ(r->metrics.at("flops"), 2100);
    EXPECT_EQ(r->laneNames.at(static_cast<std::size_t>(r->timeline[0].lane)), "MAT core 0");
}

// The streamed timelines (RunObserver::timelinesRecorded): 40 copies in a
// chain, so reports come every task. Appending every increment gives the
// finished run's timeline, lane names and counters exactly (points are final
// when sent), and each increment comes just before a metrics report.
TEST_F(SimTiming, StreamedIncrementsAddUpToTheFinishedRun)
{
    ExecutionPlan p = emptyPlan();
    TaskId last = copy(p, 64, 0);
    for (int i = 1; i < 40; ++i)
        last = copy(p, 64, i % 2, {last});
    auto backend = createSimBackend(nullptr);
    CompileContext ctx{&device, {}};
    auto c = backend->compileFor(graph, p, ctx);
    ASSERT_TRUE(c.isOk()) << c.status().str();
    RunResult streamed;
    int increments = 0, metricReports = 0;
    bool incrementBeforeEachReport = true;
    RunObserver observer;
    observer.timelinesRecorded = [&](const RunIncrement &inc) {
        ++increments;
        for (const TaskTiming &t : inc.timeline)
            EXPECT_GT(t.endNs, t.startNs) << "only finished tasks";
        appendIncrement(streamed, inc);
    };
    observer.metricsUpdated = [&](const std::map<std::string, double> &) {
        ++metricReports;
        incrementBeforeEachReport = incrementBeforeEachReport && increments == metricReports;
    };
    auto r = backend->run(**c, {HostTensor{.name = "a"}}, observer);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_GE(increments, 40);
    EXPECT_TRUE(incrementBeforeEachReport);
    EXPECT_EQ(streamed.laneNames, r->laneNames);
    ASSERT_EQ(streamed.timeline.size(), r->timeline.size());
    const auto byTask = [](const TaskTiming &a, const TaskTiming &b) { return a.task < b.task; };
    std::sort(streamed.timeline.begin(), streamed.timeline.end(), byTask);
    for (std::size_t i = 0; i < r->timeline.size(); ++i) {
        EXPECT_EQ(streamed.timeline[i].task, r->timeline[i].task);
        EXPECT_EQ(streamed.timeline[i].endNs, r->timeline[i].endNs);
        EXPECT_EQ(streamed.timeline[i].lane, r->timeline[i].lane);
    }
    ASSERT_EQ(streamed.counters.size(), r->counters.size());
    for (std::size_t k = 0; k < r->counters.size(); ++k) {
        EXPECT_EQ(streamed.counters[k].name, r->counters[k].name);
        EXPECT_EQ(streamed.counters[k].points, r->counters[k].points) << r->counters[k].name;
    }
    // Twin: without the callback a run streams only metrics, with the same result.
    RunObserver metricsOnly;
    int reports = 0;
    metricsOnly.metricsUpdated = [&](const std::map<std::string, double> &) { ++reports; };
    auto again = backend->run(**c, {HostTensor{.name = "a"}}, metricsOnly);
    ASSERT_TRUE(again.isOk());
    EXPECT_EQ(reports, metricReports);
    EXPECT_EQ(again->counters.size(), r->counters.size());
    EXPECT_EQ(again->metrics.at("sim_time_ms"), r->metrics.at("sim_time_ms"));
}

// Twin: the copy depends on the kernel: 200 + 1024 = 1224 ns.
TEST_F(SimTiming, DependentDmaDoesNotOverlap)
{
    ExecutionPlan p = emptyPlan();
    const TaskId mm = matmul(p, {.cluster = 0, .core = 0});
    const TaskId c = copy(p, 1024, 1, {mm});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(startOf(*r, c), 200, 1e-6);
    EXPECT_NEAR(r->metrics.at("sim_time_ms"), 1224e-6, 1e-12);
}

// The default placement of an unbound task is every core: MAT's 2000 FLOPs
// over 2 cores at 10 FLOP/ns each = 100 ns (VEC: 100 FLOPs / 2 = 50 ns).
// The kernel launch (1 us) is the host's issue slot: first task issued at 0,
// the second at 1000 ns, so the second ends at 1000 + 100 = 1100 ns.
TEST_F(SimTiming, UnboundTasksSpreadOverEveryCoreAndLaunchesSerialise)
{
    device.overheads.kernelLaunchNs = 1000;
    ExecutionPlan p = emptyPlan();
    const TaskId a = matmul(p, {});
    const TaskId b = matmul(p, {});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, a), 100, 1e-6);
    EXPECT_NEAR(startOf(*r, b), 1000, 1e-6);
    EXPECT_NEAR(endOf(*r, b), 1100, 1e-6);
    // The Gantt lane names the placement: both cores.
    EXPECT_EQ(r->laneNames.at(static_cast<std::size_t>(r->timeline[0].lane)), "MAT cores 0-1");
}

// Twin: bound to one core the same kernel takes 200 ns; two kernels on
// different cores, issued at 0 and 1000 ns, end at 200 and 1200 ns.
TEST_F(SimTiming, BoundTasksUseTheirCoresOnly)
{
    device.overheads.kernelLaunchNs = 1000;
    ExecutionPlan p = emptyPlan();
    const TaskId a = matmul(p, {.cluster = 0, .core = 0});
    const TaskId b = matmul(p, {.cluster = 0, .core = 1});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, a), 200, 1e-6);
    EXPECT_NEAR(endOf(*r, b), 1200, 1e-6);
}

// Instances of one kernel on one in-order queue are a loop inside one launch
// (GraphTurbo's instances of a sub-graph): two tasks of kernel k0 on core 0
// pay the 1 us launch once: the first runs 0-200 ns, the second is issued
// at 0 with it, waits for it in the queue and runs 200-400 ns.
TEST_F(SimTiming, InstancesOfOneKernelOnAQueueShareItsLaunch)
{
    device.overheads.kernelLaunchNs = 1000;
    ExecutionPlan p = emptyPlan();
    const TaskId a = matmul(p, {.cluster = 0, .core = 0});
    Task second = p.tasks[static_cast<std::size_t>(a)];
    second.deps = {};
    const TaskId b = p.addTask(second); // the same kernel
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, a), 200, 1e-6);
    EXPECT_NEAR(startOf(*r, b), 200, 1e-6);
    EXPECT_NEAR(endOf(*r, b), 400, 1e-6);
    // Twin: a second kernel on the same queue is a new launch, issued at 1000 ns.
    ExecutionPlan q = emptyPlan();
    const TaskId c = matmul(q, {.cluster = 0, .core = 0});
    const TaskId d = matmul(q, {.cluster = 0, .core = 0});
    auto r2 = run(q);
    ASSERT_TRUE(r2.isOk()) << r2.status().str();
    EXPECT_NEAR(endOf(*r2, c), 200, 1e-6);
    EXPECT_NEAR(startOf(*r2, d), 1000, 1e-6);
    EXPECT_NEAR(endOf(*r2, d), 1200, 1e-6);
}

// Two kernels on one core share its MAT: started together (no launch cost,
// different streams so neither queues behind the other), each runs at half
// rate: both end at 400 ns instead of 200.
TEST_F(SimTiming, KernelsOnOneCoreShareItsUnits)
{
    ExecutionPlan p = emptyPlan();
    matmul(p, {.cluster = 0, .core = 0, .stream = 0});
    matmul(p, {.cluster = 0, .core = 0, .stream = 1});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, 0), 400, 1e-6);
    EXPECT_NEAR(endOf(*r, 1), 400, 1e-6);
}

// Twin: on one stream they queue: 200 and 400 ns.
TEST_F(SimTiming, KernelsOnOneStreamQueue)
{
    ExecutionPlan p = emptyPlan();
    matmul(p, {.cluster = 0, .core = 0, .stream = 0});
    matmul(p, {.cluster = 0, .core = 0, .stream = 0});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, 0), 200, 1e-6);
    EXPECT_NEAR(startOf(*r, 1), 200, 1e-6);
    EXPECT_NEAR(endOf(*r, 1), 400, 1e-6);
}

// A barrier costs overheads.sync (300 ns) after the tasks it waits for.
TEST_F(SimTiming, BarrierCostsSync)
{
    device.overheads.syncNs = 300;
    ExecutionPlan p = emptyPlan();
    const TaskId a = copy(p, 1024, 0);
    Task bar;
    bar.kind = TaskKind::Barrier;
    bar.deps = {a};
    const TaskId b = p.addTask(bar);
    const TaskId c = copy(p, 1024, 0, {b});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, b), 1324, 1e-6);
    EXPECT_NEAR(endOf(*r, c), 2348, 1e-6);
}

// Capacity: core 0's L1 holds 4096 B. Copy a puts 3000 B there (ends at
// 3008 ns: 3000 B round up to 47 × 64 = 3008 B of DDR); copy b, after a,
// puts 2000 B more while a's buffer is still live (c reads it later):
// 5000 > 4096 at 3008 ns.
TEST_F(SimTiming, CapacityOverflowNamesTaskBufferLevelAndTime)
{
    ExecutionPlan p = emptyPlan();
    const TaskId a = copy(p, 3000, 0, {}, "a");
    const TaskId b = copy(p, 2000, 0, {a}, "b");
    Task c;
    c.kind = TaskKind::Copy;
    c.reads = {p.tasks[static_cast<std::size_t>(a)].writes[0]};
    c.writes = {buffer(p, "DDR", 3000)};
    c.deps = {b};
    c.label = "c";
    p.addTask(c);
    auto r = run(p);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().message(), "task 'b' at 3.008 us: buffer 3 (2000 bytes) overflows L1 instance 0 "
                                    "(capacity 4096 bytes, 3000 in use)");
}

// Twin: b's buffer on core 1's L1 fits; the peak over both instances is
// 3000 + 2000 = 5000 B, the fullest instance 3000 / 4096.
TEST_F(SimTiming, BuffersOnAnotherCoreFit)
{
    ExecutionPlan p = emptyPlan();
    const TaskId a = copy(p, 3000, 0, {}, "a");
    const TaskId b = copy(p, 2000, 1, {a}, "b");
    Task c;
    c.kind = TaskKind::Copy;
    c.reads = {p.tasks[static_cast<std::size_t>(a)].writes[0]};
    c.writes = {buffer(p, "DDR", 3000)};
    c.deps = {b};
    p.addTask(c);
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(r->metrics.at("peak_occupancy_by_level/L1"), 5000);
    EXPECT_NEAR(r->metrics.at("peak_occupancy_fraction/L1"), 3000.0 / 4096.0, 1e-12);
    bool sawPeak = false;
    for (const CounterSeries &s : r->counters)
        if (s.name == "occupancy/L1")
            for (const auto &[t, v] : s.points)
                sawPeak = sawPeak || v == 5000;
    EXPECT_TRUE(sawPeak);
}

// Deadlock: a waits for b (a dependency on a later task) while b queues
// behind a on core 0: a cycle of waits, reported at 0 ns — never a hang.
TEST_F(SimTiming, DeadlockIsReportedNotHung)
{
    ExecutionPlan p = emptyPlan();
    copy(p, 64, 0, {1}, "a");
    copy(p, 64, 0, {}, "b");
    auto r = run(p);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().message(), "deadlock at 0.0 ns: 'a' depends on 'b' queues behind 'a'");
}

// Twin: the same two copies on different cores have no queue between them:
// b runs (64 ns), then a (64 ns).
TEST_F(SimTiming, ForwardDependencyWithoutQueueRuns)
{
    ExecutionPlan p = emptyPlan();
    copy(p, 64, 0, {1}, "a");
    copy(p, 64, 1, {}, "b");
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, 1), 64, 1e-6);
    EXPECT_NEAR(endOf(*r, 0), 128, 1e-6);
}

// A cycle of dependencies alone.
TEST_F(SimTiming, DependencyCycleIsADeadlock)
{
    ExecutionPlan p = emptyPlan();
    copy(p, 64, 0, {1}, "a");
    copy(p, 64, 1, {0}, "b");
    auto r = run(p);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().message(), "deadlock at 0.0 ns: 'a' depends on 'b' depends on 'a'");
}

TEST_F(SimTiming, BadBindingsAndForeignPlansAreRefused)
{
    {
        ExecutionPlan p = emptyPlan();
        matmul(p, {.cluster = 0, .core = 1, .coreCount = 2});
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), "bound to cores [1, 3) but toy has 2 per cluster");
        EXPECT_EQ(r.status().location().node, "mm+relu");
    }
    {
        ExecutionPlan p = emptyPlan();
        matmul(p, {.cluster = 1});
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), "bound to cluster 1 but toy has 1");
    }
    {
        ExecutionPlan p = emptyPlan();
        matmul(p, {.unit = 2});
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), "bound to compute unit 2 but toy has 2");
    }
    {
        ExecutionPlan p = emptyPlan();
        p.device = "stcp920";
        matmul(p, {});
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), "the plan was made for device 'stcp920', not for 'toy'");
    }
    {
        ExecutionPlan p = emptyPlan();
        p.modelHash = "0123456789abcdef";
        matmul(p, {});
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message().rfind("the plan was made for another model (hash 0123456789abcdef", 0), 0u);
    }
    {
        ExecutionPlan p = emptyPlan();
        Task t;
        t.kind = TaskKind::Copy;
        t.reads = {7};
        p.addTask(t);
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), "uses buffer 7 which does not exist");
    }
    {
        ExecutionPlan p = emptyPlan();
        buffer(p, "SMEM", 64);
        auto r = run(p);
        ASSERT_FALSE(r.isOk());
        EXPECT_EQ(r.status().message(), "buffer 0 is placed in level 'SMEM' which toy does not have");
    }
}

// Twin of the refusals: the same kernel bound within the device runs.
TEST_F(SimTiming, BindingsWithinTheDeviceRun)
{
    ExecutionPlan p = emptyPlan();
    matmul(p, {.cluster = 0, .core = 0, .coreCount = 2, .unit = 1});
    auto r = run(p);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    // Bound to MAT, the Relu runs there too: 2100 FLOPs over 2 cores × 10 = 105 ns.
    EXPECT_NEAR(endOf(*r, 0), 105, 1e-6);
}

TEST_F(SimTiming, OptionsAndFunctionalModeWithoutAReferenceBackend)
{
    ExecutionPlan p = emptyPlan();
    matmul(p, {});
    auto r = run(p, {{"batch", "8"}});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    // 8 items in 100 ns (MAT 100 ns over two cores, VEC 50 ns alongside).
    EXPECT_NEAR(r->metrics.at("throughput"), 8 / 100e-9, 1);
    auto bad = run(p, {{"batch", "0"}});
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.status().code(), ErrorCode::Usage);
    auto functional = run(p, {{"functional", "1"}});
    ASSERT_FALSE(functional.isOk());
    EXPECT_EQ(functional.status().code(), ErrorCode::Unavailable);
    auto unknown = run(p, {{"speed", "fast"}});
    ASSERT_FALSE(unknown.isOk());
    EXPECT_EQ(unknown.status().message(), "unknown sim option 'speed'; known: batch, dtype, functional");
}

// dtype=f16: the MatMul runs at MAT's f16 rate, 2000 FLOPs over 2 cores × 20
// FLOP/ns = 50 ns; the Relu, with no f16 rate on VEC, at its f32 rate:
// 100 / 2 = 50 ns; a 1024-byte f32 copy moves 512 bytes: 512 ns.
// (The f32 twins: 100 ns in OptionsAndFunctionalMode..., 1024 ns in OneDma.)
TEST_F(SimTiming, DtypeOptionUsesItsPeaksAndBytes)
{
    ExecutionPlan p = emptyPlan();
    const TaskId mm = matmul(p, {});
    const TaskId c = copy(p, 1024, 1, {mm});
    auto r = run(p, {{"dtype", "f16"}});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(endOf(*r, mm), 50, 1e-6);
    EXPECT_NEAR(endOf(*r, c), 50 + 512, 1e-6);
    EXPECT_EQ(r->metrics.at("bytes_by_level/DDR"), 512);
    auto bad = run(p, {{"dtype", "i64"}});
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.status().message(), "sim option dtype expects a precision (fp32, fp16, bf16, int8), got 'i64'");
}

TEST(SimRegistry, RegisteredAsSimAndDsa)
{
    BackendRegistry registry;
    registerSimBackend(registry);
    ASSERT_NE(registry.find("sim"), nullptr);
    EXPECT_EQ(registry.find("dsa"), registry.find("sim"));
    EXPECT_EQ(registry.names(), std::vector<std::string>{"sim"});
    EXPECT_TRUE(registry.find("sim")->info().capabilities.timing);
    // Without a reference backend registered first, no functional mode.
    EXPECT_FALSE(registry.find("sim")->info().capabilities.functional);
    EXPECT_EQ(registry.find("simulator"), nullptr);
}

} // namespace
} // namespace tessera
