// ONNX external data: weights stored in files next to the model, referenced by
// a `location` relative to the model's folder plus an offset and a length.
//
// A location is untrusted input. resolveExternalData() refuses absolute paths
// and anything that, after "..", "." and symlinks are resolved, leaves the
// model's folder; it also checks offset and length against the file size and
// the tensor's dtype×shape, so nothing is read or allocated for a bad
// reference. Imported tensors keep such data lazily (TensorData::external);
// loadTensorData()/loadExternalData() read it when a backend needs it.
#pragma once

#include "core/ir/graph.h"
#include "core/support/status.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>
#include <vector>

namespace tessera {

// `modelDir` must be canonical (std::filesystem::canonical). `length` < 0 means
// "to the end of the file". `expectedBytes` is what the tensor needs. Messages
// quote the location; callers add the model file and tensor to the Location.
Expected<TensorData::External> resolveExternalData(const std::filesystem::path &modelDir, std::string_view location,
                                                   std::int64_t offset, std::int64_t length,
                                                   std::int64_t expectedBytes);

// Reads the bytes of a resolved reference (fails if the file shrank since).
Expected<std::vector<std::uint8_t>> readExternalData(const TensorData::External &ext);

// An inline copy of `data`, or `data` itself when it is already inline.
Expected<std::shared_ptr<const TensorData>> loadTensorData(const std::shared_ptr<const TensorData> &data);

// Replaces every external initializer of `g` by its inline data.
Status loadExternalData(Graph &g);

} // namespace tessera
