// Index-mapped data movement and generators (ONNX opset 7-17): Expand,
// Tile, DepthToSpace, SpaceToDepth, Trilu, GatherElements, GatherND,
// ScatterElements, Scatter (opset 9-10), ScatterND, CumSum, OneHot,
// ConstantOfShape, Range, EyeLike, Size, ReverseSequence, Compress, NonZero
// and the window generators HannWindow, HammingWindow, BlackmanWindow
// (opset 17). Each output element is a
// function of its own index and of a few input elements; values an output
// shape depends on (Expand's shape, Tile's repeats, OneHot's depth,
// ConstantOfShape's shape, Range's start/limit/delta, a window's size,
// Compress's condition, NonZero's input) must be constants: Compress and
// NonZero are data-dependent, so Tessera folds their output shape from the
// constant and refuses a run-time input naming the node.
//
// Index maps: Expand reads the numpy-broadcast position of X (exact, like
// Add); Trilu reads X at the output's own position; CumSum reads X's whole
// line along `axis` at the output's other positions (their k and axis inputs
// are compile-time constants, not read by the kernel).
// The others read their inputs whole (a documented conservative hull: the
// positions depend on a block permutation, a modulo or index data) and
// declare their axes opaque, so schedulers tile them by output only.
// Generators (ConstantOfShape, Range, EyeLike, Size, the windows) read no
// elements. ReverseSequence reads x and sequence_lens whole (which element
// an output takes depends on the lengths).
// The scatters (output = data, then each update written at the position its
// index gives) read data, indices and updates whole: which updates land in
// a tile depends on index values.
// FLOPs: zero for data movement; CumSum one add per element; Range one
// multiply-add per element; OneHot one compare per element; Hann/Hamming
// windows 4 per element (angle, cos, scale, subtract), Blackman 7; a scatter with a
// reduction (add, mul, max, min) one per update element.
#include "core/ops/opdef.h"

#include <algorithm>
#include <cmath>

