// S9: constant folding at import (the algorithm, its steps F1-F4 and its
// bounds are described in fold_constants.cpp).
//
// Every default-domain node whose inputs are all constants is evaluated by the
// constant evaluator (constant_evaluator.h: the reference backend's kernels,
// so folding and running share one implementation of each op) and its outputs
// become initializers; Constant, Shape and Size fold without it. Random ops
// and DequantizeLinear never fold. Work is bounded: nothing with more than
// FoldOptions::maxElements elements is evaluated (the node stays). A folding
// failure, or a result whose shape contradicts the model's declared shape, is
// an error naming the node. Inside the importer, folding also computes the
// dims ONNX's inference left symbolic and names the node of a truly dynamic
// one (onnximport::foldConstants in internal.h).
// Assumes: every tensor has a static shape (importer S7).
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <atomic>
#include <cstdint>

namespace tessera {

struct FoldOptions {
    std::int64_t maxElements = std::int64_t(1) << 20;
    // Set: folding stops with ErrorCode::Cancelled (checked per node) soon after it turns true.
    const std::atomic<bool> *cancel = nullptr;
};

struct FoldStats {
    std::int64_t foldedNodes = 0;   // nodes replaced by initializers, Constant nodes included
    std::int64_t constantNodes = 0; // of which were Constant nodes
};

Expected<FoldStats> foldConstants(Graph &g, const FoldOptions &options = {});

} // namespace tessera
