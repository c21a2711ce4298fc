// Conv and ConvTranspose on float32, 1-D/2-D/3-D, grouped, depthwise, dilated,
// strided, explicit or automatic padding (ONNX Conv-11, ConvTranspose-11; the
// semantics are spelled out in core/ops/conv.cpp).
//
// Both work on a canonical 3-D spatial form: a 1-D or 2-D node gets leading
// spatial axes of extent 1. Conv is a direct convolution that accumulates
// into float64 accumulators for the output tile, four output channels of a
// group at a time (each input row is loaded once for four accumulator rows):
// bias first, then input channel by channel and tap by tap, the innermost
// loop running along the output row (contiguous for stride 1); each output is
// rounded to float32 once, at the end. A 1×1 stride-1 unpadded Conv
// (pointwise) runs over the tile's contiguous spatial runs instead of rows.
// Either way an output element sums its products in the order (channel, kd,
// kh, kw), whatever the tile, so tiled and whole results agree bit for bit.
// ConvTranspose gathers: output o takes the input positions i with
// i*stride + k*dilation - padBegin = o, listed per axis at compile time,
// also summing in float64.
//
// Why float64 sums: the reference backend is what every other backend and
// PyTorch are compared with. Summing in float32, ResNet-101's output was
// 9.6e-5 relative L2 from PyTorch's float64 result (PyTorch's own float32:
// 8.6e-5), at the edge of issue 11's 1e-4; with float64 sums it is 2.1e-5,
// for about the same time (BENCHMARKS.md, 2026-11-27, issue 11).
#include "backends/reference/kernel.h"

#include <algorithm>
#include <array>
#include <vector>

namespace tessera::reference {

namespace {

constexpr std::size_t kAxes = 3;

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}
std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return -floorDiv(-a, b);
}

struct ConvGeom {
    std::int64_t inC = 0, outC = 0, group = 1;
    std::array<Window, kAxes> w;                     // D, H, W
    std::int64_t cg() const { return inC / group; }  // input channels per group
    std::int64_t mg() const { return outC / group; } // output channels per group
    std::int64_t inPlane() const { return w[0].in * w[1].in * w[2].in; }
    std::int64_t outPlane() const { return w[0].out * w[1].out * w[2].out; }
    std::int64_t taps() const { return w[0].taps * w[1].taps * w[2].taps; }
};

// The spatial intervals of a tile in canonical 3-D form.
std::array<ops::Interval, kAxes> spatialTile(const ops::Region &r)
{
    std::array<ops::Interval, kAxes> s{ops::Interval{0, 1}, ops::Interval{0, 1}, ops::Interval{0, 1}};
    const std::size_t k = r.size() - 2;
    for (std::size_t i = 0; i < k; ++i)
        s[kAxes - k + i] = r[2 + i];
    return s;
}

