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
constexpr OpDef kOps[] = {
    {"AveragePool", 1, 1, 1, 1, kAveragePoolAttrs, infer, flops, regions, axes},
    {"GlobalAveragePool", 1, 1, 1, 1, {}, inferGlobal, flopsGlobal, regionsGlobal, axesGlobal},
    {"GlobalMaxPool", 1, 1, 1, 1, {}, inferGlobal, flopsGlobal, regionsGlobal, axesGlobal},
    {"MaxPool", 1, 1, 1, 2, kMaxPoolAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> poolOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
