// Kernels for the quantized ops (semantics in core/ops/quant.cpp, conv.cpp and
// matmul.cpp): QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
// MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv.
//
// Arithmetic as ONNX's reference implementation does it: x / scale in
// float32, rounded half to even (std::nearbyint in the default rounding
// mode), plus the zero point, saturated to int8/uint8; integer products are
// summed exactly in int64 (int32 is what ONNX specifies; the sums of the
// conformance models fit either); requantization multiplies that sum (plus
// QLinearConv's int32 bias) by the float32 a_scale · b_scale / y_scale.
// Each output element is computed on its own (the reduction runs in index
// order), so tiles give the whole tensor's values.
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cmath>

namespace tessera::reference {

namespace {

double saturate(DType t, double v)
{
    return t == DType::Int8 ? std::clamp(v, -128.0, 127.0) : std::clamp(v, 0.0, 255.0);
}

// A scalar or per-channel parameter (scale or zero point); absent: 0.
struct Param {
    DType type = DType::Undefined;
    bool perChannel = false;
    double at(const InView &v, std::int64_t channel) const
    {
        return v.present() ? loadNumber(type, v.data, perChannel ? channel : 0) : 0.0;
    }
};

Param param(const Graph &g, const Node &n, std::size_t i)
{
    if (!hasInput(n, i))
        return {};
    const Tensor &t = inTensor(g, n, i);
    return {t.dtype, t.elements() > 1};
}

InView input(const KernelArgs &a, std::size_t i)
{
    return i < a.in.size() ? a.in[i] : InView{};
}

// --- QuantizeLinear, DequantizeLinear ---------------------------------------------------

class LinearKernel final : public NodeKernel
{
public:
    LinearKernel(bool quantize, const Tensor &x, DType y, std::int64_t axis, Param scale, Param zero)
        : m_quantize(quantize), m_x(x.dtype), m_y(y), m_strides(stridesOf(x.shape)), m_axis(axis), m_scale(scale),
          m_zero(zero)
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t off = dot(idx, m_strides), ch = m_axis >= 0 ? idx[static_cast<std::size_t>(m_axis)] : 0;
            const double scale = m_scale.at(a.in[1], ch), zero = m_zero.at(input(a, 2), ch);
            const double x = loadNumber(m_x, a.in[0].data, off);
            if (m_quantize) {
                const float q = static_cast<float>(x) / static_cast<float>(scale);
                storeNumber(m_y, a.out[0].data, off, saturate(m_y, std::nearbyint(q) + zero));
            } else {
                storeNumber(m_y, a.out[0].data, off,
                            static_cast<float>(static_cast<float>(x - zero) * static_cast<float>(scale)));
            }
        });
        return Status::ok();
    }

private:
    bool m_quantize;
    DType m_x, m_y;
    std::vector<std::int64_t> m_strides;
    std::int64_t m_axis; // -1: per tensor
    Param m_scale, m_zero;
};

Expected<KernelPtr> makeLinear(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    const bool quantize = n.opType == "QuantizeLinear";
    TS_TRY(expectType(g, n, 0,
                      quantize ? std::initializer_list<DType>{DType::Float32, DType::Int32}
                               : std::initializer_list<DType>{DType::Int8, DType::UInt8, DType::Int32}));
    TS_TRY(expectType(g, n, 1, {DType::Float32}));
    TS_TRY(expectType(g, n, 2, {DType::Int8, DType::UInt8, DType::Int32}));
    const Param scale = param(g, n, 1);
    std::int64_t axis = -1;
    if (scale.perChannel) {
        auto ax = normAxis(n, n.attrInt("axis", 1), static_cast<std::int64_t>(x.shape.size()));
        if (!ax)
            return ax.status();
        axis = *ax;
    }
    return KernelPtr(
        std::make_unique<LinearKernel>(quantize, x, outTensor(g, n, 0).dtype, axis, scale, param(g, n, 2)));
}

// --- DynamicQuantizeLinear ---------------------------------------------------------

