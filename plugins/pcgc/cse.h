// PCGC common-subexpression elimination (pcgc §3.4, item 4 "Common
// subexpression elimination"): "if several expressions have the same type,
// parameters, and input, they are called common subexpressions. ... only one
// of the expressions needs to be evaluated, and the values of the other
// expressions can be obtained by assignment. Record the calculation content
// that has been processed during the traversal process. If the calculation
// content to be processed is the same, directly replace the computational
// graph."
//
// eliminateCommon(state, n), asked by the cross-boundary traversal
// (crossboundary.h) at node n (not folded): "the calculation content" is
// (op type, domain, input tensors); RewriteState::seen records it for every
// node visited. When an earlier node m has the same content and
// sameComputation(m, n) holds (core/ir/analysis.h: also the attributes — the
// paper's "parameters" — and output types), n is obtained by assignment from
// m: n moves into m's sub-graph (across the fusion boundary when it was in
// another one) and Partition::assigned gets {n, m}; the lowering turns it
// into Kernel::assigned, which the verifier checks and the reference backend
// runs as a copy of m's values. m precedes n in the traversal, so it is
// listed first in their kernel.
// The move is refused when it would close a cycle between sub-graphs (a
// producer of n's consumers' other inputs depending on m's sub-graph...):
// the option is then listed illegal and n is computed.
// Choice where the paper is vague: the inputs must be the same tensors, so a
// chain of common subexpressions is found one link at a time only (n's
// consumers read n's tensor, not m's, and are not merged with m's).
// Decision "pcgc.cse": assign (the copy's cost) or compute (n's time).
#pragma once

#include "plugins/pcgc/crossboundary.h"

namespace tessera::pcgc {

// True when n was assigned from an equivalent node.
bool eliminateCommon(RewriteState &state, NodeId n);

} // namespace tessera::pcgc
