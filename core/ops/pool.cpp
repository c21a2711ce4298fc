// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool (ONNX MaxPool-12,
// AveragePool-11, GlobalAveragePool-1, GlobalMaxPool-1; the global pair share
// shapes, index maps and FLOP counts: one compare or add per input element).
//
// Y[n, c, o] = reduce_{k} X[n, c, o*s + k*d - padBegin] over the window's
// taps; output extents per window.h (ceil_mode drops a last window that would
// start in the end padding, as the spec and onnxruntime do). MaxPool's
// optional Indices output (int64) has Y's shape and the same dependencies.
// AveragePool accepts `dilations` as later opsets define it. Padding taps are
// part of the unclipped region whether or not count_include_pad counts them.
// FLOPs: one per tap per output element (compare or add), plus one divide per
// AveragePool output; GlobalAveragePool one add per input and one divide per
// output element.
//
// MaxUnpool (ONNX MaxUnpool-11): X [N, C, D...] and I (int64, X's shape: the
// flat positions in Y, as MaxPool's Indices give them), optional
// output_shape (a constant); Y is zero but at Y.flat[I[i]] = X[i]. Y's
// extents: output_shape, else (in - 1)·stride + kernel - pads per spatial
// axis; with output_shape, I's positions stay flat positions of that
// default shape and each value lands at the same coordinates of the larger
// Y (as ONNX's test data place them). Index map: which elements land in a tile depends on I's values, so
// Y reads X and I whole. FLOPs: none (data movement).
#include "core/ops/window.h"

