// ONNX TensorProto files (.pb) <-> HostTensor: the test_data_set_N/input_K.pb
// and output_K.pb files of ONNX's node and model tests, and what the CLI
// reads as inputs and writes as outputs.
//
// Reading accepts raw_data or the typed field of the element type (ONNX packs
// 8/16-bit integers, bool and the 16-bit floats into int32_data), checks the
// dims and payload size before allocating anything, and refuses string and
// external tensors. Writing always uses raw_data (little-endian).
#pragma once

#include "core/backend/backend.h"
#include "core/support/status.h"

#include <string>

namespace tessera {

Expected<HostTensor> readTensorProto(const std::string &path);
Status writeTensorProto(const HostTensor &tensor, const std::string &path);

} // namespace tessera
