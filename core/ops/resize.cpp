// Resize (ONNX Resize-10, -11, -13), and Upsample (ONNX Upsample-9, X and a
// constant scales input; modes nearest and linear), which is Resize-10.
//
// Inputs: opset 10 (X, scales); opset >= 11 (X, roi, scales, sizes), scales or
// sizes given (a present but empty tensor counts as absent). Output extent:
// sizes, or floor(float(in) * scale) as ONNX shape inference computes it.
// Coordinates: x = f(o) per coordinate_transformation_mode (half_pixel,
// pytorch_half_pixel, align_corners, asymmetric, tf_half_pixel_for_nn,
// tf_crop_and_resize with the constant roi); opset 10 uses asymmetric.
// Taps: nearest reads round(x) per nearest_mode (opset 10: floor or ceil, as
// runtimes differ), linear floor(x) and floor(x)+1, cubic floor(x)-1 ..
// floor(x)+2, all clamped to the input (tf_crop_and_resize reads nothing
// outside [0, in-1] but the map ignores that). The region is the hull of the
// unclamped taps and the clamped ones read.
// The index map is conservative: per axis it maps the tile's first and last
// output coordinates (f is monotonic) with a 1e-4 margin against rounding, so
// the region may exceed the exact taps by one position per side. Axes with
// in == out and scale 1 (and a mode that maps o to o) are identities.
// FLOPs per output element: nearest 0, linear 2·2^k, cubic 2·4^k for k
// resized axes.
//
// GridSample (ONNX GridSample-16): X [N, C, H, W], grid [N, Ho, Wo, 2] of
// normalized (x, y) in [-1, 1]; Y [N, C, Ho, Wo] samples X[n, c] at the
// grid point (n, ho, wo) with mode bilinear (default), nearest or bicubic,
// padding_mode zeros (default), border or reflection, align_corners.
// Index map: Y[n, c, ho, wo] reads grid[n, ho, wo, :] and, at positions the
// grid's values decide, the whole plane X[n, c, :, :].
// FLOPs per output element: nearest 6, bilinear 14, bicubic 50 (the
// coordinate transform, then 1, 4 or 16 taps).
//
// RoiAlign (ONNX RoiAlign-10/-16): X [N, C, H, W], rois [R, 4] (x1, y1, x2,
// y2), batch_indices [R] (int64); Y [R, C, output_height, output_width]
// (default 1 x 1) averages (mode avg) bilinear samples on a sampling_ratio
// grid per bin. Index map: Y[r, c] reads rois[r, :], batch_indices[r] and,
// in the batch entry batch_indices[r] names, the plane X[:, c] whole.
// FLOPs per output element: 14 per sample (as GridSample's bilinear), the
// sample count taken as 4 (sampling_ratio 2) when it is adaptive.
#include "core/ops/opdef.h"

#include <algorithm>
#include <cmath>

