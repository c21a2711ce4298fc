// Lowering ordered instances to one ExecutionPlan (graphturbo-osdi23 §3.4,
// §3.5, §4.3; core/plan/plan.h).
//
//   kernels   one per sub-graph (strategy "graphturbo"), its nodes in order;
//   compute   one task per instance and cluster its sub-graph's batch is
//             spread over (§2.1), in the chosen order, its tile the slice of
//             the sub-graph output (§3.3), bound to that cluster and the cores of
//             its plain binding (binding.h), the unit that runs its heaviest op
//             class; stage = sub-graph index (the colour of Fig. 6);
//   buffers   each instance output and working set at the level §4.3's
//             allocation gives it (memory.h; made once for one cluster, it
//             holds for each, since every part holds that cluster's share):
//             LB as one buffer per bound core (scope = core), GB per
//             cluster, DDR; graph inputs in DDR, graph outputs in DDR;
//   concat    before a consumer instance reading several instances of one
//             producer sub-graph (§3.5, Fig. 8): joins their slices in place
//             (the producers wrote disjoint slices), so it holds no buffer;
//   copy      promotes producer slices that live in GB/DDR (or another
//             cluster) or a graph input into the consumer's LB working set
//             (Fig. 9 left), one per producer sub-graph and level;
// each spill of §4.3 is a trace record. Costs: the device cost model per
// sub-graph instance (workFraction 1/f, the instance's cores, its output level)
// and transferCost for copies.
//   promote   (§4.4) a sub-graph's weights DDR → GB once per cluster, before
//             its first instance there, kept in a quarter of GB reserved for
//             weights while they fit beside the weights of the sub-graphs whose
//             instances interleave with it; its instances then read no
//             weights from their I/O level. Sub-graphs whose weights do not fit
//             read them in every instance.
// Not lowered (yet): Algo. 4's inferred bindings and redistribution ops
// (Fig. 9 right), §4.4's overlap of promotion with the previous layer.
#pragma once

#include "core/plan/plan.h"
#include "core/support/status.h"
#include "plugins/graphturbo/ordering.h"

namespace tessera::graphturbo {

struct Lowered {
    ExecutionPlan plan;
    LevelAssignment memory;
    int copies = 0;
    int concats = 0;
    int promotions = 0; // weight promotions DDR → GB
};

Expected<Lowered> lowerToPlan(Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                              const Ordering &ordering);

} // namespace tessera::graphturbo
