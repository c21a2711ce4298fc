// Ordering sub-graph instances (graphturbo-osdi23 §3.3, Algo. 3, Fig. 7).
//
// BFS: Kahn's algorithm with a first-in-first-out ready list over the
// non-redundant instance edges (Fig. 7a). DFS: Algo. 3 with `visit` in BFS
// order (the paper's illustration):
//   L2-4   move the instances of `visit` with no in-degree to `ready`;
//   L5-9   take the last instance of `ready` with no in-degree into `order`;
//   L10-14 drop it from its consumers' in-degrees and move them to `ready`.
//   (When no instance of `ready` has a zero in-degree, L3-4 run again; the
//   paper's L7 loop would run past the list's start there.)
// The better order "with respect to memory utilization" is the one keeping
// more bytes of instance outputs and working sets in LB under §4.3's
// allocation (memory.h); ties go to DFS (Fig. 3b). The choice is the decision
// "graphturbo.order".
#pragma once

#include "plugins/graphturbo/instances.h"
#include "plugins/graphturbo/memory.h"
#include "plugins/graphturbo/weights.h"

namespace tessera::graphturbo {

std::vector<int> bfsOrder(const InstanceGraph &ig);
std::vector<int> dfsOrder(const InstanceGraph &ig, const std::vector<int> &visit);

// Memory items of an order: per position, the instance's working set (live at
// it alone) then its output (live to its last consumer; graph outputs pinned
// to DDR). The working set is the instance's footprint ceil(peak / f) less its
// output and less the producer slices it reads that stay in LB (those are the
// producers' output items); slices in GB/DDR are promoted into it. So it
// depends on where producers' outputs live: `outputLevel` per instance, null
// = all in LB. itemOfOutput[instance] = index of its output item (the working
// set is the item before it). In the full variant (§4.4) a working set with
// loads (producer slices not in LB, graph-input slices) is live from the
// position before its own: its loads run while the previous instance computes
// (double-buffered LB), and the allocation counts both.
std::vector<MemItem> orderMemItems(const Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                                   const std::vector<int> &order, const std::vector<int> *outputLevel = nullptr,
                                   std::vector<int> *itemOfOutput = nullptr);

// §4.3's allocation for an order: assign, recompute working sets from where
// producer slices ended up, and repeat until the levels settle (at most four
// rounds; otherwise every producer slice is counted in its consumer's working
// set, which is always safe). GB is what the weights kept across instances
// (weights.h W1) leave at each position.
struct OrderMemory {
    std::vector<MemItem> items;
    std::vector<int> itemOfOutput;
    LevelAssignment levels;
    WeightPlan weights; // W1 for the order
};
OrderMemory evaluateOrder(const Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                          const std::vector<int> &order);

struct Ordering {
    std::vector<int> order; // instance ids
    bool dfs = true;
    double bfsLbShare = 0, dfsLbShare = 0;
};
Ordering orderInstances(Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig);

} // namespace tessera::graphturbo
