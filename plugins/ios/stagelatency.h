// Stage latency for the IOS search (ios thesis §3.2, GenerateStage L23–33:
// "latency of parallel execution of {S'_i}" and "latency of merged operator").
// The artifact measures every stage on the GPU; Tessera asks a pluggable
// StageLatencyModel:
//
//  (a) AnalyticGpuLatency — a closed-form GPU model on the device preset that
//      reproduces the utilisation effects of thesis §2.3. A unit runs as
//      kernels (a heavy op with its element-wise epilogue fused, as cuDNN's
//      conv+bias+activation; reshapes are free). Per kernel k:
//        thread blocks b: conv/matmul as implicit GEMM in 64×64 output tiles,
//          g·⌈N·Ho·Wo/64⌉·⌈(Cout/g)/64⌉, 256 threads, 126 registers, 16 KiB
//          shared (the cuDNN kernel of §2.3: 48 blocks for 375→750, 3×3, 15×15);
//          depthwise conv and pooling one output per thread, element-wise and
//          data movement four, 256 threads and 32 registers per block;
//        occupancy q_max: resident blocks per SM = min(maxBlocksPerSm,
//          maxThreadsPerSm/threads, registersPerSm/(regs·threads),
//          sharedMemPerSm/shared) — registers make the conv 2 blocks/SM;
//        block time with q blocks resident on an SM of w warps each:
//          t(q) = c · q / min(1, q·w/A), c = max(f/P_sm, m/B_sm)
//          (f, m = FLOPs and bytes per block — f of a whole 64×64 tile for
//          GEMM kernels, a partial tile costing as much (tile quantisation) —
//          P_sm, B_sm = per-SM peak and bandwidth, A = a quarter of the
//          SM's warp slots, 16 on Volta: four schedulers with four warps each
//          hide the latency of ILP-rich GEMM code): below A warps a block is
//          latency-bound (low occupancy), above it SMs share throughput;
//        alone time T = ⌊b/(M·q_max)⌋·t(q_max) + t(⌈rem/M⌉) — waves over M SMs,
//          a partial last wave costing a whole block time (tail effect; a
//          kernel with fewer blocks than SMs leaves SMs idle);
//        demand d = Z/T with Z = b·c: the average SMs' worth of throughput the
//          kernel uses alone (< M for small, tail-heavy or low-occupancy kernels).
//      A stage runs its groups concurrently (one stream each, kernels in order;
//      the host issues one kernel per launch overhead, round-robin over the
//      streams, and a kernel starts once issued): a fluid simulation where, while
//      the running kernels demand D = Σd ≤ M SMs, each runs at its alone
//      speed, and beyond that all slow down by M/D (groups share SMs in
//      proportion to their demand). A merged convolution is one kernel with the
//      padded FLOPs and weights of the merge (ΣCout kernels of the largest
//      size) reading its input once. Every stage ends with a device
//      synchronisation (overheads.syncNs). Devices without GPU parameters are
//      modelled as one resident block per core, always throughput-bound.
//      Calibration against the artifact's V100 measurements (results_readme.csv,
//      batch 1; measured by bench_ios): with A at half the warp slots the
//      model was 1.5–2.7× slower than measured for sequential schedules; at a
//      quarter it is 0.9–1.4×. Concurrency gains remain overestimated on
//      the separable-conv networks (RandWire, NasNet: the model's IOS-Parallel
//      is ~0.6× of measured, Inception V3 and SqueezeNet ~1.1×), so absolute
//      numbers are estimates; the ranking of schedules is what the search uses.
//  (b) MeasuredStageLatency — stage latencies from a StageRunner (a backend
//      that runs a stage: CUDA streams, one per group), cached per operator set
//      and strategy; a failed measurement falls back to another model.
#pragma once

#include "core/hw/device.h"
#include "plugins/ios/iosformat.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class StageLatencyModel
{
public:
    virtual ~StageLatencyModel() = default;
    virtual std::string name() const = 0;
    // Latency in ns of one stage, its synchronisation included. Concurrent:
    // `groups` are the streams, units in order. Merge: one group, the merged
    // convolutions (a single unit is a plain one-unit stage). +inf: cannot run.
    virtual double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const = 0;
};

