// Element-wise kernels: unary Relu, LeakyRelu, Sigmoid, Tanh, Erf, HardSwish,
// Sqrt (float32); Clip (float32, float64, int8/uint8/int16/int32/int64);
// Identity and Dropout (inference, or training with a constant ratio 0: a
// copy, the mask all true) on any element type; Cast between the numeric
// types; binary Add, Sub, Mul, Div (float32, float64, int32, int64 and
// uint8), Pow (float32/int32/int64 base, any numeric exponent) and variadic
// Sum (float32), all with numpy
// broadcasting.
//
// Formulas follow the ONNX reference implementation in float32 arithmetic:
// Sigmoid 1/(1+e^-x), HardSwish x·max(0, min(1, x/6 + 1/2)), LeakyRelu
// x<0 ? αx : x, Clip min(max(x, lo), hi) with lo/hi from the inputs (opset
// ≥ 11, read at run time) or the attributes. Integer arithmetic wraps instead
// of overflowing; integer division by zero is a run-time error. Float to
// integer casts saturate (NaN → 0) rather than invoke undefined behaviour.
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace tessera::reference {

namespace {

// --- unary float32 ----------------------------------------------------------------

struct Relu {
    float operator()(float x) const { return x < 0.0f ? 0.0f : x; }
};
struct LeakyRelu {
    float alpha;
    float operator()(float x) const { return x < 0.0f ? alpha * x : x; }
};
struct Sigmoid {
    float operator()(float x) const { return 1.0f / (1.0f + std::exp(-x)); }
};
struct Tanh {
    float operator()(float x) const { return std::tanh(x); }
};
struct Erf {
    float operator()(float x) const { return std::erf(x); }
};
struct Sqrt {
    float operator()(float x) const { return std::sqrt(x); }
};
struct HardSwish {
    float operator()(float x) const { return x * std::max(0.0f, std::min(1.0f, x * (1.0f / 6.0f) + 0.5f)); }
};

template <typename Op> class UnaryKernel final : public NodeKernel
{
public:
    UnaryKernel(Op op, Shape shape) : m_op(op), m_shape(std::move(shape)) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        for (const Run &run : contiguousRuns(r, m_shape))
            for (std::int64_t i = run.offset; i < run.offset + run.length; ++i)
                y[i] = m_op(x[i]);
        return Status::ok();
    }

private:
    Op m_op;
    Shape m_shape;
};

template <typename Op> Expected<KernelPtr> makeUnary(const Graph &g, const Node &n, Op op)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    return KernelPtr(std::make_unique<UnaryKernel<Op>>(op, inTensor(g, n, 0).shape));
}

// Clip on float32, float64 and the signed/unsigned integer types. The bounds
// are inputs 1 and 2 of x's type (opset >= 11, possibly run-time one-element
// tensors) or the float attributes of opset < 11 (float types only there);
// an absent bound is the type's lowest/highest value.
template <typename T> class ClipKernel final : public NodeKernel
{
public:
    ClipKernel(Shape shape, T lo, T hi) : m_shape(std::move(shape)), m_lo(lo), m_hi(hi) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const T lo = a.in.size() > 1 && a.in[1].present() ? a.in[1].as<T>()[0] : m_lo;
        const T hi = a.in.size() > 2 && a.in[2].present() ? a.in[2].as<T>()[0] : m_hi;
        const T *x = a.in[0].as<T>();
        T *y = a.out[0].as<T>();
        for (const Run &run : contiguousRuns(r, m_shape))
            for (std::int64_t i = run.offset; i < run.offset + run.length; ++i)
                y[i] = std::min(std::max(x[i], lo), hi);
        return Status::ok();
    }

private:
    Shape m_shape;
    T m_lo, m_hi;
};

// An attribute bound converted to T; integer types keep their full range
// (their Clip has no bound attributes).
template <typename T> T clipBound(const Node &n, const char *name, bool low)
{
    using L = std::numeric_limits<T>;
    const T fallback = low ? L::lowest() : L::max();
    if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(n.attrFloat(name, low ? -L::infinity() : L::infinity()));
    else
        return fallback;
}

template <typename T> Expected<KernelPtr> makeClipOf(const Graph &g, const Node &n)
{
    return KernelPtr(std::make_unique<ClipKernel<T>>(inTensor(g, n, 0).shape, clipBound<T>(n, "min", true),
                                                     clipBound<T>(n, "max", false)));
}

