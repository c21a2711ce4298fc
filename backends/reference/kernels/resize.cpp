// Resize on float32 (ONNX Resize-10/-11/-13): nearest (every nearest_mode),
// linear and cubic (cubic_coeff_a, exclude_outside) interpolation with the
// coordinate modes half_pixel, pytorch_half_pixel, align_corners,
// asymmetric, tf_half_pixel_for_nn and tf_crop_and_resize (constant roi,
// extrapolation_value). Opset 10 is asymmetric with floor for nearest, and so
// is Upsample-9 (the same kernel).
//
// Follows the ONNX reference implementation: the source coordinate of output
// index o uses the float output length scale·in (so align_corners with a
// scale that does not divide the input sees in·scale - 1, not out - 1), the
// taps are the 1, 2 or 4 nearest input positions clamped to the edge, and
// an integral coordinate reads exactly its own position. Per axis and output
// index the taps (input offset, weight) are tabulated at compile time; an
// output element sums the products of its axes' weights over every tap
// combination in double and rounds once.
//
// GridSample on float32 follows PyTorch's grid_sample (ONNX's test data come
// from it): the grid point is unnormalized ((g + 1)/2·(n - 1) with
// align_corners, else ((g + 1)·n - 1)/2), rounded half to even for nearest;
// border clamps it to [0, n - 1], reflection mirrors it about the edges
// ([0, n - 1] with align_corners, [-0.5, n - 0.5] without) and then clamps
// (nearest and bilinear; bicubic keeps the point and pads each tap);
// bilinear reads the 2x2 and bicubic the 4x4 neighbours (cubic coefficient
// -0.75), a neighbour outside X reading 0 (zeros) or its clamped (border)
// or mirrored (reflection) position.
//
// RoiAlign (mode avg) on float32 follows ONNX Runtime's kernel (Detectron's
// RoIAlign): the roi scaled by spatial_scale and shifted by 0.5 for
// half_pixel (output_half_pixel, RoiAlign-10's behaviour and the default
// before opset 16, keeps it and makes a roi at least 1 x 1);
// each bin averages sampling_ratio² bilinear samples (adaptive:
// ceil(roi extent / bins) per axis) at the centres of a regular grid; a
// sample past [-1, extent] counts 0, one below 0 is read at 0, one past the
// last row or column at it. mode max is refused (runtimes disagree on it).
#include "backends/reference/kernel.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace tessera::reference {

namespace {

enum class Mode : std::uint8_t { Nearest, Linear, Cubic };

using Tap = ResizeTap;
using AxisTaps = ResizeAxis;

struct Params {
    Mode mode = Mode::Nearest;
    std::string coord, nearest;
    double cubicA = -0.75;
    bool excludeOutside = false;
};

double sourceCoord(const Params &p, std::int64_t o, std::int64_t in, double scale, double roiStart, double roiEnd)
{
    const double x = static_cast<double>(o), len = scale * static_cast<double>(in), n = static_cast<double>(in);
    if (p.coord == "align_corners")
        return len == 1 ? 0 : x * (n - 1) / (len - 1);
    if (p.coord == "asymmetric")
        return x / scale;
    if (p.coord == "tf_half_pixel_for_nn")
        return (x + 0.5) / scale;
    if (p.coord == "pytorch_half_pixel")
        return len == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    if (p.coord == "tf_crop_and_resize")
        return (len == 1 ? (roiEnd - roiStart) * (n - 1) / 2 : x * (roiEnd - roiStart) * (n - 1) / (len - 1)) +
               roiStart * (n - 1);
    return (x + 0.5) / scale - 0.5; // half_pixel
}

std::vector<double> cubicCoeffs(double r, double A)
{
    const double s = 1 - r;
    return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
            ((A + 2) * s - (A + 3)) * s * s + 1, ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A};
}

