// Data movement (ONNX opset 7-17): Concat-13, Split-13 (and -18's
// num_outputs), Slice-13 (and -1's attributes), Gather-13, Pad-13 (and -2's
// attributes, -18's axes input).
//
// Concat: output along `axis` is the inputs back to back; an input outside
//   the tile along the axis gets an empty (but used) region.
// Split: output k is input [offset_k, offset_k + split_k) along `axis`;
//   split from the input (opset >= 13) or attribute, else equal parts
//   (num_outputs, or the output count; the last part may be smaller only
//   with num_outputs, as opset 18 defines).
// Slice: starts/ends/axes/steps from inputs (opset >= 10) or attributes;
//   negative starts/ends add the dim, then clamp to [0, dim] (step > 0) or
//   [0, dim-1] / [-1, dim-1] (step < 0), as the spec (and onnxruntime) words
//   it: unlike numpy, a negative step from before the start still selects
//   element 0. Output o reads start + o*step.
// Gather: Y[a, i, b] = data[a, indices[i], b]; reads indices[i] and, along
//   `axis`, the hull of the indices' values when `indices` is constant
//   (negative ones wrapped, out-of-range ones rejected), else the whole axis.
// Pad: output o reads o - padBegin; constant mode leaves positions outside the
//   input as padding (and reads the scalar constant_value), edge clamps them, reflect
//   mirrors them as numpy.pad does (repeatedly, period 2(dim-1)); for these
//   two the region is the hull of the raw positions and the ones read.
// FLOPs: zero for all of them.
#include "core/ops/opdef.h"
#include "core/ops/slice.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <numeric>

namespace tessera::ops::detail {

namespace {

double noFlops(const OpContext &)
{
    return 0;
}

InputAxes identityAxes(std::size_t rank, std::size_t except, std::int64_t offset)
{
    InputAxes ax;
    for (std::size_t d = 0; d < rank; ++d)
        ax.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d), 1, d == except ? offset : 0));
    return ax;
}

// --- Concat -------------------------------------------------------------------------

struct ConcatGeom {
    std::size_t axis = 0;
    std::vector<std::int64_t> offsets; // per input, along the axis
    Shape out;
};

Expected<ConcatGeom> concatGeom(const OpContext &c)
{
    if (!c.n.attr("axis"))
        return c.fail("attribute 'axis' is missing");
    const Shape &first = c.shape(0);
    auto axis = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
    if (!axis)
        return axis.status();
    ConcatGeom g;
    g.axis = static_cast<std::size_t>(*axis);
    g.out = first;
    g.out[g.axis] = 0;
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i) {
        if (!c.has(i))
            return c.fail("input " + std::to_string(i) + " is missing");
        const Shape &s = c.shape(i);
        bool ok = s.size() == first.size();
        for (std::size_t d = 0; ok && d < s.size(); ++d)
            ok = d == g.axis || s[d] == first[d];
        if (!ok)
            return c.failAt(i, "input " + std::to_string(i) + " has shape " + dimsStr(s) + ", incompatible with " +
                                   dimsStr(first) + " outside axis " + std::to_string(g.axis));
        g.offsets.push_back(g.out[g.axis]);
        g.out[g.axis] += s[g.axis];
        if (g.out[g.axis] > kMaxExtent)
            return c.fail("concatenated extent is too large");
    }
    return g;
}

Status inferConcat(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = concatGeom(c);
    if (!g)
        return g.status();
    outs = {{c.in(0).dtype, g->out}};
    return Status::ok();
}

Status regionsConcat(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = concatGeom(c);
    if (!g)
        return g.status();
    for (std::size_t i = 0; i < in.size(); ++i) {
        const Shape &s = c.shape(i);
        std::vector<DimRange> dims;
        for (std::size_t d = 0; d < s.size(); ++d) {
            if (d != g->axis) {
                dims.push_back(identityDim(tile[d], s[d]));
                continue;
            }
            const std::int64_t off = g->offsets[i];
            const Interval part{std::max(tile[d].begin, off) - off, std::min(tile[d].end, off + s[d]) - off};
            dims.push_back({part, part});
        }
        in[i] = makeRegion(dims);
    }
    return Status::ok();
}

