// Reductions (ONNX Reduce*-13, ReduceSum-13/Reduce*-18 with an `axes` input):
// ReduceMean, ReduceSum, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
// ReduceLogSum, ReduceLogSumExp, ReduceSumSquare, and ArgMax/ArgMin (one
// `axis` attribute, default 0, an int64 result). Axes come from the `axes`
// input when present, else the attribute. keepdims (default 1) keeps reduced
// dims as extent 1; empty or absent axes reduce everything unless
// noop_with_empty_axes=1, which makes the op an identity. Each output element
// reads its reduced dims whole; the kept dims tile one to one.
// FLOPs: one step per input element (two for L1/L2/SumSquare/LogSumExp:
// the element's own function and the combine), plus one per output element
// for Mean's divide and L2/LogSum/LogSumExp's final sqrt/log.
//
// TopK (ONNX TopK-11): the K (a constant input) largest or smallest elements
// along `axis` (default -1): Values (x's type) and Indices (int64), x's shape
// with the axis' extent K; sorted (or, with sorted=0, in any order: Tessera
// sorts anyway); equal values keep their index order. Each output element
// reads its whole line along the axis; the other dims tile one to one.
// FLOPs: one compare per element of x per output element of the line's K
// (a selection), counted as K · elements(x).
#include "core/ops/opdef.h"

#include <algorithm>