namespace tessera::ops::detail {

namespace {

double noFlops(const OpContext &)
{
    return 0;
}

double perOutput(const OpContext &c)
{
    const std::string_view op = c.n.opType;
    const double per = op == "Range"                                 ? 2
                       : op == "CumSum" || op == "OneHot"            ? 1
                       : op == "HannWindow" || op == "HammingWindow" ? 4 // cos, multiply, subtract, scale
                       : op == "BlackmanWindow"                      ? 7
                                                                     : 0;
    return per * elements(c.outs[0].shape);
}

double scatterFlops(const OpContext &c)
{
    return c.n.attrString("reduction", "none") == "none" ? 0 : elements(c.shape(2));
}

// Ops whose values come from constants or the input's shape only.
bool isGenerator(std::string_view op)
{
    return op == "ConstantOfShape" || op == "Range" || op == "EyeLike" || op == "Size" || op == "NonZero" ||
           op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow";
}

// Inputs read at compile time only: Tile's repeats, OneHot's depth,
// Compress's condition.
bool isCompileTime(std::string_view op, std::size_t input)
{
    return input == 1 && (op == "Tile" || op == "OneHot" || op == "Compress");
}

Status checkIndices(const OpContext &c, std::size_t input)
{
    if (c.in(input).dtype != DType::Int64 && c.in(input).dtype != DType::Int32)
        return c.failAt(input, "indices must be int32 or int64");
    return Status::ok();
}

// ScatterElements / Scatter: indices and updates of one shape, data's rank.
Status inferScatterElements(const OpContext &c)
{
    if (c.rank(1) != c.rank(0))
        return c.failAt(1, "indices rank " + std::to_string(c.rank(1)) + " differs from data rank " +
                               std::to_string(c.rank(0)));
    if (c.shape(2) != c.shape(1))
        return c.failAt(2, "updates have shape " + dimsStr(c.shape(2)) + ", indices " + dimsStr(c.shape(1)));
    auto axis = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
    if (!axis)
        return axis.status();
    for (std::int64_t d = 0; d < c.rank(1); ++d)
        if (d != *axis && c.shape(1)[d] > c.shape(0)[d])
            return c.failAt(1, "indices " + dimsStr(c.shape(1)) + " exceed data " + dimsStr(c.shape(0)) +
                                   " outside the axis");
    return Status::ok();
}

// ScatterND: indices [..., k] with k <= rank(data); updates
// indices.shape[:-1] + data.shape[k:].
Status inferScatterND(const OpContext &c)
{
    const Shape &x = c.shape(0), &ind = c.shape(1);
    if (x.empty() || ind.empty())
        return c.fail("data and indices must have rank >= 1");
    const std::int64_t k = ind.back();
    if (k < 1 || k > c.rank(0))
        return c.failAt(1,
                        "indices' last dim " + std::to_string(k) + " is not in [1, " + std::to_string(c.rank(0)) + "]");
    Shape want(ind.begin(), ind.end() - 1);
    want.insert(want.end(), x.begin() + k, x.end());
    if (c.shape(2) != want)
        return c.failAt(2, "updates have shape " + dimsStr(c.shape(2)) + ", expected " + dimsStr(want));
    return Status::ok();
}

Status checkReduction(const OpContext &c)
{
    const std::string red = c.n.attrString("reduction", "none");
    if (red != "none" && red != "add" && red != "mul" && red != "max" && red != "min")
        return c.fail("reduction '" + red + "' is not none, add, mul, max or min");
    return Status::ok();
}

// GatherND: output indices.shape[:-1] + data.shape[batch_dims + k:].
Expected<Shape> inferGatherND(const OpContext &c)
{
    const Shape &x = c.shape(0), &ind = c.shape(1);
    const std::int64_t b = c.n.attrInt("batch_dims", 0);
    if (ind.empty())
        return c.failAt(1, "indices must have rank >= 1");
    if (b < 0 || b >= c.rank(1) || b >= c.rank(0))
        return c.fail("batch_dims " + std::to_string(b) + " must be in [0, min(rank(data), rank(indices)))");
    const std::int64_t k = ind.back();
    if (k < 1 || b + k > c.rank(0))
        return c.failAt(1, "indices' last dim " + std::to_string(k) + " is not in [1, rank(data) - batch_dims]");
    for (std::int64_t d = 0; d < b; ++d)
        if (x[d] != ind[d])
            return c.failAt(1, "batch dims of indices " + dimsStr(ind) + " differ from data " + dimsStr(x));
    Shape out(ind.begin(), ind.end() - 1);
    out.insert(out.end(), x.begin() + b + k, x.end());
    return out;
}

Expected<std::int64_t> scalarInt(const OpContext &c, std::size_t input, std::string_view what)
{
    auto v = c.constInts(input, what);
    if (!v)
        return v.status();
    if (v->size() != 1)
        return c.failAt(input, std::string(what) + " must have one element, got " + std::to_string(v->size()));
    return (*v)[0];
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    const std::string_view op = c.n.opType;
    const DType t0 = c.n.inputs.empty() ? DType::Float32 : c.in(0).dtype;
    if (op == "Expand") {
        auto shape = c.constInts(1, "shape");
        if (!shape)
            return shape.status();
        Shape out = c.shape(0);
        const Shape &s = *shape;
        const std::size_t r = std::max(out.size(), s.size());
        Shape res(r);
        for (std::size_t i = 0; i < r; ++i) {
            const std::int64_t a = i + out.size() >= r ? out[i + out.size() - r] : 1;
            const std::int64_t b = i + s.size() >= r ? s[i + s.size() - r] : 1;
            if (a != b && a != 1 && b != 1)
                return c.fail("cannot broadcast " + dimsStr(out) + " to " + dimsStr(s));
            if (b < 0)
                return c.failAt(1, "shape " + dimsStr(s) + " has a negative entry");
            res[i] = a == 1 ? b : a;
        }
        outs = {{t0, res}};
    } else if (op == "Tile") {
        auto reps = c.constInts(1, "repeats");
        if (!reps)
            return reps.status();
        if (reps->size() != c.shape(0).size())
            return c.failAt(1, "repeats has " + std::to_string(reps->size()) + " entries for a rank-" +
                                   std::to_string(c.rank(0)) + " input");
        Shape out = c.shape(0);
        for (std::size_t i = 0; i < out.size(); ++i) {
            auto m = mulChecked(out[i], (*reps)[i]);
            if ((*reps)[i] < 0 || !m)
                return c.failAt(1, "repeats " + dimsStr(*reps) + " is negative or too large");
            out[i] = *m;
        }
        outs = {{t0, out}};
    } else if (op == "DepthToSpace" || op == "SpaceToDepth") {
        const std::int64_t b = c.n.attrInt("blocksize", 0);
        const Shape &x = c.shape(0);
        if (x.size() != 4)
            return c.failAt(0, "input must be 4-D, got " + dimsStr(x));
        if (b <= 0 || b > 4096)
            return c.fail("blocksize " + std::to_string(b) + " must be positive");
        if (op == "DepthToSpace") {
            if (x[1] % (b * b) != 0)
                return c.fail("channels " + std::to_string(x[1]) + " are not a multiple of blocksize² " +
                              std::to_string(b * b));
            const std::string mode = c.n.attrString("mode", "DCR");
            if (mode != "DCR" && mode != "CRD")
                return c.fail("mode '" + mode + "' is neither DCR nor CRD");
            outs = {{t0, {x[0], x[1] / (b * b), x[2] * b, x[3] * b}}};
        } else {
            if (x[2] % b != 0 || x[3] % b != 0)
                return c.fail("spatial dims " + dimsStr(x) + " are not multiples of blocksize " + std::to_string(b));
            outs = {{t0, {x[0], x[1] * b * b, x[2] / b, x[3] / b}}};
        }
    } else if (op == "Trilu") {
        if (c.rank(0) < 2)
            return c.failAt(0, "input must have rank >= 2, got " + dimsStr(c.shape(0)));
        if (c.has(1) && numElements(c.shape(1)) != 1)
            return c.failAt(1, "k must be a scalar");
        outs = {{t0, c.shape(0)}};
    } else if (op == "GatherElements") {
        if (c.rank(1) != c.rank(0))
            return c.failAt(1, "indices rank " + std::to_string(c.rank(1)) + " differs from data rank " +
                                   std::to_string(c.rank(0)));
        if (c.in(1).dtype != DType::Int64 && c.in(1).dtype != DType::Int32)
            return c.failAt(1, "indices must be int32 or int64");
        auto a = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
        if (!a)
            return a.status();
        outs = {{t0, c.shape(1)}};
    } else if (op == "GatherND") {
        TS_TRY(checkIndices(c, 1));
        auto out = inferGatherND(c);
        if (!out)
            return out.status();
        outs = {{t0, *out}};
    } else if (op == "ScatterElements" || op == "Scatter" || op == "ScatterND") {
        TS_TRY(checkIndices(c, 1));
        TS_TRY(checkReduction(c));
        TS_TRY(op == "ScatterND" ? inferScatterND(c) : inferScatterElements(c));
        if (c.in(2).dtype != t0)
            return c.failAt(2, "updates are " + std::string(dtypeName(c.in(2).dtype)) + ", data " +
                                   std::string(dtypeName(t0)));
        outs = {{t0, c.shape(0)}};
    } else if (op == "ReverseSequence") {
        const std::int64_t b = c.n.attrInt("batch_axis", 1), t = c.n.attrInt("time_axis", 0);
        if (c.rank(0) < 2)
            return c.failAt(0, "input must have rank >= 2, got " + dimsStr(c.shape(0)));
        if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t)
            return c.fail("batch_axis " + std::to_string(b) + " and time_axis " + std::to_string(t) +
                          " must be 0 and 1 in some order");
        if (c.shape(1) != Shape{c.shape(0)[static_cast<std::size_t>(b)]})
            return c.failAt(1, "sequence_lens has shape " + dimsStr(c.shape(1)) + ", expected " +
                                   std::to_string(c.shape(0)[static_cast<std::size_t>(b)]));
        TS_TRY(checkIndices(c, 1));
        outs = {{t0, c.shape(0)}};
    } else if (op == "Compress") {
        auto cond = c.constFloats(1, "condition");
        if (!cond)
            return cond.status();
        if (c.rank(1) != 1)
            return c.failAt(1, "condition must be 1-D, got " + dimsStr(c.shape(1)));
        const std::int64_t kept = std::count_if(cond->begin(), cond->end(), [](double v) { return v != 0; });
        if (!c.n.attr("axis")) {
            if (static_cast<double>(cond->size()) > elements(c.shape(0)))
                return c.failAt(1, "condition has more entries than the input's elements");
            outs = {{t0, {kept}}};
        } else {
            auto a = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
            if (!a)
                return a.status();
            Shape out = c.shape(0);
            if (static_cast<std::int64_t>(cond->size()) > out[static_cast<std::size_t>(*a)])
                return c.failAt(1,
                                "condition has more entries than axis " + std::to_string(*a) + " of " + dimsStr(out));
            out[static_cast<std::size_t>(*a)] = kept;
            outs = {{t0, out}};
        }
    } else if (op == "NonZero") {
        auto x = c.constFloats(0, "X (NonZero's output shape depends on its values)");
        if (!x)
            return x.status();
        const std::int64_t count = std::count_if(x->begin(), x->end(), [](double v) { return v != 0; });
        outs = {{DType::Int64, {c.rank(0), count}}};
    } else if (op == "HannWindow" || op == "HammingWindow" || op == "BlackmanWindow") {
        auto size = scalarInt(c, 0, "size");
        if (!size)
            return size.status();
        if (*size < 0 || *size > kMaxExtent)
            return c.failAt(0, "size " + std::to_string(*size) + " is negative or too large");
        const DType t = fromOnnxDType(static_cast<int>(c.n.attrInt("output_datatype", 1)));
        if (!isFloat(t) && !isInteger(t))
            return c.fail("output_datatype " + std::to_string(c.n.attrInt("output_datatype", 1)) +
                          " is not a numeric element type");
        outs = {{t, {*size}}};
    } else if (op == "CumSum") {
        auto a = scalarInt(c, 1, "axis");
        if (!a)
            return a.status();
        auto ax = c.axis(*a, c.rank(0), "axis");
        if (!ax)
            return ax.status();
        outs = {{t0, c.shape(0)}};
    } else if (op == "OneHot") {
        auto depth = c.constFloats(1, "depth");
        if (!depth)
            return depth.status();
        if (depth->size() != 1 || !((*depth)[0] >= 0) || (*depth)[0] > static_cast<double>(kMaxExtent))
            return c.failAt(1, "depth must be one non-negative value");
        if (numElements(c.shape(2)) != 2)
            return c.failAt(2, "values must have two elements [off, on]");
        auto a = c.axis(c.n.attrInt("axis", -1), c.rank(0) + 1, "axis");
        if (!a)
            return a.status();
        Shape out = c.shape(0);
        out.insert(out.begin() + *a, static_cast<std::int64_t>((*depth)[0]));
        outs = {{c.in(2).dtype, out}};
    } else if (op == "ConstantOfShape") {
        auto shape = c.constInts(0, "shape");
        if (!shape)
            return shape.status();
        for (std::int64_t d : *shape)
            if (d < 0)
                return c.failAt(0, "shape " + dimsStr(*shape) + " has a negative entry");
        DType t = DType::Float32;
        if (const Attribute *v = c.n.attr("value")) {
            if (v->kind() != Attribute::Kind::Tensor)
                return c.fail("attribute 'value' must be a tensor");
            const auto &data = std::get<std::shared_ptr<const TensorData>>(v->value);
            if (!data || numElements(data->shape) != 1)
                return c.fail("attribute 'value' must hold one element");
            t = data->dtype;
        }
        outs = {{t, *shape}};
    } else if (op == "Range") {
        std::vector<double> v;
        for (std::size_t i = 0; i < 3; ++i) {
            auto f = c.constFloats(i, i == 0 ? "start" : i == 1 ? "limit" : "delta");
            if (!f)
                return f.status();
            if (f->size() != 1)
                return c.failAt(i, "must be a scalar");
            v.push_back((*f)[0]);
        }
        if (v[2] == 0)
            return c.failAt(2, "delta is zero");
        const double n = std::ceil((v[1] - v[0]) / v[2]);
        if (!(n <= static_cast<double>(kMaxExtent)))
            return c.fail("range has too many elements");
        outs = {{t0, {static_cast<std::int64_t>(std::max(n, 0.0))}}};
    } else if (op == "EyeLike") {
        if (c.rank(0) != 2)
            return c.failAt(0, "input must be 2-D, got " + dimsStr(c.shape(0)));
        DType t = t0;
        if (c.n.attr("dtype")) {
            t = fromOnnxDType(static_cast<int>(c.n.attrInt("dtype", 0)));
            if (t == DType::Undefined)
                return c.fail("'dtype' " + std::to_string(c.n.attrInt("dtype", 0)) + " is not a known element type");
        }
        outs = {{t, c.shape(0)}};
    } else { // Size
        outs = {{DType::Int64, {}}};
    }
    return Status::ok();
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const std::string_view op = c.n.opType;
    if (isGenerator(op))
        return Status::ok(); // generators: values from constants or the shape only
    if (op == "Expand") {
        in[0] = broadcastRegion(tile, c.outs[0].shape, c.shape(0));
        return Status::ok();
    }
    if (op == "Trilu" || op == "CumSum") {
        const Shape &x = c.shape(0);
        std::int64_t axis = -1;
        if (op == "CumSum")
            axis = *c.axis(*scalarInt(c, 1, "axis"), c.rank(0), "axis");
        std::vector<DimRange> dims;
        for (std::size_t d = 0; d < x.size(); ++d)
            dims.push_back(static_cast<std::int64_t>(d) == axis ? fullDim(x[d]) : identityDim(tile[d], x[d]));
        in[0] = makeRegion(dims); // k and axis are compile-time values: not read
        return Status::ok();
    }
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i) && !isCompileTime(op, i)) {
            std::vector<DimRange> dims;
            for (std::int64_t d : c.shape(i))
                dims.push_back(fullDim(d));
            in[i] = makeRegion(dims);
        }
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    const std::string_view op = c.n.opType;
    if (isGenerator(op))
        return;
    if (op == "Expand") {
        in[0] = broadcastAxes(c.outs[0].shape, c.shape(0));
        return;
    }
    if (op == "Trilu" || op == "CumSum") {
        std::int64_t axis = -1;
        if (op == "CumSum")
            axis = *c.axis(*scalarInt(c, 1, "axis"), c.rank(0), "axis");
        InputAxes x;
        for (int d = 0; d < static_cast<int>(c.rank(0)); ++d)
            if (d == axis)
                x.reducedDims.push_back(d);
            else
                x.maps.push_back(axisMap(d, d));
        in[0] = x;
        return;
    }
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i) && !isCompileTime(op, i))
            in[i].opaque = true;
}