void axesConcat(const OpContext &c, int, std::vector<InputAxes> &in)
{
    if (auto g = concatGeom(c))
        for (std::size_t i = 0; i < in.size(); ++i)
            in[i] = identityAxes(c.shape(i).size(), g->axis, -g->offsets[i]);
}

// --- Split ----------------------------------------------------------------------------

struct SplitGeom {
    std::size_t axis = 0;
    std::vector<std::int64_t> sizes, offsets;
};

Expected<SplitGeom> splitGeom(const OpContext &c)
{
    const Shape &x = c.shape(0);
    auto axis = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
    if (!axis)
        return axis.status();
    SplitGeom g;
    g.axis = static_cast<std::size_t>(*axis);
    const std::int64_t dim = x[g.axis];
    const auto outputs = static_cast<std::int64_t>(c.n.outputs.size());
    auto given = c.intsFromInputOrAttr(1, "split");
    if (!given)
        return given.status();
    if (*given) {
        g.sizes = **given;
        if (static_cast<std::int64_t>(g.sizes.size()) != outputs)
            return c.fail("split has " + std::to_string(g.sizes.size()) + " entries for " + std::to_string(outputs) +
                          " outputs");
        std::int64_t sum = 0;
        for (std::int64_t s : g.sizes) {
            if (s < 0 || s > kMaxExtent)
                return c.fail("split " + dimsStr(g.sizes) + " has an invalid entry");
            sum += s;
        }
        if (sum != dim)
            return c.fail("split " + dimsStr(g.sizes) + " sums to " + std::to_string(sum) + ", axis " +
                          std::to_string(g.axis) + " has extent " + std::to_string(dim));
    } else {
        const bool numOutputs = c.n.attr("num_outputs") != nullptr;
        if (numOutputs && c.n.attrInt("num_outputs", 0) != outputs)
            return c.fail("num_outputs " + std::to_string(c.n.attrInt("num_outputs", 0)) + " differs from the " +
                          std::to_string(outputs) + " outputs");
        if (!numOutputs && dim % outputs != 0)
            return c.fail("axis " + std::to_string(g.axis) + " of extent " + std::to_string(dim) +
                          " does not split evenly into " + std::to_string(outputs) + " outputs");
        const std::int64_t chunk = ceilDiv(dim, outputs);
        for (std::int64_t k = 0, left = dim; k < outputs; ++k, left -= chunk)
            g.sizes.push_back(std::clamp<std::int64_t>(left, 0, chunk));
    }
    g.offsets.resize(g.sizes.size());
    std::exclusive_scan(g.sizes.begin(), g.sizes.end(), g.offsets.begin(), std::int64_t{0});
    return g;
}

Status inferSplit(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = splitGeom(c);
    if (!g)
        return g.status();
    outs.clear();
    for (std::int64_t s : g->sizes) {
        Shape shape = c.shape(0);
        shape[g->axis] = s;
        outs.push_back({c.in(0).dtype, shape});
    }
    return Status::ok();
}

