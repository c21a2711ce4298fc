// Linear quantization (ONNX QuantizeLinear-10/-13, DequantizeLinear-10/-13,
// DynamicQuantizeLinear-11), and the parameter checks the integer Conv and
// MatMul forms of conv.cpp and matmul.cpp share.
//
// QuantizeLinear: y = saturate(round_half_even(x / y_scale) + y_zero_point);
//   y has y_zero_point's type (int8 or uint8; uint8 when it is omitted).
// DequantizeLinear: y = (x - x_zero_point) * x_scale, float32; x int8, uint8
//   or int32 (int32: no zero point, or a zero one).
// Both take a scalar scale/zero point (per tensor) or, from opset 13, a 1-D
// one of x.shape[axis] entries (per axis, `axis` default 1).
// DynamicQuantizeLinear: x float32 -> y uint8 (x's shape), y_scale float32
//   and y_zero_point uint8 scalars, from x's range extended to include 0:
//   scale = (max - min) / 255, zero point = saturate(round(-min / scale)).
// Index maps: Quantize/Dequantize are element-wise (a per-axis scale/zero
// point reads entry i of the tile's `axis` interval); every output of
// DynamicQuantizeLinear reads x whole (its range is global).
// FLOPs per element: Quantize 3 (divide, round, add), Dequantize 2 (subtract,
// multiply), DynamicQuantizeLinear 5 (min and max, then Quantize's 3).
#include "core/ops/opdef.h"

namespace tessera::ops::detail {

Status checkQuantParam(const OpContext &c, std::size_t input, std::string_view what, std::int64_t perChannel,
                       std::initializer_list<DType> types)
{
    if (!c.has(input))
        return Status::ok();
    const Shape &s = c.shape(input);
    const bool scalar = s.empty() || s == Shape{1};
    if (!scalar && !(perChannel > 0 && s == Shape{perChannel}))
        return c.failAt(input, std::string(what) + " has shape " + dimsStr(s) + ", expected a scalar" +
                                   (perChannel > 0 ? " or " + std::to_string(perChannel) + " entries" : ""));
    for (DType t : types)
        if (c.in(input).dtype == t)
            return Status::ok();
    return c.failAt(input, std::string(what) + " has element type " + std::string(dtypeName(c.in(input).dtype)) +
                               ", which " + c.n.opType + " does not take");
}

namespace {

// The axis a 1-D scale/zero point runs along; -1 for per-tensor parameters.
Expected<std::int64_t> paramAxis(const OpContext &c)
{
    const Shape &s = c.shape(1);
    if (s.empty() || s == Shape{1})
        return std::int64_t{-1};
    return c.axis(c.n.attrInt("axis", 1), c.rank(0), "axis");
}

Status inferLinear(const OpContext &c, std::vector<TensorType> &outs)
{
    const bool quantize = c.n.opType == "QuantizeLinear";
    auto axis = paramAxis(c);
    if (!axis)
        return axis.status();
    const std::int64_t per = *axis >= 0 ? c.shape(0)[static_cast<std::size_t>(*axis)] : 0;
    if (quantize) {
        if (c.in(0).dtype != DType::Float32 && c.in(0).dtype != DType::Int32)
            return c.failAt(0, "x is " + std::string(dtypeName(c.in(0).dtype)) + ", expected f32 or i32");
        TS_TRY(checkQuantParam(c, 1, "y_scale", per, {DType::Float32}));
        TS_TRY(checkQuantParam(c, 2, "y_zero_point", per, {DType::Int8, DType::UInt8}));
        outs = {{c.has(2) ? c.in(2).dtype : DType::UInt8, c.shape(0)}};
    } else {
        const DType x = c.in(0).dtype;
        if (x != DType::Int8 && x != DType::UInt8 && x != DType::Int32)
            return c.failAt(0, "x is " + std::string(dtypeName(x)) + ", expected i8, u8 or i32");
        TS_TRY(checkQuantParam(c, 1, "x_scale", per, {DType::Float32}));
        TS_TRY(checkQuantParam(c, 2, "x_zero_point", per, {x}));
        outs = {{DType::Float32, c.shape(0)}};
    }
    if (c.has(2) && c.shape(2) != c.shape(1))
        return c.failAt(2, "zero point has shape " + dimsStr(c.shape(2)) + ", scale " + dimsStr(c.shape(1)));
    return Status::ok();
}

double flopsLinear(const OpContext &c)
{
    return (c.n.opType == "QuantizeLinear" ? 3 : 2) * elements(c.shape(0));
}

Status regionsLinear(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back(identityDim(tile[d], x[d]));
    in[0] = makeRegion(dims);
    const std::int64_t axis = *paramAxis(c);
    for (std::size_t i = 1; i < 3; ++i)
        if (c.has(i))
            in[i] = axis < 0 ? wholeRegion(c.shape(i))
                             : makeRegion({identityDim(tile[static_cast<std::size_t>(axis)], c.shape(i)[0])});
    return Status::ok();
}

void axesLinear(const OpContext &c, int, std::vector<InputAxes> &in)
{
    for (int d = 0; d < static_cast<int>(c.rank(0)); ++d)
        in[0].maps.push_back(axisMap(d, d));
    const std::int64_t axis = *paramAxis(c);
    for (std::size_t i = 1; i < 3; ++i)
        if (c.has(i))
            in[i] = axis < 0 ? wholeAxes(c.shape(i)) : InputAxes{.maps = {axisMap(static_cast<int>(axis), 0)}};
}

Status inferDynamic(const OpContext &c, std::vector<TensorType> &outs)
{
    if (c.in(0).dtype != DType::Float32)
        return c.failAt(0, "x is " + std::string(dtypeName(c.in(0).dtype)) + ", expected f32");
    outs = {{DType::UInt8, c.shape(0)}, {DType::Float32, {}}, {DType::UInt8, {}}};
    return Status::ok();
}

double flopsDynamic(const OpContext &c)
{
    return 5 * elements(c.shape(0));
}

Status regionsDynamic(const OpContext &c, int, const Region &, std::vector<InputRegion> &in)
{
    in[0] = wholeRegion(c.shape(0));
    return Status::ok();
}

void axesDynamic(const OpContext &c, int, std::vector<InputAxes> &in)
{
    in[0] = wholeAxes(c.shape(0));
}

using K = Attribute::Kind;
constexpr AttrSpec kLinearAttrs[] = {{"axis", K::Int}};
constexpr OpDef kOps[] = {
    {"QuantizeLinear", 2, 3, 1, 1, kLinearAttrs, inferLinear, flopsLinear, regionsLinear, axesLinear},
    {"DequantizeLinear", 2, 3, 1, 1, kLinearAttrs, inferLinear, flopsLinear, regionsLinear, axesLinear},
    {"DynamicQuantizeLinear", 1, 1, 3, 3, {}, inferDynamic, flopsDynamic, regionsDynamic, axesDynamic},
};

} // namespace

std::span<const OpDef> quantOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