Expected<KernelPtr> makeClip(const Graph &g, const Node &n)
{
    const DType t = inTensor(g, n, 0).dtype;
    for (std::size_t i = 1; i < 3; ++i)
        TS_TRY(expectType(g, n, i, {t}));
    switch (t) {
    case DType::Float32: return makeClipOf<float>(g, n);
    case DType::Float64: return makeClipOf<double>(g, n);
    case DType::Int8: return makeClipOf<std::int8_t>(g, n);
    case DType::UInt8: return makeClipOf<std::uint8_t>(g, n);
    case DType::Int16: return makeClipOf<std::int16_t>(g, n);
    case DType::Int32: return makeClipOf<std::int32_t>(g, n);
    case DType::Int64: return makeClipOf<std::int64_t>(g, n);
    case DType::UInt16: return makeClipOf<std::uint16_t>(g, n);
    case DType::UInt32: return makeClipOf<std::uint32_t>(g, n);
    case DType::UInt64: return makeClipOf<std::uint64_t>(g, n);
    default:
        return expectType(
            g, n, 0,
            {DType::Float32, DType::Float64, DType::Int8, DType::UInt8, DType::Int16, DType::Int32, DType::Int64});
    }
}

// --- copies: Identity, Dropout ---------------------------------------------------

class CopyKernel final : public NodeKernel
{
public:
    CopyKernel(Shape shape, std::size_t elemSize) : m_shape(std::move(shape)), m_size(elemSize) {}

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const auto runs = contiguousRuns(r, m_shape);
        if (output == 1) { // Dropout's mask: every element kept
            for (const Run &run : runs)
                std::fill_n(a.out[1].data + run.offset, run.length, std::uint8_t{1});
            return Status::ok();
        }
        for (const Run &run : runs)
            std::memcpy(a.out[0].data + run.offset * m_size, a.in[0].data + run.offset * m_size,
                        static_cast<std::size_t>(run.length) * m_size);
        return Status::ok();
    }

private:
    Shape m_shape;
    std::size_t m_size;
};

Expected<KernelPtr> makeCopy(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    if (n.opType == "Dropout") {
        // Inference only: training_mode (opset >= 12) must be a constant false,
        // or the ratio a constant 0 (nothing dropped: the output is the input
        // and the mask all true, as in inference).
        if (hasInput(n, 2)) {
            auto mode = constInts(g, n, 2);
            if (!mode)
                return mode.status();
            if (!mode->empty() && (*mode)[0] != 0) {
                std::vector<double> ratio{0.5}; // ONNX's default
                if (hasInput(n, 1)) {
                    auto r = constFloats(g, n, 1);
                    if (!r)
                        return r.status();
                    ratio = *r;
                }
                if (ratio.size() != 1 || ratio[0] != 0.0)
                    return unsupported(n, "training mode is not supported (unless ratio is a constant 0)");
            }
        }
        if (g.opsetVersion < 7 && n.attrInt("is_test", 0) == 0)
            return unsupported(n, "training mode (is_test=0) is not supported");
    }
    if (!isNumeric(x.dtype))
        return unsupported(n, "element type " + std::string(dtypeName(x.dtype)) + " is not supported");
    return KernelPtr(std::make_unique<CopyKernel>(x.shape, dtypeSize(x.dtype)));
}

// --- Cast -------------------------------------------------------------------------

// Float to integer without undefined behaviour: NaN → 0, saturating.
template <typename To> To toInteger(double v)
{
    if (std::isnan(v))
        return 0;
    if (v <= static_cast<double>(std::numeric_limits<To>::lowest()))
        return std::numeric_limits<To>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<To>::max()))
        return std::numeric_limits<To>::max();
    return static_cast<To>(v);
}

// Calls f(T{}) with the C++ type holding an element of t (uint16_t for the
// 16-bit floats, uint8_t for bool: they are converted by hand).
template <typename F> void visitType(DType t, F &&f)
{
    switch (t) {
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Int8: return f(std::int8_t{});
    case DType::UInt8: return f(std::uint8_t{});
    case DType::Int16: return f(std::int16_t{});
    case DType::Int32: return f(std::int32_t{});
    case DType::Int64: return f(std::int64_t{});
    case DType::UInt16: return f(std::uint16_t{});
    case DType::UInt32: return f(std::uint32_t{});
    case DType::UInt64: return f(std::uint64_t{});
    default: return; // handled element by element
    }
}

