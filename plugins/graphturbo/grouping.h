// Algo. 2 of graphturbo-osdi23 §3.2: group sub-graphs.
//
//   L1-4   one sub-graph per node in topological order, its SplitInfo (Algo. 1)
//          and BestSplit (Eq. (1));
//   L5-15  repeat the straight, diamond and branch merges of Fig. 4 until a
//          whole round merges nothing ("s, d and b all do not decrease").
// Patterns (Fig. 4), over sub-graphs (graph inputs and weights are not ones):
//   straight  SG1 is SG2's only producer and SG2 SG1's only consumer; merge both;
//   diamond   entry SG1, middles each with SG1 as only producer and SG4 as only
//             consumer, SG4's producers among SG1 and the middles, >= 2 paths;
//             merge the middles with SG4 (not SG1);
//   branch    SG3 with >= 2 producers; a producer SG2 whose only consumer is
//             SG3 merges into it.
// Rules: (i) straight/branch: f(SG2) >= f(SG1) and f(SG) <= f(SG2) (branch:
// SG2, SG3 in these roles); (ii) diamond: f(SG) <= max f of SG2, SG3, SG4.
// Choices: a merged sub-graph that fits LB with no factor is rejected (it would
// never terminate grouping otherwise) and is an illegal option — except a
// straight/branch merge of an all-elementwise SG2 (SG3) into its one producer
// when neither that producer nor the merge fits LB with any factor (whatever
// the follower's own factor: rule (i) with "none" read as infinite would keep
// it apart): the producer's whole output leaves LB anyway, and §4.1's loop
// fusion within a layer (TVM's, of which GraphTurbo is a superset, §5.1)
// fuses such a follower, so that output does not go through GB/DDR where
// layer-fusion's would not; the merge must
// also pass the recomputation check (splitinfo.h); the merged parts never
// expose a graph output or hold an opaque op, so every sub-graph keeps one
// output. Each merge is the decision "graphturbo.merge" keyed by the merged
// nodes; a key already asked is not asked again (same nodes, same answer).
#pragma once

#include "core/support/status.h"
#include "plugins/graphturbo/subgraph.h"

namespace tessera::graphturbo {

struct Grouping {
    std::vector<SubGraph> subgraphs; // in topological order of their exits
    std::vector<int> ofNode;         // node -> sub-graph
    int merges = 0;
    int rounds = 0;
};

Expected<Grouping> groupSubGraphs(Context &ctx);

} // namespace tessera::graphturbo
