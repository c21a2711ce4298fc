// Graph partitioning (brickdl-icpp24 §3.3.1): a reverse traversal of a
// topological order that grows the current sub-graph backwards while the
// data footprint of merged execution stays resident in the device's on-chip
// level (A100: the 40 MB L2), and cuts
//   - where adding the next node would overflow that level (forced), or
//   - after a reduction (pooling) or global op (batch normalisation) once the
//     sub-graph fills at least `cutFill` of the level: the paper "typically
//     places the last node in a subgraph as a reduction ... or global
//     operation".
// Nodes that cannot run as bricks (subgraph.h notBrickable) and single nodes
// whose own footprint overflows the level form library segments (whole-tensor
// kernels, the paper's cuDNN fallback).
// Choices where the paper is vague: the footprint is memoizedFootprint()
// (outputs + external inputs + weights, without padding: Δ depends on the
// brick size, chosen per sub-graph afterwards, and the strategy choice
// refuses padded bricks whose padded footprint overflows); segments are
// contiguous runs of one topological order, so every sub-graph is convex.
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
    double cutFill = 0.5;           // cut after pooling/BN once this full
};

// Sub-graphs in topological order, indices set, outputs filled.
std::vector<SubGraph> partitionGraph(const Graph &g, const std::vector<NodeId> &order, const PartitionOptions &options,
                                     DecisionContext &decisions, Trace &trace);

} // namespace tessera::brickdl