namespace tessera::ops::detail {

namespace {

enum class Mode : std::uint8_t { Nearest, Linear, Cubic };
enum class Nearest : std::uint8_t { RoundPreferFloor, RoundPreferCeil, Floor, Ceil, FloorOrCeil };
enum class Coord : std::uint8_t {
    HalfPixel,
    PytorchHalfPixel,
    AlignCorners,
    Asymmetric,
    TfHalfPixelForNn,
    TfCropAndResize
};

struct ResizeAxis {
    std::int64_t in = 0, out = 0;
    double scale = 1, roiStart = 0, roiEnd = 1;
    bool identity = false;
};

struct ResizeGeom {
    Mode mode = Mode::Nearest;
    Nearest nearest = Nearest::RoundPreferFloor;
    Coord coord = Coord::HalfPixel;
    std::vector<ResizeAxis> axes;
};

template <typename E>
Expected<E> pick(const OpContext &c, std::string_view attr, std::string_view def,
                 std::initializer_list<std::pair<std::string_view, E>> options)
{
    const std::string v = c.n.attrString(attr, def);
    std::string names;
    for (const auto &[name, value] : options) {
        if (name == v)
            return value;
        names += (names.empty() ? "" : ", ") + std::string(name);
    }
    return c.fail(std::string(attr) + " '" + v + "' is not one of " + names);
}

bool nonEmpty(const OpContext &c, std::size_t i)
{
    return c.has(i) && numElements(c.shape(i)).value_or(0) > 0;
}

Expected<ResizeGeom> geometry(const OpContext &c)
{
    const Shape &x = c.shape(0);
    const bool v10 = c.opset() < 11 || c.n.opType == "Upsample";
    ResizeGeom g;
    auto mode = pick<Mode>(c, "mode", "nearest",
                           {{"nearest", Mode::Nearest}, {"linear", Mode::Linear}, {"cubic", Mode::Cubic}});
    if (!mode)
        return mode.status();
    if (c.n.opType == "Upsample" && *mode == Mode::Cubic)
        return c.fail("mode 'cubic' is not an Upsample mode (nearest, linear)");
    g.mode = *mode;
    if (v10) {
        g.coord = Coord::Asymmetric;
        g.nearest = Nearest::FloorOrCeil;
    } else {
        auto coord = pick<Coord>(c, "coordinate_transformation_mode", "half_pixel",
                                 {{"half_pixel", Coord::HalfPixel},
                                  {"pytorch_half_pixel", Coord::PytorchHalfPixel},
                                  {"align_corners", Coord::AlignCorners},
                                  {"asymmetric", Coord::Asymmetric},
                                  {"tf_half_pixel_for_nn", Coord::TfHalfPixelForNn},
                                  {"tf_crop_and_resize", Coord::TfCropAndResize}});
        if (!coord)
            return coord.status();
        auto nearest = pick<Nearest>(c, "nearest_mode", "round_prefer_floor",
                                     {{"round_prefer_floor", Nearest::RoundPreferFloor},
                                      {"round_prefer_ceil", Nearest::RoundPreferCeil},
                                      {"floor", Nearest::Floor},
                                      {"ceil", Nearest::Ceil}});
        if (!nearest)
            return nearest.status();
        g.coord = *coord;
        g.nearest = *nearest;
    }
    const std::size_t scalesIn = v10 ? 1 : 2, sizesIn = 3, roiIn = 1; // Upsample: (X, scales) as Resize-10
    const bool hasScales = nonEmpty(c, scalesIn), hasSizes = !v10 && nonEmpty(c, sizesIn);
    if (hasScales == hasSizes)
        return c.fail(hasScales ? "has both scales and sizes" : "needs scales or sizes");
    g.axes.resize(x.size());
    if (hasScales) {
        auto s = c.constFloats(scalesIn, "scales");
        if (!s)
            return s.status();
        if (s->size() != x.size())
            return c.failAt(scalesIn, "scales has " + std::to_string(s->size()) + " entries for rank " +
                                          std::to_string(x.size()));
        for (std::size_t d = 0; d < x.size(); ++d) {
            const auto scale = static_cast<float>((*s)[d]);
            const double out = std::floor(static_cast<double>(static_cast<float>(x[d]) * scale));
            if (!(scale > 0) || !std::isfinite(scale) || !(out <= static_cast<double>(kMaxExtent)))
                return c.failAt(scalesIn, "scale " + std::to_string(scale) + " of axis " + std::to_string(d) +
                                              " is not positive or gives a too large extent");
            g.axes[d] = {.in = x[d], .out = static_cast<std::int64_t>(out), .scale = scale};
        }
    } else {
        auto s = c.constInts(sizesIn, "sizes");
        if (!s)
            return s.status();
        if (s->size() != x.size())
            return c.failAt(sizesIn,
                            "sizes has " + std::to_string(s->size()) + " entries for rank " + std::to_string(x.size()));
        for (std::size_t d = 0; d < x.size(); ++d) {
            const std::int64_t out = (*s)[d];
            if (out < 0 || out > kMaxExtent || (x[d] == 0 && out > 0))
                return c.failAt(sizesIn, "size " + std::to_string(out) + " of axis " + std::to_string(d) +
                                             " is invalid for extent " + std::to_string(x[d]));
            g.axes[d] = {
                .in = x[d], .out = out, .scale = x[d] > 0 ? static_cast<double>(out) / static_cast<double>(x[d]) : 1.0};
        }
    }
    if (g.coord == Coord::TfCropAndResize) {
        auto roi = c.constFloats(roiIn, "roi");
        if (!roi)
            return roi.status();
        if (roi->size() != 2 * x.size())
            return c.failAt(roiIn, "roi has " + std::to_string(roi->size()) + " entries, expected " +
                                       std::to_string(2 * x.size()));
        for (std::size_t d = 0; d < x.size(); ++d) {
            g.axes[d].roiStart = (*roi)[d];
            g.axes[d].roiEnd = (*roi)[x.size() + d];
        }
    }
    for (ResizeAxis &a : g.axes)
        a.identity =
            a.in == a.out && a.scale == 1.0 && g.coord != Coord::TfCropAndResize && g.coord != Coord::TfHalfPixelForNn;
    return g;
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = geometry(c);
    if (!g)
        return g.status();
    Shape s;
    for (const ResizeAxis &a : g->axes)
        s.push_back(a.out);
    outs = {{c.in(0).dtype, s}};
    return Status::ok();
}

double flops(const OpContext &c)
{
    auto g = geometry(c);
    if (!g || g->mode == Mode::Nearest)
        return 0;
    const auto resized = std::count_if(g->axes.begin(), g->axes.end(), [](const ResizeAxis &a) { return !a.identity; });
    return 2 * std::pow(g->mode == Mode::Linear ? 2.0 : 4.0, static_cast<double>(resized)) * elements(c.outs[0].shape);
}

// The input coordinate of output index o (ONNX coordinate_transformation_mode).
double sourceCoord(const ResizeGeom &g, const ResizeAxis &a, std::int64_t o)
{
    const double x = static_cast<double>(o), in = static_cast<double>(a.in), out = static_cast<double>(a.out);
    switch (g.coord) {
    case Coord::HalfPixel: return (x + 0.5) / a.scale - 0.5;
    case Coord::PytorchHalfPixel: return a.out > 1 ? (x + 0.5) / a.scale - 0.5 : 0;
    case Coord::AlignCorners: return a.out > 1 ? x * (in - 1) / (out - 1) : 0;
    case Coord::Asymmetric: return x / a.scale;
    case Coord::TfHalfPixelForNn: return (x + 0.5) / a.scale;
    case Coord::TfCropAndResize:
        return a.out > 1 ? a.roiStart * (in - 1) + x * (a.roiEnd - a.roiStart) * (in - 1) / (out - 1)
                         : 0.5 * (a.roiStart + a.roiEnd) * (in - 1);
    }
    return 0;
}

DimRange resizedDim(const ResizeGeom &g, const ResizeAxis &a, Interval o)
{
    if (a.identity)
        return identityDim(o, a.in);
    if (o.empty())
        return {};
    constexpr double kEps = 1e-4, kLimit = 1e15;
    const double x0 = sourceCoord(g, a, o.begin), x1 = sourceCoord(g, a, o.end - 1);
    const double lo = std::clamp(std::min(x0, x1), -kLimit, kLimit) - kEps;
    const double hi = std::clamp(std::max(x0, x1), -kLimit, kLimit) + kEps;
    double first = 0, last = 0;
    switch (g.mode) {
    case Mode::Nearest:
        switch (g.nearest) {
        case Nearest::Floor: first = std::floor(lo), last = std::floor(hi); break;
        case Nearest::Ceil: first = std::ceil(lo), last = std::ceil(hi); break;
        case Nearest::FloorOrCeil: first = std::floor(lo), last = std::ceil(hi); break;
        case Nearest::RoundPreferFloor:
        case Nearest::RoundPreferCeil: first = std::ceil(lo - 0.5), last = std::floor(hi + 0.5); break;
        }
        break;
    case Mode::Linear: first = std::floor(lo), last = std::floor(hi) + 1; break;
    case Mode::Cubic: first = std::floor(lo) - 1, last = std::floor(hi) + 2; break;
    }
    const auto f = static_cast<std::int64_t>(first), l = static_cast<std::int64_t>(last);
    const Interval read{std::clamp<std::int64_t>(f, 0, a.in - 1), std::clamp<std::int64_t>(l, 0, a.in - 1) + 1};
    return {{std::min(f, read.begin), std::max(l + 1, read.end)}, read};
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = geometry(c);
    if (!g)
        return g.status();
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < g->axes.size(); ++d)
        dims.push_back(resizedDim(*g, g->axes[d], tile[d]));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = geometry(c);
    if (!g)
        return;
    InputAxes x;
    for (std::size_t d = 0; d < g->axes.size(); ++d)
        if (g->axes[d].identity)
            x.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d)));
        else
            x.opaque = true;
    in[0] = x;
}