// One GPU kernel as the analytic model sees it.
struct GpuKernel {
    double flops = 0;
    double bytes = 0;
    std::int64_t blocks = 1;
    double tileFlops = 0; // FLOPs of one whole output tile (GEMM kernels): a partial tile costs as much
    int threadsPerBlock = 256;
    int registersPerThread = 32;
    std::int64_t sharedBytesPerBlock = 0;
    // Derived by AnalyticGpuLatency::finish():
    int residentBlocks = 1; // q_max
    double aloneNs = 0;     // T
    double demandSms = 0;   // d = Z / T
};

class AnalyticGpuLatency final : public StageLatencyModel
{
public:
    AnalyticGpuLatency(const Graph &g, const IosUnitSet &units, const Device &device);

    std::string name() const override { return "analytic-gpu"; }
    double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const override;

    // The formulas above, for tests and views.
    GpuKernel finish(GpuKernel k) const; // fills residentBlocks, aloneNs, demandSms
    double
    streamsNs(const std::vector<std::vector<const GpuKernel *>> &streams) const; // fluid makespan, launches included
    const std::vector<GpuKernel> &unitKernels(std::int32_t unit) const
    {
        return m_kernels[static_cast<std::size_t>(unit)];
    }
    // The merged convolution of conv units (iosConvUnit), with their epilogues.
    GpuKernel mergedKernel(const std::vector<std::int32_t> &units) const;
    // A convolution kernel from its geometry (implicit GEMM or depthwise).
    GpuKernel convKernel(std::int64_t batch, std::int64_t inC, std::int64_t outC, std::int64_t groups, std::int64_t kh,
                         std::int64_t kw, std::int64_t outH, std::int64_t outW) const;
    int sms() const { return m_sms; }

private:
    double blockWorkNs(const GpuKernel &k) const; // c: one block at full SM throughput
    double blockNs(const GpuKernel &k, double resident) const;

    const Graph &m_graph;
    const IosUnitSet &m_units;
    int m_sms = 1;
    double m_peakPerSm = 1, m_bandwidthPerSm = 1; // FLOP/ns and B/ns per SM
    double m_saturatingWarps = 1;
    int m_warpSize = 32, m_maxBlocksPerSm = 1, m_maxThreadsPerSm = 1, m_registersPerSm = 0, m_maxRegsPerThread = 255;
    std::int64_t m_sharedPerSm = 0, m_maxSharedPerBlock = 0;
    bool m_gpu = false;
    double m_launchNs = 0, m_syncNs = 0;
    std::vector<std::vector<GpuKernel>> m_kernels;  // per unit
    std::vector<std::optional<IosConvInfo>> m_conv; // per unit
};

// A backend that can run one stage and time it (the artifact: 2 warm-ups,
// 6 repeats of 6 runs, CUDA events; each group on its own stream).
class StageRunner
{
public:
    virtual ~StageRunner() = default;
    virtual std::string deviceId() const = 0;
    virtual Expected<double> measureNs(IosStrategy strategy, const std::vector<std::vector<NodeId>> &groups) = 0;
};

class MeasuredStageLatency final : public StageLatencyModel
{
public:
    // `fallback` (may be null: +inf) answers when a measurement fails.
    MeasuredStageLatency(const Graph &g, const IosUnitSet &units, StageRunner &runner,
                         const StageLatencyModel *fallback = nullptr);

    std::string name() const override { return "measured:" + m_runner.deviceId(); }
    double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const override;

    // Key: "<strategy>:" + groups of node names; lets a caller persist and preload measurements.
    const std::map<std::string, double> &cache() const { return m_cache; }
    void preload(const std::map<std::string, double> &measured) { m_cache.insert(measured.begin(), measured.end()); }
    std::int64_t measurements() const { return m_measurements; }
    const Status &firstFailure() const { return m_failure; }

private:
    const Graph &m_graph;
    const IosUnitSet &m_units;
    StageRunner &m_runner;
    const StageLatencyModel *m_fallback;
    mutable std::map<std::string, double> m_cache;
    mutable std::int64_t m_measurements = 0;
    mutable Status m_failure;
};

} // namespace tessera
