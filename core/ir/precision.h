// A graph at the precision a device runs it (the deployment precision of an
// inference chip: STCP920's matrix unit has no f32 rate; DSAs run int8): every
// float32 tensor retyped as `dtype`, its shape, producer, consumers and data
// left as they are.
//
// For timing, not for computing: a scheduler handed this graph sizes its
// buffers, working sets and traffic, and the cost model picks units and peaks,
// in the bytes and rates of the run, and a timing backend then runs the plan
// at that precision with nothing to rescale. The data of a retyped constant
// stays float32 (a functional backend must run the original graph).
// Deployment precisions are f16, bf16, f32 and i8 (int8 as a fully quantized
// deployment runs it: activations and weights one byte each, accumulators in
// registers, so nothing the plan stores is wider); anything else returns the
// graph unchanged.
#pragma once

#include "core/ir/graph.h"

#include <optional>
#include <string_view>

namespace tessera {

Graph atPrecision(const Graph &graph, DType dtype);

// f16, bf16, f32 and i8.
bool isDeploymentPrecision(DType dtype);
// A precision as users write it: "fp32"/"f32", "fp16"/"f16", "bf16", "int8"/"i8";
// nullopt for anything else.
std::optional<DType> precisionFromName(std::string_view name);
// The names precisionFromName accepts, for messages: "fp32, fp16, bf16, int8".
std::string_view precisionNames();
// How users write `dtype` as a precision: "fp32", "fp16", "bf16", "int8".
std::string_view precisionName(DType dtype);

} // namespace tessera
