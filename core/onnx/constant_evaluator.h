// The constant evaluator of import-time folding (S9, fold_constants.cpp): runs
// one node all of whose present inputs carry inline data. Core cannot run ops
// itself; a backend installs its kernels here so that folding and running are
// one implementation of each op. registerReferenceBackend installs
// evaluateConstantNode (backends/reference/evaluate.h) explicitly, as every
// registration is. Without an evaluator, folding moves only metadata (Constant,
// Shape, Size).
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <functional>
#include <memory>
#include <vector>

namespace tessera {

// One TensorData per output of n (nullptr for an omitted one).
// ErrorCode::Unsupported: the evaluator cannot run this node (it stays in the
// graph); any other error is the node's fault (an index out of range).
using ConstantEvaluator =
    std::function<Expected<std::vector<std::shared_ptr<const TensorData>>>(const Graph &g, const Node &n)>;

void setConstantEvaluator(ConstantEvaluator evaluator); // process-wide; empty: none
const ConstantEvaluator &constantEvaluator();

} // namespace tessera
