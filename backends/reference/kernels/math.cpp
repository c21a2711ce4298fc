// Element-wise math kernels for the ops of core/ops/math.cpp: unary math and
// activations, predicates, Mod, BitShift, PRelu, comparisons, logical ops,
// variadic Max/Min/Mean, Where and CastLike, on every numeric element type,
// with numpy broadcasting.
//
// One kernel class serves the whole family: each op is a formula over the
// input values loaded as double (exact for every value of every type up to
// 32-bit integers and for int64 up to 2^53), rounded once into the output
// type. Formulas follow the ONNX operator documents: Round is half to even,
// Mod with fmod=0 takes the divisor's sign (integer Mod by zero gives 0),
// Max/Min propagate NaN, Selu/Elu/Celu/HardSigmoid/ThresholdedRelu/Shrink
// use ONNX's default attribute values. A float result stored into an
// integer type saturates (NaN → 0) instead of invoking undefined behaviour;
// BitShift wraps to the operand's width.
#include "backends/reference/kernel.h"
#include "core/support/assert.h"

#include <cmath>
#include <limits>

namespace tessera::reference {

namespace {

struct Params {
    double alpha = 0, beta = 0, gamma = 0;
    std::int64_t flag = 0, flag2 = 0; // fmod; IsInf's detect_negative/positive; BitShift's direction
    int bits = 64;                    // BitShift: operand width
    bool integer = false;             // the operands are integers
};

using Formula = double (*)(const double *x, std::size_t n, const Params &p);

double nanOr(double a, double b, bool max)
{
    if (std::isnan(a) || std::isnan(b))
        return std::numeric_limits<double>::quiet_NaN();
    return max ? std::max(a, b) : std::min(a, b);
}

double mod(double a, double b, const Params &p)
{
    if (p.integer && b == 0)
        return 0;
    const double r = std::fmod(a, b);
    if (p.flag != 0 || r == 0 || (r < 0) == (b < 0))
        return r;
    return r + b;
}

double bitShift(double a, double b, const Params &p)
{
    const auto x = static_cast<std::uint64_t>(a);
    const auto s = static_cast<std::uint64_t>(b);
    if (s >= 64)
        return 0;
    std::uint64_t y = p.flag != 0 ? x << s : x >> s;
    if (p.bits < 64)
        y &= (std::uint64_t{1} << p.bits) - 1;
    return static_cast<double>(y);
}

struct FormulaEntry {
    std::string_view op;
    Formula f;
};

// clang-format off
constexpr FormulaEntry kFormulas[] = {
    {"Abs", [](const double *x, std::size_t, const Params &) { return std::abs(x[0]); }},
    {"Neg", [](const double *x, std::size_t, const Params &) { return -x[0]; }},
    {"Sign", [](const double *x, std::size_t, const Params &) { return double((x[0] > 0) - (x[0] < 0)); }},
    {"Exp", [](const double *x, std::size_t, const Params &) { return std::exp(x[0]); }},
    {"Log", [](const double *x, std::size_t, const Params &) { return std::log(x[0]); }},
    {"Reciprocal", [](const double *x, std::size_t, const Params &) { return 1.0 / x[0]; }},
    {"Floor", [](const double *x, std::size_t, const Params &) { return std::floor(x[0]); }},
    {"Ceil", [](const double *x, std::size_t, const Params &) { return std::ceil(x[0]); }},
    {"Round", [](const double *x, std::size_t, const Params &) { return std::nearbyint(x[0]); }},
    {"Sin", [](const double *x, std::size_t, const Params &) { return std::sin(x[0]); }},
    {"Cos", [](const double *x, std::size_t, const Params &) { return std::cos(x[0]); }},
    {"Tan", [](const double *x, std::size_t, const Params &) { return std::tan(x[0]); }},
    {"Asin", [](const double *x, std::size_t, const Params &) { return std::asin(x[0]); }},
    {"Acos", [](const double *x, std::size_t, const Params &) { return std::acos(x[0]); }},
    {"Atan", [](const double *x, std::size_t, const Params &) { return std::atan(x[0]); }},
    {"Sinh", [](const double *x, std::size_t, const Params &) { return std::sinh(x[0]); }},
    {"Cosh", [](const double *x, std::size_t, const Params &) { return std::cosh(x[0]); }},
    {"Asinh", [](const double *x, std::size_t, const Params &) { return std::asinh(x[0]); }},
    {"Acosh", [](const double *x, std::size_t, const Params &) { return std::acosh(x[0]); }},
    {"Atanh", [](const double *x, std::size_t, const Params &) { return std::atanh(x[0]); }},
    {"Softplus", [](const double *x, std::size_t, const Params &) { return std::log(std::exp(x[0]) + 1.0); }},
    {"Softsign", [](const double *x, std::size_t, const Params &) { return x[0] / (1.0 + std::abs(x[0])); }},
    {"Elu", [](const double *x, std::size_t, const Params &p) { return x[0] < 0 ? p.alpha * (std::exp(x[0]) - 1.0) : x[0]; }},
    {"Selu", [](const double *x, std::size_t, const Params &p) {
         return p.gamma * (x[0] <= 0 ? p.alpha * (std::exp(x[0]) - 1.0) : x[0]); }},
    {"Celu", [](const double *x, std::size_t, const Params &p) {
         return std::max(0.0, x[0]) + std::min(0.0, p.alpha * (std::exp(x[0] / p.alpha) - 1.0)); }},
    {"ThresholdedRelu", [](const double *x, std::size_t, const Params &p) { return x[0] > p.alpha ? x[0] : 0.0; }},
    {"HardSigmoid", [](const double *x, std::size_t, const Params &p) {
         return std::max(0.0, std::min(1.0, p.alpha * x[0] + p.beta)); }},
    {"Shrink", [](const double *x, std::size_t, const Params &p) {
         return x[0] < -p.alpha ? x[0] + p.beta : x[0] > p.alpha ? x[0] - p.beta : 0.0; }},
    {"IsNaN", [](const double *x, std::size_t, const Params &) { return double(std::isnan(x[0])); }},
    {"IsInf", [](const double *x, std::size_t, const Params &p) {
         return double(std::isinf(x[0]) && ((x[0] < 0 && p.flag) || (x[0] > 0 && p.flag2))); }},
    {"Not", [](const double *x, std::size_t, const Params &) { return double(x[0] == 0); }},
    {"Mod", [](const double *x, std::size_t, const Params &p) { return mod(x[0], x[1], p); }},
    {"BitShift", [](const double *x, std::size_t, const Params &p) { return bitShift(x[0], x[1], p); }},
    {"PRelu", [](const double *x, std::size_t, const Params &) { return x[0] < 0 ? x[1] * x[0] : x[0]; }},
    {"Equal", [](const double *x, std::size_t, const Params &) { return double(x[0] == x[1]); }},
    {"Less", [](const double *x, std::size_t, const Params &) { return double(x[0] < x[1]); }},
    {"Greater", [](const double *x, std::size_t, const Params &) { return double(x[0] > x[1]); }},
    {"LessOrEqual", [](const double *x, std::size_t, const Params &) { return double(x[0] <= x[1]); }},
    {"GreaterOrEqual", [](const double *x, std::size_t, const Params &) { return double(x[0] >= x[1]); }},
    {"And", [](const double *x, std::size_t, const Params &) { return double(x[0] != 0 && x[1] != 0); }},
    {"Or", [](const double *x, std::size_t, const Params &) { return double(x[0] != 0 || x[1] != 0); }},
    {"Xor", [](const double *x, std::size_t, const Params &) { return double((x[0] != 0) != (x[1] != 0)); }},
    {"Max", [](const double *x, std::size_t n, const Params &) {
         double v = x[0]; for (std::size_t i = 1; i < n; ++i) v = nanOr(v, x[i], true); return v; }},
    {"Min", [](const double *x, std::size_t n, const Params &) {
         double v = x[0]; for (std::size_t i = 1; i < n; ++i) v = nanOr(v, x[i], false); return v; }},
    {"Mean", [](const double *x, std::size_t n, const Params &) {
         double v = 0; for (std::size_t i = 0; i < n; ++i) v += x[i]; return v / double(n); }},
    {"Where", [](const double *x, std::size_t, const Params &) { return x[0] != 0 ? x[1] : x[2]; }},
    {"CastLike", [](const double *x, std::size_t, const Params &) { return x[0]; }},
};
// clang-format on

// A double into an integer type without undefined behaviour: NaN → 0, saturating.
double saturate(DType t, double v)
{
    if (!isInteger(t))
        return v;
    if (std::isnan(v))
        return 0;
    double lo = 0, hi = 1;
    switch (t) {
    case DType::Int8: lo = -128, hi = 127; break;
    case DType::UInt8: lo = 0, hi = 255; break;
    case DType::Int16: lo = -32768, hi = 32767; break;
    case DType::Int32: lo = -2147483648.0, hi = 2147483647.0; break;
    case DType::Int64: lo = -9223372036854775808.0, hi = 9223372036854774784.0; break;
    case DType::UInt16: lo = 0, hi = 65535; break;
    case DType::UInt32: lo = 0, hi = 4294967295.0; break;
    case DType::UInt64: lo = 0, hi = 18446744073709549568.0; break; // the largest double below 2^64
    default: break;
    }
    return std::trunc(std::min(std::max(v, lo), hi));
}

class MathKernel final : public NodeKernel
{
public:
    MathKernel(Formula f, Params p, const Shape &out, DType outType, std::vector<std::size_t> inputs,
               const std::vector<Shape> &shapes)
        : m_f(f), m_p(p), m_outType(outType), m_y(stridesOf(out)), m_inputs(std::move(inputs))
    {
        for (const Shape &s : shapes)
            m_strides.push_back(broadcastStrides(out, s));
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        std::vector<double> x(m_inputs.size());
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            for (std::size_t k = 0; k < m_inputs.size(); ++k) {
                const InView &v = a.in[m_inputs[k]];
                x[k] = loadNumber(v.dtype, v.data, dot(idx, m_strides[k]));
            }
            storeNumber(m_outType, a.out[0].data, dot(idx, m_y), saturate(m_outType, m_f(x.data(), x.size(), m_p)));
        });
        return Status::ok();
    }

private:
    Formula m_f;
    Params m_p;
    DType m_outType;
    std::vector<std::int64_t> m_y;
    std::vector<std::size_t> m_inputs;
    std::vector<std::vector<std::int64_t>> m_strides;
};

