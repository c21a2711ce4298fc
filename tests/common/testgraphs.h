// Small hand-built graphs shared by tests (no importer involved).
#pragma once

#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tessera::testgraphs {

// Adds a float tensor.
TensorId tensor(Graph &g, const std::string &name, Shape shape, Tensor::Kind kind = Tensor::Kind::Intermediate);
// Adds a constant f32 initializer filled with a deterministic pattern.
TensorId weight(Graph &g, const std::string &name, Shape shape);
// Adds a constant 1-D int64 initializer holding `values` (shapes, axes, bounds).
TensorId ints(Graph &g, const std::string &name, const std::vector<std::int64_t> &values);
// Adds a node with one output of the given shape; returns the output tensor.
TensorId op(Graph &g, const std::string &name, const std::string &opType, std::vector<TensorId> inputs, Shape outShape,
            AttrMap attrs = {});

// x[1,8,16,16] -> conv3x3(8) -> relu -> conv3x3(8) -> add(x) -> relu, `blocks` times.
Graph residualChain(int blocks);
// Two branches from one input, joined: x -> {a: relu, b: sigmoid -> tanh} -> add.
Graph diamond();
// n independent Relu branches on one input, concatenated (width n).
Graph fan(int n);
// A k×k convolution (same padding) of `in` [1, cin, 28, 28] to [1, cout, 28, 28].
TensorId conv28(Graph &g, const std::string &name, TensorId in, std::int64_t cin, std::int64_t cout, std::int64_t k);
// ios thesis Fig. 3.4 (1) with convolutions, each operator a unit of its own:
// x -> a -> b, x -> c (three ops, six DP states).
Graph fig34();

} // namespace tessera::testgraphs
