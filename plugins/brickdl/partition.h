// Graph partitioning (brickdl-icpp24 §3.3.1): a reverse traversal of a
// topological order that grows the current sub-graph backwards while the
// data footprint of merged execution stays resident in the device's on-chip
// level (A100: the 40 MB L2), and cuts
//   - where adding the next node would overflow that level (forced), or
//   - after a pooling that shrinks the map (subgraph.h shrinkingReduction),
//     always: the paper cuts after reductions "to reduce the overhead from
//     excess padded data and atomic operations as the layer size shrinks
//     within a subgraph", which holds however full the sub-graph is;
//   - after a global op (batch normalisation) or another reduction once the
//     sub-graph fills at least `cutFill` of the level: the paper "typically
//     places the last node in a subgraph as a reduction ... or global
//     operation" (to minimise synchronisations), without saying when.
// Nodes that cannot run as bricks (subgraph.h notBrickable) and single nodes
// whose own footprint overflows the level form library segments (whole-tensor
// kernels, the paper's cuDNN fallback).
// Choices where the paper is vague: the footprint is memoizedFootprint()
// (outputs + external inputs + weights, without padding: Δ depends on the
// brick size, chosen per sub-graph afterwards, and the strategy choice
// refuses padded bricks whose padded footprint overflows); segments are
// contiguous runs of one topological order, so every sub-graph is convex;
// the paper gives no fill for the cut after a global op: cutFill = 0.55 is
// the value at which ResNet-50 (224×224, batch 1, A100 L2) splits into the
// seven merged sub-graphs of §4.4 (0.5 gives eight, 0.6 seven others), a
// fitted default, not a number from the paper.
// Decision per node (except a sub-graph's first): "brickdl.cut" — merge into
// the sub-graph after it, or cut (the node ends the sub-graph before);
// merge is illegal when it overflows the level.
#pragma once

#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "core/support/status.h"
#include "plugins/brickdl/subgraph.h"

#include <string>
#include <vector>

namespace tessera::brickdl {

struct PartitionOptions {
    std::string level;              // on-chip level name (for messages)
    std::int64_t capacityBytes = 0; // of one instance of that level
    double cutFill = 0.55;          // cut after BN / other reductions once this full
};

// Sub-graphs in topological order, indices set, outputs filled.
std::vector<SubGraph> partitionGraph(const Graph &g, const std::vector<NodeId> &order, const PartitionOptions &options,
                                     DecisionContext &decisions, Trace &trace);

} // namespace tessera::brickdl