// The taps of output index o along an axis of extent `in`, before clamping.
std::vector<std::pair<std::int64_t, double>> rawTaps(const Params &p, double x)
{
    const double fl = std::floor(x), ratio = x - fl;
    const auto f = static_cast<std::int64_t>(fl);
    switch (p.mode) {
    case Mode::Nearest: {
        if (ratio == 0)
            return {{f, 1.0}};
        const bool up = p.nearest == "ceil" || (p.nearest == "round_prefer_floor" && ratio > 0.5) ||
                        (p.nearest == "round_prefer_ceil" && ratio >= 0.5);
        return {{up ? f + 1 : f, 1.0}};
    }
    case Mode::Linear:
        if (ratio == 0)
            return {{f, 1.0}};
        return {{f, 1 - ratio}, {f + 1, ratio}};
    case Mode::Cubic: {
        const auto c = cubicCoeffs(ratio, p.cubicA);
        return {{f - 1, c[0]}, {f, c[1]}, {f + 1, c[2]}, {f + 2, c[3]}};
    }
    }
    return {};
}

AxisTaps axisTaps(const Params &p, std::int64_t in, std::int64_t out, double scale, double roiStart, double roiEnd,
                  std::int64_t stride)
{
    AxisTaps a;
    a.taps.resize(static_cast<std::size_t>(out));
    a.outside.assign(static_cast<std::size_t>(out), false);
    for (std::int64_t o = 0; o < out; ++o) {
        const double x = sourceCoord(p, o, in, scale, roiStart, roiEnd);
        if (p.coord == "tf_crop_and_resize" && (x < 0 || x > static_cast<double>(in - 1)))
            a.outside[static_cast<std::size_t>(o)] = true;
        auto raw = rawTaps(p, x);
        if (p.excludeOutside) {
            double sum = 0;
            for (auto &[i, w] : raw) {
                if (i < 0 || i >= in)
                    w = 0;
                sum += w;
            }
            for (auto &t : raw)
                t.second /= sum;
        }
        for (const auto &[i, w] : raw)
            a.taps[static_cast<std::size_t>(o)].push_back({std::clamp<std::int64_t>(i, 0, in - 1) * stride, w});
    }
    return a;
}

class ResizeKernel final : public NodeKernel
{
public:
    ResizeKernel(std::vector<AxisTaps> axes, const Shape &out, float extrapolation)
        : m_axes(std::move(axes)), m_yStrides(stridesOf(out)), m_extrapolation(extrapolation)
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        const std::size_t rank = m_axes.size();
        std::vector<const std::vector<Tap> *> taps(rank);
        std::vector<std::size_t> k(rank);
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            bool outside = false;
            for (std::size_t d = 0; d < rank; ++d) {
                const auto o = static_cast<std::size_t>(idx[d]);
                taps[d] = &m_axes[d].taps[o];
                outside = outside || m_axes[d].outside[o];
                k[d] = 0;
            }
            float &out = y[dot(idx, m_yStrides)];
            if (outside) {
                out = m_extrapolation;
                return;
            }
            double sum = 0;
            for (;;) { // every combination of the axes' taps
                double w = 1;
                std::int64_t off = 0;
                for (std::size_t d = 0; d < rank; ++d) {
                    const Tap &t = (*taps[d])[k[d]];
                    w *= t.weight;
                    off += t.offset;
                }
                sum += w * x[off];
                std::size_t d = rank;
                while (d > 0 && ++k[d - 1] == taps[d - 1]->size())
                    k[--d] = 0;
                if (d == 0)
                    break;
            }
            out = static_cast<float>(sum);
        });
        return Status::ok();
    }

private:
    std::vector<AxisTaps> m_axes;
    std::vector<std::int64_t> m_yStrides;
    float m_extrapolation;
};

} // namespace

