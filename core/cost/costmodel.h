// Cost models estimate what a task costs on a device: time and its parts,
// bytes moved at each memory level, energy. Schedulers compare options with
// them; plans carry their estimates (TaskCost) per task. Every scheduler and
// every plan asks the same model (DeviceCostModel, devicecost.h;
// docs/cost-model.md), so two schedules of one model on one device compare.
#pragma once

#include "core/hw/device.h"
#include "core/ir/graph.h"
#include "core/plan/plan.h"

#include <map>
#include <string>
#include <vector>

namespace tessera {

struct Device;

// Where a kernel's data lives and how much of the machine it gets.
struct KernelPlacement {
    std::int32_t cores = 0;        // cores (GPU: SMs) used; 0 = the whole device
    std::string ioLevel;           // level of the kernel's external inputs/outputs ("" = the model's choice)
    std::string intermediateLevel; // level of tensors produced and consumed inside ("" = fastest that fits)
    std::string inputLevel;        // level its external activation inputs are read from ("" = ioLevel): a
                                   // data-movement task brought them there, and paid the slower level
    double workFraction = 1.0;     // fraction of the kernel's outputs computed (a tile or an instance)
    bool includeWeights = true;    // weights read from ioLevel (false when already resident)
    // Per constant input (weight) the kernel reads: the level it reads it from and the bytes it
    // reads of it (a tile that partitions a weight reads its slice; a weight kept resident in a
    // nearer level is read there). Constants not listed follow includeWeights: whole, at ioLevel.
    // A listed level the device does not have is ignored (the constant is read at ioLevel).
    struct WeightRead {
        std::string level;
        double bytes = 0;
    };
    std::map<TensorId, WeightRead> weightReads;
};

// One launch on the device. A plan kernel is one or more launches: a heavy op
// with its element-wise epilogue is one, several convolutions of one input
// merged into one are one, a reshape is none (docs/cost-model.md "kernels").
struct Launch {
    double flops = 0;
    double bytes = 0;
    std::int64_t blocks = 1; // thread blocks (GPU) or work items spread over the cores
    double tileFlops = 0;    // FLOPs of one whole output tile (GEMM launches): a partial tile costs as much
    int threadsPerBlock = 256;
    int registersPerThread = 32;
    std::int64_t sharedBytesPerBlock = 0;
    int cores = 1; // cores it may use (placement, units carried by some cores only)
    // Derived by the model:
    int residentBlocks = 1;   // blocks resident per core (occupancy)
    double blockNs = 0;       // one block at a core's full throughput
    double aloneNs = 0;       // alone on the device: waves, tail and occupancy included
    double demandCores = 0;   // cores' worth of throughput it uses alone (≤ cores)
    bool memoryBound = false; // bytes, not FLOPs, limit a block
    double waitNs = 0;        // part of aloneNs spent on atomics (ShapedLaunch::atomics)
    double callNs = 0;        // part of aloneNs spent issuing device-side calls (ShapedLaunch::deviceCalls)
};

// A kernel as the model sees it: its launches and its cost alone on the
// device (issued, run, no other kernel around).
struct KernelEstimate {
    std::vector<Launch> launches;
    TaskCost cost;
};

// A launch whose geometry the scheduler chose itself, e.g. a tile-graph's fused
// kernel (welder-osdi23 §3.3: one block per output tile, the tiles' footprint in
// shared memory, the tile traffic at each level). The model skips S1/S2 and
// costs it with S3/S4 like any launch; the memory bound is the level whose
// bytes take longest at its bandwidth.
struct ShapedLaunch {
    OpClass opClass = OpClass::Other; // picks the compute unit
    DType dtype = DType::Float32;
    double flops = 0;
    std::int64_t blocks = 1;
    int threadsPerBlock = 256;
    int registersPerThread = 32;
    std::int64_t sharedBytesPerBlock = 0;
    std::map<std::string, double> bytesByLevel; // device level name ("" = slowest) -> bytes; unknown names ignored
    // Atomic operations of the launch on global memory (tags, locks: brickdl-icpp24 §3.2.2), spread
    // evenly over its blocks. Each is overheads.atomicNs of latency on its block's path (§4.3.1's
    // 87.45 ns on the A100); blocks resident together wait at the same time, so a block's share
    // adds once per wave of resident blocks. The parts show it as syncNs.
    double atomics = 0;
    // Kernel or library calls its blocks issue from device code (CUDA dynamic parallelism: one per
    // brick computation, brickdl-icpp24 §3.3.4). Each takes overheads.deviceLaunchNs of the device's
    // issue capacity, measured as a rate the way §4.3 measures T_atomic and T_brick: the calls
    // serialise device-wide and their total adds to the launch's time (a parent block waits for its
    // call before the brick's work starts). The parts show it as launchNs.
    double deviceCalls = 0;
};

// Kernels issued together between two synchronisations: per stream, per
// kernel, the kernel's cost in the stage (launch wait and contention filled
// in) and where it ends; spanNs is the stage's length without its barrier.
struct StageEstimate {
    std::vector<std::vector<TaskCost>> costs;
    std::vector<std::vector<double>> endNs;
    double spanNs = 0;
};

class CostModel
{
public:
    virtual ~CostModel() = default;
    virtual std::string name() const = 0;
    // `nodes` (in topological order) as one kernel.
    virtual KernelEstimate estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                          const KernelPlacement &p) const = 0;
    // A kernel of launches shaped by the scheduler (ShapedLaunch), alone on the device.
    virtual KernelEstimate estimateShapedKernel(const std::vector<ShapedLaunch> &launches) const = 0;
    // Streams of kernels (issue order) run concurrently after one barrier.
    virtual StageEstimate estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const = 0;
    // estimateStage(streams).spanNs without the per-kernel parts (the searches' hot path).
    virtual double stageSpanNs(const std::vector<std::vector<const KernelEstimate *>> &streams) const = 0;
    // Cost of moving `bytes` from one memory level to another ("" = slowest).
    virtual TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel,
                                  const std::string &toLevel) const = 0;
    // Cost of one synchronisation (stage barrier) on the device.
    virtual double syncNs() const = 0;

    // The barrier after a stage that ran on `streams` streams (devicecost.h
    // S5): a device synchronisation after several; none after one, whose
    // stream order already orders what follows.
    double barrierAfterNs(std::size_t streams) const { return streams > 1 ? syncNs() : 0.0; }

    // The cost of `nodes` as one kernel alone on the device.
    TaskCost kernelCost(const Graph &g, const std::vector<NodeId> &nodes, const KernelPlacement &p) const
    {
        return estimateKernel(g, nodes, p).cost;
    }
};

} // namespace tessera