using K = Attribute::Kind;
constexpr AttrSpec kBlock[] = {{"blocksize", K::Int}, {"mode", K::String}};
constexpr AttrSpec kTrilu[] = {{"upper", K::Int}};
constexpr AttrSpec kAxis[] = {{"axis", K::Int}};
constexpr AttrSpec kCumSum[] = {{"exclusive", K::Int}, {"reverse", K::Int}};
constexpr AttrSpec kConstantOfShape[] = {{"value", K::Tensor}};
constexpr AttrSpec kEyeLike[] = {{"dtype", K::Int}, {"k", K::Int}};
constexpr AttrSpec kGatherND[] = {{"batch_dims", K::Int}};
constexpr AttrSpec kScatter[] = {{"axis", K::Int}, {"reduction", K::String}};
constexpr AttrSpec kScatterND[] = {{"reduction", K::String}};
constexpr AttrSpec kReverseSequence[] = {{"batch_axis", K::Int}, {"time_axis", K::Int}};
constexpr AttrSpec kWindow[] = {{"output_datatype", K::Int}, {"periodic", K::Int}};

constexpr OpDef def(std::string_view name, int minIn, int maxIn, std::span<const AttrSpec> attrs = {},
                    double (*flops)(const OpContext &) = noFlops)
{
    return {name, minIn, maxIn, 1, 1, attrs, infer, flops, regions, axes};
}

