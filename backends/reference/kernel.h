// The reference backend's kernel contract (internal to backends/reference).
//
// One NodeKernel per graph node, prepared once at compile time: attributes are
// parsed, geometry is fixed from the graph's static shapes and element types
// are checked, so a node the backend cannot run fails compile() with a Status
// naming it. At run time the kernel is asked for the elements of one output
// inside a region (a tile, a half-open box) and reads its inputs in full.
//
// Determinism: every kernel computes each output element with the same
// arithmetic in the same order whatever the region, so a plan's tiles and
// instance splits give results bit-identical to computing whole tensors.
//
// The helpers below are the building blocks the kernel families share:
// row-major strides, iteration over a region row by row, broadcasting,
// sliding-window geometry (Conv/ConvTranspose/pools) and element conversion.
#pragma once

#include "core/ir/graph.h"
#include "core/ops/ops.h"
#include "core/support/status.h"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tessera::reference {

// A tensor's host storage: full-size, row-major, packed. `shape` is null for an
// omitted optional input, an output other than the one being computed, and an
// input the op does not read that no earlier task has produced.
template <typename Byte> struct BasicView {
    DType dtype = DType::Undefined;
    const Shape *shape = nullptr;
    Byte *data = nullptr;

    bool present() const { return shape != nullptr; }
    template <typename T> auto *as() const
    {
        if constexpr (std::is_const_v<Byte>)
            return reinterpret_cast<const T *>(data);
        else
            return reinterpret_cast<T *>(data);
    }
};
using InView = BasicView<const std::uint8_t>;
using OutView = BasicView<std::uint8_t>;

struct KernelArgs {
    std::vector<InView> in;   // one per node input
    std::vector<OutView> out; // one per node output
};

class NodeKernel
{
public:
    virtual ~NodeKernel() = default;
    // Writes the elements of output `output` inside `region` (within its shape).
    // Fails only on data-dependent problems (a Gather index out of range, an
    // integer division by zero).
    virtual Status compute(const KernelArgs &args, int output, const ops::Region &region) const = 0;
};

using KernelPtr = std::unique_ptr<NodeKernel>;
using KernelFactory = Expected<KernelPtr> (*)(const Graph &g, const Node &n);

struct KernelEntry {
    std::string_view op;
    KernelFactory make;
};

// Prepares the kernel of node n: Unsupported (naming the node) for an op, an
// attribute value or an element type the reference backend does not run.
Expected<KernelPtr> makeKernel(const Graph &g, const Node &n);
std::vector<std::string_view> kernelOps(); // sorted

// One table per family file (kernels/*.cpp).
std::span<const KernelEntry> convKernels();
std::span<const KernelEntry> matmulKernels();
std::span<const KernelEntry> elementwiseKernels();
std::span<const KernelEntry> mathKernels();
std::span<const KernelEntry> indexedKernels();
std::span<const KernelEntry> lossKernels();
std::span<const KernelEntry> poolKernels();
std::span<const KernelEntry> normKernels();
std::span<const KernelEntry> reduceKernels();
std::span<const KernelEntry> movementKernels();
std::span<const KernelEntry> shapeKernels();
std::span<const KernelEntry> resizeKernels();
std::span<const KernelEntry> quantKernels();
std::span<const KernelEntry> recurrentKernels();
std::span<const KernelEntry> nmsKernels();
std::span<const KernelEntry> uniqueKernels();

// --- preparing ------------------------------------------------------------------

// "<op>: <message>" at the node, ErrorCode::Unsupported.
Status unsupported(const Node &n, const std::string &message);
// Input i's tensor (must be present) and its shape / type.
const Tensor &inTensor(const Graph &g, const Node &n, std::size_t i);
const Tensor &outTensor(const Graph &g, const Node &n, std::size_t i);
bool hasInput(const Node &n, std::size_t i);
// Fails unless input i (when present) has one of `types`.
Status expectType(const Graph &g, const Node &n, std::size_t i, std::initializer_list<DType> types);
// Values of a constant input with inline data (axes, pads, scales).
Expected<std::vector<std::int64_t>> constInts(const Graph &g, const Node &n, std::size_t i);
Expected<std::vector<double>> constFloats(const Graph &g, const Node &n, std::size_t i);
// An axis in [-rank, rank - 1 + extra] made non-negative (as core/ops reads axes).
Expected<std::int64_t> normAxis(const Node &n, std::int64_t axis, std::int64_t rank, std::int64_t extra = 0);

// --- iterating ------------------------------------------------------------------

std::vector<std::int64_t> stridesOf(const Shape &s); // row-major element strides
// Strides of `in` seen through the numpy (right-aligned) broadcast to `out`:
// 0 along broadcast and missing dims.
std::vector<std::int64_t> broadcastStrides(const Shape &out, const Shape &in);
std::int64_t dot(std::span<const std::int64_t> idx, std::span<const std::int64_t> strides);

// MatMul's numpy geometry, shared by every matrix-product kernel (MatMul,
// MatMulInteger, QLinearMatMul): A [batch..., M, K] · B [batch..., K, N] =
// Y [batch..., M, N], a 1-D A read as [1, K] and a 1-D B as [K, 1] (their
// unit dimension absent from Y), batch dims broadcast.
struct MatMulGeometry {
    MatMulGeometry(const Shape &a, const Shape &b, const Shape &y);