namespace tessera::ops::detail {

namespace {

Expected<std::vector<Window>> windows(const OpContext &c)
{
    const Shape &x = c.shape(0);
    if (x.size() < 3)
        return c.failAt(0, "input X has rank " + std::to_string(x.size()) + ", expected at least 3 (N x C x D1 ...)");
    const std::size_t k = x.size() - 2;
    auto kernel = readKernelShape(c, k, nullptr);
    if (!kernel)
        return kernel.status();
    auto attrs = readWindowAttrs(c, k);
    if (!attrs)
        return attrs.status();
    const std::int64_t ceilMode = c.n.attrInt("ceil_mode", 0);
    if (ceilMode != 0 && ceilMode != 1)
        return c.fail("ceil_mode " + std::to_string(ceilMode) + " is not 0 or 1");
    return forwardWindows(c, *attrs, Shape(x.begin() + 2, x.end()), *kernel, ceilMode == 1);
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    auto ws = windows(c);
    if (!ws)
        return ws.status();
    Shape s{c.shape(0)[0], c.shape(0)[1]};
    for (const Window &w : *ws)
        s.push_back(w.out);
    outs = {{c.in(0).dtype, s}};
    if (c.n.outputs.size() == 2)
        outs.push_back({DType::Int64, s});
    return Status::ok();
}

double flops(const OpContext &c)
{
    auto ws = windows(c);
    if (!ws)
        return 0;
    double taps = 1;
    for (const Window &w : *ws)
        taps *= static_cast<double>(w.taps);
    return elements(c.outs[0].shape) * (taps + (c.n.opType == "AveragePool" ? 1 : 0));
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto ws = windows(c);
    if (!ws)
        return ws.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims{identityDim(tile[0], x[0]), identityDim(tile[1], x[1])};
    for (std::size_t i = 0; i < ws->size(); ++i) {
        const Window &w = (*ws)[i];
        dims.push_back(windowDim(tile[2 + i], w.stride, w.dilation, w.taps, w.padBegin, w.in));
    }
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto ws = windows(c);
    if (!ws)
        return;
    InputAxes x{.maps = {axisMap(0, 0), axisMap(1, 1)}};
    for (std::size_t i = 0; i < ws->size(); ++i) {
        const Window &w = (*ws)[i];
        const int d = static_cast<int>(2 + i);
        x.maps.push_back(axisMap(d, d, w.stride, -w.padBegin, w.extent()));
    }
    in[0] = x;
}

// --- GlobalAveragePool ------------------------------------------------------------

Status inferGlobal(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0);
    if (x.size() < 2)
        return c.failAt(0, "input X has rank " + std::to_string(x.size()) + ", expected at least 2 (N x C ...)");
    Shape s(x.size(), 1);
    s[0] = x[0];
    s[1] = x[1];
    outs = {{c.in(0).dtype, s}};
    return Status::ok();
}

double flopsGlobal(const OpContext &c)
{
    return elements(c.shape(0)) + elements(c.outs[0].shape);
}

Status regionsGlobal(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims{identityDim(tile[0], x[0]), identityDim(tile[1], x[1])};
    for (std::size_t d = 2; d < x.size(); ++d)
        dims.push_back(fullDim(x[d]));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesGlobal(const OpContext &c, int, std::vector<InputAxes> &in)
{
    InputAxes x{.maps = {axisMap(0, 0), axisMap(1, 1)}};
    for (std::size_t d = 2; d < c.shape(0).size(); ++d)
        x.reducedDims.push_back(static_cast<int>(d));
    in[0] = x;
}

constexpr AttrSpec kMaxPoolAttrs[] = {
    {"auto_pad", Attribute::Kind::String}, {"ceil_mode", Attribute::Kind::Int},
    {"dilations", Attribute::Kind::Ints},  {"kernel_shape", Attribute::Kind::Ints},
    {"pads", Attribute::Kind::Ints},       {"storage_order", Attribute::Kind::Int},
    {"strides", Attribute::Kind::Ints},
};
constexpr AttrSpec kAveragePoolAttrs[] = {
    {"auto_pad", Attribute::Kind::String},       {"ceil_mode", Attribute::Kind::Int},
    {"count_include_pad", Attribute::Kind::Int}, {"dilations", Attribute::Kind::Ints},
    {"kernel_shape", Attribute::Kind::Ints},     {"pads", Attribute::Kind::Ints},
    {"strides", Attribute::Kind::Ints},
};
// --- MaxUnpool --------------------------------------------------------------------------

Status inferUnpool(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0);
    if (x.size() < 3)
        return c.failAt(0, "X has shape " + dimsStr(x) + ", expected N x C x D...");
    if (c.shape(1) != x || c.in(1).dtype != DType::Int64)
        return c.failAt(1, "I is " + std::string(dtypeName(c.in(1).dtype)) + " " + dimsStr(c.shape(1)) +
                               ", expected i64 " + dimsStr(x));
    const std::size_t k = x.size() - 2;
    if (c.has(2)) {
        auto shape = c.constInts(2, "output_shape");
        if (!shape)
            return shape.status();
        if (shape->size() != x.size() || (*shape)[0] != x[0] || (*shape)[1] != x[1])
            return c.failAt(2, "output_shape " + dimsStr(*shape) + " does not keep X's N and C " + dimsStr(x));
        for (std::int64_t d : *shape)
            if (d < 0 || d > kMaxExtent)
                return c.failAt(2, "output_shape " + dimsStr(*shape) + " has a negative or too large entry");
        outs = {{c.in(0).dtype, *shape}};
        return Status::ok();
    }
    const auto kernel = c.n.attrInts("kernel_shape");
    const auto strides = c.n.attrInts("strides", std::vector<std::int64_t>(k, 1));
    const auto pads = c.n.attrInts("pads", std::vector<std::int64_t>(2 * k, 0));
    if (kernel.size() != k || strides.size() != k || pads.size() != 2 * k)
        return c.fail("kernel_shape, strides and pads must have " + std::to_string(k) + " (pads " +
                      std::to_string(2 * k) + ") entries");
    Shape y{x[0], x[1]};
    for (std::size_t i = 0; i < k; ++i) {
        const std::int64_t e = (x[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[k + i];
        if (kernel[i] < 1 || strides[i] < 1 || e < 0 || e > kMaxExtent)
            return c.fail("kernel " + dimsStr(kernel) + ", strides " + dimsStr(strides) + " and pads " + dimsStr(pads) +
                          " give no valid output extent");
        y.push_back(e);
    }
    outs = {{c.in(0).dtype, y}};
    return Status::ok();
}

double flopsUnpool(const OpContext &)
{
    return 0;
}

Status regionsUnpool(const OpContext &c, int, const Region &, std::vector<InputRegion> &in)
{
    in[0] = wholeRegion(c.shape(0));
    in[1] = wholeRegion(c.shape(1));
    return Status::ok(); // output_shape: a compile-time value
}

void axesUnpool(const OpContext &, int, std::vector<InputAxes> &in)
{
    in[0].opaque = in[1].opaque = true;
}

constexpr AttrSpec kUnpoolAttrs[] = {
    {"kernel_shape", Attribute::Kind::Ints}, {"pads", Attribute::Kind::Ints}, {"strides", Attribute::Kind::Ints}};

constexpr OpDef kOps[] = {
    {"AveragePool", 1, 1, 1, 1, kAveragePoolAttrs, infer, flops, regions, axes},
    {"GlobalAveragePool", 1, 1, 1, 1, {}, inferGlobal, flopsGlobal, regionsGlobal, axesGlobal},
    {"GlobalMaxPool", 1, 1, 1, 1, {}, inferGlobal, flopsGlobal, regionsGlobal, axesGlobal},
    {"MaxPool", 1, 1, 1, 2, kMaxPoolAttrs, infer, flops, regions, axes},
    {"MaxUnpool", 2, 3, 1, 1, kUnpoolAttrs, inferUnpool, flopsUnpool, regionsUnpool, axesUnpool},
};

} // namespace

std::span<const OpDef> poolOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
