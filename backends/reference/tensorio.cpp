// TensorProto files (see tensorio.h). libonnx's protobuf classes stay in this file.
#include "backends/reference/tensorio.h"

#include "core/support/fileio.h"

#include <cstring>
#include <onnx/onnx_pb.h>

namespace tessera {

namespace {

constexpr std::int64_t kMaxBytes = std::int64_t(1) << 31;

// Copies the typed field `values` into `out` as elements of type T.
template <typename T, typename Field> void packTyped(const Field &values, std::vector<std::uint8_t> &out)
{
    out.resize(static_cast<std::size_t>(values.size()) * sizeof(T));
    for (int i = 0; i < values.size(); ++i) {
        const T v = static_cast<T>(values.Get(i));
        std::memcpy(out.data() + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
    }
}

Status typedPayload(const onnx::TensorProto &p, DType t, std::vector<std::uint8_t> &out)
{
    switch (t) {
    case DType::Float32: packTyped<float>(p.float_data(), out); break;
    case DType::Float64: packTyped<double>(p.double_data(), out); break;
    case DType::Int64: packTyped<std::int64_t>(p.int64_data(), out); break;
    case DType::Int32: packTyped<std::int32_t>(p.int32_data(), out); break;
    case DType::Int16: packTyped<std::int16_t>(p.int32_data(), out); break;
    case DType::Int8: packTyped<std::int8_t>(p.int32_data(), out); break;
    case DType::UInt8:
    case DType::Bool: packTyped<std::uint8_t>(p.int32_data(), out); break;
    case DType::Float16:
    case DType::BFloat16: packTyped<std::uint16_t>(p.int32_data(), out); break;
    default:
        return Status::error(ErrorCode::Unsupported, "element type " + std::string(dtypeName(t)) + " is not supported");
    }
    return Status::ok();
}

} // namespace

Expected<HostTensor> readTensorProto(const std::string &path)
{
    auto bytes = readFile(path, kMaxBytes);
    if (!bytes)
        return bytes.status();
    onnx::TensorProto p;
    if (!p.ParseFromString(*bytes))
        return Status::invalid("not a TensorProto", {.file = path});
    HostTensor h;
    h.name = p.name();
    h.dtype = fromOnnxDType(p.data_type());
    const Location at{.file = path, .tensor = p.name()};
    if (h.dtype == DType::Undefined || h.dtype == DType::String)
        return Status::error(ErrorCode::Unsupported,
                             "element type " + std::to_string(p.data_type()) + " is not supported", at);
    if (p.data_location() == onnx::TensorProto::EXTERNAL)
        return Status::error(ErrorCode::Unsupported, "external tensor data is not supported", at);
    for (std::int64_t d : p.dims()) {
        if (d < 0)
            return Status::invalid("negative dimension " + std::to_string(d), at);
        h.shape.push_back(d);
    }
    const auto n = numElements(h.shape);
    if (!n || *n > kMaxBytes / static_cast<std::int64_t>(dtypeSize(h.dtype)))
        return Status::invalid("shape " + shapeStr(h.shape) + " is too large", at);
    const std::int64_t want = *n * static_cast<std::int64_t>(dtypeSize(h.dtype));
    if (p.has_raw_data())
        h.bytes.assign(p.raw_data().begin(), p.raw_data().end());
    else
        TS_TRY(typedPayload(p, h.dtype, h.bytes).at(at));
    if (static_cast<std::int64_t>(h.bytes.size()) != want)
        return Status::invalid("payload holds " + std::to_string(h.bytes.size()) + " bytes, " +
                                   std::string(dtypeName(h.dtype)) + " " + shapeStr(h.shape) + " needs " +
                                   std::to_string(want),
                               at);
    return h;
}

Status writeTensorProto(const HostTensor &tensor, const std::string &path)
{
    const auto n = numElements(tensor.shape);
    if (!n || static_cast<std::int64_t>(tensor.bytes.size()) != *n * static_cast<std::int64_t>(dtypeSize(tensor.dtype)))
        return Status::error(ErrorCode::Usage, "tensor '" + tensor.name + "' holds " +
                                                   std::to_string(tensor.bytes.size()) + " bytes, not one " +
                                                   std::string(dtypeName(tensor.dtype)) + " " + shapeStr(tensor.shape));
    onnx::TensorProto p;
    p.set_name(tensor.name);
    p.set_data_type(onnxDType(tensor.dtype));
    for (std::int64_t d : tensor.shape)
        p.add_dims(d);
    p.set_raw_data(tensor.bytes.data(), tensor.bytes.size());
    std::string out;
    if (!p.SerializeToString(&out))
        return Status::error(ErrorCode::Internal, "cannot serialize tensor '" + tensor.name + "'", {.file = path});
    return writeFileAtomic(path, out);
}

} // namespace tessera