namespace tessera::ops::detail {

namespace {

struct ReduceGeom {
    std::vector<bool> reduced; // per input dim
    bool keepdims = true;
};

bool isArg(const OpContext &c)
{
    return c.n.opType == "ArgMax" || c.n.opType == "ArgMin";
}

Expected<ReduceGeom> geometry(const OpContext &c)
{
    const std::int64_t r = c.rank(0);
    if (isArg(c)) {
        auto a = c.axis(c.n.attrInt("axis", 0), r, "axis");
        if (!a)
            return a.status();
        ReduceGeom g;
        g.keepdims = c.n.attrInt("keepdims", 1) != 0;
        g.reduced.assign(static_cast<std::size_t>(r), false);
        g.reduced[static_cast<std::size_t>(*a)] = true;
        return g;
    }
    auto given = c.intsFromInputOrAttr(1, "axes");
    if (!given)
        return given.status();
    std::vector<std::int64_t> list = given->value_or(std::vector<std::int64_t>{});
    auto ax = c.axes(list, r, "axis");
    if (!ax)
        return ax.status();
    ReduceGeom g;
    g.keepdims = c.n.attrInt("keepdims", 1) != 0;
    const bool noop = c.n.attrInt("noop_with_empty_axes", 0) != 0;
    g.reduced.assign(static_cast<std::size_t>(r), ax->empty() && !noop);
    for (std::int64_t a : *ax)
        g.reduced[static_cast<std::size_t>(a)] = true;
    return g;
}

// --- TopK -------------------------------------------------------------------------

struct TopKGeom {
    std::int64_t axis = 0, k = 0;
};

Expected<TopKGeom> topkGeom(const OpContext &c)
{
    auto k = c.constInts(1, "K");
    if (!k)
        return k.status();
    if (k->size() != 1)
        return c.failAt(1, "K must have one element, got " + std::to_string(k->size()));
    auto a = c.axis(c.n.attrInt("axis", -1), c.rank(0), "axis");
    if (!a)
        return a.status();
    if ((*k)[0] < 0 || (*k)[0] > c.shape(0)[static_cast<std::size_t>(*a)])
        return c.failAt(1, "K " + std::to_string((*k)[0]) + " is not in [0, " +
                               std::to_string(c.shape(0)[static_cast<std::size_t>(*a)]) + "]");
    return TopKGeom{*a, (*k)[0]};
}

Status inferTopK(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = topkGeom(c);
    if (!g)
        return g.status();
    Shape s = c.shape(0);
    s[static_cast<std::size_t>(g->axis)] = g->k;
    outs = {{c.in(0).dtype, s}, {DType::Int64, s}};
    return Status::ok();
}

double flopsTopK(const OpContext &c)
{
    auto g = topkGeom(c);
    return g ? static_cast<double>(g->k) * elements(c.shape(0)) : 0;
}

Status regionsTopK(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = topkGeom(c);
    if (!g)
        return g.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back(static_cast<std::int64_t>(d) == g->axis ? fullDim(x[d]) : identityDim(tile[d], x[d]));
    in[0] = makeRegion(dims); // K is a compile-time value: not read
    return Status::ok();
}

void axesTopK(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = topkGeom(c);
    if (!g)
        return;
    for (int d = 0; d < static_cast<int>(c.rank(0)); ++d)
        if (d == g->axis)
            in[0].reducedDims.push_back(d);
        else
            in[0].maps.push_back(axisMap(d, d));
}

// --- reductions ---------------------------------------------------------------------

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = geometry(c);
    if (!g)
        return g.status();
    const Shape &x = c.shape(0);
    Shape s;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (!g->reduced[d])
            s.push_back(x[d]);
        else if (g->keepdims)
            s.push_back(1);
    outs = {{isArg(c) ? DType::Int64 : c.in(0).dtype, s}};
    return Status::ok();
}

double flops(const OpContext &c)
{
    const std::string_view op = c.n.opType;
    const double perIn =
        op == "ReduceL1" || op == "ReduceL2" || op == "ReduceSumSquare" || op == "ReduceLogSumExp" ? 2 : 1;
    const bool perOut = op == "ReduceMean" || op == "ReduceL2" || op == "ReduceLogSum" || op == "ReduceLogSumExp";
    return perIn * elements(c.shape(0)) + (perOut ? elements(c.outs[0].shape) : 0);
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = geometry(c);
    if (!g)
        return g.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    std::size_t o = 0;
    for (std::size_t d = 0; d < x.size(); ++d) {
        if (g->reduced[d]) {
            dims.push_back(fullDim(x[d]));
            o += g->keepdims ? 1 : 0;
        } else {
            dims.push_back(identityDim(tile[o++], x[d]));
        }
    }
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto g = geometry(c);
    if (!g)
        return;
    InputAxes x;
    int o = 0;
    for (std::size_t d = 0; d < g->reduced.size(); ++d) {
        if (g->reduced[d]) {
            x.reducedDims.push_back(static_cast<int>(d));
            o += g->keepdims ? 1 : 0;
        } else {
            x.maps.push_back(axisMap(o++, static_cast<int>(d)));
        }
    }
    in[0] = x;
}

using K = Attribute::Kind;
constexpr AttrSpec kAttrs[] = {{"axes", K::Ints}, {"keepdims", K::Int}, {"noop_with_empty_axes", K::Int}};
constexpr AttrSpec kArgAttrs[] = {{"axis", K::Int}, {"keepdims", K::Int}, {"select_last_index", K::Int}};
constexpr AttrSpec kTopKAttrs[] = {{"axis", K::Int}, {"largest", K::Int}, {"sorted", K::Int}};
constexpr OpDef reduce(std::string_view name)
{
    return {name, 1, 2, 1, 1, kAttrs, infer, flops, regions, axes};
}
constexpr OpDef kOps[] = {
    reduce("ReduceMean"),
    reduce("ReduceSum"),
    reduce("ReduceMax"),
    reduce("ReduceMin"),
    reduce("ReduceProd"),
    reduce("ReduceL1"),
    reduce("ReduceL2"),
    reduce("ReduceLogSum"),
    reduce("ReduceLogSumExp"),
    reduce("ReduceSumSquare"),
    {"ArgMax", 1, 1, 1, 1, kArgAttrs, infer, flops, regions, axes},
    {"ArgMin", 1, 1, 1, 1, kArgAttrs, infer, flops, regions, axes},
    {"TopK", 2, 2, 2, 2, kTopKAttrs, inferTopK, flopsTopK, regionsTopK, axesTopK},
};

} // namespace

std::span<const OpDef> reduceOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
