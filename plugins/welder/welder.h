// Welder (welder-osdi23): tile-graph scheduling of memory traffic across the memory hierarchy.
//
// The scheduler "welder" runs the two-step algorithm of Fig. 7 on the tile-graph of §3.1:
//   1. graph connecting (graphconnecting.h): every edge's connection level, a decision each;
//   2. sub-graph tiling (subgraphtiling.h, kernelcost.h): the output tile of every fused kernel
//      among its top-k candidates, refined level by level, a decision each;
// then lowers the hierarchical tile-graph to an ExecutionPlan (lowering.h). Memory levels:
// memlevels.h; Propagate / MemFootprint / MemTraffic: propagate.h.
// Options: topk, budget (tiles evaluated per sub-graph), threads (§4.2), max_tasks (per kernel), reuse
// (start from the last schedule's tilings when model, device, cost model and search are the same:
// a replay after an override), variant (§5.2's ablation: "welder" every level, "none" no
// inter-operator connection, "base" the register/top level only).
// Speed (§4.2 "compilation speedup"): level-0 tilings are cached by sub-graph signature, tilings
// above level 0 by signature and domain, index-map propagation per (node, output tile), the
// trials of one edge share the merged sub-graph's propagations, candidates are refined on
// `threads` threads and, in a search that does not start from reused tilings, the trials of one
// edge that need a new tiling search concurrently (deterministic for any thread count; the cancel
// flag is read between tiles). A replay keeps the
// kernels already lowered (lowering.h LoweringCache) and the SetConnect trials of the edges before
// the first changed choice (kernelcost.h ConnectJournal) with the tilings. §5.4: a device whose slowest level has kind
// host schedules through host memory (memlevels.h). Stats also give the traffic at levels 0 and 1 before and after
// connecting.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerWelderPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createWelderScheduler();
} // namespace tessera
