// Shape manipulation (ONNX opset 7-17): Reshape-14, Flatten-13, Squeeze-13,
// Unsqueeze-13, Transpose-13, Shape-15, Constant-13.
//
// Reshape, Flatten, Squeeze and Unsqueeze keep the row-major element order:
// output element f (flat) is input element f, and the index map is the exact
// hull of the input positions behind the tile's flat indices (opdef.cpp).
//  - Reshape: shape from the constant `shape` input; 0 copies the input dim
//    (unless allowzero=1, which keeps a literal 0 and may not be combined with
//    -1), one -1 is inferred.
//  - Squeeze/Unsqueeze: axes from the input (opset >= 13) or the attribute;
//    Squeeze without axes drops every extent-1 dim; Unsqueeze's axes index
//    the output rank.
//  - Flatten: axis in [-r, r], output [prod(d < axis), prod(d >= axis)].
// Transpose: perm (default reversed); output dim d is input dim perm[d].
// Shape (start/end attrs, opset 15, clamped as the spec says) and Constant
// (value / value_float(s) / value_int(s) / value_string(s)) read no elements.
// FLOPs: zero for all of them.
#include "core/ops/opdef.h"

#include <algorithm>

namespace tessera::ops::detail {

namespace {

double noFlops(const OpContext &)
{
    return 0;
}

// --- the row-major family ------------------------------------------------------------

Expected<Shape> reshapeTarget(const OpContext &c)
{
    auto spec = c.constInts(1, "shape");
    if (!spec)
        return spec.status();
    if (c.shape(1).size() != 1)
        return c.failAt(1, "shape input must be 1-D, got " + dimsStr(c.shape(1)));
    const Shape &x = c.shape(0);
    const bool allowZero = c.n.attrInt("allowzero", 0) != 0;
    Shape out = *spec;
    std::size_t inferred = out.size();
    std::int64_t known = 1;
    for (std::size_t i = 0; i < out.size(); ++i) {
        std::int64_t &d = out[i];
        if (d == -1) {
            if (inferred != out.size())
                return c.fail("shape " + dimsStr(*spec) + " has more than one -1");
            inferred = i;
            continue;
        }
        if (d == 0 && !allowZero) {
            if (i >= x.size())
                return c.fail("shape " + dimsStr(*spec) + " copies dim " + std::to_string(i) + " of a rank-" +
                              std::to_string(x.size()) + " input");
            d = x[i];
        }
        if (d < 0 || d > kMaxExtent)
            return c.fail("shape " + dimsStr(*spec) + " has an invalid entry " + std::to_string(d));
        const auto k = mulChecked(known, d);
        if (!k)
            return c.fail("shape " + dimsStr(*spec) + " overflows");
        known = *k;
    }
    const std::int64_t total = *numElements(x);
    if (inferred != out.size()) {
        if (allowZero && std::find(spec->begin(), spec->end(), 0) != spec->end())
            return c.fail("shape " + dimsStr(*spec) + " combines 0 and -1 with allowzero=1");
        if (known == 0 || total % known != 0)
            return c.fail("cannot infer the -1 of shape " + dimsStr(*spec) + " for " + std::to_string(total) +
                          " elements");
        out[inferred] = total / known;
    } else if (known != total) {
        return c.fail("shape " + dimsStr(*spec) + " has " + std::to_string(known) + " elements, input " + dimsStr(x) +
                      " has " + std::to_string(total));
    }
    return out;
}

Expected<Shape> flattenTarget(const OpContext &c)
{
    const Shape &x = c.shape(0);
    auto axis = c.axis(c.n.attrInt("axis", 1), c.rank(0), "axis", 1);
    if (!axis)
        return axis.status();
    Shape out{1, 1}; // [prod(d < axis), prod(d >= axis)]
    for (std::size_t d = 0; d < x.size(); ++d) {
        std::int64_t &o = out[static_cast<std::int64_t>(d) < *axis ? 0 : 1];
        const auto p = mulChecked(o, x[d]);
        if (!p)
            return c.fail("flattened shape of " + dimsStr(x) + " overflows");
        o = *p;
    }
    return out;
}

Expected<Shape> squeezeTarget(const OpContext &c)
{
    const Shape &x = c.shape(0);
    auto given = c.intsFromInputOrAttr(1, "axes");
    if (!given)
        return given.status();
    std::vector<bool> drop(x.size(), false);
    if (!*given) {
        for (std::size_t d = 0; d < x.size(); ++d)
            drop[d] = x[d] == 1;
    } else {
        auto ax = c.axes(**given, c.rank(0), "axis");
        if (!ax)
            return ax.status();
        for (std::int64_t a : *ax) {
            if (x[static_cast<std::size_t>(a)] != 1)
                return c.fail("axis " + std::to_string(a) + " has extent " +
                              std::to_string(x[static_cast<std::size_t>(a)]) + ", expected 1");
            drop[static_cast<std::size_t>(a)] = true;
        }
    }
    Shape out;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (!drop[d])
            out.push_back(x[d]);
    return out;
}

Expected<Shape> unsqueezeTarget(const OpContext &c)
{
    const Shape &x = c.shape(0);
    auto given = c.intsFromInputOrAttr(1, "axes");
    if (!given)
        return given.status();
    if (!*given)
        return c.fail("axes are missing");
    if ((*given)->size() > static_cast<std::size_t>(kMaxLoop))
        return c.fail("too many axes");
    const auto rank = static_cast<std::int64_t>(x.size() + (*given)->size());
    auto ax = c.axes(**given, rank, "axis");
    if (!ax)
        return ax.status();
    Shape out(static_cast<std::size_t>(rank), 1);
    std::vector<bool> inserted(out.size(), false);
    for (std::int64_t a : *ax)
        inserted[static_cast<std::size_t>(a)] = true;
    std::size_t i = 0;
    for (std::size_t d = 0; d < out.size(); ++d)
        if (!inserted[d])
            out[d] = x[i++];
    return out;
}

Expected<Shape> rowMajorTarget(const OpContext &c)
{
    const std::string &t = c.n.opType;
    return t == "Reshape"   ? reshapeTarget(c)
           : t == "Flatten" ? flattenTarget(c)
           : t == "Squeeze" ? squeezeTarget(c)
                            : unsqueezeTarget(c);
}

Status inferRowMajor(const OpContext &c, std::vector<TensorType> &outs)
{
    auto s = rowMajorTarget(c);
    if (!s)
        return s.status();
    outs = {{c.in(0).dtype, std::move(*s)}};
    return Status::ok();
}

Status regionsRowMajor(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    in[0] = reindexRegion(tile, c.outs[0].shape, c.shape(0));
    return Status::ok();
}

void axesRowMajor(const OpContext &c, int, std::vector<InputAxes> &in)
{
    in[0] = reindexAxes(c.outs[0].shape, c.shape(0));
}

// --- Transpose ---------------------------------------------------------------------

Expected<std::vector<std::int64_t>> permutation(const OpContext &c)
{
    const std::int64_t r = c.rank(0);
    std::vector<std::int64_t> perm;
    if (c.n.attr("perm")) {
        perm = c.n.attrInts("perm");
    } else {
        for (std::int64_t d = r; d-- > 0;)
            perm.push_back(d);
    }
    std::vector<bool> seen(static_cast<std::size_t>(r), false);
    bool ok = static_cast<std::int64_t>(perm.size()) == r;
    for (std::size_t i = 0; ok && i < perm.size(); ++i) {
        ok = perm[i] >= 0 && perm[i] < r && !seen[static_cast<std::size_t>(perm[i])];
        if (ok)
            seen[static_cast<std::size_t>(perm[i])] = true;
    }
    if (!ok)
        return c.fail("perm " + dimsStr(perm) + " is not a permutation of the " + std::to_string(r) + " input dims");
    return perm;
}

Status inferTranspose(const OpContext &c, std::vector<TensorType> &outs)
{
    auto perm = permutation(c);
    if (!perm)
        return perm.status();
    Shape s;
    for (std::int64_t p : *perm)
        s.push_back(c.shape(0)[static_cast<std::size_t>(p)]);
    outs = {{c.in(0).dtype, s}};
    return Status::ok();
}

Status regionsTranspose(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto perm = permutation(c);
    if (!perm)
        return perm.status();
    std::vector<DimRange> dims(perm->size());
    for (std::size_t d = 0; d < perm->size(); ++d) {
        const auto p = static_cast<std::size_t>((*perm)[d]);
        dims[p] = identityDim(tile[d], c.shape(0)[p]);
    }
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesTranspose(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto perm = permutation(c);
    if (!perm)
        return;
    InputAxes x;
    for (std::size_t d = 0; d < perm->size(); ++d)
        x.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>((*perm)[d])));
    in[0] = x;
}

// --- Shape and Constant -------------------------------------------------------------

Status inferShape(const OpContext &c, std::vector<TensorType> &outs)
{
    const std::int64_t r = c.rank(0);
    auto clampAxis = [r](std::int64_t a) { return std::clamp(a < 0 ? a + r : a, std::int64_t{0}, r); };
    const std::int64_t start = clampAxis(c.n.attrInt("start", 0)), end = clampAxis(c.n.attrInt("end", r));
    outs = {{DType::Int64, {std::max<std::int64_t>(0, end - start)}}};
    return Status::ok();
}

Status inferConstant(const OpContext &c, std::vector<TensorType> &outs)
{
    static constexpr std::string_view kKeys[] = {"value",      "value_float",  "value_floats",  "value_int",
                                                 "value_ints", "value_string", "value_strings", "sparse_value"};
    std::vector<std::string_view> set;
    for (auto k : kKeys)
        if (c.n.attr(k))
            set.push_back(k);
    if (set.size() != 1)
        return c.fail("needs exactly one of value, value_float(s), value_int(s), value_string(s); has " +
                      std::to_string(set.size()));
    const Attribute &a = *c.n.attr(set[0]);
    const std::string_view k = set[0];
    if (k == "sparse_value")
        return c.unsupported("sparse_value is not supported");
    if (k == "value") {
        const auto &t = std::get<std::shared_ptr<const TensorData>>(a.value);
        if (!t || !numElements(t->shape))
            return c.fail("value has no tensor or an invalid shape");
        outs = {{t->dtype, t->shape}};
    } else if (k == "value_float") {
        outs = {{DType::Float32, {}}};
    } else if (k == "value_int") {
        outs = {{DType::Int64, {}}};
    } else if (k == "value_string") {
        outs = {{DType::String, {}}};
    } else if (k == "value_floats") {
        outs = {{DType::Float32, {static_cast<std::int64_t>(std::get<std::vector<double>>(a.value).size())}}};
    } else if (k == "value_ints") {
        outs = {{DType::Int64, {static_cast<std::int64_t>(std::get<std::vector<std::int64_t>>(a.value).size())}}};
    } else {
        outs = {{DType::String, {static_cast<std::int64_t>(std::get<std::vector<std::string>>(a.value).size())}}};
    }
    return Status::ok();
}

Status noRegions(const OpContext &, int, const Region &, std::vector<InputRegion> &)
{
    return Status::ok();
}
void noAxes(const OpContext &, int, std::vector<InputAxes> &) {}

using K = Attribute::Kind;
constexpr AttrSpec kReshapeAttrs[] = {{"allowzero", K::Int}};
constexpr AttrSpec kAxisAttrs[] = {{"axis", K::Int}};
constexpr AttrSpec kAxesAttrs[] = {{"axes", K::Ints}};
constexpr AttrSpec kPermAttrs[] = {{"perm", K::Ints}};
constexpr AttrSpec kShapeAttrs[] = {{"end", K::Int}, {"start", K::Int}};
constexpr AttrSpec kConstantAttrs[] = {
    {"value", K::Tensor},    {"value_float", K::Float},   {"value_floats", K::Floats},   {"value_int", K::Int},
    {"value_ints", K::Ints}, {"value_string", K::String}, {"value_strings", K::Strings},
};
constexpr OpDef kOps[] = {
    {"Reshape", 2, 2, 1, 1, kReshapeAttrs, inferRowMajor, noFlops, regionsRowMajor, axesRowMajor},
    {"Flatten", 1, 1, 1, 1, kAxisAttrs, inferRowMajor, noFlops, regionsRowMajor, axesRowMajor},
    {"Squeeze", 1, 2, 1, 1, kAxesAttrs, inferRowMajor, noFlops, regionsRowMajor, axesRowMajor},
    {"Unsqueeze", 1, 2, 1, 1, kAxesAttrs, inferRowMajor, noFlops, regionsRowMajor, axesRowMajor},
    {"Transpose", 1, 1, 1, 1, kPermAttrs, inferTranspose, noFlops, regionsTranspose, axesTranspose},
    {"Shape", 1, 1, 1, 1, kShapeAttrs, inferShape, noFlops, noRegions, noAxes},
    {"Constant", 0, 0, 1, 1, kConstantAttrs, inferConstant, noFlops, noRegions, noAxes},
};

} // namespace

std::span<const OpDef> shapeOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
