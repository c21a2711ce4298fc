// The sample builders' toolkit: ModelBuilder, ScopeGuard and saveModel live in
// core/onnx/modelbuilder.h (plugins build models from their papers' graph
// descriptions with them too); the sample networks name them from here.
#pragma once

#include "core/onnx/modelbuilder.h"

namespace tessera::samples {
using tessera::ModelBuilder;
using tessera::saveModel;
using tessera::ScopeGuard;
} // namespace tessera::samples