class CastKernel final : public NodeKernel
{
public:
    CastKernel(Shape shape, DType from, DType to) : m_shape(std::move(shape)), m_from(from), m_to(to) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const auto runs = contiguousRuns(r, m_shape);
        const bool typed = [&] {
            for (DType t : {m_from, m_to})
                if (t == DType::Float16 || t == DType::BFloat16 || t == DType::Bool)
                    return false;
            return true;
        }();
        if (!typed) { // through double: exact for every value of these types
            for (const Run &run : runs)
                for (std::int64_t i = run.offset; i < run.offset + run.length; ++i)
                    store(a.out[0].data, i, loadNumber(m_from, a.in[0].data, i));
            return Status::ok();
        }
        visitType(m_from, [&]<typename From>(From) {
            visitType(m_to, [&]<typename To>(To) {
                const From *x = a.in[0].as<From>();
                To *y = a.out[0].as<To>();
                for (const Run &run : runs)
                    for (std::int64_t i = run.offset; i < run.offset + run.length; ++i) {
                        if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>)
                            y[i] = toInteger<To>(static_cast<double>(x[i]));
                        else
                            y[i] = static_cast<To>(x[i]); // NOLINT(bugprone-signed-char-misuse): int8 is signed
                    }
            });
        });
        return Status::ok();
    }

private:
    void store(std::uint8_t *y, std::int64_t i, double v) const
    {
        switch (m_to) {
        case DType::Int8: return storeNumber(m_to, y, i, toInteger<std::int8_t>(v));
        case DType::UInt8: return storeNumber(m_to, y, i, toInteger<std::uint8_t>(v));
        case DType::Int16: return storeNumber(m_to, y, i, toInteger<std::int16_t>(v));
        case DType::Int32: return storeNumber(m_to, y, i, toInteger<std::int32_t>(v));
        case DType::UInt16: return storeNumber(m_to, y, i, toInteger<std::uint16_t>(v));
        case DType::UInt32: return storeNumber(m_to, y, i, toInteger<std::uint32_t>(v));
        case DType::UInt64: {
            const std::uint64_t x = toInteger<std::uint64_t>(v);
            std::memcpy(y + i * 8, &x, 8);
            return;
        }
        case DType::Int64: {
            const std::int64_t x = toInteger<std::int64_t>(v);
            std::memcpy(y + i * 8, &x, 8);
            return;
        }
        default: return storeNumber(m_to, y, i, v);
        }
    }

    Shape m_shape;
    DType m_from, m_to;
};

Expected<KernelPtr> makeCast(const Graph &g, const Node &n)
{
    const DType from = inTensor(g, n, 0).dtype, to = outTensor(g, n, 0).dtype;
    if (!isNumeric(from) || !isNumeric(to))
        return unsupported(n, "cast from " + std::string(dtypeName(from)) + " to " + std::string(dtypeName(to)) +
                                  " is not supported");
    return KernelPtr(std::make_unique<CastKernel>(inTensor(g, n, 0).shape, from, to));
}

// --- binary with broadcasting ----------------------------------------------------------

struct Add {
    template <typename T> T operator()(T a, T b) const
    {
        if constexpr (std::is_integral_v<T>)
            return static_cast<T>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
        else
            return a + b;
    }
};
struct Sub {
    template <typename T> T operator()(T a, T b) const
    {
        if constexpr (std::is_integral_v<T>)
            return static_cast<T>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b));
        else
            return a - b;
    }
};
struct Mul {
    template <typename T> T operator()(T a, T b) const
    {
        if constexpr (std::is_integral_v<T>)
            return static_cast<T>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
        else
            return a * b;
    }
};
struct Div { // integer division is checked in BinaryKernel
    template <typename T> T operator()(T a, T b) const { return a / b; }
};

// The offsets of both operands and the output for each row of a tile.
struct Broadcast2 {
    std::vector<std::int64_t> a, b, y;

    Broadcast2(const Shape &out, const Shape &sa, const Shape &sb)
        : a(broadcastStrides(out, sa)), b(broadcastStrides(out, sb)), y(stridesOf(out))
    {}
};

