// A4: lowering to the ExecutionPlan (core/plan/plan.h; graphturbo-osdi23
// §5.2's AStitch on STCP920).
//
//   kernels  one per stitched kernel (strategy "astitch"), in issue order;
//   compute  one task per kernel part (A2), bound to its cluster and the
//            cluster's first `cores` cores (no instance split: one task is the
//            whole kernel of that cluster's share), no unit (each node runs on
//            the unit its class and dtype map to); stage = kernel position;
//   buffers  each escaping output per part at A3's level: LB as one buffer
//            per core (bytes spread evenly, scope = that core), GB per
//            cluster, DDR shared; the kernel's working set as scratch at its
//            level; graph inputs whole in DDR;
//   reads    a part reads the buffers of every producer part whose slab its
//            read region overlaps, and depends on those tasks.
// No data-movement tasks: a consumer reads its inputs in place at their level
// (cross-cluster tensors were pinned to DDR by A3), and the cost model prices
// each part at its input, output and working-set levels (KernelPlacement),
// weights read from DDR by every part (AStitch keeps no weights resident).
#pragma once

#include "plugins/astitch/levels.h"

namespace tessera::astitch {

Expected<ExecutionPlan> lowerToPlan(Context &ctx, const Stitching &st, const Levels &levels);

} // namespace tessera::astitch