Status regionsSplit(const OpContext &c, int output, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = splitGeom(c);
    if (!g)
        return g.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back(d == g->axis ? offsetDim(tile[d], g->offsets[static_cast<std::size_t>(output)], x[d])
                                    : identityDim(tile[d], x[d]));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesSplit(const OpContext &c, int output, std::vector<InputAxes> &in)
{
    if (auto g = splitGeom(c))
        in[0] = identityAxes(c.shape(0).size(), g->axis, g->offsets[static_cast<std::size_t>(output)]);
}

// --- Slice ----------------------------------------------------------------------------

Expected<std::vector<SliceAxis>> sliceGeom(const OpContext &c)
{
    const Shape &x = c.shape(0);
    const bool fromInputs = c.n.inputs.size() > 1;
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (fromInputs) {
        if (!c.has(1) || !c.has(2))
            return c.fail("inputs 'starts' and 'ends' are required");
        auto s = c.constInts(1, "starts"), e = c.constInts(2, "ends");
        if (!s)
            return s.status();
        if (!e)
            return e.status();
        starts = std::move(*s), ends = std::move(*e);
        if (c.has(3)) {
            auto a = c.constInts(3, "axes");
            if (!a)
                return a.status();
            axes = std::move(*a);
        }
        if (c.has(4)) {
            auto st = c.constInts(4, "steps");
            if (!st)
                return st.status();
            steps = std::move(*st);
        }
    } else {
        if (!c.n.attr("starts") || !c.n.attr("ends"))
            return c.fail("attributes 'starts' and 'ends' are required");
        starts = c.n.attrInts("starts"), ends = c.n.attrInts("ends"), axes = c.n.attrInts("axes");
    }
    if (ends.size() != starts.size())
        return c.fail("starts has " + std::to_string(starts.size()) + " entries, ends " + std::to_string(ends.size()));
    if (!(fromInputs ? c.has(3) : c.n.attr("axes") != nullptr)) {
        if (starts.size() > x.size())
            return c.fail("starts has " + std::to_string(starts.size()) + " entries for rank " +
                          std::to_string(x.size()));
        axes.resize(starts.size());
        std::iota(axes.begin(), axes.end(), std::int64_t{0});
    }
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size())
        return c.fail("starts, ends, axes and steps have different lengths");
    auto ax = c.axes(axes, c.rank(0), "axis");
    if (!ax)
        return ax.status();

    std::vector<SliceAxis> g(x.size());
    for (std::size_t d = 0; d < x.size(); ++d)
        g[d].out = x[d];
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const std::int64_t dim = x[static_cast<std::size_t>((*ax)[i])];
        std::int64_t step = steps[i];
        if (step == 0)
            return c.fail("step of axis " + std::to_string((*ax)[i]) + " is 0");
        g[static_cast<std::size_t>((*ax)[i])] = sliceAxis(starts[i], ends[i], step, dim);
    }
    return g;
}

Status inferSlice(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = sliceGeom(c);
    if (!g)
        return g.status();
    Shape s;
    for (const SliceAxis &a : *g)
        s.push_back(a.out);
    outs = {{c.in(0).dtype, s}};
    return Status::ok();
}

Status regionsSlice(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = sliceGeom(c);
    if (!g)
        return g.status();
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < g->size(); ++d)
        dims.push_back(stridedDim(tile[d], (*g)[d].start, (*g)[d].step));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesSlice(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = sliceGeom(c);
    if (!g)
        return;
    InputAxes x;
    for (std::size_t d = 0; d < g->size(); ++d)
        x.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d), (*g)[d].step, (*g)[d].start));
    in[0] = x;
}

// --- Gather ---------------------------------------------------------------------------

Expected<std::size_t> gatherAxis(const OpContext &c)
{
    if (c.shape(0).empty())
        return c.failAt(0, "data must have rank >= 1");
    auto a = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
    if (!a)
        return a.status();
    return static_cast<std::size_t>(*a);
}