Expected<ResizeTaps> resizeTaps(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape, &y = outTensor(g, n, 0).shape;
    const bool v10 = g.opsetVersion < 11 || n.opType == "Upsample";
    Params p;
    const std::string mode = n.attrString("mode", "nearest");
    p.mode = mode == "linear" ? Mode::Linear : mode == "cubic" ? Mode::Cubic : Mode::Nearest;
    p.coord = v10 ? "asymmetric" : n.attrString("coordinate_transformation_mode", "half_pixel");
    p.nearest = v10 ? "floor" : n.attrString("nearest_mode", "round_prefer_floor");
    p.cubicA = n.attrFloat("cubic_coeff_a", -0.75);
    p.excludeOutside = n.attrInt("exclude_outside", 0) != 0;
    // Scales (input 1 at opset 10, else 2) or sizes (input 3); an empty tensor counts as absent.
    const std::size_t scalesIn = v10 ? 1 : 2;
    auto present = [&](std::size_t i) { return hasInput(n, i) && inTensor(g, n, i).elements() > 0; };
    std::vector<double> scales(x.size(), 1.0), roi;
    if (present(scalesIn)) {
        auto s = constFloats(g, n, scalesIn);
        if (!s)
            return s.status();
        scales = std::move(*s);
    } else {
        for (std::size_t d = 0; d < x.size(); ++d)
            scales[d] = x[d] > 0 ? static_cast<double>(y[d]) / static_cast<double>(x[d]) : 1.0;
    }
    if (p.coord == "tf_crop_and_resize") {
        auto r = constFloats(g, n, 1);
        if (!r)
            return r.status();
        roi = std::move(*r);
    }
    if (scales.size() != x.size() || (!roi.empty() && roi.size() != 2 * x.size()))
        return Status::invalid("resize: scales or roi do not match the input rank", {.node = n.name});
    const auto st = stridesOf(x);
    std::vector<AxisTaps> axes;
    for (std::size_t d = 0; d < x.size(); ++d) {
        if (x[d] == 0 && y[d] > 0)
            return Status::invalid("resize: cannot resize an empty axis", {.node = n.name});
        axes.push_back(axisTaps(p, x[d], y[d], static_cast<double>(static_cast<float>(scales[d])),
                                roi.empty() ? 0 : roi[d], roi.empty() ? 1 : roi[x.size() + d], st[d]));
    }
    return ResizeTaps{std::move(axes), static_cast<float>(n.attrFloat("extrapolation_value", 0.0))};
}

namespace {

Expected<KernelPtr> makeResize(const Graph &g, const Node &n)
{
    auto taps = resizeTaps(g, n);
    if (!taps)
        return taps.status();
    return KernelPtr(
        std::make_unique<ResizeKernel>(std::move(taps->axes), outTensor(g, n, 0).shape, taps->extrapolation));
}

// --- GridSample -------------------------------------------------------------------------

enum class GridPad : std::uint8_t { Zeros, Border, Reflection };

class GridSampleKernel final : public NodeKernel
{
public:
    GridSampleKernel(const Shape &x, const Shape &y, Mode mode, GridPad pad, bool alignCorners)
        : m_x(x), m_y(y), m_mode(mode), m_pad(pad), m_align(alignCorners)
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *grid = a.in[1].as<float>();
        float *y = a.out[0].as<float>();
        const std::int64_t H = m_x[2], W = m_x[3], Ho = m_y[2], Wo = m_y[3];
        const auto ys = stridesOf(m_y);
        forEachIndex(r, [&](std::span<const std::int64_t> o) {
            const std::int64_t n = o[0], c = o[1];
            const float *g = grid + ((n * Ho + o[2]) * Wo + o[3]) * 2;
            const float *plane = x + (n * m_x[1] + c) * H * W;
            double px = unnormalize(g[0], W), py = unnormalize(g[1], H);
            if (m_mode == Mode::Nearest) {
                px = std::nearbyint(px);
                py = std::nearbyint(py);
            }
            if (m_mode != Mode::Cubic) { // bicubic pads each tap instead
                px = pad(px, W);
                py = pad(py, H);
            }
            double v = 0;
            if (m_mode == Mode::Nearest) {
                v = at(plane, static_cast<std::int64_t>(py), static_cast<std::int64_t>(px), H, W);
            } else if (m_mode == Mode::Linear) {
                const double x0 = std::floor(px), y0 = std::floor(py), wx = px - x0, wy = py - y0;
                const auto ix = static_cast<std::int64_t>(x0), iy = static_cast<std::int64_t>(y0);
                v = (1 - wy) * ((1 - wx) * at(plane, iy, ix, H, W) + wx * at(plane, iy, ix + 1, H, W)) +
                    wy * ((1 - wx) * at(plane, iy + 1, ix, H, W) + wx * at(plane, iy + 1, ix + 1, H, W));
            } else {
                const double x0 = std::floor(px), y0 = std::floor(py);
                const auto cx = cubic(px - x0), cy = cubic(py - y0);
                const auto ix = static_cast<std::int64_t>(x0) - 1, iy = static_cast<std::int64_t>(y0) - 1;
                for (std::int64_t i = 0; i < 4; ++i) {
                    double row = 0;
                    for (std::int64_t j = 0; j < 4; ++j)
                        row += cx[static_cast<std::size_t>(j)] * at(plane, iy + i, ix + j, H, W);
                    v += cy[static_cast<std::size_t>(i)] * row;
                }
            }
            y[dot(o, ys)] = static_cast<float>(v);
        });
        return Status::ok();
    }

private:
    double unnormalize(double g, std::int64_t n) const
    {
        const auto e = static_cast<double>(n);
        return m_align ? (g + 1) / 2 * (e - 1) : ((g + 1) * e - 1) / 2;
    }

