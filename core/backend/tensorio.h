// HostTensor <-> ONNX TensorProto files (.pb): the inputs tessera-cli run
// reads, the outputs it writes, and the test data of ONNX's node tests. The
// bytes are decoded and encoded by core/onnx/tensorfile.h, the importer's own
// TensorProto decoder; this file only reads and writes the files.
#pragma once

#include "core/backend/backend.h"
#include "core/support/status.h"

#include <string>

namespace tessera {

// Files larger than 2 GiB (protobuf's limit) are refused.
Expected<HostTensor> readTensorProto(const std::string &path);
// A Usage error when `tensor` does not hold exactly one dtype × shape.
Status writeTensorProto(const HostTensor &tensor, const std::string &path);

} // namespace tessera
