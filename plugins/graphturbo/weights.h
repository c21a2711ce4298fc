// Weight residency across a sub-graph's instances (graphturbo-osdi23 §4.4,
// §2.2, §4.3): which weights each sub-graph keeps in GB, promoted DDR → GB
// once per cluster, so that its instances read them from GB instead of DDR.
//
//   W1 (keepWeights)  sub-graphs run as more than one instance per cluster:
//      every instance reads its weights again (an instance of a MatMul split
//      along its rows reads the whole weight), so keeping them in GB saves
//      (instances − 1) × their bytes of DDR reads. They are decided before
//      §4.3's allocation of the activations, which then gets GB less what they
//      hold at each position (core/sched/levelassign's reservation).
//      Sub-graphs saving the most go first (ties: the earlier), within one the
//      larger weights first; a weight is kept where it fits GB beside the
//      weights kept already at every position of its interval.
//   W2 (addWeightsInFreeSpace)  sub-graphs run as one instance per cluster
//      read their weights once either way; they are promoted (so that the full
//      variant issues the DMA ahead, Fig. 13) only into what W1 and the
//      activations left free in GB at every position of their interval.
// A weight's interval runs from its sub-graph's first instance to its last;
// in the full variant from the first instance of the sub-graph before, when
// its promotion is issued (§4.4).
// Choices where the paper is vague (§2.2 says only that GraphTurbo promotes
// weights through "a small, fixed size of buffers in LB", §4.4 that a
// promotion copies DDR → GB by DMA and hoists GB → LB): GB holds both the
// weights and the activations §4.3 spills there, weights of W1 first, since a
// weight read again by n instances costs n × its bytes from DDR where an
// activation spilled to DDR costs its bytes written and read once more; a
// weight that does not fit is read from DDR by every instance (its slice
// when the split partitions it, lowering.h). Sizes are the graph's (f32 for
// the samples), like every size of the plan.
#pragma once

#include "plugins/graphturbo/instances.h"
#include "plugins/graphturbo/memory.h"

#include <set>

namespace tessera::graphturbo {

struct WeightPlan {
    std::vector<std::set<TensorId>> resident; // per sub-graph: its weights kept in GB
    std::vector<std::int64_t> bytes;          // per sub-graph: their bytes
    std::vector<std::int64_t> reserved;       // per position: GB bytes the kept weights hold
    std::vector<int> first, last;             // per sub-graph: its interval (-1: no instance)
    std::vector<int> count;                   // per sub-graph: instances in the order
    std::vector<int> next;                    // per sub-graph: the one whose first instance follows (-1: none)
    std::vector<int> firstInstance;           // per sub-graph: position of its first instance
};

// W1 for an order (one cluster's instances).
WeightPlan keepWeights(const Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                       const std::vector<int> &order);

// W2: `items` and `levels` are §4.3's allocation of the activations for the same order.
void addWeightsInFreeSpace(const Context &ctx, const std::vector<SubGraph> &subgraphs,
                           const std::vector<MemItem> &items, const LevelAssignment &levels, WeightPlan &plan);

} // namespace tessera::graphturbo
