// The reference backend as the importer's constant evaluator
// (core/onnx/constant_evaluator.h): evaluateConstantNode runs node n, whose
// present inputs all carry inline data, with the NodeKernel a plan's task
// would run. Installed by registerReferenceBackend (app/registerbuiltins.cpp
// calls it in the CLI and the workbench); tests install it explicitly.
#pragma once

#include "core/onnx/constant_evaluator.h"

namespace tessera {

Expected<std::vector<std::shared_ptr<const TensorData>>> evaluateConstantNode(const Graph &g, const Node &n);

} // namespace tessera
