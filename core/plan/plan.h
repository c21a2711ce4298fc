// ExecutionPlan: the single lowered form every backend runs.
//
// Every scheduler (the baselines, inter-operator stages, GraphTurbo sub-graph instances,
// Welder tile-graphs, BrickDL bricks, PCGC fusion records) lowers its own
// result to this one structure:
//   - kernels: sets of graph nodes compiled together (a fused kernel, an inter-operator
//     merged convolution, a GraphTurbo sub-graph);
//   - tasks: what actually runs, in issue order. A compute task is one instance
//     or tile of a kernel (the output region each node computes); data-movement
//     tasks (copy, concat, split, redistribute) move buffers between levels,
//     cores or layouts; a barrier synchronises (a stage boundary);
//   - dependencies between tasks, bindings to clusters/cores/units/streams,
//     buffers placed at memory levels, and a cost estimate per task.
// A plan refers to its graph by node and tensor ids plus the model hash; the
// verifier (verify.h) checks it against a graph before anything runs it.
#pragma once

#include "core/ir/graph.h"
#include "core/ops/ops.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tessera {

using TaskId = std::int32_t;
using KernelId = std::int32_t;
using BufferId = std::int32_t;

// A node of a kernel that is not computed: its outputs are assigned (copied)
// from those of an equivalent node (same op, domain, attributes and input
// tensors) — a common subexpression computed once (PCGC's cross-boundary CSE).
// A backend that ignores it computes the node again, which gives the same values.
struct NodeAssignment {
    NodeId node = kInvalidId; // listed in the kernel's nodes
    NodeId from = kInvalidId; // computed by this kernel (earlier) or by a task this one depends on
};

struct Kernel {
    KernelId id = 0;
    std::string name;                     // stable, e.g. "k12:layer1.0/conv1+bn1+relu"
    std::vector<NodeId> nodes;            // in a topological order of the graph
    std::string strategy;                 // free-form tag: "fused", "merge", "opaque", ...
    std::vector<NodeAssignment> assigned; // nodes copied from an equivalent node instead of computed
};

// Where a task runs. -1 means "not bound" (the backend chooses).
struct Binding {
    std::int32_t cluster = -1;
    std::int32_t core = -1;     // first core of a range
    std::int32_t coreCount = 1; // cores used from `core` on
    std::int32_t unit = -1;     // compute unit index within a core (vector, MME...)
    std::int32_t stream = -1;   // GPU stream / CPU worker group
};

// The output region one node computes in a task (output 0 unless stated).
// An empty `tiles` list on a compute task means: every node of the kernel
// computes its whole outputs.
struct NodeTile {
    NodeId node = kInvalidId;
    std::int32_t output = 0;
    ops::Region region;
};

// Where a cost comes from: a model's estimate, a simulator's run, or a
// measurement on the device (measured beats modelled: docs/cost-model.md).
enum class CostKind : std::uint8_t { Estimated, Simulated, Measured };
std::string_view costKindName(CostKind k); // "estimated", "simulated", "measured"
std::optional<CostKind> costKindFromName(std::string_view name);

// The cost of one task and its parts (docs/cost-model.md). For tasks costed
// by the device cost model the parts add up to the duration:
//   timeNs = launchNs + computeNs + memoryNs + contentionNs + syncNs
// (computeNs / memoryNs: time running alone, on whichever bound limits each
// launch; launchNs: waiting for the host to issue it; contentionNs: running
// slower because concurrent kernels share the cores; syncNs: a barrier).
struct TaskCost {
    double timeNs = 0;       // duration in the plan's timeline
    double computeNs = 0;    // running alone, compute-bound
    double memoryNs = 0;     // running alone, memory-bound
    double launchNs = 0;     // waiting to be issued
    double contentionNs = 0; // sharing cores with concurrent kernels
    double syncNs = 0;       // synchronisation (barriers)
    double energyJ = 0;
    CostKind kind = CostKind::Estimated;
    std::map<std::string, std::int64_t> bytesByLevel; // traffic per memory level name
};