class DynamicQuantizeKernel final : public NodeKernel
{
public:
    explicit DynamicQuantizeKernel(const Shape &x) : m_strides(stridesOf(x)), m_count(numElements(x).value_or(0)) {}

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        // The range of x extended to 0, in float32 as ONNX's reference computes it.
        const float *x = a.in[0].as<float>();
        float lo = 0, hi = 0;
        for (std::int64_t i = 0; i < m_count; ++i) {
            lo = std::min(lo, x[i]);
            hi = std::max(hi, x[i]);
        }
        const float scale = (hi - lo) / 255.0f;
        const float zero = scale == 0 ? 0.0f : std::nearbyint(std::clamp(0.0f - lo / scale, 0.0f, 255.0f));
        if (output == 1) {
            a.out[1].as<float>()[0] = scale;
            return Status::ok();
        }
        if (output == 2) {
            a.out[2].as<std::uint8_t>()[0] = static_cast<std::uint8_t>(zero);
            return Status::ok();
        }
        std::uint8_t *y = a.out[0].as<std::uint8_t>();
        forEachOffset(r, m_strides, 0, [&](std::int64_t off) {
            const float q = scale == 0 ? 0.0f : std::nearbyint(x[off] / scale);
            y[off] = static_cast<std::uint8_t>(std::clamp(q + zero, 0.0f, 255.0f));
        });
        return Status::ok();
    }

private:
    std::vector<std::int64_t> m_strides;
    std::int64_t m_count;
};

Expected<KernelPtr> makeDynamicQuantize(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    return KernelPtr(std::make_unique<DynamicQuantizeKernel>(inTensor(g, n, 0).shape));
}

// Requantization of an integer sum: y = saturate(round(sum · a_scale ·
// b_scale / y_scale) + y_zp), the scales and y_zp read from the node's
// inputs (b_scale per tensor or per output channel); off: the int32 sum.
struct Requant {
    bool on = false;
    DType y = DType::Int32, yZeroType = DType::Undefined;
    std::size_t aScale = 0, bScale = 0;
    bool bPerChannel = false;

    void store(const KernelArgs &a, std::uint8_t *out, std::int64_t off, std::int64_t sum, std::int64_t channel) const
    {
        if (!on)
            return storeNumber(DType::Int32, out, off, static_cast<double>(sum));
        const float sa = a.in[aScale].as<float>()[0], sb = a.in[bScale].as<float>()[bPerChannel ? channel : 0];
        const float sy = a.in[6].as<float>()[0];
        const double m = static_cast<double>(sa * sb / sy), zero = loadNumber(yZeroType, a.in[7].data, 0);
        storeNumber(y, out, off, saturate(y, std::nearbyint(static_cast<double>(sum) * m) + zero));
    }
};

Expected<Requant> requant(const Graph &g, const Node &n, std::size_t aScale, std::size_t bScale)
{
    for (std::size_t i : {aScale, bScale, std::size_t{6}})
        TS_TRY(expectType(g, n, i, {DType::Float32}));
    TS_TRY(expectType(g, n, 7, {DType::Int8, DType::UInt8}));
    return Requant{.on = true,
                   .y = outTensor(g, n, 0).dtype,
                   .yZeroType = inTensor(g, n, 7).dtype,
                   .aScale = aScale,
                   .bScale = bScale,
                   .bPerChannel = inTensor(g, n, bScale).elements() > 1};
}

// --- MatMulInteger, QLinearMatMul -----------------------------------------------------

class IntMatMulKernel final : public NodeKernel
{
public:
    IntMatMulKernel(const Tensor &a, const Tensor &b, const Shape &y, std::size_t bIn, Param aZero, Param bZero,
                    std::size_t aZeroIn, std::size_t bZeroIn, Requant q)
        : m_aType(a.dtype), m_bType(b.dtype), m_bIn(bIn), m_aZero(aZero), m_bZero(bZero), m_aZeroIn(aZeroIn),
          m_bZeroIn(bZeroIn), m_q(std::move(q)), m_g(a.shape, b.shape, y)
    {}