    // Mirrors v into [lo, hi] (PyTorch's reflect_coordinates).
    static double reflect(double v, double lo, double hi)
    {
        if (lo == hi)
            return 0;
        const double span = hi - lo;
        v = std::abs(v - lo);
        const double flips = std::floor(v / span), extra = std::fmod(v, span);
        return static_cast<std::int64_t>(flips) % 2 == 0 ? lo + extra : hi - extra;
    }

    double pad(double v, std::int64_t n) const
    {
        const double last = static_cast<double>(n - 1);
        if (m_pad == GridPad::Border)
            return std::clamp(v, 0.0, last);
        if (m_pad == GridPad::Reflection)
            return std::clamp(m_align ? reflect(v, 0, last) : reflect(v, -0.5, last + 0.5), 0.0, last);
        return v;
    }

    // X[h, w] of one plane; outside it: 0 (zeros) or the padded position.
    double at(const float *plane, std::int64_t h, std::int64_t w, std::int64_t H, std::int64_t W) const
    {
        if (h < 0 || h >= H || w < 0 || w >= W) {
            if (m_pad == GridPad::Zeros)
                return 0;
            if (m_pad == GridPad::Reflection) {
                h = static_cast<std::int64_t>(pad(static_cast<double>(h), H));
                w = static_cast<std::int64_t>(pad(static_cast<double>(w), W));
            }
            h = std::clamp<std::int64_t>(h, 0, H - 1);
            w = std::clamp<std::int64_t>(w, 0, W - 1);
        }
        return plane[h * W + w];
    }

    static std::array<double, 4> cubic(double t)
    {
        constexpr double A = -0.75;
        auto near = [](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };
        auto far = [](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };
        return {far(t + 1), near(t), near(1 - t), far(2 - t)};
    }

    Shape m_x, m_y;
    Mode m_mode;
    GridPad m_pad;
    bool m_align;
};

Expected<KernelPtr> makeGridSample(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    TS_TRY(expectType(g, n, 1, {DType::Float32}));
    const std::string mode = n.attrString("mode", "bilinear"), pad = n.attrString("padding_mode", "zeros");
    return KernelPtr(std::make_unique<GridSampleKernel>(inTensor(g, n, 0).shape, outTensor(g, n, 0).shape,
                                                        mode == "nearest"   ? Mode::Nearest
                                                        : mode == "bicubic" ? Mode::Cubic
                                                                            : Mode::Linear,
                                                        pad == "border"       ? GridPad::Border
                                                        : pad == "reflection" ? GridPad::Reflection
                                                                              : GridPad::Zeros,
                                                        n.attrInt("align_corners", 0) != 0));
}

// --- RoiAlign ---------------------------------------------------------------------------

