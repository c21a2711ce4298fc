// DeviceCostModel: the one cost model of a device, used for every plan's
// estimate and by every scheduler's search (docs/cost-model.md has the long
// form, the calibration and where each number comes from).
//
// S1 Launches. A kernel's nodes (topological order) become launches: each op
//    that is not free starts one, unless it is element-wise and reads an op of
//    the kernel whose output nothing else reads (an epilogue, as cuDNN fuses
//    conv+bias+activation), or it is a convolution (groups = 1) reading the
//    same value with the same stride and output size as a convolution that
//    started a launch (a merged convolution, ios thesis §3.2 / Fig. 3.1: ΣCout
//    output channels with the largest kernel, the input read once). Reshapes,
//    slices and identities are free.
// S2 Work per launch. Convolutions and matmuls are implicit GEMMs in 64×64
//    output tiles, g·⌈N·Ho·Wo/64⌉·⌈(Cout/g)/64⌉ blocks of 256 threads, 126
//    registers and 16 KiB shared memory (the cuDNN kernel of ios thesis §2.3);
//    a partial tile costs a whole one. A grouped convolution is g such GEMMs,
//    depthwise ones included (cuDNN 7.6, the IOS artifact's library, runs them
//    as grouped implicit GEMMs: a group's one output channel fills a whole
//    64-wide tile — why separable networks gain so much from concurrent
//    stages). Pooling is one output per thread, element-wise and data
//    movement four; 256 threads and 32 registers per block. Bytes: tensors crossing the launch's boundary,
//    at the placement's I/O level (else: GPU and DSA the slowest level; the
//    host the fastest level whose capacity holds them — its caches).
// S3 One launch alone (ios thesis §2.3: occupancy, waves, tail). Blocks
//    resident per core q = min(maxBlocksPerSm, maxThreadsPerSm/threads,
//    registersPerSm/(regs·threads), sharedMemPerSm/shared) (1 without GPU
//    parameters). A block at a core's full throughput takes
//    c = max(f/P, m/B) with P = peak of the best unit for the op class and
//    dtype per core × calibration.computeEfficiency, B = I/O level bandwidth
//    per core × calibration.memoryEfficiency. With q blocks of w warps
//    resident, t(q) = c·q / min(1, q·w/A), A = calibration.latencyHidingOccupancy
//    × warp slots per SM (GPU; elsewhere t(q) = c·q). Alone time T = whole
//    waves ⌊b/(M·q)⌋·t(q) plus a partial wave t(⌈rem/M⌉) over M cores; demand
//    d = b·c/T cores.
// S4 A stage (streams between two barriers; a plan without barriers is one
//    stage). The host issues one launch per overheads.kernelLaunch,
//    round-robin over the streams; a launch starts once issued and its
//    stream's previous launch has ended. While running launches demand
//    D = Σd ≤ M cores each runs at its alone speed, beyond that all slow down
//    by M/D (streams share cores in proportion to their demand). Per kernel:
//    launchNs = waiting to be issued, computeNs / memoryNs = its alone time
//    by bound, contentionNs = the rest of its span.
// S5 Barriers (the IOS runtime's rule: it synchronises the device only around
//    a stage of several groups). After a stage on several streams the device
//    synchronises (overheads.sync) and the next stage's host issue starts
//    from zero, its first launch waiting overheads.kernelLaunch. A stage on
//    one stream needs no synchronisation after it — stream order keeps what
//    follows in order — and the host issued its launches while the previous
//    stage ran: its first launch does not wait (CostModel::barrierAfterNs).
//    Charged per stage, so a plan's estimate is the sum of its stages' (the
//    IOS search adds them); what that misses is the synchronisation before a
//    multi-stream stage that follows a one-stream stage (one sync, once per
//    run of multi-stream stages) and that such a stage's first launch waits.
// Shaped launches (costmodel.h ShapedLaunch: a scheduler's own geometry, e.g. a
//    Welder tile-graph kernel, a BrickDL merged sub-graph) skip S1/S2 and go
//    through S3/S4 with the level whose bytes take longest at its bandwidth as
//    the memory bound; a launch's atomics (overheads.atomic of latency each,
//    brickdl-icpp24 §4.3.1) add a block's share once per wave of resident
//    blocks, as syncNs in the parts; its device-side calls (overheads.deviceLaunch
//    each, §3.3.4's call per brick) serialise device-wide and add their total,
//    as launchNs in the parts.
// Energy: FLOPs × pJ/op of the unit + bytes × pJ/byte of the level + static
// power × time.
// Assumes: the reference dtype of a launch is its first output's; every unit
// of a kind is usable by every core carrying it; no overlap of data movement
// between stages.
#pragma once

#include "core/cost/costmodel.h"
#include "core/hw/device.h"

namespace tessera {

class DeviceCostModel final : public CostModel
{
public:
    explicit DeviceCostModel(const Device &device);
    std::string name() const override { return "device:" + m_device.id; }
    KernelEstimate estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                  const KernelPlacement &p) const override;
    KernelEstimate estimateShapedKernel(const std::vector<ShapedLaunch> &launches) const override;
    StageEstimate estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const override;
    double stageSpanNs(const std::vector<std::vector<const KernelEstimate *>> &streams) const override;
    TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const override;
    double syncNs() const override { return m_device.overheads.syncNs; }

    // S3 for one launch (fills the derived fields); exposed for tests.
    Launch finish(Launch k, double peakPerCore, double bandwidthPerCore) const;
    // S2 for a convolution from its geometry (g implicit GEMMs).
    static Launch convLaunch(std::int64_t batch, std::int64_t inC, std::int64_t outC, std::int64_t groups,
                             std::int64_t kh, std::int64_t kw, std::int64_t outH, std::int64_t outW);
    const Device &device() const { return m_device; }

private:
    struct Event {
        std::size_t stream, kernel;
        double issueNs, startNs, endNs;
    };
    // S4/S5: the stage's span; per launch its issue/start/end when `events` is
    // given. `issuedAlone`: the host starts issuing at the stage's start even on
    // one stream (a kernel's cost alone includes its launch).
    double simulate(const std::vector<std::vector<const KernelEstimate *>> &streams, std::vector<Event> *events,
                    bool issuedAlone) const;
    StageEstimate stage(const std::vector<std::vector<const KernelEstimate *>> &streams, bool issuedAlone) const;
    double blockNs(const Launch &k, double resident) const;
    const MemoryLevel &ioLevel(const KernelPlacement &p, double bytes) const;
    // Peak FLOP/s per core of the best unit for the class and dtype; `cores` = cores carrying it.
    double peakPerCore(OpClass c, DType dt, int &cores) const;
    // The launches as one kernel issued alone (S4, its first launch waiting), with their bytes and energy.
    KernelEstimate aloneKernel(KernelEstimate est) const;

    const Device &m_device;
    int m_cores = 1;
    bool m_gpu = false;
    double m_saturatingWarps = 1;
};

} // namespace tessera
