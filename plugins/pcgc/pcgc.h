// PCGC: multilevel fusion-splitting rules with a cost model for time and
// energy (Dong et al., "PCGC: a performance compact graph compiler based on
// multilevel fusion-splitting rules", 2022; pcgc §3–§4).
//
// Pipeline (one file per step):
//   categories.{h,cpp}   §3.3 operator categories (one table)
//   fusionrules.{h,cpp}  §3.3 / Fig. 4 stable and prohibition rules (one table)
//   staticfusion.{h,cpp} §3.3 static fusion to a fixed point, fusion records
//   recut.{h,cpp}        §3.6 Algorithm 2, dynamic re-cutting at the records
//   parallel.{h,cpp}     §3.4 parallel processing: virtual units, waves, streams
//   lowering.{h,cpp}     the sub-graphs as PlanBuilder kernels, wave by wave
//   features, regressor, costlearn, learnedcost   §3.5 Algorithm 1, the learned
//                        time and power model (XGBoost, behind regressor.cpp)
//   crossboundary, constfold, cse, inlining   §3.4 cross-boundary rewrites
//   pcgccommands.{h,cpp} tessera-cli pcgc-train
//   projectmodels        learned models kept in the project file
//   gui/pcgcgui.{h,cpp}  dock: rule firings, fusion records, re-cutting table
//                        (time, energy), the learned model's scatter
//
// The cost model. By default (cost_model=analytic) the analytic shared
// DeviceCostModel (core/cost/devicecost.h) answers the re-cutting: it
// predicts both quantities the re-cutting compares — time (TaskCost::timeNs)
// and energy (TaskCost::energyJ, from the device's pJ/op, pJ/byte and static
// power) — for any fused group without measuring, and it is the model every
// other scheduler's plan is costed with. With cost_model=learned the
// re-cutting asks the learned model of §3.5 (learnedcost.h), trained by
// `tessera-cli pcgc-train` and loaded from the user's data folder (or
// model_file). Fallback: when that model is missing, corrupt, foreign, made
// for another device or version of it, or XGBoost is not built in, a trace
// step ("cost model — analytic DeviceCostModel (fallback)") gives the reason,
// stats learned_model = 0, and the analytic model is used. The plan's
// per-task estimates always come from request.cost (the shared model), so
// PCGC's plans compare with every other scheduler's.
//
// Options: target = time | power (Algorithm 2's Target; power minimises the
// energy of one inference, "energy" is a synonym), h (H as a factor of the
// static-fusion result's other metric; 0 = none), margin (the gain a split
// must be predicted to make, recut.h; -1 = the learned model's held-back
// error), parallel (§3.4 streams), cross_boundary, cost_model = analytic |
// learned, model_file.
//
// Bad input (each a Status naming the cause, never a silently wrong plan):
// target=power on a device without a power model (every energy is 0 J;
// target=time still runs, with the cap on energy dropped and a trace step
// saying so); an h no plan the re-cutting reaches meets (h < 1 only; the
// message gives H and what was reached); a missing, corrupt or foreign
// learned model falls back to the analytic model as above.
// Decisions: "pcgc.fuse" per legal static fusion, "pcgc.target" and
// "pcgc.h" (the options' values preferred), "pcgc.split" per group with split
// points, "pcgc.parallel" per wave of independent sub-graphs, and the
// cross-boundary rewrites ("pcgc.fold", "pcgc.cse", "pcgc.inline").
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
void registerPcgcPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createPcgcScheduler();
} // namespace tessera