class RoiAlignKernel final : public NodeKernel
{
public:
    RoiAlignKernel(const Shape &x, const Shape &y, DType indexType, double scale, std::int64_t sampling, bool halfPixel,
                   std::string name)
        : m_x(x), m_y(y), m_indexType(indexType), m_scale(scale), m_sampling(sampling), m_halfPixel(halfPixel),
          m_name(std::move(name))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *rois = a.in[1].as<float>();
        float *y = a.out[0].as<float>();
        const std::int64_t H = m_x[2], W = m_x[3], ph = m_y[2], pw = m_y[3];
        const auto ys = stridesOf(m_y);
        for (std::int64_t roi = r[0].begin; roi < r[0].end; ++roi) {
            const auto b = static_cast<std::int64_t>(loadNumber(m_indexType, a.in[2].data, roi));
            if (b < 0 || b >= m_x[0])
                return Status::invalid("roialign: batch index " + std::to_string(b) + " is out of range",
                                       {.node = m_name});
            const float *box = rois + roi * 4;
            const double offset = m_halfPixel ? 0.5 : 0.0;
            const double x0 = box[0] * m_scale - offset, y0 = box[1] * m_scale - offset;
            double w = box[2] * m_scale - offset - x0, h = box[3] * m_scale - offset - y0;
            if (!m_halfPixel) {
                w = std::max(w, 1.0);
                h = std::max(h, 1.0);
            }
            const double binH = h / static_cast<double>(ph), binW = w / static_cast<double>(pw);
            const std::int64_t gh =
                m_sampling > 0 ? m_sampling : static_cast<std::int64_t>(std::ceil(h / static_cast<double>(ph)));
            const std::int64_t gw =
                m_sampling > 0 ? m_sampling : static_cast<std::int64_t>(std::ceil(w / static_cast<double>(pw)));
            const double count = static_cast<double>(std::max<std::int64_t>(gh * gw, 1));
            for (std::int64_t c = r[1].begin; c < r[1].end; ++c) {
                const float *plane = x + (b * m_x[1] + c) * H * W;
                for (std::int64_t i = r[2].begin; i < r[2].end; ++i)
                    for (std::int64_t j = r[3].begin; j < r[3].end; ++j) {
                        double sum = 0;
                        for (std::int64_t iy = 0; iy < gh; ++iy) {
                            const double sy = y0 + static_cast<double>(i) * binH +
                                              (static_cast<double>(iy) + 0.5) * binH / static_cast<double>(gh);
                            for (std::int64_t ix = 0; ix < gw; ++ix) {
                                const double sx = x0 + static_cast<double>(j) * binW +
                                                  (static_cast<double>(ix) + 0.5) * binW / static_cast<double>(gw);
                                sum += sample(plane, sy, sx, H, W);
                            }
                        }
                        y[roi * ys[0] + c * ys[1] + i * ys[2] + j] = static_cast<float>(sum / count);
                    }
            }
        }
        return Status::ok();
    }

private:
    static double sample(const float *plane, double y, double x, std::int64_t H, std::int64_t W)
    {
        if (y < -1.0 || y > static_cast<double>(H) || x < -1.0 || x > static_cast<double>(W))
            return 0;
        y = std::max(y, 0.0);
        x = std::max(x, 0.0);
        auto yl = static_cast<std::int64_t>(y), xl = static_cast<std::int64_t>(x);
        std::int64_t yh = yl + 1, xh = xl + 1;
        if (yl >= H - 1) {
            yh = yl = H - 1;
            y = static_cast<double>(yl);
        }
        if (xl >= W - 1) {
            xh = xl = W - 1;
            x = static_cast<double>(xl);
        }
        const double ly = y - static_cast<double>(yl), lx = x - static_cast<double>(xl), hy = 1 - ly, hx = 1 - lx;
        return hy * hx * plane[yl * W + xl] + hy * lx * plane[yl * W + xh] + ly * hx * plane[yh * W + xl] +
               ly * lx * plane[yh * W + xh];
    }

    Shape m_x, m_y;
    DType m_indexType;
    double m_scale;
    std::int64_t m_sampling;
    bool m_halfPixel;
    std::string m_name;
};

Expected<KernelPtr> makeRoiAlign(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    TS_TRY(expectType(g, n, 1, {DType::Float32}));
    if (n.attrString("mode", "avg") != "avg")
        return unsupported(n, "mode '" + n.attrString("mode", "avg") + "' is not supported (avg only)");
    return KernelPtr(std::make_unique<RoiAlignKernel>(
        inTensor(g, n, 0).shape, outTensor(g, n, 0).shape, inTensor(g, n, 2).dtype, n.attrFloat("spatial_scale", 1.0),
        n.attrInt("sampling_ratio", 0),
        n.attrString("coordinate_transformation_mode", g.opsetVersion >= 16 ? "half_pixel" : "output_half_pixel") ==
            "half_pixel",
        n.name));
}

constexpr KernelEntry kKernels[] = {
    {"GridSample", makeGridSample},
    {"Resize", makeResize},
    {"RoiAlign", makeRoiAlign},
    {"Upsample", makeResize},
};

} // namespace

std::span<const KernelEntry> resizeKernels()
{
    return kKernels;
}

} // namespace tessera::reference