// Hull of the (wrapped) constant index values in `box` of the indices tensor,
// or nullopt if the indices are not constant.
Expected<std::optional<Interval>> indexHull(const OpContext &c, const Region &box, std::int64_t extent)
{
    if (!c.in(1).isConstant() || c.in(1).data->isExternal())
        return std::optional<Interval>();
    const TensorData &d = *c.in(1).data;
    const Shape &s = c.shape(1);
    if (d.shape != s)
        return c.failAt(1, "indices data has shape " + dimsStr(d.shape) + ", tensor says " + dimsStr(s));
    std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = -1;
    std::vector<std::int64_t> idx(s.size());
    for (std::size_t k = 0; k < s.size(); ++k)
        idx[k] = box[k].begin;
    if (std::any_of(box.begin(), box.end(), [](const Interval &i) { return i.empty(); }))
        return std::optional<Interval>(Interval{});
    for (;;) {
        std::int64_t flat = 0;
        for (std::size_t k = 0; k < s.size(); ++k)
            flat = flat * s[k] + idx[k];
        const auto v = d.intAt(flat);
        if (!v)
            return c.failAt(1, "indices must be a constant integer tensor with inline data");
        if (*v < -extent || *v >= extent)
            return c.failAt(1, "index " + std::to_string(*v) + " is out of range for an axis of extent " +
                                   std::to_string(extent));
        const std::int64_t i = *v < 0 ? *v + extent : *v;
        lo = std::min(lo, i);
        hi = std::max(hi, i);
        std::size_t k = s.size();
        while (k > 0 && ++idx[k - 1] == box[k - 1].end) {
            idx[k - 1] = box[k - 1].begin;
            --k;
        }
        if (k == 0)
            break;
    }
    return std::optional<Interval>(Interval{lo, hi + 1});
}

Status inferGather(const OpContext &c, std::vector<TensorType> &outs)
{
    auto axis = gatherAxis(c);
    if (!axis)
        return axis.status();
    const Shape &x = c.shape(0), &ind = c.shape(1);
    if (!isInteger(c.in(1).dtype))
        return c.failAt(1, "indices have type " + std::string(dtypeName(c.in(1).dtype)) + ", expected int32 or int64");
    auto check = indexHull(c, fullRegion(ind), x[*axis]); // validates constant indices once
    if (!check)
        return check.status();
    Shape s(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(*axis));
    s.insert(s.end(), ind.begin(), ind.end());
    s.insert(s.end(), x.begin() + static_cast<std::ptrdiff_t>(*axis) + 1, x.end());
    outs = {{c.in(0).dtype, s}};
    return Status::ok();
}

Status regionsGather(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto axis = gatherAxis(c);
    if (!axis)
        return axis.status();
    const Shape &x = c.shape(0), &ind = c.shape(1);
    const std::size_t q = ind.size();
    const Region box(tile.begin() + static_cast<std::ptrdiff_t>(*axis),
                     tile.begin() + static_cast<std::ptrdiff_t>(*axis + q));
    std::vector<DimRange> id;
    for (std::size_t k = 0; k < q; ++k)
        id.push_back(identityDim(box[k], ind[k]));
    in[1] = makeRegion(id);
    auto hull = indexHull(c, box, x[*axis]);
    if (!hull)
        return hull.status();
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d) {
        if (d < *axis)
            dims.push_back(identityDim(tile[d], x[d]));
        else if (d > *axis)
            dims.push_back(identityDim(tile[d + q - 1], x[d]));
        else
            dims.push_back(*hull ? DimRange{**hull, **hull} : fullDim(x[d]));
    }
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesGather(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto axis = gatherAxis(c);
    if (!axis)
        return;
    const std::size_t q = c.shape(1).size();
    InputAxes x{.opaque = true}, ind;
    for (std::size_t d = 0; d < c.shape(0).size(); ++d)
        if (d != *axis)
            x.maps.push_back(axisMap(static_cast<int>(d < *axis ? d : d + q - 1), static_cast<int>(d)));
    for (std::size_t k = 0; k < q; ++k)
        ind.maps.push_back(axisMap(static_cast<int>(*axis + k), static_cast<int>(k)));
    in[0] = x;
    in[1] = ind;
}

// --- Pad ------------------------------------------------------------------------------

enum class PadMode : std::uint8_t { Constant, Reflect, Edge };

struct PadGeom {
    PadMode mode = PadMode::Constant;
    std::vector<std::int64_t> begin, end; // per input dim
};

