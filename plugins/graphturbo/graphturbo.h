// GraphTurbo (graphturbo-osdi23 §2-§4): scheduling a DNN graph for a DSA as
// sub-graph instances that keep their tensors in the cores' local buffers.
//
// The pipeline, one file per step:
//   S1 splitinfo.h  Algo. 1 SplitInfo, Eq. (1) BestSplit, recomputation check (§3.1)
//   S2 grouping.h   Algo. 2 straight/diamond/branch merges, rules (i), (ii) (§3.2)
//   S3 instances.h  split into instances, redundant-edge elimination (§3.3)
//   S4 ordering.h   Algo. 3 BFS and DFS orders, the better LB utilisation (§3.3)
//   S5 memory.h     allocation, reuse and longest-liveness spilling (§4.3)
//   S6 lowering.h   instances bound to cores (binding.h, §3.4 plain binding),
//                   buffers at LB/GB/DDR, concat and copy tasks (§3.5)
// Scope of this implementation: one cluster (§2.1: "our work studies how a DNN
// model is scheduled within one cluster"); batch allocation across clusters
// (§5.1), Algo. 4's binding inference, §4.4's across-layer scheduling and the
// §5.3 variants are not implemented.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerGraphturboPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createGraphTurboScheduler();
} // namespace tessera