// --- GridSample -------------------------------------------------------------------------

Status inferGridSample(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0), &grid = c.shape(1);
    if (x.size() != 4)
        return c.failAt(0, "X has shape " + dimsStr(x) + ", expected N x C x H x W");
    if (grid.size() != 4 || grid[0] != x[0] || grid[3] != 2)
        return c.failAt(1, "grid has shape " + dimsStr(grid) + ", expected " + std::to_string(x[0]) + " x Ho x Wo x 2");
    const std::string mode = c.n.attrString("mode", "bilinear"), pad = c.n.attrString("padding_mode", "zeros");
    if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
        return c.fail("mode '" + mode + "' is not bilinear, nearest or bicubic");
    if (pad != "zeros" && pad != "border" && pad != "reflection")
        return c.fail("padding_mode '" + pad + "' is not zeros, border or reflection");
    if (c.in(1).dtype != c.in(0).dtype)
        return c.failAt(1, "grid is " + std::string(dtypeName(c.in(1).dtype)) + ", X is " +
                               std::string(dtypeName(c.in(0).dtype)));
    outs = {{c.in(0).dtype, {x[0], x[1], grid[1], grid[2]}}};
    return Status::ok();
}

double flopsGridSample(const OpContext &c)
{
    const std::string mode = c.n.attrString("mode", "bilinear");
    return (mode == "nearest" ? 6 : mode == "bicubic" ? 50 : 14) * elements(c.outs[0].shape);
}

