// Constant folding of shape-only subgraphs.
//
// Exporters spell static shape arithmetic out as nodes: PyTorch writes
// Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])). With static shapes
// (the importer resolved every symbolic dim) such chains are constants. This
// pass evaluates, in topological order, every default-domain node whose op is
// in the rule table below and whose inputs are constant (Shape and Size only
// need a static input shape), and turns its output into an initializer:
//   Constant, Shape, Size, Identity, Reshape, Flatten, Squeeze, Unsqueeze,
//   Gather, Concat, Slice  (data movement, any element type)
//   Add, Sub, Mul, Div, Range, Cast  (integer arithmetic on int64 values)
//   ConstantOfShape
// Work is bounded: nothing with more than FoldOptions::maxElements elements is
// built (Constant nodes only move existing data and always fold). Integer
// overflow or division by zero leaves the node alone. A result whose shape
// contradicts the model's declared shape is an error naming the node.
// Assumes: every tensor has a static shape (importer S7).
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>

namespace tessera {

struct FoldOptions {
    std::int64_t maxElements = std::int64_t(1) << 20;
};

struct FoldStats {
    std::int64_t foldedNodes = 0;   // nodes replaced by initializers, Constant nodes included
    std::int64_t constantNodes = 0; // of which were Constant nodes
};

Expected<FoldStats> foldConstants(Graph &g, const FoldOptions &options = {});

} // namespace tessera
