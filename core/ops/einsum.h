// Einsum's equation resolved against a node's inputs, shared by core/ops
// (shapes, index map) and the backends (kernels). Definition in einsum.cpp.
#pragma once

#include "core/ops/ops.h"

namespace tessera::ops {

// Einsum's equation resolved against its inputs' shapes (core/ops/einsum.cpp):
// every subscript letter and every broadcast ("...") dim is a label; inputs[i]
// lists the label of each dim of input i, output the labels of the output's
// dims, extents the extent of each label (ellipsis dims broadcast numpy-style:
// an input dim of extent 1 under a longer label is read at 0).
struct EinsumSpec {
    std::vector<std::vector<int>> inputs;
    std::vector<int> output;
    std::vector<std::int64_t> extents; // indexed by label
};
Expected<EinsumSpec> einsumSpec(const Graph &g, const Node &n);

} // namespace tessera::ops
