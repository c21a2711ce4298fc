// Constant folding of shape-only subgraphs (see fold_constants.h).
// A cheap op-type filter (the rule table), then the rule: it returns the
// folded data, or nullptr to leave the node alone (inputs not constant, too
// big, overflow, an element type it does not handle). Rules compute their own
// output shape; the driver checks it against the model's declared one.
#include "core/onnx/fold_constants.h"

#include "core/ir/analysis.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace tessera {

namespace {

using Ints = std::vector<std::int64_t>;
using DataPtr = std::shared_ptr<const TensorData>;
using Result = Expected<DataPtr>;

struct FoldContext {
    const Graph &g;
    const Node &n;
    const FoldOptions &options;

    const Tensor *in(std::size_t i) const { return g.input(n, i); }
    // Inline constant data of input i that is small enough to work on, or nullptr.
    const TensorData *data(std::size_t i) const
    {
        const Tensor *t = in(i);
        if (!t || !t->data || t->data->isExternal())
            return nullptr;
        const auto n = numElements(t->data->shape);
        return n && *n <= options.maxElements ? t->data.get() : nullptr;
    }
    bool small(const Shape &s) const
    {
        const auto n = numElements(s);
        return n && *n <= options.maxElements;
    }
    const Tensor &out() const { return g.tensor(n.outputs[0]); }
};

std::int64_t count(const Shape &s)
{
    return numElements(s).value_or(0);
}

Ints stridesOf(const Shape &s)
{
    Ints st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;)
        st[i - 1] = st[i] * s[i];
    return st;
}

// Calls f(index) for every index of `shape` in row-major order.
template <typename F> void forEachIndex(const Shape &shape, F f)
{
    if (count(shape) == 0)
        return;
    Ints idx(shape.size(), 0);
    for (;;) {
        f(idx);
        std::size_t d = shape.size();
        while (d > 0 && ++idx[d - 1] == shape[d - 1])
            idx[--d] = 0;
        if (d == 0)
            return;
    }
}

std::optional<std::int64_t> normAxis(std::int64_t axis, std::size_t rank)
{
    const auto r = static_cast<std::int64_t>(rank);
    if (axis < -r || axis >= r)
        return std::nullopt;
    return axis < 0 ? axis + r : axis;
}

bool isIntLike(DType t)
{
    return isInteger(t) || t == DType::Bool;
}

std::optional<Ints> intsOf(const TensorData *d)
{
    if (!d || !isIntLike(d->dtype))
        return std::nullopt;
    Ints v(static_cast<std::size_t>(count(d->shape)));
    for (std::size_t i = 0; i < v.size(); ++i) {
        auto x = d->intAt(static_cast<std::int64_t>(i));
        if (!x)
            return std::nullopt;
        v[i] = *x;
    }
    return v;
}

