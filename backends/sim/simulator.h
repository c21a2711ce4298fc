// The discrete-event timing simulator behind the sim backend: runs an
// ExecutionPlan's tasks on core/hw's device model (graphturbo-osdi23 Fig. 1:
// d clusters × c cores × u compute units, a local level per core, a global
// level per cluster, DRAM; a GPU is 1 × SMs × unit kinds with SMEM, L2, HBM)
// and reports when each task ran, what each level held and each unit did.
//
// The model (docs/simulator.md has the long form):
// S1 Lowering (lowerPlan). Every task becomes work on resources:
//    - compute units: one resource per (unit of the device, core carrying it);
//      a node runs on the unit its op class and dtype map to — the binding's
//      unit if given, else the one devicecost.h S3 picks (the best unit for
//      the class and dtype, falling back to float32, then to the device's best
//      float32 unit). Its work is FLOPs × tile fraction ÷ (per-instance peak ×
//      countPerCore × the calibration's compute efficiency of the node's class
//      (Calibration::computeEfficiencyFor(efficiencyClassOf(op, group))) ×
//      cores of the binding).
//      Nodes of one task on different units run concurrently (a fused
//      epilogue on the vector unit pipelines with the matrix unit).
//    - memory levels: one resource per level instance (per core, per cluster,
//      shared). Bytes move at bandwidthPerInstance × the level's memory
//      efficiency (Calibration::memoryEfficiencyFor) × the
//      instances the task touches, rounded up to whole read/write transactions.
//      Compute tasks move the plan's own traffic (TaskCost::bytesByLevel, from
//      the one cost model) or, without it, their buffers; data-movement tasks
//      (copy, concat, split, redistribute) move their stated traffic
//      (TaskCost::bytesByLevel: a slice of larger buffers, nothing for an
//      in-place concatenation) on the instances of their buffers at each
//      level, or, without it, read their read-buffers at the buffers' levels
//      and write their write-buffers at theirs.
//    - fixed delays with no resource: a compute task waits to be issued by the
//      host, which issues compute tasks in plan order one per
//      overheads.kernelLaunch (devicecost S4) and stops at a barrier until it
//      completes; a compute task of the kernel the previous compute task of
//      each of its in-order queues ran is an iteration of that launch (a
//      tile, or GraphTurbo's next instance of a sub-graph run as a loop in
//      the cores' program), issued with it at no cost; a DMA task first spends overheads.dmaSetup plus the largest
//      latency of the levels it touches; a barrier costs overheads.sync.
// S2 Placement (the default policy for unbound tasks): no cluster and no core
//    → every core of the device (a kernel spreads over the whole chip, as a
//    GPU launch over all SMs); a cluster but no core → every core of that
//    cluster; a core range → those cores (within the cluster if one is given,
//    else global core numbers). A buffer without a scope index sits in the
//    instance of the first core of the first task that touches it.
// S3 Ordering. A task starts when its dependencies have finished, it has been
//    issued, and the previous task of each of its in-order queues has
//    finished. Queues are as ExecutionPlan::estimatedTimeline has them: one
//    per stream; else one per bound core; else one per bound cluster; else one
//    default queue. Data-movement tasks without a stream or core run as soon as
//    their dependencies allow (DMA engines take any number of transfers).
// S4 Sharing: processor sharing with a bottleneck. Every part of a running
//    task (one unit kind, one level) progresses at 1/n of its full rate, where
//    n is the largest number of running parts on any resource instance it
//    uses; rates change only at events (a part finishing, a task starting), so
//    two equal transfers started together over one level each take twice as
//    long as one alone. A task ends when all its parts have ended.
// S5 Capacity. A buffer is allocated when the first task touching it starts
//    and freed when the last task touching it ends. Allocating past a level
//    instance's capacity is an error naming the task, the buffer, the level,
//    the instance and the simulated time.
// S6 Deadlock. When no task runs and none can start, the wait-for graph
//    (dependencies, in-order queues, the host stopped at a barrier) has a
//    cycle; the error names it and the simulated time. The simulator never
//    waits on anything but its own event list, so it always terminates.
// Energy: static power × simulated time + FLOPs × pJ/op of the unit + bytes ×
// pJ/byte of each level (the device's power model; 0 where unknown).
//
// Assumes a device that passed validateDevice (positive bandwidths and peaks).
#pragma once

#include "core/backend/backend.h"
#include "core/hw/device.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::sim {

// One plan lowered onto one device (S1, S2): checked and ready to simulate.
struct Part {
    int unitKind = -1;          // UnitKind value for compute parts, -1 for memory
    std::vector<int> resources; // resource instances it uses
    double workNs = 0;          // duration alone at full rate
};

struct BufferUse {
    BufferId buffer = 0;
    int level = 0;    // index into Device::levels
    int instance = 0; // which instance of the level
    std::int64_t bytes = 0;
};

struct SimTask {
    TaskId id = 0;
    std::string name; // label, or "<kind> <id>"
    TaskKind kind = TaskKind::Compute;
    std::vector<TaskId> deps;
    std::vector<int> queues; // in-order queues (S3)
    bool hostIssued = false; // a compute task: issued by the host (S1)
    bool launches = true;    // a host-issued task that starts a kernel launch (S1: not a continuation)
    double fixedNs = 0;      // setup before its parts run (DMA setup, sync)
    std::vector<Part> parts;
    std::vector<BufferUse> buffers;
    std::string track; // display track: "MME core 3", "DMA to LLB", "sync"
    double flops = 0;
    double energyPj = 0; // dynamic energy: FLOPs and bytes
    std::map<std::string, std::int64_t> bytesByLevel;
};

struct Resource {
    std::string name;  // "MME core 3", "LLB cluster 1"
    int unitKind = -1; // UnitKind value, or -1 for a memory level instance
    std::string unit;  // the compute unit's name ("MME"); empty for a level
};

struct LoweredPlan {
    std::vector<Resource> resources;
    std::vector<SimTask> tasks; // plan order
    int queueCount = 0;
    std::vector<std::int64_t> levelCapacity; // per level, one instance
};

struct LowerOptions {
    // Run float32 tensors as this dtype (the deployment precision of an
    // inference chip: STCP920's MME has no f32 rate): float32 nodes use the
    // units and peaks of `computeDtype`, and every byte moved is scaled by
    // dtypeSize(computeDtype) / 4. Unset: the model's own dtypes.
    std::optional<DType> computeDtype;
    // Set: lowering stops with ErrorCode::Cancelled (looked at per task) soon after it turns true.
    const std::atomic<bool> *cancel = nullptr;
};

// S1 and S2: checks bindings, buffers and dependencies against the device and
// lowers the plan. Errors name the task (one line).
Expected<LoweredPlan> lowerPlan(const Graph &g, const ExecutionPlan &plan, const Device &device,
                                const LowerOptions &options = {});

struct SimOutcome {
    double simTimeNs = 0;
    std::vector<TaskTiming> timeline; // per task, plan order
    std::vector<std::string> laneNames;
    std::vector<CounterSeries> counters;
    std::map<std::string, double> metrics;
};

// S3–S6 on a lowered plan. `batch` scales throughput (items per second). The
// observer's taskFinished is called for every task, timelinesRecorded and
// metricsUpdated after every hundredth of the tasks and at the end; cancel is
// polled at every event.
Expected<SimOutcome> simulate(const LoweredPlan &lowered, const Device &device, double batch,
                              const RunObserver &observer = {});

} // namespace tessera::sim
