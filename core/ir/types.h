// Element types and static shapes of the Tessera IR.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

// Element type of a tensor. Values are Tessera's own; onnxDType()/fromOnnxDType()
// translate to TensorProto.DataType.
enum class DType : std::uint8_t {
    Undefined,
    Float32,
    Float16,
    BFloat16,
    Float64,
    Int8,
    UInt8,
    Int16,
    Int32,
    Int64,
    Bool,
    String,
    UInt16, // the unsigned types past uint8 (appended: the values above are stable)
    UInt32,
    UInt64,
};

std::size_t dtypeSize(DType t);      // bytes per element, 0 for Undefined/String
std::string_view dtypeName(DType t); // "f32", "i64", ...
std::optional<DType> dtypeFromName(std::string_view name);
bool isFloat(DType t);
bool isInteger(DType t);
int onnxDType(DType t);
DType fromOnnxDType(int onnxType); // Undefined if unknown

// A static shape: one extent per dimension, every extent >= 0. A scalar has rank 0.
using Shape = std::vector<std::int64_t>;

// Number of elements, or nullopt if the product overflows int64 or a dim is negative.
std::optional<std::int64_t> numElements(const Shape &shape);
std::string shapeStr(const Shape &shape); // "1x3x224x224", "scalar"

} // namespace tessera
