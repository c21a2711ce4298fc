// PCGC dynamic re-cutting of sub-graphs (pcgc §3.6, Algorithm 2).
//
// A worklist G of fused groups (line 2, taken in topological order). For a
// group g the candidate split points R_g (line 4) are its fusion records
// that are not stable and lie wholly inside g; splitting at record r cuts g
// into the record's producer side and the rest. The objective's cost of g
// whole (line 9) is compared with the sum of its two parts (line 12); a
// split is admissible only when the whole model's other metric after it
// stays below H (line 13) and the parts form no cycle with the other groups
// (§3.3 B2). The best admissible split strictly below the unsplit cost is
// taken and both parts re-queued (lines 22–23); else g is final (line 19).
//
// Costs: each group as one kernel alone on the device, from `cost`: the
// shared DeviceCostModel (request.cost), or with cost_model=learned the
// learned model of §3.5 (learnedcost.h; see pcgc.h for the fallback):
// time = TaskCost::timeNs, energy = TaskCost::energyJ. The whole model's
// metric is the sum over groups (kernels run one after another).
// H = cap × the other metric of the static-fusion result (cap ≤ 0: no cap);
// a split that would push the other metric over H is listed but illegal.
// Every group with candidates is a decision "pcgc.split" (keep, or split at
// one record), preferred = Algorithm 2's choice; each split a trace step
// with time and energy before and after.
//
// The margin (our choice; the paper compares "cost < min" exactly, line 13).
// A learned model predicts each kernel with a typical relative error e (its
// held-back MAPE, learnedcost.h: 6–10 % for time on the simulator). A split
// compares two independent predictions (the whole, the sum of the parts), so
// its predicted gain carries about √2·e of error, and taking the best of a
// group's several records picks the most favourable error. Checked against
// the simulator (bench_pcgc --confirm, BENCHMARKS.md 2026-11-27): with the
// exact comparison every split the learned model made on ResNet-50,
// Inception-v3 and BERT-base (predicted gains 0.6–23 %) was slower or cost
// more energy when the group and its parts ran alone (+0.4 to +12 %). §3.6
// and Example 5 split where the cost model finds that fusion *increases*
// time or power — a real effect, not the model's noise — so a split is taken
// only when its predicted target is below (1 − margin) × the group whole.
// pcgc.cpp sets the margin to 2 e for the target (energy: 2 (e_time +
// e_power), as energy = power × time), 0 for the analytic model, whose
// estimates are the plan's own.
// A split better than keeping but within the margin stays a legal option of
// the decision (the user can still force it) and the trace step says so.
//
// Unmet H. When the other metric after re-cutting exceeds H (possible only
// with cap < 1: the static-fusion plan itself meets any cap ≥ 1), hMet is
// false; pcgc.cpp refuses the request with a message naming H and what the
// re-cutting reached — never a plan that silently breaks the cap.
#pragma once

#include "core/cost/costmodel.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/pcgc/partition.h"

namespace tessera::pcgc {

enum class Objective : std::uint8_t { Time, Energy };

struct RecutOptions {
    Objective objective = Objective::Time;
    double cap = 1.1;    // H as a factor of the other metric after static fusion; ≤ 0: none
    double margin = 0.0; // a split must cost < (1 − margin) × the group whole (the model's error)
};

struct RecutResult {
    std::int32_t splits = 0;
    std::int32_t withinMargin = 0;              // groups kept: the best split's gain was below the margin
    double timeNsBefore = 0, energyJBefore = 0; // Σ over groups, after static fusion
    double timeNsAfter = 0, energyJAfter = 0;   // Σ over groups, after re-cutting
    double h = 0;                               // H (infinite without a cap)
    bool hMet = true;                           // the other metric after re-cutting ≤ H
};

// Re-cuts `partition` in place (its groups; records stay as the history).
RecutResult recut(const Graph &g, const CostModel &cost, Partition &partition, const RecutOptions &options,
                  DecisionContext &decisions, Trace &trace);

} // namespace tessera::pcgc