Expected<ConvGeom> prepareGeom(const Graph &g, const Node &n, bool transposed)
{
    for (std::size_t i = 0; i < 3; ++i)
        TS_TRY(expectType(g, n, i, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape, &wt = inTensor(g, n, 1).shape, &y = outTensor(g, n, 0).shape;
    if (x.size() < 3 || x.size() > 2 + kAxes)
        return unsupported(n, "only 1-D, 2-D and 3-D convolutions are supported, input has rank " +
                                  std::to_string(x.size()));
    const std::size_t k = x.size() - 2;
    ConvGeom geo;
    geo.inC = x[1];
    geo.outC = y[1];
    geo.group = n.attrInt("group", 1);
    const Shape inS(x.begin() + 2, x.end()), outS(y.begin() + 2, y.end()), kernel(wt.begin() + 2, wt.end());
    std::vector<Window> ws;
    if (!transposed) {
        auto f = forwardWindows(n, inS, outS, kernel);
        if (!f)
            return f.status();
        ws = std::move(*f);
    } else {
        // Pads as core/ops/conv.cpp derives them: explicit, or split from the
        // total implied by output_shape / SAME_* (SAME_UPPER: half at the start).
        const std::string autoPad = n.attrString("auto_pad", "NOTSET");
        const auto strides = n.attrInts("strides", std::vector<std::int64_t>(k, 1));
        const auto dilations = n.attrInts("dilations", std::vector<std::int64_t>(k, 1));
        const auto pads = n.attrInts("pads", std::vector<std::int64_t>(2 * k, 0));
        const auto outPad = n.attrInts("output_padding", std::vector<std::int64_t>(k, 0));
        if (strides.size() != k || dilations.size() != k || pads.size() != 2 * k || outPad.size() != k)
            return Status::invalid("convtranspose: attribute lengths do not match the spatial rank", {.node = n.name});
        const bool derived = n.attr("output_shape") || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
        for (std::size_t i = 0; i < k; ++i) {
            Window w{.in = inS[i], .out = outS[i], .taps = kernel[i], .stride = strides[i], .dilation = dilations[i]};
            if (derived) {
                const std::int64_t full = w.stride * (w.in - 1) + outPad[i] + (w.taps - 1) * w.dilation + 1;
                // Floor division as ONNX's reference: a negative total (output_shape
                // past the full extent) adds the extra outputs at the end.
                const std::int64_t total = full - w.out;
                w.padBegin = autoPad == "SAME_UPPER" ? floorDiv(total, 2) : total - floorDiv(total, 2);
            } else if (autoPad != "VALID") {
                w.padBegin = pads[i];
            }
            ws.push_back(w);
        }
    }
    for (std::size_t i = 0; i < kAxes; ++i)
        geo.w[i] = i < kAxes - k ? Window{.in = 1, .out = 1} : ws[i - (kAxes - k)];
    return geo;
}

// y_j[i] += w_j · x[i·stride] for i < n and the `count` (≤ 4) float64 rows
// y_j, which never alias x or each other. Four contiguous rows load x once.
// A float32 product is exact in float64; only the sums round.
void axpy4(double *__restrict y0, double *__restrict y1, double *__restrict y2, double *__restrict y3,
           const float *__restrict x, const float *w, std::int64_t n)
{
    const double w0 = w[0], w1 = w[1], w2 = w[2], w3 = w[3];
    for (std::int64_t i = 0; i < n; ++i) {
        const double v = x[i];
        y0[i] += w0 * v;
        y1[i] += w1 * v;
        y2[i] += w2 * v;
        y3[i] += w3 * v;
    }
}

void axpy(double *__restrict y, float w, const float *__restrict x, std::int64_t stride, std::int64_t n)
{
    const double wd = w;
    if (stride == 1)
        for (std::int64_t i = 0; i < n; ++i)
            y[i] += wd * static_cast<double>(x[i]);
    else
        for (std::int64_t i = 0; i < n; ++i)
            y[i] += wd * static_cast<double>(x[i * stride]);
}

void accumulate(const std::array<double *, 4> &y, const std::array<float, 4> &w, std::int64_t count, const float *x,
                std::int64_t stride, std::int64_t n)
{
    if (count == 4 && stride == 1)
        return axpy4(y[0], y[1], y[2], y[3], x, w.data(), n);
    for (std::size_t j = 0; j < static_cast<std::size_t>(count); ++j)
        axpy(y[j], w[j], x, stride, n);
}

class ConvKernel final : public NodeKernel
{
public:
    ConvKernel(ConvGeom g, bool hasBias) : m_g(g), m_bias(hasBias)
    {
        m_pointwise = std::all_of(g.w.begin(), g.w.end(), [](const Window &w) {
            return w.taps == 1 && w.stride == 1 && w.padBegin == 0 && w.in == w.out;
        });
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *w = a.in[1].as<float>(), *b = m_bias ? a.in[2].as<float>() : nullptr;
        float *y = a.out[0].as<float>();
        const auto s = spatialTile(r);
        const std::int64_t cg = m_g.cg(), mg = m_g.mg();
        // The accumulators of four output channels over the tile, packed.
        std::vector<double> acc(static_cast<std::size_t>(4 * tileSize(s)));
        for (std::int64_t n = r[0].begin; n < r[0].end; ++n)
            for (std::int64_t m = r[1].begin; m < r[1].end;) {
                // Output channels [m, mEnd): at most four, all of one group.
                const std::int64_t mEnd = std::min({r[1].end, (m / mg + 1) * mg, m + 4});
                const float *xs = x + (n * m_g.inC + m / mg * cg) * m_g.inPlane();
                float *ys = y + (n * m_g.outC + m) * m_g.outPlane();
                const float *ws = w + m * cg * m_g.taps();
                if (m_pointwise)
                    pointwise(xs, ws, b ? b + m : nullptr, ys, acc.data(), mEnd - m, s);
                else
                    direct(xs, ws, b ? b + m : nullptr, ys, acc.data(), mEnd - m, s);
                m = mEnd;
            }
        return Status::ok();
    }

private:
    static std::int64_t tileSize(const std::array<ops::Interval, kAxes> &s)
    {
        return (s[0].end - s[0].begin) * (s[1].end - s[1].begin) * (s[2].end - s[2].begin);
    }

    // acc[j·T + i] = B[j] for the tile's T elements, i in the runs' order.
    static void fillBias(double *acc, const float *b, std::int64_t count, std::int64_t T)
    {
        for (std::int64_t j = 0; j < count; ++j)
            std::fill_n(acc + j * T, T, b ? static_cast<double>(b[j]) : 0.0);
    }

    // Rounds the accumulators into the output plane's runs, once.
    void store(float *y, const double *acc, std::int64_t count, const std::vector<Run> &runs, std::int64_t T) const
    {
        for (std::int64_t j = 0; j < count; ++j) {
            const double *aj = acc + j * T;
            for (const Run &run : runs) {
                float *yr = y + j * m_g.outPlane() + run.offset;
                for (std::int64_t i = 0; i < run.length; ++i)
                    yr[i] = static_cast<float>(aj[i]);
                aj += run.length;
            }
        }
    }

    std::vector<Run> tileRuns(const std::array<ops::Interval, kAxes> &s) const
    {
        return contiguousRuns(ops::Region(s.begin(), s.end()), Shape{m_g.w[0].out, m_g.w[1].out, m_g.w[2].out});
    }

    // Y[j][p] = B[j] + Σ_c W[j][c] X[c][p] over the tile's contiguous runs.
    void pointwise(const float *x, const float *w, const float *b, float *y, double *acc, std::int64_t count,
                   const std::array<ops::Interval, kAxes> &s) const
    {
        const auto runs = tileRuns(s);
        const std::int64_t cg = m_g.cg(), P = m_g.outPlane(), T = tileSize(s);
        fillBias(acc, b, count, T);
        std::array<double *, 4> yj{};
        std::array<float, 4> wj{};
        for (std::int64_t c = 0; c < cg; ++c) {
            for (std::int64_t j = 0; j < count; ++j)
                wj[static_cast<std::size_t>(j)] = w[j * cg + c];
            std::int64_t at = 0; // the run's first accumulator
            for (const Run &run : runs) {
                for (std::int64_t j = 0; j < count; ++j)
                    yj[static_cast<std::size_t>(j)] = acc + j * T + at;
                accumulate(yj, wj, count, x + c * P + run.offset, 1, run.length);
                at += run.length;
            }
        }
        store(y, acc, count, runs, T);
    }

    // Y[j] = B[j] + Σ_{c, kd, kh, kw} W[j, c, k] · X[c, o·stride + k·dilation - pad] over the tile.
    // The tile's accumulators are packed row-major over (od, oh, ow) of the tile.
    void direct(const float *x, const float *w, const float *b, float *y, double *acc, std::int64_t count,
                const std::array<ops::Interval, kAxes> &s) const
    {
        const Window &wd = m_g.w[0], &wh = m_g.w[1], &ww = m_g.w[2];
        const std::int64_t cg = m_g.cg(), taps = m_g.taps(), T = tileSize(s);
        const std::int64_t th = s[1].end - s[1].begin, tw = s[2].end - s[2].begin;
        fillBias(acc, b, count, T);
        std::array<double *, 4> yj{};
        std::array<float, 4> wj{};
        for (std::int64_t c = 0; c < cg; ++c) {
            const float *xc = x + c * m_g.inPlane();
            for (std::int64_t kd = 0, t = 0; kd < wd.taps; ++kd)
                for (std::int64_t kh = 0; kh < wh.taps; ++kh)
                    for (std::int64_t kw = 0; kw < ww.taps; ++kw, ++t) {
                        for (std::int64_t j = 0; j < count; ++j)
                            wj[static_cast<std::size_t>(j)] = w[(j * cg + c) * taps + t];
                        // Output columns [lo, hi) whose input column lies inside the row.
                        const std::int64_t shift = kw * ww.dilation - ww.padBegin;
                        const std::int64_t lo = std::max(s[2].begin, ceilDiv(-shift, ww.stride));
                        const std::int64_t hi = std::min(s[2].end, floorDiv(ww.in - 1 - shift, ww.stride) + 1);
                        if (lo >= hi)
                            continue;
                        for (std::int64_t od = s[0].begin; od < s[0].end; ++od) {
                            const std::int64_t id = od * wd.stride + kd * wd.dilation - wd.padBegin;
                            if (id < 0 || id >= wd.in)
                                continue;
                            for (std::int64_t oh = s[1].begin; oh < s[1].end; ++oh) {
                                const std::int64_t ih = oh * wh.stride + kh * wh.dilation - wh.padBegin;
                                if (ih < 0 || ih >= wh.in)
                                    continue;
                                const std::int64_t row =
                                    ((od - s[0].begin) * th + (oh - s[1].begin)) * tw + (lo - s[2].begin);
                                for (std::int64_t j = 0; j < count; ++j)
                                    yj[static_cast<std::size_t>(j)] = acc + j * T + row;
                                accumulate(yj, wj, count, xc + (id * wh.in + ih) * ww.in + lo * ww.stride + shift,
                                           ww.stride, hi - lo);
                            }
                        }
                    }
        }
        store(y, acc, count, tileRuns(s), T);
    }

    ConvGeom m_g;
    bool m_bias = false;
    bool m_pointwise = false;
};

class ConvTransposeKernel final : public NodeKernel
{
public:
    ConvTransposeKernel(ConvGeom g, bool hasBias) : m_g(g), m_bias(hasBias)
    {
        // Per axis and output index: the (tap, input index) pairs that reach it.
        for (std::size_t a = 0; a < kAxes; ++a) {
            const Window &w = g.w[a];
            m_taps[a].resize(static_cast<std::size_t>(w.out));
            for (std::int64_t o = 0; o < w.out; ++o)
                for (std::int64_t k = 0; k < w.taps; ++k) {
                    const std::int64_t t = o + w.padBegin - k * w.dilation;
                    if (t >= 0 && t % w.stride == 0 && t / w.stride < w.in)
                        m_taps[a][static_cast<std::size_t>(o)].push_back({k, t / w.stride});
                }
        }
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *w = a.in[1].as<float>(), *b = m_bias ? a.in[2].as<float>() : nullptr;
        float *y = a.out[0].as<float>();
        const auto s = spatialTile(r);
        const Window &wh = m_g.w[1], &ww = m_g.w[2];
        const std::int64_t mg = m_g.mg(), cg = m_g.cg(), taps = m_g.taps();
        for (std::int64_t n = r[0].begin; n < r[0].end; ++n)
            for (std::int64_t m = r[1].begin; m < r[1].end; ++m) {
                const std::int64_t c0 = m / mg * cg, mw = m % mg;
                float *ym = y + (n * m_g.outC + m) * m_g.outPlane();
                for (std::int64_t od = s[0].begin; od < s[0].end; ++od)
                    for (std::int64_t oh = s[1].begin; oh < s[1].end; ++oh)
                        for (std::int64_t ow = s[2].begin; ow < s[2].end; ++ow) {
                            double acc = b ? b[m] : 0.0;
                            for (std::int64_t c = c0; c < c0 + cg; ++c) {
                                const float *xc = x + (n * m_g.inC + c) * m_g.inPlane();
                                const float *wc = w + (c * mg + mw) * taps;
                                for (const Tap &td : m_taps[0][static_cast<std::size_t>(od)])
                                    for (const Tap &th : m_taps[1][static_cast<std::size_t>(oh)])
                                        for (const Tap &tw : m_taps[2][static_cast<std::size_t>(ow)])
                                            acc += static_cast<double>(xc[(td.i * wh.in + th.i) * ww.in + tw.i]) *
                                                   wc[(td.k * wh.taps + th.k) * ww.taps + tw.k];
                            }
                            ym[(od * wh.out + oh) * ww.out + ow] = static_cast<float>(acc);
                        }
            }
        return Status::ok();
    }

private:
    struct Tap {
        std::int64_t k = 0, i = 0;
    };
    ConvGeom m_g;
    bool m_bias = false;
    std::array<std::vector<std::vector<Tap>>, kAxes> m_taps;
};

Expected<KernelPtr> makeConv(const Graph &g, const Node &n)
{
    auto geo = prepareGeom(g, n, false);
    if (!geo)
        return geo.status();
    return KernelPtr(std::make_unique<ConvKernel>(*geo, hasInput(n, 2)));
}

Expected<KernelPtr> makeConvTranspose(const Graph &g, const Node &n)
{
    auto geo = prepareGeom(g, n, true);
    if (!geo)
        return geo.status();
    return KernelPtr(std::make_unique<ConvTransposeKernel>(*geo, hasInput(n, 2)));
}

constexpr KernelEntry kKernels[] = {
    {"Conv", makeConv},
    {"ConvTranspose", makeConvTranspose},
};

} // namespace

std::span<const KernelEntry> convKernels()
{
    return kKernels;
}

} // namespace tessera::reference
