// Operator semantics in one place: for every supported op, output shapes,
// FLOPs, bytes moved and the index map (which input region an output tile
// needs). Welder's Propagate (welder-osdi23 §3.1), GraphTurbo's dimension
// matching (graphturbo-osdi23 Algo. 1 line 10) and BrickDL's padding
// (brickdl-icpp24 §3.2.1) are all built on inputRegions() and axisMaps().
//
// This header is the public contract; the per-op tables live in ops/*.cpp.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace tessera::ops {

// Half-open interval [begin, end) along one dimension.
struct Interval {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t size() const { return end > begin ? end - begin : 0; }
    bool empty() const { return end <= begin; }
    friend bool operator==(const Interval &, const Interval &) = default;
};
using Region = std::vector<Interval>; // one interval per dimension

Region fullRegion(const Shape &shape);
std::int64_t regionElements(const Region &r);

// What an output tile needs from one input.
struct InputRegion {
    Region region;  // in input coordinates, unclipped: may extend past the bounds into padding
    Region clipped; // region ∩ input bounds: the elements actually read
    // Both are hulls: of every position the taps touch, and of the positions
    // read. clipped ⊆ region always; clipped can be tighter than region ∩
    // bounds when strided or dilated taps skip the edge rows. Edge/reflect
    // padding and Resize read clamped or mirrored positions; region holds
    // those too. A region of rank >= 1 with nothing in it is all [0, 0).
    bool used = true; // false for inputs read only for their shape/values at compile time
                      // (or read only by the node's other outputs, e.g. Dropout's mask)
    friend bool operator==(const InputRegion &, const InputRegion &) = default;
};

// How one output dimension relates to one input dimension: output index o
// reads input indices [o*stride + offset, o*stride + offset + window) along
// inputDim (before clipping). Broadcast dims have stride 0, window 1.
struct AxisMap {
    enum class Kind : std::uint8_t { Identity, Affine, Broadcast };
    int outputDim = 0;
    int inputDim = 0;
    Kind kind = Kind::Identity;
    std::int64_t stride = 1;
    std::int64_t offset = 0;
    std::int64_t window = 1;
};

// Axis relations of one input: dims linked to output dims, and input dims that
// are reduced (read entirely for every output element, e.g. Conv's C_in, MatMul's K).
// When opaque is set, maps and reducedDims still list the dims that do have a
// simple relation (Gather's non-indexed dims, Reshape's untouched dims). An
// input dim that is neither mapped nor reduced in a non-opaque entry has
// extent 1 (e.g. dims Squeeze drops). Compile-time inputs (shapes, axes,
// pads, scales) are opaque with no maps.
struct InputAxes {
    std::vector<AxisMap> maps;
    std::vector<int> reducedDims;
    bool opaque = false; // some dim has no simple per-axis relation (Reshape across dims, Gather indices...)
};

struct OpCost {
    double flops = 0;              // multiply-add counts as 2
    std::int64_t bytesRead = 0;    // every input once (weights included)
    std::int64_t bytesWritten = 0; // every output once
    double arithmeticIntensity() const
    {
        const auto b = bytesRead + bytesWritten;
        return b > 0 ? flops / static_cast<double>(b) : 0.0;
    }
};

struct TensorType {
    DType dtype = DType::Float32;
    Shape shape;
    friend bool operator==(const TensorType &, const TensorType &) = default;
};

// Is opType one Tessera knows the semantics of? Unknown ops import as opaque nodes.
bool isKnownOp(std::string_view opType);
std::vector<std::string_view> knownOps(); // sorted

// Output types from the node's attributes and its input tensors' types (and the
// values of constant inputs such as Reshape's shape). Errors name the node.
Status inferShapes(const Graph &g, const Node &n, std::vector<TensorType> &outputs);

// Cost of one node with its current tensor shapes.
OpCost opCost(const Graph &g, const Node &n);

// The index map: for an output tile of output `outputIndex`, the region of each
// input (one entry per node input, omitted inputs get an empty region, used=false).
Expected<std::vector<InputRegion>> inputRegions(const Graph &g, const Node &n, int outputIndex, const Region &outTile);

// Per-input axis relations for output `outputIndex` (one entry per node input).
std::vector<InputAxes> axisMaps(const Graph &g, const Node &n, int outputIndex = 0);

} // namespace tessera::ops
