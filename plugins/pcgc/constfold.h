// PCGC constant folding (pcgc §3.4, item 2 "Constant folding"): "If most of
// the inputs on which a calculation depends are constants, the result is
// calculated directly, replacing the nodes in the graph."
//
// foldConstant(state, n), asked by the cross-boundary traversal
// (crossboundary.h) at node n: n folds when every input it has is constant —
// an initializer or the output of a node folded before it in the traversal —
// and its op is deterministic and known (not opaque, not a random generator).
// Choice where the paper is vague: "most of the inputs" is read as "all":
// with one varying input the result cannot be calculated before the input
// arrives (folding the constant part of such a node is an op rewrite the IR
// does not express). A node whose output is a graph output folds too.
// A folded node leaves its sub-graph for the one group of folded nodes
// (FusedGroup::folded), which has no inputs but constants and so cannot
// close a cycle. The lowering makes it one kernel, issued first, strategy
// "pcgc-folded", with no per-inference cost: it is computed once when the
// plan is loaded. (No plan field says "once" yet: a backend runs it with the
// rest, which gives the same values; the estimate leaves it out.)
// Decision "pcgc.fold": fold (cost 0 per inference) or keep (the node's
// time); trace step "cross-boundary / constant folding".
#pragma once

#include "plugins/pcgc/crossboundary.h"

namespace tessera::pcgc {

// True when n was folded (it is then in the folded group).
bool foldConstant(RewriteState &state, NodeId n);

} // namespace tessera::pcgc