Expected<PadGeom> padGeom(const OpContext &c)
{
    const Shape &x = c.shape(0);
    PadGeom g;
    const std::string mode = c.n.attrString("mode", "constant");
    if (mode == "constant")
        g.mode = PadMode::Constant;
    else if (mode == "reflect")
        g.mode = PadMode::Reflect;
    else if (mode == "edge")
        g.mode = PadMode::Edge;
    else
        return c.fail("mode '" + mode + "' is not one of constant, reflect, edge");
    auto given = c.intsFromInputOrAttr(1, "pads");
    if (!given)
        return given.status();
    if (!*given)
        return c.fail("pads are missing");
    const std::vector<std::int64_t> &pads = **given;
    std::vector<std::int64_t> axes(x.size());
    std::iota(axes.begin(), axes.end(), std::int64_t{0});
    if (c.has(3)) {
        auto a = c.constInts(3, "axes");
        if (!a)
            return a.status();
        auto ax = c.axes(*a, c.rank(0), "axis");
        if (!ax)
            return ax.status();
        axes = std::move(*ax);
    }
    if (c.has(2) && numElements(c.shape(2)) != 1)
        return c.failAt(2, "constant_value has shape " + dimsStr(c.shape(2)) + ", expected a scalar");
    if (pads.size() != 2 * axes.size())
        return c.fail("pads has " + std::to_string(pads.size()) + " entries, expected " +
                      std::to_string(2 * axes.size()));
    g.begin.assign(x.size(), 0);
    g.end.assign(x.size(), 0);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto d = static_cast<std::size_t>(axes[i]);
        g.begin[d] = pads[i];
        g.end[d] = pads[axes.size() + i];
        const auto a = addChecked(x[d], g.begin[d]);
        const auto out = a ? addChecked(*a, g.end[d]) : std::nullopt;
        if (!out || *out < 0 || g.begin[d] < -kMaxExtent || g.begin[d] > kMaxExtent)
            return c.fail("pads " + dimsStr(pads) + " give a negative or overflowing extent on axis " +
                          std::to_string(d));
        if (g.mode != PadMode::Constant && x[d] == 0 && *out > 0)
            return c.fail(mode + " padding of the empty axis " + std::to_string(d));
    }
    return g;
}

Status inferPad(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = padGeom(c);
    if (!g)
        return g.status();
    Shape s = c.shape(0);
    for (std::size_t d = 0; d < s.size(); ++d)
        s[d] += g->begin[d] + g->end[d];
    outs = {{c.in(0).dtype, s}};
    return Status::ok();
}

// numpy's reflect: a triangle wave of period 2(n-1) through 0 .. n-1.
std::int64_t reflectIndex(std::int64_t i, std::int64_t n)
{
    if (n == 1)
        return 0;
    const std::int64_t period = 2 * (n - 1);
    const std::int64_t m = ((i % period) + period) % period;
    return m < n ? m : period - m;
}

// Hull of the reflected positions [a, b]: the image of a contiguous range
// is contiguous, its extremes at the ends or at a turning point.
Interval reflectHull(std::int64_t a, std::int64_t b, std::int64_t n)
{
    if (n == 1)
        return {0, 1};
    const std::int64_t period = 2 * (n - 1);
    std::int64_t lo = std::min(reflectIndex(a, n), reflectIndex(b, n));
    std::int64_t hi = std::max(reflectIndex(a, n), reflectIndex(b, n));
    if (floorDiv(b, period) * period >= a) // a multiple of the period lies in [a, b]
        lo = 0;
    if (floorDiv(b - (n - 1), period) * period + (n - 1) >= a)
        hi = n - 1;
    return {lo, hi + 1};
}

