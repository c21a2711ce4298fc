// One tensor as a serialized ONNX TensorProto: the .pb files of ONNX's node and
// model tests (test_data_set_N/input_K.pb, output_K.pb) and what tessera-cli
// run reads as inputs and writes as outputs. The decoder is the importer's
// (tensor_proto.cpp: validateTensorProto, then takeTensorData), so a .pb file
// and an initializer are checked by the same arithmetic before anything is
// allocated.
//
// Decoding accepts raw_data or the typed field of the element type (ONNX packs
// 8/16-bit integers, bool and the 16-bit floats into int32_data) and refuses
// string, undefined and external tensors. Encoding always writes raw_data
// (little-endian).
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <string>
#include <string_view>

namespace tessera {

struct NamedTensorData {
    std::string name; // the proto's name; may be empty
    TensorData data;  // inline (never external)
};

// `sourceName` is the Location::file of every diagnostic.
Expected<NamedTensorData> decodeTensorProto(std::string_view bytes, std::string_view sourceName = {});
// A Usage error when data.view() does not hold exactly one data.dtype data.shape.
Expected<std::string> encodeTensorProto(std::string_view name, const TensorData &data);

} // namespace tessera
