// PCGC operator categories (pcgc §3.3, "the operators commonly used in deep
// learning are divided into the following ... categories").
//
// One table (categories.cpp) maps an ONNX op type to its category; a few
// entries depend on the node's parameters, as the paper says they may
// ("CONV1×1 is a two-phase operator and CONV5×5 is a complex operator"):
//   Conv          1×1 kernel → two-phase, larger kernels → complex;
//   Add/Sub/Mul/Div  every non-constant input has the output's shape →
//                 algebraic, otherwise (a tensor is broadcast) → broadcast.
// Choices where the paper is silent: Conv 3×3 is complex (Example 3 treats
// CONV1×1–CONV3×3 like CONV1×1–CONV5×5); shape-only ops (Reshape, Transpose,
// Flatten...) are broadcast ("if the shape of the tensor needs to be adjusted
// ... it is also counted in the broadcast operator"); Softmax and the
// normalisations that reduce over an axis are reductions; Concat, Split,
// Constant, opaque nodes and op types not in the table are infusible (never
// a silently wrong fusion).
#pragma once

#include "core/ir/graph.h"

#include <cstdint>
#include <string_view>

namespace tessera::pcgc {

// Declared in increasing "weight": a fused group takes the heaviest category
// of its members (groupCategory), infusible the heaviest of all.
enum class OpCategory : std::uint8_t { Algebraic, Broadcast, Reduction, TwoPhase, Complex, Infusible };

std::string_view categoryName(OpCategory c); // "algebraic", "two-phase", ...

// The category of one node (the table plus its parameter-dependent entries).
OpCategory categoryOf(const Graph &g, const Node &node);

// The heavier of two categories (the category of a group holding both).
inline OpCategory heavier(OpCategory a, OpCategory b)
{
    return static_cast<std::uint8_t>(a) >= static_cast<std::uint8_t>(b) ? a : b;
}

} // namespace tessera::pcgc
