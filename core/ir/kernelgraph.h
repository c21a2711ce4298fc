// kernelGraph: some nodes of a graph as a graph of their own, so a backend
// can compile and time them as one kernel (core/backend/kernelmeter.h).
//
// What it keeps: the nodes (names, op types, attributes, opaque flags) in
// g's node order; every tensor they read or write, by name, shape and dtype.
// A tensor they read that none of them writes becomes a graph input, or an
// initializer sharing g's data when it is constant; a tensor they write
// becomes a graph output when g reads it outside the nodes or outputs it —
// and when nothing escapes, the last node's outputs do, so the kernel still
// computes something. Assumes `nodes` are distinct, in range and form a
// kernel (no path leaves the set and comes back); that is the scheduler's
// invariant, not checked here beyond what Graph::verify() sees.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <vector>

namespace tessera {

Expected<Graph> kernelGraph(const Graph &g, const std::vector<NodeId> &nodes);

} // namespace tessera
