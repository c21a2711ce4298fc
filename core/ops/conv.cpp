// Conv and ConvTranspose (ONNX Conv-11, ConvTranspose-11; 1-D/2-D/3-D, grouped,
// depthwise, dilated, strided, explicit or auto padding).
//
// Conv: X [N, C, D...], W [M, C/group, k...], B [M];
//   Y[n, m, o] = B[m] + Σ_{c in group(m), k} X[n, c, o*s + k*d - padBegin] W[m, c, k].
// ConvTranspose: X [N, C, D...], W [C, M/group, k...], B [M];
//   Y[n, m, o] = B[m] + Σ_{c in group(m), k, i: i*s + k*d - padBegin = o, 0 <= i < D} X[n, c, i] W[c, m', k].
//   Output extent s*(D-1) + output_padding + (k-1)*d + 1 - pads; with
//   output_shape (spatial entries, or N and C followed by them) or SAME_*,
//   pads come from total = that extent - wanted output: SAME_UPPER puts
//   total/2 at the beginning, NOTSET and SAME_LOWER total - total/2 (C++
//   division, so a negative total pads the output end).
// Index-map choices: the weight region is the whole kernel window of the
// involved channels (every tap is read, also taps that meet padding); the
// input's channel region is the hull of the involved groups' channels.
// FLOPs: 2 per multiply-add, plus one add per output element for the bias.
//
// The integer forms share Conv's geometry and index map:
// ConvInteger-10: X, W int8/uint8 with optional zero points (x_zero_point a
//   scalar, w_zero_point a scalar or one per output channel); Y int32 =
//   Σ (X - x_zp)(W - w_zp), no bias.
// QLinearConv-10: inputs x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp
//   and an optional int32 bias B; w_scale/w_zp per tensor or per output
//   channel; y = saturate(round((Σ (x - x_zp)(w - w_zp) + B) · x_scale ·
//   w_scale / y_scale) + y_zp), of y_zp's type. The scales and zero points
//   are read whole (a few elements).
#include "core/ops/window.h"

