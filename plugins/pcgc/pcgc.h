// PCGC: multilevel fusion-splitting rules with a cost model for time and
// energy (Dong et al., "PCGC: a performance compact graph compiler based on
// multilevel fusion-splitting rules", 2022; pcgc §3–§4).
//
// Pipeline (one file per step):
//   categories.{h,cpp}   §3.3 operator categories (one table)
//   fusionrules.{h,cpp}  §3.3 / Fig. 4 stable and prohibition rules (one table)
//   staticfusion.{h,cpp} §3.3 static fusion to a fixed point, fusion records
//   recut.{h,cpp}        §3.6 Algorithm 2, dynamic re-cutting at the records
//   lowering.{h,cpp}     the sub-graphs as PlanBuilder kernels
//   gui/pcgcgui.{h,cpp}  dock: rule firings, re-cutting table (time, energy)
// Not implemented yet: §3.4 parallel processing and cross-boundary rewrites,
// and §3.5 Algorithm 1 (the learned cost model).
//
// The cost model. The paper trains a semi-supervised regressor per device
// (XGBoost-style trees on op features, 10 % of ops measured, Algorithm 1).
// Here the analytic shared DeviceCostModel (core/cost/devicecost.h) stands in
// for it: it predicts both quantities the re-cutting compares — time
// (TaskCost::timeNs) and energy (TaskCost::energyJ, from the device's
// pJ/op, pJ/byte and static power) — for any fused group without measuring;
// it is the model every other scheduler's plan is costed with, so PCGC's
// choices and its plan's estimate agree; and it is deterministic, so
// overrides replay. A learned model would plug in at recut.cpp's metrics().
//
// Options: objective = time | energy (Algorithm 2's Target), cap (H as a
// factor of the static-fusion result's other metric; ≤ 0 = none).
// Decisions: "pcgc.fuse" per legal static fusion, "pcgc.split" per group
// with split points.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerPcgcPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createPcgcScheduler();
} // namespace tessera
