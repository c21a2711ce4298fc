// A graph at the precision a device runs it (the deployment precision of an
// inference chip: STCP920's matrix unit has no f32 rate): every float32 tensor
// retyped as `dtype`, its shape, producer, consumers and data left as they are.
//
// For timing, not for computing: a scheduler handed this graph sizes its
// buffers, working sets and traffic, and the cost model picks units and peaks,
// in the bytes and rates of the run, and a timing backend then runs the plan
// at that precision with nothing to rescale. The data of a retyped constant
// stays float32 (a functional backend must run the original graph).
// Assumes a float `dtype` (f16, bf16, f32); anything else returns the graph
// unchanged.
#pragma once

#include "core/ir/graph.h"

namespace tessera {

Graph atPrecision(const Graph &graph, DType dtype);

} // namespace tessera