namespace tessera::ops::detail {

namespace {

// Where the weight and the bias are among the node's inputs (-1: no bias).
std::size_t weightInput(const OpContext &c)
{
    return c.n.opType == "QLinearConv" ? 3 : 1;
}
int biasInput(const OpContext &c)
{
    return c.n.opType == "QLinearConv" ? 8 : c.n.opType == "ConvInteger" ? -1 : 2;
}
bool hasBias(const OpContext &c)
{
    return biasInput(c) >= 0 && c.has(static_cast<std::size_t>(biasInput(c)));
}

struct ConvGeom {
    std::int64_t batch = 0, inC = 0, outC = 0, group = 1;
    std::vector<Window> w; // one per spatial axis
    bool transposed = false;
    std::int64_t inPerGroup() const { return inC / group; }
    std::int64_t outPerGroup() const { return outC / group; }
};

Expected<ConvGeom> geometry(const OpContext &c, bool transposed)
{
    const std::size_t wi = weightInput(c);
    const Shape &x = c.shape(0), &wt = c.shape(wi);
    if (x.size() < 3)
        return c.failAt(0, "input X has rank " + std::to_string(x.size()) + ", expected at least 3 (N x C x D1 ...)");
    if (wt.size() != x.size())
        return c.failAt(wi, "weight has rank " + std::to_string(wt.size()) + ", expected " + std::to_string(x.size()));
    const std::size_t k = x.size() - 2;
    ConvGeom g;
    g.transposed = transposed;
    g.batch = x[0];
    g.inC = x[1];
    g.group = c.n.attrInt("group", 1);
    if (g.group < 1 || g.group > kMaxExtent)
        return c.fail("group " + std::to_string(g.group) + " is not positive");
    if (!transposed) {
        g.outC = wt[0];
        const auto perGroup = mulChecked(wt[1], g.group);
        if (!perGroup || *perGroup != g.inC)
            return c.failAt(wi, "weight has " + std::to_string(wt[1]) + " input channels per group, expected " +
                                    std::to_string(g.inC) + " channels / " + std::to_string(g.group) + " groups");
        if (g.outC % g.group != 0)
            return c.failAt(wi, std::to_string(g.outC) + " output channels are not divisible by " +
                                    std::to_string(g.group) + " groups");
    } else {
        if (wt[0] != g.inC)
            return c.failAt(wi, "weight has " + std::to_string(wt[0]) + " input channels, expected " +
                                    std::to_string(g.inC));
        if (g.inC % g.group != 0)
            return c.fail(std::to_string(g.inC) + " input channels are not divisible by " + std::to_string(g.group) +
                          " groups");
        const auto m = mulChecked(wt[1], g.group);
        if (!m || *m > kMaxExtent)
            return c.failAt(wi, "output channel count overflows");
        g.outC = *m;
    }
    const Shape wSpatial(wt.begin() + 2, wt.end());
    auto kernel = readKernelShape(c, k, &wSpatial);
    if (!kernel)
        return kernel.status();
    auto attrs = readWindowAttrs(c, k);
    if (!attrs)
        return attrs.status();
    const Shape inSpatial(x.begin() + 2, x.end());
    if (hasBias(c)) {
        const auto bi = static_cast<std::size_t>(biasInput(c));
        const Shape &b = c.shape(bi);
        if (b.size() != 1 || b[0] != g.outC)
            return c.failAt(bi, "bias has shape " + dimsStr(b) + ", expected " + std::to_string(g.outC));
    }
    if (!transposed) {
        auto ws = forwardWindows(c, *attrs, inSpatial, *kernel, false);
        if (!ws)
            return ws.status();
        g.w = std::move(*ws);
        return g;
    }

    // ConvTranspose: output extents and pads.
    const std::vector<std::int64_t> outPad =
        c.n.attr("output_padding") ? c.n.attrInts("output_padding") : std::vector<std::int64_t>(k, 0);
    if (outPad.size() != k)
        return c.fail("output_padding has " + std::to_string(outPad.size()) + " entries, expected " +
                      std::to_string(k));
    std::vector<std::int64_t> outShape = c.n.attrInts("output_shape");
    if (outShape.size() == k + 2)
        outShape.erase(outShape.begin(), outShape.begin() + 2);
    if (c.n.attr("output_shape") && outShape.size() != k)
        return c.fail("output_shape has " + std::to_string(c.n.attrInts("output_shape").size()) +
                      " entries, expected " + std::to_string(k));
    g.w.resize(k);
    for (std::size_t i = 0; i < k; ++i) {
        Window &w = g.w[i];
        w.in = inSpatial[i];
        w.taps = (*kernel)[i];
        w.stride = attrs->strides[i];
        w.dilation = attrs->dilations[i];
        const auto span = mulChecked(w.taps - 1, w.dilation);
        const auto reach = mulChecked(w.stride, w.in - 1);
        if (!span || *span >= kMaxExtent || !reach || *reach > 4 * kMaxExtent)
            return c.fail("kernel or output extent overflows along spatial axis " + std::to_string(i));
        if (outPad[i] < 0 || (outPad[i] >= w.stride && outPad[i] >= w.dilation))
            return c.fail("output_padding " + std::to_string(outPad[i]) +
                          " must be non-negative and smaller than stride " + std::to_string(w.stride) +
                          " or dilation " + std::to_string(w.dilation));
        const std::int64_t full = *reach + outPad[i] + w.extent();
        auto splitTotal = [&](std::int64_t wanted) {
            const std::int64_t total = full - wanted;
            w.padBegin = attrs->autoPad == AutoPad::SameUpper ? total / 2 : total - total / 2;
            w.padEnd = total - w.padBegin;
            w.out = wanted;
        };
        if (!outShape.empty()) {
            if (outShape[i] < 0 || outShape[i] > kMaxExtent)
                return c.fail("output_shape value " + std::to_string(outShape[i]) + " is negative or too large");
            splitTotal(outShape[i]);
        } else if (attrs->autoPad == AutoPad::SameUpper || attrs->autoPad == AutoPad::SameLower) {
            const auto wanted = mulChecked(w.in, w.stride);
            if (!wanted || *wanted > kMaxExtent)
                return c.fail("output extent overflows along spatial axis " + std::to_string(i));
            splitTotal(*wanted);
        } else {
            if (attrs->autoPad == AutoPad::NotSet) {
                w.padBegin = attrs->pads[i];
                w.padEnd = attrs->pads[k + i];
            }
            w.out = full - w.padBegin - w.padEnd;
            if (w.out < 0)
                return c.fail("pads " + std::to_string(w.padBegin) + "+" + std::to_string(w.padEnd) +
                              " exceed the output extent " + std::to_string(full) + " along spatial axis " +
                              std::to_string(i));
        }
    }
    return g;
}

Shape outputShape(const ConvGeom &g)
{
    Shape s{g.batch, g.outC};
    for (const Window &w : g.w)
        s.push_back(w.out);
    return s;
}

Status inferConv(const OpContext &c, std::vector<TensorType> &outs, bool transposed)
{
    auto g = geometry(c, transposed);
    if (!g)
        return g.status();
    outs = {{c.in(0).dtype, outputShape(*g)}};
    return Status::ok();
}

// ConvInteger and QLinearConv: Conv's geometry, then the types and
// quantization parameters.
Status inferQuantized(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = geometry(c, false);
    if (!g)
        return g.status();
    const std::size_t wi = weightInput(c);
    for (std::size_t i : {std::size_t{0}, wi})
        if (c.in(i).dtype != DType::Int8 && c.in(i).dtype != DType::UInt8)
            return c.failAt(i, std::string(i == 0 ? "x" : "w") + " is " + std::string(dtypeName(c.in(i).dtype)) +
                                   ", expected i8 or u8");
    const DType xt = c.in(0).dtype, wt = c.in(wi).dtype;
    if (c.n.opType == "ConvInteger") {
        TS_TRY(checkQuantParam(c, 2, "x_zero_point", 0, {xt}));
        TS_TRY(checkQuantParam(c, 3, "w_zero_point", g->outC, {wt}));
        outs = {{DType::Int32, outputShape(*g)}};
        return Status::ok();
    }
    TS_TRY(checkQuantParam(c, 1, "x_scale", 0, {DType::Float32}));
    TS_TRY(checkQuantParam(c, 2, "x_zero_point", 0, {xt}));
    TS_TRY(checkQuantParam(c, 4, "w_scale", g->outC, {DType::Float32}));
    TS_TRY(checkQuantParam(c, 5, "w_zero_point", g->outC, {wt}));
    TS_TRY(checkQuantParam(c, 6, "y_scale", 0, {DType::Float32}));
    TS_TRY(checkQuantParam(c, 7, "y_zero_point", 0, {DType::Int8, DType::UInt8}));
    if (c.has(8) && c.in(8).dtype != DType::Int32)
        return c.failAt(8, "B is " + std::string(dtypeName(c.in(8).dtype)) + ", expected i32");
    outs = {{c.in(7).dtype, outputShape(*g)}};
    return Status::ok();
}
Status inferForward(const OpContext &c, std::vector<TensorType> &outs)
{
    return inferConv(c, outs, false);
}
Status inferTransposed(const OpContext &c, std::vector<TensorType> &outs)
{
    return inferConv(c, outs, true);
}

double flops(const OpContext &c)
{
    auto g = geometry(c, c.n.opType == "ConvTranspose");
    if (!g)
        return 0;
    double taps = 1, in = 1, out = 1;
    for (const Window &w : g->w) {
        taps *= static_cast<double>(w.taps);
        in *= static_cast<double>(w.in);
        out *= static_cast<double>(w.out);
    }
    const double n = static_cast<double>(g->batch);
    const double macs = g->transposed
                            ? n * static_cast<double>(g->inC) * in * static_cast<double>(g->outPerGroup()) * taps
                            : n * static_cast<double>(g->outC) * out * static_cast<double>(g->inPerGroup()) * taps;
    return 2 * macs + (hasBias(c) ? n * static_cast<double>(g->outC) * out : 0);
}

// Channels of the groups that output channels `m` belong to, in a tensor
// with `perGroup` channels per group.
DimRange groupChannels(Interval m, std::int64_t outPerGroup, std::int64_t perGroup)
{
    if (m.empty())
        return {};
    const Interval r{m.begin / outPerGroup * perGroup, ((m.end - 1) / outPerGroup + 1) * perGroup};
    return {r, r};
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = geometry(c, c.n.opType == "ConvTranspose");
    if (!g)
        return g.status();
    const std::int64_t mg = g->outPerGroup(), cg = g->inPerGroup();
    std::vector<DimRange> x{identityDim(tile[0], g->batch), groupChannels(tile[1], mg, cg)};
    std::vector<DimRange> w;
    if (!g->transposed) {
        w = {identityDim(tile[1], g->outC), fullDim(cg)};
    } else {
        const Interval m = tile[1];
        const bool oneGroup = !m.empty() && m.begin / mg == (m.end - 1) / mg;
        const std::int64_t base = oneGroup ? m.begin / mg * mg : 0;
        w = {groupChannels(m, mg, cg), oneGroup ? identityDim({m.begin - base, m.end - base}, mg) : fullDim(mg)};
    }
    for (std::size_t i = 0; i < g->w.size(); ++i) {
        const Window &s = g->w[i];
        const Interval o = tile[2 + i];
        x.push_back(g->transposed ? transposedWindowDim(o, s.stride, s.dilation, s.taps, s.padBegin, s.in)
                                  : windowDim(o, s.stride, s.dilation, s.taps, s.padBegin, s.in));
        w.push_back(fullDim(s.taps));
    }
    in[0] = makeRegion(x);
    const std::size_t wi = weightInput(c);
    in[wi] = makeRegion(w);
    if (hasBias(c))
        in[static_cast<std::size_t>(biasInput(c))] = makeRegion({identityDim(tile[1], g->outC)});
    for (std::size_t i = 1; i < c.n.inputs.size(); ++i) // quantization parameters
        if (i != wi && static_cast<int>(i) != biasInput(c) && c.has(i))
            in[i] = wholeRegion(c.shape(i));
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = geometry(c, c.n.opType == "ConvTranspose");
    if (!g)
        return;
    const std::int64_t mg = g->outPerGroup(), cg = g->inPerGroup();
    InputAxes x, w;
    x.maps.push_back(axisMap(0, 0));
    if (g->group == 1)
        x.reducedDims.push_back(1);
    else if (mg == 1 && cg == 1)
        x.maps.push_back(axisMap(1, 1)); // depthwise
    else if (mg == 1 && !g->transposed)
        x.maps.push_back(axisMap(1, 1, cg, 0, cg)); // output channel m reads [m*cg, m*cg + cg)
    else
        x.opaque = true;
    for (std::size_t i = 0; i < g->w.size(); ++i) {
        const Window &s = g->w[i];
        const int d = static_cast<int>(2 + i);
        if (!g->transposed)
            x.maps.push_back(axisMap(d, d, s.stride, -s.padBegin, s.extent()));
        else if (s.stride == 1)
            x.maps.push_back(axisMap(d, d, 1, s.padBegin - (s.taps - 1) * s.dilation, s.extent()));
        else
            x.opaque = true; // output o reads i = (o + pad - k*d) / s: no integer stride
        w.reducedDims.push_back(d);
    }
    if (!g->transposed) {
        w.maps.push_back(axisMap(1, 0));
        w.reducedDims.insert(w.reducedDims.begin(), 1);
    } else if (g->group == 1) {
        w.maps.push_back(axisMap(1, 1));
        w.reducedDims.insert(w.reducedDims.begin(), 0);
    } else {
        w.opaque = true;
    }
    in[0] = x;
    const std::size_t wi = weightInput(c);
    in[wi] = w;
    if (hasBias(c))
        in[static_cast<std::size_t>(biasInput(c))] = {.maps = {axisMap(1, 0)}};
    for (std::size_t i = 1; i < c.n.inputs.size(); ++i)
        if (i != wi && static_cast<int>(i) != biasInput(c) && c.has(i))
            in[i] = wholeAxes(c.shape(i));
}

constexpr AttrSpec kConvAttrs[] = {
    {"auto_pad", Attribute::Kind::String},   {"dilations", Attribute::Kind::Ints}, {"group", Attribute::Kind::Int},
    {"kernel_shape", Attribute::Kind::Ints}, {"pads", Attribute::Kind::Ints},      {"strides", Attribute::Kind::Ints},
};
constexpr AttrSpec kConvTransposeAttrs[] = {
    {"auto_pad", Attribute::Kind::String},     {"dilations", Attribute::Kind::Ints},
    {"group", Attribute::Kind::Int},           {"kernel_shape", Attribute::Kind::Ints},
    {"output_padding", Attribute::Kind::Ints}, {"output_shape", Attribute::Kind::Ints},
    {"pads", Attribute::Kind::Ints},           {"strides", Attribute::Kind::Ints},
};
constexpr OpDef kOps[] = {
    {"Conv", 2, 3, 1, 1, kConvAttrs, inferForward, flops, regions, axes},
    {"ConvTranspose", 2, 3, 1, 1, kConvTransposeAttrs, inferTransposed, flops, regions, axes},
    {"ConvInteger", 2, 4, 1, 1, kConvAttrs, inferQuantized, flops, regions, axes},
    {"QLinearConv", 8, 9, 1, 1, kConvAttrs, inferQuantized, flops, regions, axes},
};

} // namespace

std::span<const OpDef> convOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
