// Serialized TensorProto <-> TensorData (see tensorfile.h), through the
// importer's own checks and conversion (internal.h).
#include "core/onnx/tensorfile.h"

#include "core/onnx/internal.h"

#include <climits>

namespace tessera {

Expected<NamedTensorData> decodeTensorProto(std::string_view bytes, std::string_view sourceName)
{
    const std::string file(sourceName);
    ::onnx::TensorProto p;
    if (bytes.size() > static_cast<std::size_t>(INT_MAX) ||
        !p.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return Status::invalid("not a TensorProto", {.file = file});
    const Location at{.file = file, .tensor = p.name()};
    if (p.data_location() == ::onnx::TensorProto::EXTERNAL)
        return Status::error(ErrorCode::Unsupported, "external tensor data is not supported", at);

    const ImportOptions options;
    DiagnosticLog log;
    const onnximport::ImportContext ctx{options, file, {}, log}; // no model folder: nothing external
    const std::string what = p.name().empty() ? std::string("tensor") : "tensor '" + p.name() + "'";
    TS_TRY(onnximport::validateTensorProto(p, ctx, what));
    auto data = onnximport::takeTensorData(p, ctx);
    if (!data)
        return data.status();
    return NamedTensorData{p.name(), **data};
}

Expected<std::string> encodeTensorProto(std::string_view name, const TensorData &data)
{
    const auto n = numElements(data.shape);
    if (data.isExternal() || !n ||
        static_cast<std::int64_t>(data.view().size()) != *n * static_cast<std::int64_t>(dtypeSize(data.dtype)))
        return Status::error(ErrorCode::Usage, "tensor '" + std::string(name) + "' holds " +
                                                   std::to_string(data.view().size()) + " bytes, not one " +
                                                   std::string(dtypeName(data.dtype)) + " " + shapeStr(data.shape));
    ::onnx::TensorProto p;
    p.set_name(std::string(name));
    onnximport::fillTensorProto(data, p);
    std::string out;
    if (!p.SerializeToString(&out))
        return Status::error(ErrorCode::Internal, "cannot serialize tensor '" + std::string(name) + "'");
    return out;
}

} // namespace tessera
