// IOS artifact interop: schedule units and blocks, IOS schedules, and the
// artifact's JSON formats (ios thesis §3.1: a schedule Q = {(S_1,T_1), ...,
// (S_k,T_k)} of stages with a parallelisation strategy each; the formats are the
// ones of the artifact mit-han-lab/inter-operator-scheduler; plugins/ios/networks/README.md).
//
//  - IosUnitSet: the units IOS schedules (a conv with its activation, a pool, a
//    Sequential...) as sets of graph nodes, grouped in blocks. Read from the
//    "ios.units"/"ios.blocks" model metadata that plugins/ios/iosnetworks.h writes,
//    or from its node-name convention "block<B>/<unit>/...". Every node is in
//    exactly one unit and the units, blocks concatenated, are in a topological
//    order (checked).
//  - IosSchedule: stages of groups of units. A Concurrent stage runs its groups
//    on one stream each (units of a group in order); a Merge stage is one group
//    of convolutions merged into one (the artifact's rule, iosConvUnit below).
//    checkIosSchedule() enforces coverage and dependencies; lowerIosSchedule()
//    turns a schedule into an ExecutionPlan: each stage's groups as kernels on
//    streams 0..k-1 (one kernel per unit; a merge is one kernel, strategy
//    "merge"), then a barrier. iosScheduleFromPlan() reads one back.
//  - JSON: parseIosSchedule() reads the artifact's optimised-graph files
//    (saved_schedules_json/*.json: blocks → "stages" → groups of node names; a
//    merged convolution is one node whose "hint_name" lists the originals) and
//    writeIosSchedule() writes that format from the model's IOS graph config.
//    The IOS configs themselves become models in plugins/ios/iosimport.h.
#pragma once

#include "core/cost/costmodel.h"
#include "core/ir/graph.h"
#include "core/onnx/importer.h"
#include "core/plan/plan.h"
#include "core/support/status.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

struct IosUnit {
    std::string name;
    std::vector<NodeId> nodes; // a topological order; the last node produces the unit's output
};

struct IosBlock {
    std::string name;                // "block<index>"
    std::vector<std::int32_t> units; // unit ids in list (topological) order
    std::vector<std::int32_t> parts; // explicit part sizes (NasNet's cells); empty: cut by part size
};

struct IosUnitSet {
    std::vector<IosUnit> units;
    std::vector<IosBlock> blocks;
    std::string source; // where the units came from: "metadata", "node names", "structure"

    // Filled by finalizeIosUnits():
    std::vector<std::int32_t> unitOfNode;                // per graph node
    std::vector<std::int32_t> blockOfUnit;               // per unit
    std::vector<std::vector<std::int32_t>> predecessors; // unit-level, ascending, deduplicated
    std::vector<std::vector<std::int32_t>> successors;

    std::map<std::string, std::int32_t, std::less<>> unitByName;

    std::int32_t findUnit(std::string_view name) const; // -1 if absent
};

// Fills the derived fields and checks the invariants above: every node in one
// unit, every unit in one block, units of a unit listed in topological order,
// and no unit reading a unit listed after it. Errors name the unit.
Status finalizeIosUnits(const Graph &g, IosUnitSet &units);

// From the "ios.units" / "ios.blocks" metadata (ModelMetadata::properties).
// Unsupported when the model carries no such metadata.
Expected<IosUnitSet> iosUnitsFromMetadata(const Graph &g, const std::map<std::string, std::string> &properties);
// From node names "block<B>/<unit>/<op>" (samples' IOS converter; a
// "cell<C>/" scope after the block is skipped); blocks in index order, units in
// node order. Unsupported when a name does not follow it. A sequential unit
// literally named "cell<N>" would read as a cell scope: IOS names units by
// number or op type, so the converter's names never do.
Expected<IosUnitSet> iosUnitsFromNodeNames(const Graph &g);

// ---- the operator-merge rule --------------------------------------------------

