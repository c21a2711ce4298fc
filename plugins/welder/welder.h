// Welder (welder-osdi23): tile-graph scheduling of memory traffic across the memory hierarchy.
//
// The scheduler "welder" runs the two-step algorithm of Fig. 7 on the tile-graph of §3.1:
//   1. graph connecting (graphconnecting.h): every edge's connection level, a decision each;
//   2. sub-graph tiling (subgraphtiling.h, kernelcost.h): the output tile of every fused kernel
//      among its top-k candidates, refined level by level, a decision each;
// then lowers the hierarchical tile-graph to an ExecutionPlan (lowering.h). Memory levels:
// memlevels.h; Propagate / MemFootprint / MemTraffic: propagate.h.
// Options: topk, budget (tiles evaluated per sub-graph), threads (§4.2), max_tasks (per kernel), variant
// (§5.2's ablation: "welder" every level, "none" no inter-operator connection, "base" the
// register/top level only).
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerWelderPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createWelderScheduler();
} // namespace tessera