Expected<KernelPtr> makeMath(const Graph &g, const Node &n)
{
    Formula f = nullptr;
    for (const FormulaEntry &e : kFormulas)
        if (e.op == n.opType)
            f = e.f;
    TS_ASSERT_MSG(f != nullptr, "math kernel without a formula");
    std::vector<std::size_t> inputs;
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        if (!hasInput(n, i) || (n.opType == "CastLike" && i == 1))
            continue;
        const Tensor &t = inTensor(g, n, i);
        if (!isNumeric(t.dtype))
            return unsupported(n, "element type " + std::string(dtypeName(t.dtype)) + " is not supported");
        inputs.push_back(i);
        shapes.push_back(t.shape);
    }
    const Tensor &y = outTensor(g, n, 0);
    const DType x0 = inTensor(g, n, 0).dtype;
    Params p;
    p.integer = isInteger(x0) || x0 == DType::Bool;
    p.bits = static_cast<int>(dtypeSize(x0) * 8);
    const std::string_view op = n.opType;
    if (op == "Elu" || op == "Celu" || op == "ThresholdedRelu")
        p.alpha = n.attrFloat("alpha", 1.0);
    if (op == "Selu") {
        // ONNX's defaults, exactly as float32 constants.
        p.alpha = static_cast<float>(n.attrFloat("alpha", 1.67326319217681884765625));
        p.gamma = static_cast<float>(n.attrFloat("gamma", 1.05070102214813232421875));
    }
    if (op == "HardSigmoid") {
        p.alpha = static_cast<float>(n.attrFloat("alpha", 0.2));
        p.beta = static_cast<float>(n.attrFloat("beta", 0.5));
    }
    if (op == "Shrink") { // alpha: lambd, beta: bias
        p.alpha = static_cast<float>(n.attrFloat("lambd", 0.5));
        p.beta = static_cast<float>(n.attrFloat("bias", 0.0));
    }
    if (op == "Mod")
        p.flag = n.attrInt("fmod", 0);
    if (op == "IsInf") {
        p.flag = n.attrInt("detect_negative", 1);
        p.flag2 = n.attrInt("detect_positive", 1);
    }
    if (op == "BitShift") {
        const std::string dir = n.attrString("direction", "");
        if (dir != "LEFT" && dir != "RIGHT")
            return unsupported(n, "direction '" + dir + "' is neither LEFT nor RIGHT");
        if (!isInteger(x0))
            return unsupported(n, "element type " + std::string(dtypeName(x0)) + " is not an integer type");
        p.flag = dir == "LEFT";
    }
    if (!isNumeric(y.dtype))
        return unsupported(n, "element type " + std::string(dtypeName(y.dtype)) + " is not supported");
    return KernelPtr(std::make_unique<MathKernel>(f, p, y.shape, y.dtype, std::move(inputs), shapes));
}