// A unit that is a plain convolution: optionally a channel Slice of its input,
// one Conv with constant weights, then only unary element-wise ops (its
// activation). The artifact merges such units when they read the same value
// with the same stride, activation and input/output spatial size, and groups
// == 1 (reference/README.md; thesis Fig. 3.1).
struct IosConvInfo {
    NodeId conv = kInvalidId;
    std::int64_t batch = 1, inChannels = 0, outChannels = 0, groups = 1;
    std::int64_t inH = 0, inW = 0, outH = 0, outW = 0;
    std::int64_t kernelH = 1, kernelW = 1, strideH = 1, strideW = 1, padH = 0, padW = 0;
    std::string input;      // identifies the value read (tensor, or tensor + slice)
    std::string activation; // the op types after the Conv, e.g. "Relu"
    DType dtype = DType::Float32;
};
std::optional<IosConvInfo> iosConvUnit(const Graph &g, const IosUnit &unit);
// Whether two conv units may be merged into one convolution.
bool iosMergeable(const IosConvInfo &a, const IosConvInfo &b);

// ---- schedules --------------------------------------------------------------

enum class IosStrategy : std::uint8_t { Concurrent, Merge };
std::string_view iosStrategyName(IosStrategy s); // "concurrent", "merge"

struct IosStage {
    IosStrategy strategy = IosStrategy::Concurrent;
    // Concurrent: one list per group (stream), units in issue order.
    // Merge: exactly one list, the merged convolutions in list order.
    std::vector<std::vector<std::int32_t>> groups;
    std::int32_t block = -1;         // block of its units
    double latencyNs = std::nan(""); // the scheduler's estimate, NaN if none
};

struct IosSchedule {
    std::vector<IosStage> stages;
};

// Every unit exactly once; a unit after all units it reads (in an earlier
// stage, or earlier in its own group); merged units pass the merge rule.
// Errors name the stage and the units.
Status checkIosSchedule(const Graph &g, const IosUnitSet &units, const IosSchedule &schedule);

// The plan of a schedule (checked first). Kernels are named after their unit
// ("merge:a+b" for a merge); tasks carry stage = stage index and stream = group.
// Task costs come from `cost`; a stage with a latency estimate (latencyNs) has
// its tasks scaled so it spans exactly that long in the plan's timeline.
Expected<ExecutionPlan> lowerIosSchedule(const Graph &g, const IosUnitSet &units, const IosSchedule &schedule,
                                         const CostModel &cost);

// The schedule a plan executes: stages are the barrier-separated segments,
// groups the streams (unbound tasks: stream 0), a "merge" kernel a merge stage.
// A unit split over groups or stages is an error.
Expected<IosSchedule> iosScheduleFromPlan(const ExecutionPlan &plan, const Graph &g, const IosUnitSet &units);

// ---- the artifact's JSON ----------------------------------------------------

// Reads an optimised-graph schedule file. Node names resolve to units by name;
// a node whose "hint_name" lists several unit names is their merge. Unknown
// names, a merged node sharing its stage, and everything checkIosSchedule()
// rejects are InvalidInput errors located in `sourceName`.
Expected<IosSchedule> parseIosSchedule(std::string_view json, const Graph &g, const IosUnitSet &units,
                                       std::string_view sourceName = {});

// Writes `schedule` in the artifact's format, from the model's IOS graph config
// (the JSON it was imported from): per block the nodes in stage order, merged
// convolutions rewritten as the artifact does (out_channels summed, kernel and
// padding the element-wise maximum, readers of a merged unit reading its
// channel range), and "stages" of node names.
Expected<std::string> writeIosSchedule(const IosSchedule &schedule, const IosUnitSet &units,
                                       std::string_view configJson, std::string_view scheduleName);

// Units of an imported model: its metadata, else its node names.
Expected<IosUnitSet> iosUnitsOf(const ImportResult &model);

} // namespace tessera
