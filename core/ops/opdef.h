// Internal to core/ops: the table entry every op family provides (OpDef), the
// per-node context the family functions share (OpContext), and the index-map
// building blocks (tap windows, broadcasts, row-major re-indexing) from which
// the families assemble inputRegions() and axisMaps().
//
// Contract between ops.cpp and the families:
//  - ops.cpp checks the op's arity, attribute kinds and every input shape
//    (non-negative, extents <= kMaxExtent, element count fits int64) before any
//    family function runs, so families may index present inputs' shapes freely;
//  - infer() runs first; flops/regions/axes only run after it succeeded, with
//    its result in OpContext::outs and a tile already checked against it;
//  - regions() fills only the inputs the output reads (ops.cpp pre-fills every
//    entry as unused) and may leave empty intervals: ops.cpp canonicalizes.
#pragma once

#include "core/ops/ops.h"

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::ops::detail {

// Largest extent accepted for any dimension: sums and differences of a few
// extents, pads and strides then never overflow int64.
inline constexpr std::int64_t kMaxExtent = std::int64_t{1} << 52;
// Bound on exact per-tap loops (kernel taps, reshape runs); past it the
// index map falls back to a documented conservative hull.
inline constexpr std::int64_t kMaxLoop = std::int64_t{1} << 16;

struct OpContext {
    OpContext(const Graph &graph, const Node &node);

    const Graph &g;
    const Node &n;
    std::string prefix;           // lower-case op type for messages: "conv"
    std::vector<TensorType> outs; // set by ops.cpp after a successful infer()

    std::int64_t opset() const { return g.opsetVersion; }
    bool has(std::size_t input) const { return g.input(n, input) != nullptr; }
    const Tensor &in(std::size_t input) const; // must be present
    const Shape &shape(std::size_t input) const { return in(input).shape; }
    std::int64_t rank(std::size_t input) const { return static_cast<std::int64_t>(shape(input).size()); }

    // "conv: <message>" located at the node (and the input's tensor, if given).
    Status fail(const std::string &message) const;
    Status failAt(std::size_t input, const std::string &message) const;
    Status unsupported(const std::string &message) const;

    // Values of a constant integer / float input (shape tensors, axes, pads,
    // scales). Fails, naming the node and input, when the input is not a
    // constant with inline data.
    Expected<std::vector<std::int64_t>> constInts(std::size_t input, std::string_view what) const;
    Expected<std::vector<double>> constFloats(std::size_t input, std::string_view what) const;
    // Integer list from input `input` when present, else from attribute `attr`
    // (opset-dependent placement); nullopt when neither is given.
    Expected<std::optional<std::vector<std::int64_t>>> intsFromInputOrAttr(std::size_t input,
                                                                           std::string_view attr) const;

    // An axis in [-rank, rank - 1 + extra] made non-negative.
    Expected<std::int64_t> axis(std::int64_t value, std::int64_t rank, std::string_view what,
                                std::int64_t extra = 0) const;
    // A list of distinct axes, each normalized against `rank`.
    Expected<std::vector<std::int64_t>> axes(const std::vector<std::int64_t> &values, std::int64_t rank,
                                             std::string_view what) const;
};

struct AttrSpec {
    std::string_view name;
    Attribute::Kind kind;
};

struct OpDef {
    std::string_view type;
    int minInputs = 1, maxInputs = 1; // maxInputs -1: variadic; the first minInputs must be present
    int minOutputs = 1, maxOutputs = 1;
    std::span<const AttrSpec> attrs; // kinds checked up front; a Float attribute also accepts an Int
    Status (*infer)(const OpContext &, std::vector<TensorType> &outs);
    double (*flops)(const OpContext &);
    Status (*regions)(const OpContext &, int output, const Region &tile, std::vector<InputRegion> &in);
    void (*axes)(const OpContext &, int output, std::vector<InputAxes> &in);
};

// One table per family file, each with a header naming its ONNX semantics.
std::span<const OpDef> convOps();        // conv.cpp
std::span<const OpDef> poolOps();        // pool.cpp
std::span<const OpDef> elementwiseOps(); // elementwise.cpp
std::span<const OpDef> mathOps();        // math.cpp
std::span<const OpDef> indexedOps();     // indexed.cpp
std::span<const OpDef> lossOps();        // loss.cpp
std::span<const OpDef> matmulOps();      // matmul.cpp
std::span<const OpDef> normOps();        // norm.cpp
std::span<const OpDef> reduceOps();      // reduce.cpp
std::span<const OpDef> shapeOps();       // shape_ops.cpp
std::span<const OpDef> movementOps();    // movement.cpp
std::span<const OpDef> resizeOps();      // resize.cpp
std::span<const OpDef> quantOps();       // quant.cpp
std::span<const OpDef> recurrentOps();   // recurrent.cpp
std::span<const OpDef> einsumOps();      // einsum.cpp
std::span<const OpDef> nmsOps();         // nms.cpp
std::span<const OpDef> uniqueOps();      // unique.cpp
std::span<const OpDef> tfidfOps();       // tfidf.cpp

// --- arithmetic ---------------------------------------------------------------

std::int64_t floorDiv(std::int64_t a, std::int64_t b); // b > 0
std::int64_t ceilDiv(std::int64_t a, std::int64_t b);  // b > 0
// Checked a + b and a * b; nullopt on int64 overflow.
std::optional<std::int64_t> addChecked(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> mulChecked(std::int64_t a, std::int64_t b);
double elements(const Shape &s);                         // product as double (FLOP counts)
std::string dimsStr(const std::vector<std::int64_t> &v); // "3x3"

// --- per-dimension index maps ---------------------------------------------------

// One input dimension of an InputRegion: the unclipped hull of every position
// the taps touch, and the hull of the positions actually read.
struct DimRange {
    Interval region;
    Interval clipped;
};

DimRange identityDim(Interval o, std::int64_t size);                    // position = output index
DimRange fullDim(std::int64_t size);                                    // reduced / value-dependent dims
DimRange broadcastDim();                                                // extent-1 input dim: [0, 1)
DimRange offsetDim(Interval o, std::int64_t offset, std::int64_t size); // position = o + offset
// Positions o*stride + k*dilation - padBegin for o in `o`, k in [0, taps).
// Exact; the clipped hull falls back to region ∩ [0, size) only past kMaxLoop taps.
DimRange windowDim(Interval o, std::int64_t stride, std::int64_t dilation, std::int64_t taps, std::int64_t padBegin,
                   std::int64_t size);
// Transposed window: positions i with i*stride + k*dilation - padBegin = o.
DimRange transposedWindowDim(Interval o, std::int64_t stride, std::int64_t dilation, std::int64_t taps,
                             std::int64_t padBegin, std::int64_t size);
// Positions start + o*step (Slice).
DimRange stridedDim(Interval o, std::int64_t start, std::int64_t step);

InputRegion makeRegion(const std::vector<DimRange> &dims);
// Canonical form: if any interval of region (clipped) is empty, all of them are [0, 0).
void canonicalize(InputRegion &r);

// A quantization parameter (scale or zero point, optional input `input`):
// a scalar, or `perChannel` entries when perChannel > 0, of one of `types`
// (quant.cpp).
Status checkQuantParam(const OpContext &c, std::size_t input, std::string_view what, std::int64_t perChannel,
                       std::initializer_list<DType> types);

// An input read whole by every output element (quantization parameters,
// index data): full dims, each declared reduced.
InputRegion wholeRegion(const Shape &s);
InputAxes wholeAxes(const Shape &s);

// Numpy broadcasting (right-aligned) of `in` to `out`: extent-1 dims read [0, 1).
InputRegion broadcastRegion(const Region &tile, const Shape &out, const Shape &in);
InputAxes broadcastAxes(const Shape &out, const Shape &in);
// Multidirectional broadcast of all present inputs' shapes.
Expected<Shape> broadcastShapes(const OpContext &c, const std::vector<std::size_t> &inputs);

// Row-major re-indexing (Reshape, Flatten, Squeeze, Unsqueeze): exact hull of
// the input elements behind an output tile of a tensor with the same elements.
InputRegion reindexRegion(const Region &tile, const Shape &out, const Shape &in);
InputAxes reindexAxes(const Shape &out, const Shape &in);

AxisMap axisMap(int outputDim, int inputDim, std::int64_t stride = 1, std::int64_t offset = 0, std::int64_t window = 1);

} // namespace tessera::ops::detail
