// Element-wise math ops (ONNX opset 7-17), one table entry per op:
//  - unary math on floats: Abs, Neg, Sign (also integers), Exp, Log,
//    Reciprocal, Floor, Ceil, Round, Sin, Cos, Tan, Asin, Acos, Atan, Sinh,
//    Cosh, Asinh, Acosh, Atanh, Softplus, Softsign;
//  - activations with attributes: Elu, Selu, Celu, ThresholdedRelu,
//    HardSigmoid, Shrink;
//  - predicates with a bool result: IsNaN, IsInf, Not;
//  - broadcasting binary ops: Mod, BitShift, PRelu (slope broadcasts to X),
//    comparisons Equal, Less, Greater, LessOrEqual, GreaterOrEqual (bool
//    result) and logical And, Or, Xor (bool operands);
//  - variadic Max, Min, Mean with multidirectional broadcasting;
//  - Where(cond, x, y) (the result has x's type) and CastLike(x, like).
// Every output element reads the same (broadcast) position of every input,
// so each op tiles along every output axis exactly as Add does.
// Choices: operands must share an element type (ONNX's type constraints);
// CastLike's `like` is read for its type only (no region).
// FLOPs per output element: one per arithmetic step or elementary function
// of the ONNX formula (Abs 1, Softplus 2 (exp, log; the add folded), Elu 2,
// Selu 3, Celu 3, HardSigmoid 3, Shrink 2, comparisons 1, variadic ops n-1,
// Mean n), CastLike 0.
#include "core/ops/opdef.h"
#include "core/support/assert.h"

namespace tessera::ops::detail {

namespace {

enum class Out { Same, Bool, Second }; // result type: input 0's, bool, input 1's

struct MathInfo {
    std::string_view op;
    Out out;
    int flops;         // per output element (variadic: per extra input)
    bool like = false; // CastLike: input 1 contributes its type only
};

// Attribute-free, output-typed facts per op; looked up by the family functions.
constexpr MathInfo kInfo[] = {
    {"Abs", Out::Same, 1},
    {"Neg", Out::Same, 1},
    {"Sign", Out::Same, 1},
    {"Exp", Out::Same, 1},
    {"Log", Out::Same, 1},
    {"Reciprocal", Out::Same, 1},
    {"Floor", Out::Same, 1},
    {"Ceil", Out::Same, 1},
    {"Round", Out::Same, 1},
    {"Sin", Out::Same, 1},
    {"Cos", Out::Same, 1},
    {"Tan", Out::Same, 1},
    {"Asin", Out::Same, 1},
    {"Acos", Out::Same, 1},
    {"Atan", Out::Same, 1},
    {"Sinh", Out::Same, 1},
    {"Cosh", Out::Same, 1},
    {"Asinh", Out::Same, 1},
    {"Acosh", Out::Same, 1},
    {"Atanh", Out::Same, 1},
    {"Softplus", Out::Same, 2},
    {"Softsign", Out::Same, 3},
    {"Elu", Out::Same, 2},
    {"Selu", Out::Same, 3},
    {"Celu", Out::Same, 3},
    {"ThresholdedRelu", Out::Same, 1},
    {"HardSigmoid", Out::Same, 3},
    {"Shrink", Out::Same, 2},
    {"IsNaN", Out::Bool, 1},
    {"IsInf", Out::Bool, 1},
    {"Not", Out::Bool, 1},
    {"Mod", Out::Same, 1},
    {"BitShift", Out::Same, 1},
    {"PRelu", Out::Same, 2},
    {"Equal", Out::Bool, 1},
    {"Less", Out::Bool, 1},
    {"Greater", Out::Bool, 1},
    {"LessOrEqual", Out::Bool, 1},
    {"GreaterOrEqual", Out::Bool, 1},
    {"And", Out::Bool, 1},
    {"Or", Out::Bool, 1},
    {"Xor", Out::Bool, 1},
    {"Max", Out::Same, 1},
    {"Min", Out::Same, 1},
    {"Mean", Out::Same, 1},
    {"Where", Out::Second, 1},
    {"CastLike", Out::Second, 0, true},
};

const MathInfo &info(const OpContext &c)
{
    for (const MathInfo &i : kInfo)
        if (i.op == c.n.opType)
            return i;
    TS_ASSERT_MSG(false, "math op without an info entry");
    return kInfo[0];
}

// The inputs whose values each output element reads.
std::vector<std::size_t> readInputs(const OpContext &c)
{
    std::vector<std::size_t> ids;
    const bool like = info(c).like;
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i) && !(like && i == 1))
            ids.push_back(i);
    return ids;
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    const MathInfo &mi = info(c);
    const auto ids = readInputs(c);
    // Operands that must share a type: all but Where's condition.
    const std::size_t firstTyped = c.n.opType == "Where" ? 1 : 0;
    for (std::size_t i : ids)
        if (i > firstTyped && c.in(i).dtype != c.in(firstTyped).dtype && c.n.opType != "PRelu")
            return c.failAt(i, "input " + std::to_string(i) + " is " + std::string(dtypeName(c.in(i).dtype)) +
                                   ", input " + std::to_string(firstTyped) + " is " +
                                   std::string(dtypeName(c.in(firstTyped).dtype)));
    if (c.n.opType == "Where" && c.in(0).dtype != DType::Bool)
        return c.failAt(0, "condition is " + std::string(dtypeName(c.in(0).dtype)) + ", expected bool");
    auto s = broadcastShapes(c, ids);
    if (!s)
        return s.status();
    if (c.n.opType == "PRelu" && *s != c.shape(0))
        return c.failAt(1, "slope " + dimsStr(c.shape(1)) + " does not broadcast to X " + dimsStr(c.shape(0)));
    const DType t = mi.out == Out::Bool ? DType::Bool : mi.out == Out::Second ? c.in(1).dtype : c.in(0).dtype;
    outs = {{t, std::move(*s)}};
    return Status::ok();
}

