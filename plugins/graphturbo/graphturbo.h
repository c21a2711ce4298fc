// GraphTurbo (graphturbo-osdi23 §2-§4): scheduling a DNN graph for a DSA as
// sub-graph instances that keep their tensors in the cores' local buffers.
//
// The pipeline, one file per step:
//   S1 splitinfo.h  Algo. 1 SplitInfo, Eq. (1) BestSplit, recomputation check (§3.1)
//   S2 grouping.h   Algo. 2 straight/diamond/branch merges, rules (i), (ii) (§3.2)
//   S3 instances.h  split into instances, redundant-edge elimination (§3.3)
//   S4 ordering.h   Algo. 3 BFS and DFS orders, the better LB utilisation (§3.3)
//   S4b scopes.h    Algo. 4 core bindings (binding.h) and buffer scopes (§3.4)
//   S5 weights.h    weights kept in GB across a sub-graph's instances (§4.4)
//      memory.h     allocation, reuse and longest-liveness spilling (§4.3),
//                   GB less the kept weights
//   S6 lowering.h   instances bound to cores, buffers at LB/GB/DDR, concat,
//                   copy and redistribution tasks (§3.5, Fig. 9), weight
//                   promotion and across-layer overlap (§4.4, Fig. 13)
// Clusters (§2.1): the batch (output dim 0) of every sub-graph whose batch
// divides by the clusters is spread over them, each cluster running the same
// instances on its share ("our work studies how a DNN model is scheduled
// within one cluster"); SplitInfo sizes one cluster's share. Option
// clusters=1 is the paper's one-cluster view. Option variant (§5.3, Fig. 15):
// llb, l1, split, full (the default). Not implemented: §5.1's search for
// batches per cluster and in-cluster loops; §4.1's anchor op and tile sizes
// inside an instance (the cost model prices a sub-graph instance as one kernel).
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerGraphturboPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createGraphTurboScheduler();
} // namespace tessera