template <typename T, typename Op> class BinaryKernel final : public NodeKernel
{
public:
    BinaryKernel(const Shape &out, const Shape &a, const Shape &b) : m_bc(out, a, b) {}

    Status compute(const KernelArgs &args, int, const ops::Region &r) const override
    {
        const T *a = args.in[0].as<T>(), *b = args.in[1].as<T>();
        T *y = args.out[0].as<T>();
        const Op op;
        const std::int64_t sa = r.empty() ? 0 : m_bc.a.back(), sb = r.empty() ? 0 : m_bc.b.back();
        const ops::Interval in = innerOf(r);
        bool bad = false;
        forEachRow(r, [&](std::span<const std::int64_t> idx) {
            const T *ar = a + dot(idx, m_bc.a), *br = b + dot(idx, m_bc.b);
            T *yr = y + dot(idx, m_bc.y);
            const std::int64_t len = in.size();
            if constexpr (std::is_integral_v<T> && std::is_same_v<Op, Div>) {
                for (std::int64_t i = 0; i < len; ++i) {
                    const T n = ar[i * sa], d = br[i * sb];
                    const bool ok = d != 0 && !(d == -1 && n == std::numeric_limits<T>::min());
                    bad |= !ok;
                    yr[i] = ok ? n / d : 0;
                }
            } else if (sa == 1 && sb == 1) {
                for (std::int64_t i = 0; i < len; ++i)
                    yr[i] = op(ar[i], br[i]);
            } else {
                for (std::int64_t i = 0; i < len; ++i)
                    yr[i] = op(ar[i * sa], br[i * sb]);
            }
        });
        if (bad)
            return Status::invalid("div: integer division by zero or overflow");
        return Status::ok();
    }

private:
    Broadcast2 m_bc;
};

template <typename Op> Expected<KernelPtr> makeBinary(const Graph &g, const Node &n)
{
    const Tensor &a = inTensor(g, n, 0), &b = inTensor(g, n, 1);
    const Shape &y = outTensor(g, n, 0).shape;
    if (a.dtype != b.dtype)
        return unsupported(n, "operands have different element types");
    if (a.dtype == DType::Float32)
        return KernelPtr(std::make_unique<BinaryKernel<float, Op>>(y, a.shape, b.shape));
    if (a.dtype == DType::Int64)
        return KernelPtr(std::make_unique<BinaryKernel<std::int64_t, Op>>(y, a.shape, b.shape));
    if (a.dtype == DType::Float64)
        return KernelPtr(std::make_unique<BinaryKernel<double, Op>>(y, a.shape, b.shape));
    if (a.dtype == DType::Int32)
        return KernelPtr(std::make_unique<BinaryKernel<std::int32_t, Op>>(y, a.shape, b.shape));
    if (a.dtype == DType::UInt8)
        return KernelPtr(std::make_unique<BinaryKernel<std::uint8_t, Op>>(y, a.shape, b.shape));
    return expectType(g, n, 0, {DType::Float32, DType::Float64, DType::Int32, DType::Int64});
}

// Pow: float32, int32 or int64 base, exponent of any numeric type. A float
// base with a float exponent uses powf; anything else goes through double
// and back to the base's type.
template <typename T> class PowKernel final : public NodeKernel
{
public:
    PowKernel(const Shape &out, const Shape &a, const Shape &b, DType expType) : m_bc(out, a, b), m_expType(expType) {}

    Status compute(const KernelArgs &args, int, const ops::Region &r) const override
    {
        const T *a = args.in[0].as<T>();
        T *y = args.out[0].as<T>();
        const std::int64_t sa = r.empty() ? 0 : m_bc.a.back(), sb = r.empty() ? 0 : m_bc.b.back();
        const ops::Interval in = innerOf(r);
        forEachRow(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t oa = dot(idx, m_bc.a), ob = dot(idx, m_bc.b), oy = dot(idx, m_bc.y);
            for (std::int64_t i = 0; i < in.size(); ++i) {
                const T base = a[oa + i * sa];
                if constexpr (std::is_same_v<T, float>) {
                    if (m_expType == DType::Float32) {
                        y[oy + i] = std::pow(base, args.in[1].as<float>()[ob + i * sb]);
                        continue;
                    }
                }
                const double v =
                    std::pow(static_cast<double>(base), loadNumber(m_expType, args.in[1].data, ob + i * sb));
                if constexpr (std::is_integral_v<T>)
                    y[oy + i] = toInteger<T>(v);
                else
                    y[oy + i] = static_cast<T>(v);
            }
        });
        return Status::ok();
    }