double flops(const OpContext &c)
{
    const double per = info(c).flops;
    const double n = static_cast<double>(readInputs(c).size());
    const std::string_view op = c.n.opType;
    if (op == "Max" || op == "Min")
        return (n - 1) * elements(c.outs[0].shape);
    if (op == "Mean")
        return n * elements(c.outs[0].shape);
    return per * elements(c.outs[0].shape);
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    for (std::size_t i : readInputs(c))
        in[i] = broadcastRegion(tile, c.outs[0].shape, c.shape(i));
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    for (std::size_t i : readInputs(c))
        in[i] = broadcastAxes(c.outs[0].shape, c.shape(i));
}

using K = Attribute::Kind;
constexpr AttrSpec kAlpha[] = {{"alpha", K::Float}};
constexpr AttrSpec kSelu[] = {{"alpha", K::Float}, {"gamma", K::Float}};
constexpr AttrSpec kHardSigmoid[] = {{"alpha", K::Float}, {"beta", K::Float}};
constexpr AttrSpec kShrink[] = {{"bias", K::Float}, {"lambd", K::Float}};
constexpr AttrSpec kIsInf[] = {{"detect_negative", K::Int}, {"detect_positive", K::Int}};
constexpr AttrSpec kMod[] = {{"fmod", K::Int}};
constexpr AttrSpec kBitShift[] = {{"direction", K::String}};

constexpr OpDef unary(std::string_view name, std::span<const AttrSpec> attrs = {})
{
    return {name, 1, 1, 1, 1, attrs, infer, flops, regions, axes};
}
constexpr OpDef binary(std::string_view name, std::span<const AttrSpec> attrs = {})
{
    return {name, 2, 2, 1, 1, attrs, infer, flops, regions, axes};
}
constexpr OpDef variadic(std::string_view name)
{
    return {name, 1, -1, 1, 1, {}, infer, flops, regions, axes};
}

constexpr OpDef kOps[] = {
    unary("Abs"),
    unary("Neg"),
    unary("Sign"),
    unary("Exp"),
    unary("Log"),
    unary("Reciprocal"),
    unary("Floor"),
    unary("Ceil"),
    unary("Round"),
    unary("Sin"),
    unary("Cos"),
    unary("Tan"),
    unary("Asin"),
    unary("Acos"),
    unary("Atan"),
    unary("Sinh"),
    unary("Cosh"),
    unary("Asinh"),
    unary("Acosh"),
    unary("Atanh"),
    unary("Softplus"),
    unary("Softsign"),
    unary("Elu", kAlpha),
    unary("Selu", kSelu),
    unary("Celu", kAlpha),
    unary("ThresholdedRelu", kAlpha),
    unary("HardSigmoid", kHardSigmoid),
    unary("Shrink", kShrink),
    unary("IsNaN"),
    unary("IsInf", kIsInf),
    unary("Not"),
    binary("Mod", kMod),
    binary("BitShift", kBitShift),
    binary("PRelu"),
    binary("Equal"),
    binary("Less"),
    binary("Greater"),
    binary("LessOrEqual"),
    binary("GreaterOrEqual"),
    binary("And"),
    binary("Or"),
    binary("Xor"),
    variadic("Max"),
    variadic("Min"),
    variadic("Mean"),
    {"Where", 3, 3, 1, 1, {}, infer, flops, regions, axes},
    binary("CastLike"),
};

} // namespace

std::span<const OpDef> mathOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