constexpr KernelEntry kKernels[] = {
    {"Abs", makeMath},
    {"Acos", makeMath},
    {"Acosh", makeMath},
    {"And", makeMath},
    {"Asin", makeMath},
    {"Asinh", makeMath},
    {"Atan", makeMath},
    {"Atanh", makeMath},
    {"BitShift", makeMath},
    {"CastLike", makeMath},
    {"Ceil", makeMath},
    {"Celu", makeMath},
    {"Cos", makeMath},
    {"Cosh", makeMath},
    {"Elu", makeMath},
    {"Equal", makeMath},
    {"Exp", makeMath},
    {"Floor", makeMath},
    {"Greater", makeMath},
    {"GreaterOrEqual", makeMath},
    {"HardSigmoid", makeMath},
    {"IsInf", makeMath},
    {"IsNaN", makeMath},
    {"Less", makeMath},
    {"LessOrEqual", makeMath},
    {"Log", makeMath},
    {"Max", makeMath},
    {"Mean", makeMath},
    {"Min", makeMath},
    {"Mod", makeMath},
    {"Neg", makeMath},
    {"Not", makeMath},
    {"Or", makeMath},
    {"PRelu", makeMath},
    {"Reciprocal", makeMath},
    {"Round", makeMath},
    {"Selu", makeMath},
    {"Shrink", makeMath},
    {"Sign", makeMath},
    {"Sin", makeMath},
    {"Sinh", makeMath},
    {"Softplus", makeMath},
    {"Softsign", makeMath},
    {"Tan", makeMath},
    {"ThresholdedRelu", makeMath},
    {"Where", makeMath},
    {"Xor", makeMath},
};

} // namespace

std::span<const KernelEntry> mathKernels()
{
    return kKernels;
}

} // namespace tessera::reference