    Status compute(const KernelArgs &args, int, const ops::Region &r) const override
    {
        const ops::Interval mi = m_g.rows(r), ni = m_g.cols(r);
        const std::int64_t kk = m_g.k, nn = m_g.n;
        const InView &a = args.in[0], &b = args.in[m_bIn];
        const InView az = input(args, m_aZeroIn), bz = input(args, m_bZeroIn);
        forEachIndex(m_g.batchTile(r), [&](std::span<const std::int64_t> idx) {
            const std::int64_t ab = m_g.aOffset(idx), bb = m_g.bOffset(idx), yb = m_g.yOffset(idx);
            for (std::int64_t m = mi.begin; m < mi.end; ++m) {
                const auto za = static_cast<std::int64_t>(m_aZero.at(az, m));
                for (std::int64_t n = ni.begin; n < ni.end; ++n) {
                    const auto zb = static_cast<std::int64_t>(m_bZero.at(bz, n));
                    std::int64_t sum = 0;
                    for (std::int64_t k = 0; k < kk; ++k)
                        sum += (static_cast<std::int64_t>(loadNumber(m_aType, a.data, ab + m * kk + k)) - za) *
                               (static_cast<std::int64_t>(loadNumber(m_bType, b.data, bb + k * nn + n)) - zb);
                    m_q.store(args, args.out[0].data, yb + m * nn + n, sum, 0);
                }
            }
        });
        return Status::ok();
    }

private:
    DType m_aType, m_bType;
    std::size_t m_bIn;
    Param m_aZero, m_bZero;
    std::size_t m_aZeroIn, m_bZeroIn;
    Requant m_q;
    MatMulGeometry m_g;
};

Expected<KernelPtr> makeIntMatMul(const Graph &g, const Node &n)
{
    const bool qlinear = n.opType == "QLinearMatMul";
    const std::size_t bIn = qlinear ? 3 : 1, aZero = 2, bZero = qlinear ? 5 : 3;
    for (std::size_t i : {std::size_t{0}, bIn, aZero, bZero})
        TS_TRY(expectType(g, n, i, {DType::Int8, DType::UInt8}));
    Requant q;
    if (qlinear) {
        auto r = requant(g, n, 1, 4);
        if (!r)
            return r.status();
        q = std::move(*r);
    }
    return KernelPtr(std::make_unique<IntMatMulKernel>(inTensor(g, n, 0), inTensor(g, n, bIn), outTensor(g, n, 0).shape,
                                                       bIn, param(g, n, aZero), param(g, n, bZero), aZero, bZero,
                                                       std::move(q)));
}

// --- ConvInteger, QLinearConv --------------------------------------------------------