template <typename T> void put(std::vector<std::uint8_t> &bytes, std::size_t i, T v)
{
    std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

// Packs int64 values into `dtype`; nullptr if a value does not fit or the type
// is one the folder does not write (16-bit floats).
DataPtr makeData(DType dtype, Shape shape, const Ints &v)
{
    auto d = std::make_shared<TensorData>();
    d->dtype = dtype;
    d->shape = std::move(shape);
    d->bytes.resize(v.size() * dtypeSize(dtype));
    auto fits = [](std::int64_t x, auto lo, auto hi) { return x >= lo && x <= hi; };
    for (std::size_t i = 0; i < v.size(); ++i) {
        const std::int64_t x = v[i];
        switch (dtype) {
        case DType::Int64: put(d->bytes, i, x); break;
        case DType::Int32:
            if (!fits(x, INT32_MIN, INT32_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::int32_t>(x));
            break;
        case DType::Int16:
            if (!fits(x, INT16_MIN, INT16_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::int16_t>(x));
            break;
        case DType::Int8:
            if (!fits(x, INT8_MIN, INT8_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::int8_t>(x));
            break;
        case DType::UInt8:
            if (!fits(x, 0, UINT8_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::uint8_t>(x));
            break;
        case DType::UInt16:
            if (!fits(x, 0, UINT16_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::uint16_t>(x));
            break;
        case DType::UInt32:
            if (!fits(x, 0, UINT32_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::uint32_t>(x));
            break;
        case DType::UInt64:
            if (!fits(x, 0, INT64_MAX))
                return nullptr;
            put(d->bytes, i, static_cast<std::uint64_t>(x));
            break;
        case DType::Bool: put(d->bytes, i, static_cast<std::uint8_t>(x != 0)); break;
        case DType::Float32: put(d->bytes, i, static_cast<float>(x)); break;
        case DType::Float64: put(d->bytes, i, static_cast<double>(x)); break;
        default: return nullptr;
        }
    }
    return d;
}

// Same data, another shape (Identity, Reshape, Flatten, Squeeze, Unsqueeze):
// the output shape is the model's static one, the element count must agree.
Result foldView(const FoldContext &c)
{
    const TensorData *d = c.data(0);
    if (!d)
        return DataPtr();
    if (count(d->shape) != count(c.out().shape))
        return Status::invalid("reshapes " + shapeStr(d->shape) + " to " + shapeStr(c.out().shape) +
                               ", which has a different element count");
    auto r = std::make_shared<TensorData>(*d);
    r->shape = c.out().shape;
    return DataPtr(std::move(r));
}

Result foldConstant(const FoldContext &c)
{
    const Node &n = c.n;
    if (const Attribute *a = n.attr("value"))
        if (auto *d = std::get_if<DataPtr>(&a->value))
            return *d;
    if (const Attribute *a = n.attr("value_int"))
        if (auto *v = std::get_if<std::int64_t>(&a->value))
            return makeData(DType::Int64, {}, {*v});
    if (const Attribute *a = n.attr("value_ints"))
        if (auto *v = std::get_if<Ints>(&a->value))
            return makeData(DType::Int64, {static_cast<std::int64_t>(v->size())}, *v);
    auto floats = [](Shape shape, const std::vector<double> &v) {
        auto d = std::make_shared<TensorData>();
        d->dtype = DType::Float32;
        d->shape = std::move(shape);
        d->bytes.resize(v.size() * 4);
        for (std::size_t i = 0; i < v.size(); ++i)
            put(d->bytes, i, static_cast<float>(v[i]));
        return DataPtr(std::move(d));
    };
    if (const Attribute *a = n.attr("value_float"))
        if (auto *v = std::get_if<double>(&a->value))
            return floats({}, {*v});
    if (const Attribute *a = n.attr("value_floats"))
        if (auto *v = std::get_if<std::vector<double>>(&a->value))
            return floats({static_cast<std::int64_t>(v->size())}, *v);
    return DataPtr(); // value_string(s): left as a node
}

Result foldShape(const FoldContext &c)
{
    const Tensor *x = c.in(0);
    if (!x)
        return DataPtr();
    const auto r = static_cast<std::int64_t>(x->shape.size());
    auto clampAxis = [r](std::int64_t a) { return std::clamp(a < 0 ? a + r : a, std::int64_t(0), r); };
    const std::int64_t start = clampAxis(c.n.attrInt("start", 0));
    const std::int64_t end = clampAxis(c.n.attrInt("end", r));
    Ints dims;
    for (std::int64_t i = start; i < end; ++i)
        dims.push_back(x->shape[static_cast<std::size_t>(i)]);
    return makeData(DType::Int64, {static_cast<std::int64_t>(dims.size())}, dims);
}

Result foldSize(const FoldContext &c)
{
    const Tensor *x = c.in(0);
    if (!x)
        return DataPtr();
    return makeData(DType::Int64, {}, {count(x->shape)});
}

Result foldGather(const FoldContext &c)
{
    const TensorData *d = c.data(0);
    const auto indices = intsOf(c.data(1));
    if (!d || !indices || d->shape.empty())
        return DataPtr();
    const auto axis = normAxis(c.n.attrInt("axis", 0), d->shape.size());
    if (!axis)
        return Status::invalid("gather axis " + std::to_string(c.n.attrInt("axis", 0)) + " is out of range for rank " +
                               std::to_string(d->shape.size()));
    const auto a = static_cast<std::size_t>(*axis);
    const std::int64_t dim = d->shape[a];
    Shape outShape(d->shape.begin(), d->shape.begin() + *axis);
    const Shape &idxShape = c.in(1)->data->shape;
    outShape.insert(outShape.end(), idxShape.begin(), idxShape.end());
    outShape.insert(outShape.end(), d->shape.begin() + *axis + 1, d->shape.end());
    if (!c.small(outShape))
        return DataPtr();
    const std::int64_t outer = count(Shape(d->shape.begin(), d->shape.begin() + *axis));
    const auto inner =
        static_cast<std::size_t>(count(Shape(d->shape.begin() + *axis + 1, d->shape.end()))) * dtypeSize(d->dtype);
    auto r = std::make_shared<TensorData>();
    r->dtype = d->dtype;
    r->shape = std::move(outShape);
    r->bytes.resize(static_cast<std::size_t>(outer) * indices->size() * inner);
    std::uint8_t *dst = r->bytes.data();
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i : *indices) {
            if (i < -dim || i >= dim)
                return Status::invalid("gather index " + std::to_string(i) + " is out of range for dimension " +
                                       std::to_string(dim));
            const std::int64_t k = i < 0 ? i + dim : i;
            std::memcpy(dst, d->bytes.data() + static_cast<std::size_t>(o * dim + k) * inner, inner);
            dst += inner;
        }
    return DataPtr(std::move(r));
}

Result foldConcat(const FoldContext &c)
{
    std::vector<const TensorData *> ins;
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i) {
        const TensorData *d = c.data(i);
        if (!d)
            return DataPtr();
        ins.push_back(d);
    }
    if (ins.empty() || ins[0]->shape.empty())
        return DataPtr();
    const auto axis = normAxis(c.n.attrInt("axis", 0), ins[0]->shape.size());
    if (!axis)
        return DataPtr();
    const auto a = static_cast<std::size_t>(*axis);
    Shape outShape = ins[0]->shape;
    outShape[a] = 0;
    for (const TensorData *d : ins) {
        if (d->dtype != ins[0]->dtype || d->shape.size() != outShape.size())
            return DataPtr();
        for (std::size_t k = 0; k < outShape.size(); ++k)
            if (k != a && d->shape[k] != outShape[k])
                return DataPtr();
        outShape[a] += d->shape[a];
    }
    if (!c.small(outShape))
        return DataPtr();
    const std::int64_t outer = count(Shape(outShape.begin(), outShape.begin() + *axis));
    const auto inner =
        static_cast<std::size_t>(count(Shape(outShape.begin() + *axis + 1, outShape.end()))) * dtypeSize(ins[0]->dtype);
    auto r = std::make_shared<TensorData>();
    r->dtype = ins[0]->dtype;
    r->shape = std::move(outShape);
    r->bytes.reserve(static_cast<std::size_t>(count(r->shape)) * dtypeSize(r->dtype));
    for (std::int64_t o = 0; o < outer; ++o)
        for (const TensorData *d : ins) {
            const std::size_t block = static_cast<std::size_t>(d->shape[a]) * inner;
            const auto *src = d->bytes.data() + static_cast<std::size_t>(o) * block;
            r->bytes.insert(r->bytes.end(), src, src + block);
        }
    return DataPtr(std::move(r));
}

Result foldSlice(const FoldContext &c)
{
    const TensorData *d = c.data(0);
    if (!d)
        return DataPtr();
    const std::size_t rank = d->shape.size();
    Ints starts, ends, axes, steps;
    if (c.n.inputs.size() >= 3) { // opset >= 10: parameters are inputs
        auto s = intsOf(c.data(1)), e = intsOf(c.data(2));
        if (!s || !e)
            return DataPtr();
        starts = *s, ends = *e;
        if (c.in(3)) {
            auto v = intsOf(c.data(3));
            if (!v)
                return DataPtr();
            axes = *v;
        }
        if (c.in(4)) {
            auto v = intsOf(c.data(4));
            if (!v)
                return DataPtr();
            steps = *v;
        }
    } else {
        starts = c.n.attrInts("starts"), ends = c.n.attrInts("ends"), axes = c.n.attrInts("axes");
    }
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        return Status::invalid("slice starts, ends, axes and steps differ in length");

    Ints first(rank, 0), step(rank, 1);
    Shape outShape = d->shape;
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const auto axis = normAxis(axes[i], rank);
        if (!axis || steps[i] == 0)
            return Status::invalid("slice axis " + std::to_string(axes[i]) + " or step " + std::to_string(steps[i]) +
                                   " is invalid for rank " + std::to_string(rank));
        const auto a = static_cast<std::size_t>(*axis);
        const std::int64_t dim = d->shape[a];
        const std::int64_t st = steps[i];
        std::int64_t s = starts[i] < 0 ? starts[i] + dim : starts[i];
        std::int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
        __int128 len = 0; // (e - s - 1) / step + 1 elements when the range is non-empty
        if (st > 0) {
            s = std::clamp(s, std::int64_t(0), dim);
            e = std::clamp(e, std::int64_t(0), dim);
            len = e > s ? (static_cast<__int128>(e) - s - 1) / st + 1 : 0;
        } else if (dim > 0) {
            s = std::clamp(s, std::int64_t(0), dim - 1);
            e = std::clamp(e, std::int64_t(-1), dim - 1);
            len = s > e ? (static_cast<__int128>(s) - e - 1) / -static_cast<__int128>(st) + 1 : 0;
        }
        first[a] = s, step[a] = st, outShape[a] = static_cast<std::int64_t>(len);
    }
    const std::size_t es = dtypeSize(d->dtype);
    const Ints srcStrides = stridesOf(d->shape);
    auto r = std::make_shared<TensorData>();
    r->dtype = d->dtype;
    r->shape = outShape;
    r->bytes.resize(static_cast<std::size_t>(count(outShape)) * es);
    std::size_t k = 0;
    forEachIndex(outShape, [&](const Ints &idx) {
        std::int64_t off = 0;
        for (std::size_t a = 0; a < rank; ++a)
            off += (first[a] + idx[a] * step[a]) * srcStrides[a];
        std::memcpy(r->bytes.data() + k++ * es, d->bytes.data() + static_cast<std::size_t>(off) * es, es);
    });
    return DataPtr(std::move(r));
}

// Add, Sub, Mul, Div with multidirectional broadcasting on integer tensors.
Result foldArith(const FoldContext &c)
{
    const TensorData *x = c.data(0), *y = c.data(1);
    if (!x || !y || x->dtype != y->dtype || !isInteger(x->dtype))
        return DataPtr();
    const auto a = intsOf(x), b = intsOf(y);
    const std::size_t rank = std::max(x->shape.size(), y->shape.size());
    Shape outShape(rank, 1);
    Ints sa(rank, 0), sb(rank, 0);
    const Ints xs = stridesOf(x->shape), ys = stridesOf(y->shape);
    for (std::size_t i = 0; i < rank; ++i) {
        const std::size_t ox = rank - x->shape.size(), oy = rank - y->shape.size();
        const std::int64_t dx = i >= ox ? x->shape[i - ox] : 1, dy = i >= oy ? y->shape[i - oy] : 1;
        if (dx != dy && dx != 1 && dy != 1)
            return DataPtr(); // not broadcastable: S10 reports the node
        outShape[i] = std::max(dx, dy);
        if (dx == outShape[i] && i >= ox)
            sa[i] = xs[i - ox];
        if (dy == outShape[i] && i >= oy)
            sb[i] = ys[i - oy];
        if (dx == 0 || dy == 0)
            outShape[i] = 0;
    }
    if (!c.small(outShape))
        return DataPtr();
    const std::string &op = c.n.opType;
    Ints out;
    out.reserve(static_cast<std::size_t>(count(outShape)));
    bool ok = true;
    forEachIndex(outShape, [&](const Ints &idx) {
        std::int64_t ia = 0, ib = 0;
        for (std::size_t i = 0; i < rank; ++i)
            ia += idx[i] * sa[i], ib += idx[i] * sb[i];
        const std::int64_t p = (*a)[static_cast<std::size_t>(ia)], q = (*b)[static_cast<std::size_t>(ib)];
        std::int64_t v = 0;
        if (op == "Add")
            ok = ok && !__builtin_add_overflow(p, q, &v);
        else if (op == "Sub")
            ok = ok && !__builtin_sub_overflow(p, q, &v);
        else if (op == "Mul")
            ok = ok && !__builtin_mul_overflow(p, q, &v);
        else if (q == 0 || (p == std::numeric_limits<std::int64_t>::min() && q == -1))
            ok = false;
        else
            v = p / q;
        out.push_back(v);
    });
    return ok ? makeData(x->dtype, std::move(outShape), out) : DataPtr();
}

Result foldRange(const FoldContext &c)
{
    const auto start = intsOf(c.data(0)), limit = intsOf(c.data(1)), delta = intsOf(c.data(2));
    if (!start || !limit || !delta || start->size() != 1 || limit->size() != 1 || delta->size() != 1 ||
        (*delta)[0] == 0)
        return DataPtr();
    const __int128 s = (*start)[0], l = (*limit)[0], dl = (*delta)[0];
    const __int128 n = dl > 0 ? (l > s ? (l - s + dl - 1) / dl : 0) : (s > l ? (s - l - dl - 1) / -dl : 0);
    if (n > c.options.maxElements)
        return DataPtr();
    Ints v(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < v.size(); ++i)
        v[i] = static_cast<std::int64_t>(s + dl * static_cast<__int128>(i));
    return makeData(c.in(0)->data->dtype, {static_cast<std::int64_t>(n)}, v);
}

Result foldCast(const FoldContext &c)
{
    const TensorData *d = c.data(0);
    const DType to = fromOnnxDType(static_cast<int>(c.n.attrInt("to", 0)));
    if (!d || to == DType::Undefined)
        return DataPtr();
    if (isIntLike(d->dtype)) {
        const auto v = intsOf(d);
        return v ? makeData(to, d->shape, *v) : DataPtr();
    }
    // Float source: to integers by truncation (when in range), or between f32/f64.
    const std::size_t n = static_cast<std::size_t>(count(d->shape));
    std::vector<double> f(n);
    for (std::size_t i = 0; i < n; ++i) {
        auto x = d->floatAt(static_cast<std::int64_t>(i));
        if (!x)
            return DataPtr();
        f[i] = *x;
    }
    if (to == DType::Float32 || to == DType::Float64) {
        auto r = std::make_shared<TensorData>();
        r->dtype = to;
        r->shape = d->shape;
        r->bytes.resize(n * dtypeSize(to));
        for (std::size_t i = 0; i < n; ++i)
            to == DType::Float32 ? put(r->bytes, i, static_cast<float>(f[i])) : put(r->bytes, i, f[i]);
        return DataPtr(std::move(r));
    }
    Ints v(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (!std::isfinite(f[i]) || std::fabs(f[i]) >= 9.2e18)
            return DataPtr();
        v[i] = static_cast<std::int64_t>(f[i]);
    }
    return makeData(to, d->shape, v);
}

Result foldConstantOfShape(const FoldContext &c)
{
    const auto dims = intsOf(c.data(0));
    if (!dims)
        return DataPtr();
    const Shape shape(dims->begin(), dims->end());
    if (!c.small(shape))
        return DataPtr(); // also refuses negative dims and overflow
    DataPtr value = makeData(DType::Float32, {1}, {0});
    if (const Attribute *a = c.n.attr("value"))
        if (auto *d = std::get_if<DataPtr>(&a->value))
            value = *d;
    const std::size_t es = dtypeSize(value->dtype);
    if (value->isExternal() || es == 0 || value->bytes.size() != es)
        return DataPtr();
    auto r = std::make_shared<TensorData>();
    r->dtype = value->dtype;
    r->shape = shape;
    const auto n = static_cast<std::size_t>(count(shape));
    r->bytes.resize(n * es);
    for (std::size_t i = 0; i < n; ++i)
        std::memcpy(r->bytes.data() + i * es, value->bytes.data(), es);
    return DataPtr(std::move(r));
}

struct Rule {
    std::string_view op;
    Result (*fold)(const FoldContext &);
};
constexpr Rule kRules[] = {
    {"Constant", foldConstant},               // attribute → initializer (no size bound: the data exists)
    {"Shape", foldShape},                     // static shape of any input, constant or not
    {"Size", foldSize},                       // element count of any input
    {"Identity", foldView},                   // same bytes, same shape
    {"Reshape", foldView},                    // same bytes, the model's static output shape
    {"Flatten", foldView},                    //   ″
    {"Squeeze", foldView},                    //   ″
    {"Unsqueeze", foldView},                  //   ″
    {"Gather", foldGather},                   // constant data and indices, any element type
    {"Concat", foldConcat},                   // constant inputs, any element type
    {"Slice", foldSlice},                     // opset < 10 attributes or >= 10 inputs
    {"Add", foldArith},                       // integers with broadcasting, overflow → no fold
    {"Sub", foldArith},                       //   ″
    {"Mul", foldArith},                       //   ″
    {"Div", foldArith},                       //   ″ truncating; division by zero → no fold
    {"Range", foldRange},                     // integer scalars
    {"Cast", foldCast},                       // integer ↔ integer/float, float → float/integer
    {"ConstantOfShape", foldConstantOfShape}, // filled with the `value` element
};

} // namespace

Expected<FoldStats> foldConstants(Graph &g, const FoldOptions &options)
{
    auto order = topologicalOrder(g);
    if (!order)
        return order.status();
    FoldStats stats;
    std::vector<bool> erase(g.nodeCount(), false);
    for (NodeId id : *order) {
        const Node &n = g.node(id);
        if (!n.domain.empty() || n.outputs.size() != 1 || n.outputs[0] == kInvalidId)
            continue;
        const auto rule =
            std::find_if(std::begin(kRules), std::end(kRules), [&](const Rule &r) { return r.op == n.opType; });
        if (rule == std::end(kRules))
            continue;
        auto folded = rule->fold(FoldContext{g, n, options});
        if (!folded)
            return folded.status().prefix("constant folding").at({.node = n.name});
        if (!*folded)
            continue;
        Tensor &out = g.tensor(n.outputs[0]);
        const TensorData &d = **folded;
        if (d.dtype != out.dtype || d.shape != out.shape)
            return Status::invalid("constant folding computes " + shapeStr(d.shape) + " " +
                                       std::string(dtypeName(d.dtype)) + " but the model declares " +
                                       shapeStr(out.shape) + " " + std::string(dtypeName(out.dtype)),
                                   {.node = n.name, .tensor = out.name});
        out.data = std::move(*folded);
        out.kind = Tensor::Kind::Initializer;
        erase[static_cast<std::size_t>(id)] = true;
        ++stats.foldedNodes;
        stats.constantNodes += n.opType == "Constant";
    }
    if (stats.foldedNodes > 0)
        g.eraseNodes(erase);
    return stats;
}

} // namespace tessera