private:
    Broadcast2 m_bc;
    DType m_expType;
};

Expected<KernelPtr> makePow(const Graph &g, const Node &n)
{
    const Tensor &a = inTensor(g, n, 0), &b = inTensor(g, n, 1);
    const Shape &y = outTensor(g, n, 0).shape;
    if (!isNumeric(b.dtype))
        return expectType(g, n, 1, {DType::Float32, DType::Int64});
    switch (a.dtype) {
    case DType::Float32: return KernelPtr(std::make_unique<PowKernel<float>>(y, a.shape, b.shape, b.dtype));
    case DType::Int32: return KernelPtr(std::make_unique<PowKernel<std::int32_t>>(y, a.shape, b.shape, b.dtype));
    case DType::Int64: return KernelPtr(std::make_unique<PowKernel<std::int64_t>>(y, a.shape, b.shape, b.dtype));
    default: return expectType(g, n, 0, {DType::Float32, DType::Int32, DType::Int64});
    }
}

// Sum: y = x0 + x1 + ... in input order, each broadcast to y.
class SumKernel final : public NodeKernel
{
public:
    SumKernel(const Shape &out, const std::vector<Shape> &ins) : m_y(stridesOf(out))
    {
        for (const Shape &s : ins)
            m_in.push_back(broadcastStrides(out, s));
    }

    Status compute(const KernelArgs &args, int, const ops::Region &r) const override
    {
        float *y = args.out[0].as<float>();
        const ops::Interval in = innerOf(r);
        forEachRow(r, [&](std::span<const std::int64_t> idx) {
            float *yr = y + dot(idx, m_y);
            for (std::size_t k = 0; k < m_in.size(); ++k) {
                const float *x = args.in[k].as<float>() + dot(idx, m_in[k]);
                const std::int64_t s = r.empty() ? 0 : m_in[k].back();
                if (k == 0)
                    for (std::int64_t i = 0; i < in.size(); ++i)
                        yr[i] = x[i * s];
                else
                    for (std::int64_t i = 0; i < in.size(); ++i)
                        yr[i] += x[i * s];
            }
        });
        return Status::ok();
    }

private:
    std::vector<std::int64_t> m_y;
    std::vector<std::vector<std::int64_t>> m_in;
};

Expected<KernelPtr> makeSum(const Graph &g, const Node &n)
{
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        if (!hasInput(n, i))
            return unsupported(n, "omitted inputs are not supported");
        TS_TRY(expectType(g, n, i, {DType::Float32}));
        shapes.push_back(inTensor(g, n, i).shape);
    }
    return KernelPtr(std::make_unique<SumKernel>(outTensor(g, n, 0).shape, shapes));
}

constexpr KernelEntry kKernels[] = {
    {"Add", makeBinary<Add>},
    {"Cast", makeCast},
    {"Clip", makeClip},
    {"Div", makeBinary<Div>},
    {"Dropout", makeCopy},
    {"Erf", [](const Graph &g, const Node &n) { return makeUnary(g, n, Erf{}); }},
    {"HardSwish", [](const Graph &g, const Node &n) { return makeUnary(g, n, HardSwish{}); }},
    {"Identity", makeCopy},
    {"LeakyRelu",
     [](const Graph &g, const Node &n) {
         return makeUnary(g, n, LeakyRelu{static_cast<float>(n.attrFloat("alpha", 0.01))});
     }},
    {"Mul", makeBinary<Mul>},
    {"Pow", makePow},
    {"Relu", [](const Graph &g, const Node &n) { return makeUnary(g, n, Relu{}); }},
    {"Sigmoid", [](const Graph &g, const Node &n) { return makeUnary(g, n, Sigmoid{}); }},
    {"Sqrt", [](const Graph &g, const Node &n) { return makeUnary(g, n, Sqrt{}); }},
    {"Sub", makeBinary<Sub>},
    {"Sum", makeSum},
    {"Tanh", [](const Graph &g, const Node &n) { return makeUnary(g, n, Tanh{}); }},
};

} // namespace

std::span<const KernelEntry> elementwiseKernels()
{
    return kKernels;
}

} // namespace tessera::reference