class IntConvKernel final : public NodeKernel
{
public:
    IntConvKernel(const Tensor &x, const Tensor &w, const Shape &y, std::vector<Window> win, std::int64_t group,
                  std::size_t wIn, Param xZero, Param wZero, std::size_t xZeroIn, std::size_t wZeroIn, int bIn,
                  Requant q)
        : m_xType(x.dtype), m_wType(w.dtype), m_x(x.shape), m_w(w.shape), m_y(y), m_win(std::move(win)), m_group(group),
          m_wIn(wIn), m_xZero(xZero), m_wZero(wZero), m_xZeroIn(xZeroIn), m_wZeroIn(wZeroIn), m_bIn(bIn),
          m_q(std::move(q))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const auto xs = stridesOf(m_x), ws = stridesOf(m_w), ys = stridesOf(m_y);
        const std::int64_t cg = m_w[1], mg = m_y[1] / m_group;
        const std::size_t k = m_win.size();
        const InView &x = a.in[0], &w = a.in[m_wIn];
        const InView xz = input(a, m_xZeroIn), wz = input(a, m_wZeroIn);
        const InView bias = m_bIn >= 0 ? input(a, static_cast<std::size_t>(m_bIn)) : InView{};
        const auto xZero = static_cast<std::int64_t>(m_xZero.at(xz, 0));
        ops::Region taps;
        for (const Window &win : m_win)
            taps.push_back({0, win.taps});
        std::vector<std::int64_t> pos(k);
        forEachIndex(r, [&](std::span<const std::int64_t> o) {
            const std::int64_t nb = o[0], m = o[1], c0 = m / mg * cg;
            const auto wZero = static_cast<std::int64_t>(m_wZero.at(wz, m));
            std::int64_t sum = bias.present() ? static_cast<std::int64_t>(loadNumber(DType::Int32, bias.data, m)) : 0;
            for (std::int64_t c = 0; c < cg; ++c)
                forEachIndex(taps, [&](std::span<const std::int64_t> t) {
                    std::int64_t xo = nb * xs[0] + (c0 + c) * xs[1], wo = m * ws[0] + c * ws[1];
                    for (std::size_t i = 0; i < k; ++i) {
                        const Window &win = m_win[i];
                        const std::int64_t p = o[2 + i] * win.stride + t[i] * win.dilation - win.padBegin;
                        if (p < 0 || p >= win.in)
                            return; // padding: (x_zp - x_zp) · w contributes 0
                        xo += p * xs[2 + i];
                        wo += t[i] * ws[2 + i];
                    }
                    sum += (static_cast<std::int64_t>(loadNumber(m_xType, x.data, xo)) - xZero) *
                           (static_cast<std::int64_t>(loadNumber(m_wType, w.data, wo)) - wZero);
                });
            m_q.store(a, a.out[0].data, dot(o, ys), sum, m);
        });
        return Status::ok();
    }

private:
    DType m_xType, m_wType;
    Shape m_x, m_w, m_y;
    std::vector<Window> m_win;
    std::int64_t m_group;
    std::size_t m_wIn;
    Param m_xZero, m_wZero;
    std::size_t m_xZeroIn, m_wZeroIn;
    int m_bIn;
    Requant m_q;
};

Expected<KernelPtr> makeIntConv(const Graph &g, const Node &n)
{
    const bool qlinear = n.opType == "QLinearConv";
    const std::size_t wIn = qlinear ? 3 : 1, xZero = 2, wZero = qlinear ? 5 : 3;
    for (std::size_t i : {std::size_t{0}, wIn, xZero, wZero})
        TS_TRY(expectType(g, n, i, {DType::Int8, DType::UInt8}));
    const Tensor &x = inTensor(g, n, 0), &w = inTensor(g, n, wIn);
    const Shape &y = outTensor(g, n, 0).shape;
    const Shape inS(x.shape.begin() + 2, x.shape.end()), outS(y.begin() + 2, y.end()),
        kernel(w.shape.begin() + 2, w.shape.end());
    auto win = forwardWindows(n, inS, outS, kernel);
    if (!win)
        return win.status();
    Requant q;
    int bIn = -1;
    if (qlinear) {
        TS_TRY(expectType(g, n, 8, {DType::Int32}));
        auto r = requant(g, n, 1, 4);
        if (!r)
            return r.status();
        q = std::move(*r);
        bIn = 8;
    }
    return KernelPtr(std::make_unique<IntConvKernel>(x, w, y, std::move(*win), n.attrInt("group", 1), wIn,
                                                     param(g, n, xZero), param(g, n, wZero), xZero, wZero, bIn,
                                                     std::move(q)));
}

constexpr KernelEntry kKernels[] = {
    {"ConvInteger", makeIntConv},     {"DequantizeLinear", makeLinear}, {"DynamicQuantizeLinear", makeDynamicQuantize},
    {"MatMulInteger", makeIntMatMul}, {"QLinearConv", makeIntConv},     {"QLinearMatMul", makeIntMatMul},
    {"QuantizeLinear", makeLinear},
};

} // namespace

std::span<const KernelEntry> quantKernels()
{
    return kKernels;
}

} // namespace tessera::reference
