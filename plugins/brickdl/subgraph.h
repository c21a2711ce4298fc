// What BrickDL's steps share: the sub-graphs of a partition and what each
// step learned about them, and the per-node facts the steps ask for
// (brickdl-icpp24 §3.2, §3.3). Each step lives in its own file:
//   partition.h  §3.3.1  reverse traversal, cut points
//   bricksize.h  §3.3.3  brick size from parallelism ρ, library fallback
//   padded.h     §3.2.1  halo growth, Δ
//   memoized.h   §3.2.2  backtracking over dependent bricks, atomics
//   strategy.h   §3.3.2  padded or memoized per sub-graph
//   mergedcost.h §4.3    a merged sub-graph as one kernel of brick blocks
//   lower.h              bricks → ExecutionPlan tasks
#pragma once

#include "core/ir/graph.h"
#include "plugins/brickdl/bricklayout.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::brickdl {

enum class Strategy : std::uint8_t { Padded, Memoized, Library };
std::string_view strategyName(Strategy s); // "padded", "memoized", "library"

struct SubGraph {
    std::int32_t index = 0;
    std::vector<NodeId> nodes;       // a contiguous run of a topological order
    std::vector<NodeId> outputs;     // members read outside the sub-graph or graph outputs
    bool merged = false;             // false: library segment, whole-tensor kernels
    std::string libraryReason;       // why not merged
    std::int64_t footprintBytes = 0; // memoized data + external inputs + weights (§3.3.1)
    // §3.3.3
    std::int64_t brick = 0;
    double rho = 0;
    int blockedRank = 0;
    // §3.2.1 / §3.2.2
    double delta = 0; // padded data growth, fraction of the exact data
    std::int64_t paddedFootprintBytes = 0;
    std::int64_t compulsoryAtomics = 0; // memoized
    std::int64_t conflictAtomics = 0;   // memoized
    Strategy strategy = Strategy::Library;
};

// Empty when node `n` can run as bricks: a known op with one output of rank
// >= 3 (batch, channels, spatial) whose batch and spatial dims each come from
// a dim of every activation input (no reduction over them, no opaque index
// map). Otherwise the reason, e.g. "MatMul: output rank 2 has no spatial dims".
std::string notBrickable(const Graph &g, NodeId n);
// Reductions (pooling) and global ops (batch normalisation): the paper's
// preferred last nodes of a sub-graph (§3.3.1).
bool preferredCut(const Node &n);
// A pooling whose output map is smaller than its input's (stride > 1, global):
// "the layer size shrinks" (§3.3.1), so a sub-graph always ends after it.
bool shrinkingReduction(const Graph &g, NodeId n);
// Per member (sub.nodes order): whether its output is stored as bricks. An
// element-wise member fused into its producer stores nothing of its own
// (§3.3.4: "BRICKDL also leverages the operator fusion capabilities of cuDNN to
// fuse DNN primitives (e.g., convolution) with point-wise operations"): one
// activation input, produced by a member whose only reader it is and whose
// output does not leave the sub-graph (conv → BN → ReLU is one brick output).
std::vector<bool> materialised(const Graph &g, const SubGraph &sub);
// Members of `nodes` whose output is read by a node outside or is a graph output.
std::vector<NodeId> subGraphOutputs(const Graph &g, const std::vector<NodeId> &nodes);
// The brick grid over node n's output 0 (batch and spatial dims blocked).
BrickGrid nodeGrid(const Graph &g, NodeId n, std::int64_t brick);
// Bytes of the data of merged execution without padding: members' outputs,
// the activations read from outside, the weights (each tensor once).
std::int64_t memoizedFootprint(const Graph &g, const std::vector<NodeId> &nodes);
// Largest spatial window among the members (kernel_shape / pooling window), 1 if none.
std::int64_t largestWindow(const Graph &g, const std::vector<NodeId> &nodes);

} // namespace tessera::brickdl