Status regionsGridSample(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    in[0] = makeRegion({identityDim(tile[0], x[0]), identityDim(tile[1], x[1]), fullDim(x[2]), fullDim(x[3])});
    in[1] = makeRegion({identityDim(tile[0], x[0]), identityDim(tile[2], c.shape(1)[1]),
                        identityDim(tile[3], c.shape(1)[2]), fullDim(2)});
    return Status::ok();
}

void axesGridSample(const OpContext &, int, std::vector<InputAxes> &in)
{
    in[0] = {.maps = {axisMap(0, 0), axisMap(1, 1)}, .reducedDims = {2, 3}};
    in[1] = {.maps = {axisMap(0, 0), axisMap(2, 1), axisMap(3, 2)}, .reducedDims = {3}};
}

using K = Attribute::Kind;
// --- RoiAlign ---------------------------------------------------------------------------

Status inferRoiAlign(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0), &rois = c.shape(1), &idx = c.shape(2);
    if (x.size() != 4)
        return c.failAt(0, "X has shape " + dimsStr(x) + ", expected N x C x H x W");
    if (rois.size() != 2 || rois[1] != 4)
        return c.failAt(1, "rois have shape " + dimsStr(rois) + ", expected R x 4");
    if (idx != Shape{rois[0]} || (c.in(2).dtype != DType::Int64 && c.in(2).dtype != DType::Int32))
        return c.failAt(2, "batch_indices are " + std::string(dtypeName(c.in(2).dtype)) + " " + dimsStr(idx) +
                               ", expected i64 " + std::to_string(rois[0]));
    const std::string mode = c.n.attrString("mode", "avg");
    if (mode != "avg" && mode != "max")
        return c.fail("mode '" + mode + "' is neither avg nor max");
    const std::string coord =
        c.n.attrString("coordinate_transformation_mode", c.opset() >= 16 ? "half_pixel" : "output_half_pixel");
    if (coord != "half_pixel" && coord != "output_half_pixel")
        return c.fail("coordinate_transformation_mode '" + coord + "' is neither half_pixel nor output_half_pixel");
    const std::int64_t h = c.n.attrInt("output_height", 1), w = c.n.attrInt("output_width", 1);
    if (h < 1 || w < 1 || h > kMaxExtent || w > kMaxExtent || c.n.attrInt("sampling_ratio", 0) < 0)
        return c.fail("output_height " + std::to_string(h) + ", output_width " + std::to_string(w) +
                      " must be positive and sampling_ratio non-negative");
    outs = {{c.in(0).dtype, {rois[0], x[1], h, w}}};
    return Status::ok();
}

