#include "core/ir/types.h"

#include <array>
#include <limits>

namespace tessera {

namespace {
struct DTypeInfo {
    DType type;
    std::string_view name;
    std::size_t size;
    int onnx; // TensorProto.DataType
};
constexpr std::array<DTypeInfo, 15> kDTypes = {{
    {DType::Undefined, "undefined", 0, 0},
    {DType::Float32, "f32", 4, 1},
    {DType::Float16, "f16", 2, 10},
    {DType::BFloat16, "bf16", 2, 16},
    {DType::Float64, "f64", 8, 11},
    {DType::Int8, "i8", 1, 3},
    {DType::UInt8, "u8", 1, 2},
    {DType::Int16, "i16", 2, 5},
    {DType::Int32, "i32", 4, 6},
    {DType::Int64, "i64", 8, 7},
    {DType::Bool, "bool", 1, 9},
    {DType::String, "string", 0, 8},
    {DType::UInt16, "u16", 2, 4},
    {DType::UInt32, "u32", 4, 12},
    {DType::UInt64, "u64", 8, 13},
}};
const DTypeInfo &info(DType t)
{
    return kDTypes[static_cast<std::size_t>(t)];
}
} // namespace

std::size_t dtypeSize(DType t)
{
    return info(t).size;
}
std::string_view dtypeName(DType t)
{
    return info(t).name;
}
int onnxDType(DType t)
{
    return info(t).onnx;
}

std::optional<DType> dtypeFromName(std::string_view name)
{
    for (const auto &i : kDTypes)
        if (i.name == name)
            return i.type;
    return std::nullopt;
}

DType fromOnnxDType(int onnxType)
{
    for (const auto &i : kDTypes)
        if (i.onnx == onnxType && i.type != DType::Undefined)
            return i.type;
    return DType::Undefined;
}

bool isFloat(DType t)
{
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}

bool isInteger(DType t)
{
    return t == DType::Int8 || t == DType::UInt8 || t == DType::Int16 || t == DType::Int32 || t == DType::Int64 ||
           t == DType::UInt16 || t == DType::UInt32 || t == DType::UInt64;
}

std::optional<std::int64_t> numElements(const Shape &shape)
{
    std::int64_t n = 1;
    for (std::int64_t d : shape) {
        if (d < 0)
            return std::nullopt;
        if (d != 0 && n > std::numeric_limits<std::int64_t>::max() / d)
            return std::nullopt;
        n *= d;
    }
    return n;
}

std::string shapeStr(const Shape &shape)
{
    if (shape.empty())
        return "scalar";
    std::string s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += 'x';
        s += std::to_string(shape[i]);
    }
    return s;
}

} // namespace tessera
