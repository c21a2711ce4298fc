// PCGC static fusion (pcgc §3.3, "Static Fusion").
//
// Traverses the graph in reverse topological order from the outputs; at each
// node, for each input produced by another group, tries to fuse that
// producer group into the node's group. A fusion needs the basic criteria:
//   B1 data dependence — the two groups share an edge (they do: the input);
//   B2 no directed cycle between sub-graphs — no path from the producer
//      group to the consumer group through a third group;
//   B3 fits on chip — the fused group's intermediates (tensors produced and
//      consumed only inside it) fit in the device's largest on-chip memory
//      level (every level but the slowest; its total capacity), so it runs
//      "without moving data from the main memory". An intermediate read only
//      by algebraic and broadcast operators is not counted: they consume it
//      tile by tile as it is produced (our choice; the paper does not say
//      how the resources are measured);
// and then the rule table (fusionrules.h): prohibited pairs are refused,
// stable and cost-evaluated pairs fuse. Passes repeat until one fuses
// nothing (the fixed point: "until there is no operator in the graph that
// can be fused"), level by level (FusionRule::level: epilogues, then
// prologues of reductions, then the cost-evaluated rest; our reading of
// "multilevel": without it the reverse traversal fuses a ReLU into the
// convolution after it before CONV+RELU is ever looked at). Every fusion is a FusionRecord; every rule
// firing and refusal a trace step; every legal fusion a decision ("pcgc.fuse", options fuse / keep-apart, preferred
// fuse — the greedy strategy of §3.3). A (producer, consumer) pair is judged once: it is judged again only after one
// side has changed, so decision keys stay unique and the loop ends. Assumes: g is a DAG (topologicalOrder succeeds).
#pragma once

#include "core/hw/device.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/pcgc/partition.h"

#include <atomic>

namespace tessera::pcgc {

// Bytes the on-chip levels hold (B3's budget): the largest total capacity of
// any level but the slowest; 0 when the device has a single level.
std::int64_t onChipBudget(const Device &device);

Partition staticFusion(const Graph &g, const Device &device, DecisionContext &decisions, Trace &trace);

} // namespace tessera::pcgc