// The sum of costs: times and parts, energy, bytes per level; the kind is the
// least trustworthy of theirs (one estimate makes the sum an estimate).
TaskCost sumCosts(const std::vector<const TaskCost *> &costs);
// "compute 4.091 ms, memory 174.8 µs, launch 147.3 µs, contention 0 ns, sync 0 ns"
// (a part under half a nanosecond is 0: rounding, not time).
std::string costPartsText(const TaskCost &c);

enum class TaskKind : std::uint8_t {
    Compute,      // runs (a tile or an instance of) a kernel
    Copy,         // moves a buffer between memory levels (e.g. DDR → LLB)
    Concat,       // joins instance outputs into one tensor
    Split,        // distributes a tensor to several consumers or instances
    Redistribute, // changes the core binding of a tensor (inter-core exchange)
    Barrier,      // waits for all earlier tasks of its stage (a stage boundary)
};
std::string_view taskKindName(TaskKind k);

struct Task {
    TaskId id = 0;
    TaskKind kind = TaskKind::Compute;
    KernelId kernel = -1;        // Compute only
    std::vector<NodeTile> tiles; // Compute only; see NodeTile
    std::vector<TaskId> deps;    // tasks that must finish first (all earlier in `tasks`)
    Binding binding;
    std::int32_t stage = -1; // display/grouping: a stage, GraphTurbo timestamp
    std::vector<BufferId> reads;
    std::vector<BufferId> writes;
    bool recompute = false; // recomputes nodes another task also computes (halo, BrickDL)
    TaskCost cost;
    std::string label;
};

// Storage for (a region of) a tensor at one memory level.
struct Buffer {
    BufferId id = 0;
    TensorId tensor = kInvalidId; // kInvalidId: scratch space
    std::string level;            // memory level name from the device ("DDR", "L1", "SMEM"...); "" = slowest
    std::int32_t scopeIndex = -1; // which cluster/core's instance of a per-cluster/per-core level
    ops::Region region;           // part of the tensor held (empty = whole tensor)
    std::int64_t bytes = 0;
    std::int64_t offset = -1; // within the level, -1 if not allocated statically
};

// When a task runs: estimated (ExecutionPlan::estimatedTimeline) or measured
// (RunResult::timeline). Lanes are streams, cores or threads.
struct TaskTiming {
    TaskId task = 0;
    double startNs = 0;
    double endNs = 0;
    std::int32_t lane = 0;
};

struct ExecutionPlan {
    static constexpr int kFormatVersion = 1;
    std::string algorithm; // scheduler name
    std::string device;    // device id
    std::string modelHash; // hash of the model the plan was made for
    std::string graphName;
    // The deployment precision the plan is sized and timed at
    // (core/ir/precision.h, ScheduleSetup::precision): the model's float32
    // tensors count as this type in its buffers and costs. A timing backend
    // runs the plan at it; a functional one computes the model's own types.
    DType precision = DType::Float32;
    std::vector<Kernel> kernels;
    std::vector<Task> tasks; // issue order; a topological order of deps
    std::vector<Buffer> buffers;

    KernelId addKernel(std::string name, std::vector<NodeId> nodes, std::string strategy = {});
    TaskId addTask(Task t);       // sets t.id
    BufferId addBuffer(Buffer b); // sets b.id

    // Sums of the per-task estimates.
    TaskCost totalCost() const;
    // List schedule of the estimates in issue order: a task starts when its
    // dependencies have finished and its lane is free (tasks on the same
    // stream, the same cores, or unbound tasks run in order).
    std::vector<TaskTiming> estimatedTimeline() const;
    // End of the estimated timeline — the latency a plan reports.
    double estimatedLatencyNs() const;
    // Per buffer, the first and last task that reads or writes it ({-1, -1}: none): how long
    // it is live, for the verifier's capacity check and liveness views.
    std::vector<std::pair<TaskId, TaskId>> bufferLiveRanges() const;
};

} // namespace tessera