constexpr OpDef kOps[] = {
    def("Expand", 2, 2),
    def("Tile", 2, 2),
    def("DepthToSpace", 1, 1, kBlock),
    def("SpaceToDepth", 1, 1, kBlock),
    def("Trilu", 1, 2, kTrilu),
    def("GatherElements", 2, 2, kAxis),
    def("GatherND", 2, 2, kGatherND),
    def("ScatterElements", 3, 3, kScatter, scatterFlops),
    def("Scatter", 3, 3, kScatter, scatterFlops),
    def("ScatterND", 3, 3, kScatterND, scatterFlops),
    def("CumSum", 2, 2, kCumSum, perOutput),
    def("OneHot", 3, 3, kAxis, perOutput),
    def("ConstantOfShape", 1, 1, kConstantOfShape),
    def("Range", 3, 3, {}, perOutput),
    def("EyeLike", 1, 1, kEyeLike),
    def("Size", 1, 1),
    def("ReverseSequence", 2, 2, kReverseSequence),
    def("Compress", 2, 2, kAxis),
    def("NonZero", 1, 1),
    def("HannWindow", 1, 1, kWindow, perOutput),
    def("HammingWindow", 1, 1, kWindow, perOutput),
    def("BlackmanWindow", 1, 1, kWindow, perOutput),
};

} // namespace

std::span<const OpDef> indexedOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