Status regionsPad(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = padGeom(c);
    if (!g)
        return g.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d) {
        DimRange r = offsetDim(tile[d], -g->begin[d], x[d]);
        if (!r.region.empty() && g->mode == PadMode::Edge)
            r.clipped = {std::clamp<std::int64_t>(r.region.begin, 0, x[d] - 1),
                         std::clamp<std::int64_t>(r.region.end - 1, 0, x[d] - 1) + 1};
        else if (!r.region.empty() && g->mode == PadMode::Reflect)
            r.clipped = reflectHull(r.region.begin, r.region.end - 1, x[d]);
        if (!r.region.empty() && g->mode != PadMode::Constant) // the region holds what is read, too
            r.region = {std::min(r.region.begin, r.clipped.begin), std::max(r.region.end, r.clipped.end)};
        dims.push_back(r);
    }
    in[0] = makeRegion(dims);
    if (g->mode == PadMode::Constant && c.has(2))
        in[2] = makeRegion(std::vector<DimRange>(c.shape(2).size(), broadcastDim()));
    return Status::ok();
}

void axesPad(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = padGeom(c);
    if (!g)
        return;
    InputAxes x;
    for (std::size_t d = 0; d < c.shape(0).size(); ++d) {
        if (g->mode == PadMode::Constant || (g->begin[d] == 0 && g->end[d] <= 0))
            x.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d), 1, -g->begin[d]));
        else
            x.opaque = true; // mirrored or clamped positions
    }
    in[0] = x;
}

using K = Attribute::Kind;
constexpr AttrSpec kConcatAttrs[] = {{"axis", K::Int}};
constexpr AttrSpec kSplitAttrs[] = {{"axis", K::Int}, {"num_outputs", K::Int}, {"split", K::Ints}};
constexpr AttrSpec kSliceAttrs[] = {{"axes", K::Ints}, {"ends", K::Ints}, {"starts", K::Ints}};
constexpr AttrSpec kGatherAttrs[] = {{"axis", K::Int}};
constexpr AttrSpec kPadAttrs[] = {{"mode", K::String}, {"pads", K::Ints}, {"value", K::Float}};
constexpr int kManyOutputs = 1 << 16;
constexpr OpDef kOps[] = {
    {"Concat", 1, -1, 1, 1, kConcatAttrs, inferConcat, noFlops, regionsConcat, axesConcat},
    {"Split", 1, 2, 1, kManyOutputs, kSplitAttrs, inferSplit, noFlops, regionsSplit, axesSplit},
    {"Slice", 1, 5, 1, 1, kSliceAttrs, inferSlice, noFlops, regionsSlice, axesSlice},
    {"Gather", 2, 2, 1, 1, kGatherAttrs, inferGather, noFlops, regionsGather, axesGather},
    {"Pad", 1, 4, 1, 1, kPadAttrs, inferPad, noFlops, regionsPad, axesPad},
};

} // namespace

std::span<const OpDef> movementOps()
{
    return kOps;
}

} // namespace tessera::ops::detail

namespace tessera::ops {

SliceAxis sliceAxis(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t dim)
{
    assert(step != 0 && dim >= 0);
    if (dim == 0)
        return {0, step > 0 ? 1 : -1, 0};
    step = std::clamp(step, -(dim + 1), dim + 1);
    if (start < 0)
        start = start < -dim ? -1 : start + dim; // avoids overflow near INT64_MIN; clamped below
    if (end < 0)
        end = end < -dim - 1 ? -2 : end + dim;
    if (step > 0) {
        start = std::clamp<std::int64_t>(start, 0, dim);
        end = std::clamp<std::int64_t>(end, 0, dim);
    } else {
        start = std::clamp<std::int64_t>(start, 0, dim - 1);
        end = std::clamp<std::int64_t>(end, -1, dim - 1);
    }
    const std::int64_t out = step > 0 ? (end - start + step - 1) / step : (start - end - step - 1) / -step;
    return {start, step, std::max<std::int64_t>(0, out)};
}

} // namespace tessera::ops