double flopsRoiAlign(const OpContext &c)
{
    const std::int64_t s = c.n.attrInt("sampling_ratio", 0);
    return 14 * static_cast<double>(s > 0 ? s * s : 4) * elements(c.outs[0].shape);
}

Status regionsRoiAlign(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0), &rois = c.shape(1);
    in[0] = makeRegion({fullDim(x[0]), identityDim(tile[1], x[1]), fullDim(x[2]), fullDim(x[3])});
    in[1] = makeRegion({identityDim(tile[0], rois[0]), fullDim(4)});
    in[2] = makeRegion({identityDim(tile[0], rois[0])});
    return Status::ok();
}

void axesRoiAlign(const OpContext &, int, std::vector<InputAxes> &in)
{
    in[0] = {.maps = {axisMap(1, 1)}, .reducedDims = {2, 3}, .opaque = true}; // the batch entry is value-dependent
    in[1] = {.maps = {axisMap(0, 0)}, .reducedDims = {1}};
    in[2] = {.maps = {axisMap(0, 0)}};
}

constexpr AttrSpec kRoiAlignAttrs[] = {{"coordinate_transformation_mode", K::String},
                                       {"mode", K::String},
                                       {"output_height", K::Int},
                                       {"output_width", K::Int},
                                       {"sampling_ratio", K::Int},
                                       {"spatial_scale", K::Float}};
constexpr AttrSpec kUpsampleAttrs[] = {{"mode", K::String}};
constexpr AttrSpec kGridSampleAttrs[] = {{"align_corners", K::Int}, {"mode", K::String}, {"padding_mode", K::String}};
constexpr AttrSpec kAttrs[] = {
    {"coordinate_transformation_mode", K::String},
    {"cubic_coeff_a", K::Float},
    {"exclude_outside", K::Int},
    {"extrapolation_value", K::Float},
    {"mode", K::String},
    {"nearest_mode", K::String},
};
constexpr OpDef kOps[] = {
    {"Resize", 1, 4, 1, 1, kAttrs, infer, flops, regions, axes},
    {"Upsample", 2, 2, 1, 1, kUpsampleAttrs, infer, flops, regions, axes},
    {"RoiAlign", 3, 3, 1, 1, kRoiAlignAttrs, inferRoiAlign, flopsRoiAlign, regionsRoiAlign, axesRoiAlign},
    {"GridSample", 2, 2, 1, 1, kGridSampleAttrs, inferGridSample, flopsGridSample, regionsGridSample, axesGridSample},
};

} // namespace

std::span<const OpDef> resizeOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
