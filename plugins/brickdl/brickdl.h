// BrickDL (brickdl-icpp24 §3–§4): merged execution of several layers over
// small blocks of the feature maps ("bricks") so intermediate data stays in
// the on-chip level, per sub-graph either recomputing halos (padded bricks)
// or remembering finished bricks (memoized bricks).
//
// Pipeline (one file per step, subgraph.h lists them):
//   S1 partition (§3.3.1)      reverse traversal, cut points       partition.h
//   S2 brick size (§3.3.3)     ρ ≤ τ, library fallback             bricksize.h
//   S3 padded bricks (§3.2.1)  halo growth, Δ                      padded.h
//   S4 memoized bricks (§3.2.2) backtracking order, atomics        memoized.h
//   S5 choice (§3.3.2)         Δ > 15 % → memoized                 strategy.h
//      (each variant costed as one merged kernel, §4.3)              mergedcost.h
//   S6 lowering                brick tasks, barriers, buffers     lower.h
// Decisions: brickdl.cut (per node), brickdl.brick and brickdl.strategy (per
// sub-graph); overriding one replays the rest.
// Needs a device (its on-chip level and core count); graphs without spatial
// structure run entirely as library kernels, with the reason in the trace.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerBrickdlPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createBrickdlScheduler();
} // namespace tessera
