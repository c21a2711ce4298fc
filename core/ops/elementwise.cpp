// Element-wise ops (ONNX opset 7-17): unary Relu, LeakyRelu, Sigmoid, Tanh,
// Erf, HardSwish, Sqrt, Cast, Identity, Clip, Dropout, and binary Add, Sub,
// Mul, Div, Pow and variadic Sum with multidirectional (numpy) broadcasting
// (opset >= 7; the legacy broadcast/axis attributes of opset < 7 are not
// honoured). Sum of n inputs costs n-1 additions per output element.
//
// Choices: Clip takes min/max from inputs 1-2 (opset >= 11) or attributes;
// they must be scalars (one element) and are read whole. Dropout is the
// inference form: Y copies X; the mask output (bool) reads nothing, and the
// ratio/training_mode inputs are compile-time values (used=false).
// FLOPs per output element count each arithmetic step of the ONNX formula and
// each elementary function (exp, tanh, erf, sqrt, pow) as one: Relu 1,
// LeakyRelu 2, Sigmoid 3 (exp, add, divide), Tanh/Erf/Sqrt 1, HardSwish 5,
// Clip 2, binary ops 1, Cast/Identity/Dropout 0.
#include "core/ops/opdef.h"

namespace tessera::ops::detail {

namespace {

template <int PerElement> double perElement(const OpContext &c)
{
    return PerElement * elements(c.outs[0].shape);
}

InputRegion sameShapeRegion(const Region &tile, const Shape &s)
{
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < s.size(); ++d)
        dims.push_back(identityDim(tile[d], s[d]));
    return makeRegion(dims);
}

InputAxes sameShapeAxes(const Shape &s)
{
    InputAxes ax;
    for (std::size_t d = 0; d < s.size(); ++d)
        ax.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d)));
    return ax;
}

// --- unary ------------------------------------------------------------------------

Status inferUnary(const OpContext &c, std::vector<TensorType> &outs)
{
    DType t = c.in(0).dtype;
    if (c.n.opType == "Cast") {
        if (!c.n.attr("to"))
            return c.fail("attribute 'to' is missing");
        t = fromOnnxDType(static_cast<int>(c.n.attrInt("to", 0)));
        if (t == DType::Undefined)
            return c.fail("'to' " + std::to_string(c.n.attrInt("to", 0)) + " is not a known element type");
    }
    if (c.n.opType == "Clip")
        for (std::size_t i = 1; i < 3; ++i)
            if (c.has(i) && numElements(c.shape(i)) != 1)
                return c.failAt(i, std::string(i == 1 ? "min" : "max") + " has shape " + dimsStr(c.shape(i)) +
                                       ", expected a scalar");
    outs = {{t, c.shape(0)}};
    if (c.n.outputs.size() == 2) // Dropout's mask
        outs.push_back({DType::Bool, c.shape(0)});
    return Status::ok();
}

Status regionsUnary(const OpContext &c, int output, const Region &tile, std::vector<InputRegion> &in)
{
    if (output != 0)
        return Status::ok(); // Dropout's mask reads nothing
    in[0] = sameShapeRegion(tile, c.shape(0));
    if (c.n.opType == "Clip")
        for (std::size_t i = 1; i < 3; ++i)
            if (c.has(i))
                in[i] = makeRegion(std::vector<DimRange>(c.shape(i).size(), broadcastDim()));
    return Status::ok();
}

void axesUnary(const OpContext &c, int output, std::vector<InputAxes> &in)
{
    if (output != 0)
        return;
    in[0] = sameShapeAxes(c.shape(0));
    if (c.n.opType == "Clip")
        for (std::size_t i = 1; i < 3; ++i)
            if (c.has(i))
                in[i] = {}; // a scalar (possibly [1]): its one element for every output
}

// --- binary -----------------------------------------------------------------------

// Binary ops and Sum: every present input broadcasts to the output.
std::vector<std::size_t> presentInputs(const OpContext &c)
{
    std::vector<std::size_t> ids;
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i))
            ids.push_back(i);
    return ids;
}

Status inferBinary(const OpContext &c, std::vector<TensorType> &outs)
{
    auto s = broadcastShapes(c, presentInputs(c));
    if (!s)
        return s.status();
    outs = {{c.in(0).dtype, std::move(*s)}};
    return Status::ok();
}

Status regionsBinary(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    for (std::size_t i : presentInputs(c))
        in[i] = broadcastRegion(tile, c.outs[0].shape, c.shape(i));
    return Status::ok();
}

void axesBinary(const OpContext &c, int, std::vector<InputAxes> &in)
{
    for (std::size_t i : presentInputs(c))
        in[i] = broadcastAxes(c.outs[0].shape, c.shape(i));
}

using K = Attribute::Kind;
constexpr AttrSpec kLeakyReluAttrs[] = {{"alpha", K::Float}};
constexpr AttrSpec kCastAttrs[] = {{"to", K::Int}};
constexpr AttrSpec kClipAttrs[] = {{"max", K::Float}, {"min", K::Float}};
constexpr AttrSpec kDropoutAttrs[] = {{"ratio", K::Float}, {"seed", K::Int}};

constexpr OpDef unary(std::string_view name, double (*flops)(const OpContext &), std::span<const AttrSpec> attrs = {},
                      int maxInputs = 1, int maxOutputs = 1)
{
    return {name, 1, maxInputs, 1, maxOutputs, attrs, inferUnary, flops, regionsUnary, axesUnary};
}
constexpr OpDef binary(std::string_view name)
{
    return {name, 2, 2, 1, 1, {}, inferBinary, perElement<1>, regionsBinary, axesBinary};
}
double sumFlops(const OpContext &c)
{
    return static_cast<double>(presentInputs(c).size() - 1) * elements(c.outs[0].shape);
}

constexpr OpDef kOps[] = {
    unary("Relu", perElement<1>),
    unary("LeakyRelu", perElement<2>, kLeakyReluAttrs),
    unary("Sigmoid", perElement<3>),
    unary("Tanh", perElement<1>),
    unary("Erf", perElement<1>),
    unary("HardSwish", perElement<5>),
    unary("Sqrt", perElement<1>),
    unary("Identity", perElement<0>),
    unary("Cast", perElement<0>, kCastAttrs),
    unary("Clip", perElement<2>, kClipAttrs, 3),
    unary("Dropout", perElement<0>, kDropoutAttrs, 3, 2),
    binary("Add"),
    binary("Sub"),
    binary("Mul"),
    binary("Div"),
    binary("Pow"),
    {"Sum", 1, -1, 1, 1, {}, inferBinary, sumFlops, regionsBinary, axesBinary},
};

} // namespace

std::span<const OpDef> elementwiseOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
