// Lowering ordered instances to one ExecutionPlan (graphturbo-osdi23 §3.4,
// §3.5, §4.3, §4.4; core/plan/plan.h).
//
//   kernels   one per sub-graph (strategy "graphturbo"), its nodes in order;
//   compute   one task per instance and part of its sub-graph's batch (§2.1,
//             §5.1: part k on cluster k % clusters in in-cluster iteration
//             k / clusters; iterations outermost, each running the whole
//             order, so one part's memory plan holds for every iteration;
//             each iteration promotes its weights again), in the chosen
//             order, its tile the slice of the sub-graph output (§3.3),
//             bound to that cluster and the cores of
//             its Algo. 4 binding (scopes.h), no unit (each node runs on the unit
//             its class and dtype map to); stage = sub-graph index (the colour
//             of Fig. 6);
//   buffers   each instance output and working set at the level §4.3's
//             allocation gives it (memory.h; made once for one cluster, it
//             holds for each, since every part holds that cluster's share):
//             LB as one buffer per bound core (scope = core), GB per
//             cluster, DDR; graph inputs in DDR (one buffer per slice read),
//             graph outputs in DDR; Algo. 4's GB scopes pin outputs to GB;
//             LB is the device's first level, GB its second, DDR its last
//             (levels between GB and the last, e.g. the host's L3, unused);
//   concat    before a consumer instance reading several instances of one
//             producer sub-graph (§3.5, Fig. 8): joins their slices in place
//             (the producers wrote disjoint slices), so it holds no buffer;
//   copy      moves producer slices that live in GB/DDR (or another cluster)
//             or a graph input's slice into the consumer's working set
//             (Fig. 9 left), one per producer sub-graph and level: it reads
//             the slices' buffers and writes the working set's; only where
//             it promotes: a slice in GB/DDR that a working set at the same
//             level or a slower one (spilled by §4.3) reads is read in place,
//             as is a graph input's slice by a working set in DDR (the
//             kernel's inputs are charged at its working set's level, so a GB
//             slice read by a working set in DDR is charged at DDR: an
//             overcharge left as is, KernelPlacement has one input level);
//   redistribute  an LB slice whose producer ended with another binding than
//             the consumer inferred for it (Algo. 4 L16) is exchanged between
//             the cores into the working set (Fig. 9 right): LB → LB plus a sync;
// each spill of §4.3 is a trace record. Costs: the device cost model per
// sub-graph instance (workFraction 1/f, the instance's cores, its output level,
// and per weight where it reads it and how much: KernelPlacement::weightReads)
// and transferCost for data movement.
//   promote   (§4.4) the weights a sub-graph keeps in GB (weights.h: W1 before
//             §4.3's allocation, W2 in what it leaves free) DDR → GB once per
//             cluster; its instances read them from GB (the GB → LB hoisting
//             is inside the kernel, §4.1, part of its traffic). Weights not
//             kept are read from DDR by every instance. Either way an instance
//             reads its region of each weight (its slice when the split
//             partitions the weight, e.g. a MatMul's output columns).
//   hoist     (option hoist, off by default) a part whose sub-graph's
//             weights are in GB gets a copy GB → LB of them on its cores
//             before it runs, into per-core LB buffers, when they fit beside
//             what the memory plan keeps live in LB at that position (core
//             0's count); otherwise its kernel reads them from GB. Off, the
//             hoisting stays inside the kernel as above.
//   overlap   (§4.4, Fig. 13; variant full only) a sub-graph's promotion is
//             issued when the sub-graph before it starts, bound to the cluster
//             but to no core, after the compute task issued last on that
//             cluster, so the DMA runs beside the previous layer's compute;
//             compute tasks queue per cluster and compute unit (Binding::stream =
//             cluster × units + the unit of the sub-graph's heaviest op class)
//             instead of per core, so instances on different units run side by
//             side; a part waits for the two parts before the previous one on its
//             cluster, and for the previous one unless they may overlap
//             (overlapWithNext, whose working sets the memory plan keeps
//             together); its loads into its working set (copies,
//             redistributions, concats) wait only for the parts whose space
//             that working set reuses, not for the previous one: the memory
//             plan keeps each working set with loads from the position before
//             (ordering.h), so they run while the previous part computes
//             (double-buffered LB) and nothing holds LB the plan did not count.
// Other variants (§5.3) promote weights on the instance's cores, in order.
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
    int redistributes = 0;
    int promotions = 0;            // weight promotions DDR → GB
    int overlappedPromotions = 0;  // of them, issued one sub-graph ahead (§4.4)
    int hoists = 0;                // weight hoists GB → LB as tasks (option hoist)
    double weightBytesFromGb = 0;  // weight bytes the compute tasks read from GB (kept there)
    double weightBytesFromDdr = 0; // and from DDR (not kept)
};

Expected<Lowered> lowerToPlan(Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                              const Ordering &ordering);

} // namespace tessera::graphturbo
