// astitch: the AStitch baseline of graphturbo-osdi23 §5.2 ("We reproduce the
// functionality of AStitch for STCP920 by maximally preserving tensors in L1.
// However, AStitch does not split a sub-graph into instances"; AStitch itself
// is Zheng et al., ASPLOS'22, which stitches memory-intensive ops).
//
// The pipeline, one file per step:
//   A1 stitching.h  memory-intensive ops stitched into kernels, compute-
//                   intensive ops (convolutions, matmuls) one kernel each
//   A2 parts.h      kernels spread over the clusters along the batch (§2.1)
//   A3 levels.h     every kernel output and working set kept in L1/LB as far
//                   as possible: liveness, reuse and longest-liveness spilling
//                   LB → GB → DDR (core/sched/levelassign.h, shared with
//                   GraphTurbo's §4.3)
//   A4 lowering.h   one compute task per kernel and cluster part, on all of
//                   the cluster's cores, no instance split
// Options: clusters (0 = all), cores (0 = a cluster's). Not modelled: weight
// promotion ahead of use and across-layer overlap (GraphTurbo's §4.4), which
// AStitch does not do.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerAstitchPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createAstitchScheduler();
} // namespace tessera
