// PCGC inline optimisation (pcgc §3.4, item 3 "Inline optimization"):
// "Expand the function nodes with small code and simple calculations, and
// delete the useless nodes."
//
// inlineSmall(state, grp), asked by the cross-boundary traversal
// (crossboundary.h) once the last node of sub-graph grp has been visited.
// A fused sub-graph is the "function": it is inlined — expanded into the one
// sub-graph that consumes its values, across the boundary static fusion left
// (a prohibition rule, basic criterion B3, or a re-cut) — when
//   small code:          at most kMaxInlineNodes nodes;
//   simple calculation:  every node algebraic or broadcast (categories.h:
//                        element-wise or shape-only, no reduction or window);
//   one consumer:        every node reading its values is in one other
//                        sub-graph, which is not infusible (Fig. 4 P1: it
//                        gains nothing) and not the folded constants, and
//                        none of its values is a graph output;
//   no cycle:            the merged sub-graphs still form a DAG.
// The consumer then computes the small sub-graph's values as it reads them:
// the intermediate tensor never goes to memory (which is why B3's on-chip
// limit, which assumes the intermediate is kept, does not apply).
// The decision "pcgc.inline" compares the cost model's time of the two
// kernels apart with the merged one, and prefers inline when merged is not
// slower (the cost model has the last word, as in the re-cutting, §3.6).
// An inlining adds a fusion record (rule "inline", not stable), so the views
// show it with the other fusions.
// Choices where the paper is vague: a sub-graph read by several sub-graphs
// is not duplicated into each (the plan would compute it several times;
// Task::recompute marks whole tasks, not nodes). "Delete the useless nodes":
// nodes whose values reach no graph output are not deleted — the plan
// computes every node of the model (core/plan/verify.h), and the importer
// drops unused outputs already.
#pragma once

#include "plugins/pcgc/crossboundary.h"

namespace tessera::pcgc {

inline constexpr std::size_t kMaxInlineNodes = 4;

// True when group grp was inlined into its consumer (grp is then empty).
bool inlineSmall(RewriteState &state, std::size_t grp);

} // namespace tessera::pcgc