    // A tile of Y split into its batch box and its row and column intervals.
    ops::Region batchTile(const ops::Region &r) const
    {
        return ops::Region(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(batch.size()));
    }
    ops::Interval rows(const ops::Region &r) const { return aVector ? ops::Interval{0, 1} : r[batch.size()]; }
    ops::Interval cols(const ops::Region &r) const { return bVector ? ops::Interval{0, 1} : r.back(); }
    // Element offsets of the matrices at batch index idx.
    std::int64_t aOffset(std::span<const std::int64_t> idx) const { return dot(idx, aBatch) * m * k; }
    std::int64_t bOffset(std::span<const std::int64_t> idx) const { return dot(idx, bBatch) * k * n; }
    std::int64_t yOffset(std::span<const std::int64_t> idx) const { return dot(idx, yStrides); }

    Shape batch;
    bool aVector = false, bVector = false;
    std::int64_t m = 1, k = 0, n = 1;
    std::vector<std::int64_t> aBatch, bBatch, yStrides; // batch strides in matrices; Y's in elements
};

// The innermost interval of a region (rank 0: the one element [0, 1)).
inline ops::Interval innerOf(const ops::Region &r)
{
    return r.empty() ? ops::Interval{0, 1} : r.back();
}

// Calls f(idx) for every index of box `r` whose dimensions >= `fixedFrom` stay
// at their interval's first index, in row-major order. An empty box calls
// nothing; a rank-0 box calls once with an empty idx.
template <typename F> void forEachPrefix(const ops::Region &r, std::size_t fixedFrom, F &&f)
{
    for (const ops::Interval &i : r)
        if (i.empty())
            return;
    std::vector<std::int64_t> idx(r.size());
    for (std::size_t d = 0; d < r.size(); ++d)
        idx[d] = r[d].begin;
    for (;;) {
        f(std::span<const std::int64_t>(idx));
        std::size_t d = std::min(fixedFrom, r.size());
        while (d > 0 && ++idx[d - 1] == r[d - 1].end) {
            idx[d - 1] = r[d - 1].begin;
            --d;
        }
        if (d == 0)
            return;
    }
}

// Every index of `r`.
template <typename F> void forEachIndex(const ops::Region &r, F &&f)
{
    forEachPrefix(r, r.size(), f);
}

// One call per row of `r` (the last dimension at its first index).
template <typename F> void forEachRow(const ops::Region &r, F &&f)
{
    forEachPrefix(r, r.empty() ? 0 : r.size() - 1, f);
}

// Calls f(offset) for every element of box `r` in row-major order, where
// offset = base + Σ idx[d] * strides[d].
template <typename F>
void forEachOffset(const ops::Region &r, std::span<const std::int64_t> strides, std::int64_t base, F &&f)
{
    forEachRow(r, [&](std::span<const std::int64_t> idx) {
        const ops::Interval in = innerOf(r);
        const std::int64_t step = r.empty() ? 0 : strides.back();
        std::int64_t off = base + dot(idx, strides);
        for (std::int64_t i = in.begin; i < in.end; ++i, off += step)
            f(off);
    });
}

// Maximal contiguous runs (offset, length) of box `r` in a row-major tensor of
// shape `s`: trailing dimensions the box covers whole merge into longer runs.
struct Run {
    std::int64_t offset = 0, length = 0;
};
std::vector<Run> contiguousRuns(const ops::Region &r, const Shape &s);
// Flat row-major offsets in shape `s` of every element of box `r`, in order.
std::vector<std::int64_t> boxOffsets(const ops::Region &r, const Shape &s);

// --- sliding windows ----------------------------------------------------------

// One spatial axis of Conv/ConvTranspose/pooling: output o reads input
// o*stride + k*dilation - padBegin for taps k (transposed: the inverse).
struct Window {
    std::int64_t in = 0, out = 0, taps = 1, stride = 1, dilation = 1, padBegin = 0, padEnd = 0;
};

// Forward windows (Conv, MaxPool, AveragePool) for the node's spatial axes, with
// the output extents taken from the graph: pads from `pads` (NOTSET), split
// as ONNX's SAME_UPPER/SAME_LOWER do, or 0 (VALID).
Expected<std::vector<Window>> forwardWindows(const Node &n, const Shape &inSpatial, const Shape &outSpatial,
                                             const Shape &kernel);

// --- Resize ---------------------------------------------------------------------

// Resize/Upsample's interpolation per axis (kernels/resize.cpp; the CPU
// backend computes the same sums): per output index the input taps (index
// clamped to the axis, times the axis' row-major stride) and their weights,
// and whether the coordinate leaves the input (tf_crop_and_resize: the
// output is the extrapolation value).
struct ResizeTap {
    std::int64_t offset = 0;
    double weight = 1;
};
struct ResizeAxis {
    std::vector<std::vector<ResizeTap>> taps; // per output index
    std::vector<bool> outside;
};
struct ResizeTaps {
    std::vector<ResizeAxis> axes; // per dim
    float extrapolation = 0;
};
Expected<ResizeTaps> resizeTaps(const Graph &g, const Node &n);

// --- element conversion ----------------------------------------------------------

float halfToFloat(std::uint16_t h);
std::uint16_t floatToHalf(float f); // round to nearest even
// Numeric element i of a tensor of type t as double, and back (saturating
// nothing: C++ conversion rules; bool is != 0).
double loadNumber(DType t, const std::uint8_t *data, std::int64_t i);
void storeNumber(DType t, std::uint8_t *data, std::int64_t i, double v);
bool isNumeric(DType t); // every type but Undefined and String

} // namespace tessera::reference
