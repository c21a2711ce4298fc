// TensorProto files (see tensorio.h).
#include "core/backend/tensorio.h"

#include "core/onnx/tensorfile.h"
#include "core/support/fileio.h"

namespace tessera {

Expected<HostTensor> readTensorProto(const std::string &path)
{
    auto bytes = readFile(path, std::int64_t(1) << 31);
    if (!bytes)
        return bytes.status();
    auto decoded = decodeTensorProto(*bytes, path);
    if (!decoded)
        return decoded.status();
    return HostTensor{std::move(decoded->name), decoded->data.dtype, std::move(decoded->data.shape),
                      std::move(decoded->data.bytes)};
}

Status writeTensorProto(const HostTensor &tensor, const std::string &path)
{
    TensorData data;
    data.dtype = tensor.dtype;
    data.shape = tensor.shape;
    data.bytes = tensor.bytes;
    auto encoded = encodeTensorProto(tensor.name, data);
    if (!encoded)
        return encoded.status();
    return writeFileAtomic(path, *encoded);
}

} // namespace tessera
