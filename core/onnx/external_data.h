// ONNX external data: weights stored in files next to the model, referenced by
// a `location` relative to the model's folder plus an offset and a length.
//
// A location is untrusted input. resolveExternalData() refuses absolute paths
// and anything that, after "..", "." and symlinks are resolved, leaves the
// model's folder; it also checks offset and length against the file size and
// the tensor's dtype×shape, so nothing is read or allocated for a bad
// reference. Imported tensors keep such data lazily (TensorData::external);
// loadTensorData()/loadExternalData() load it when a backend needs it.
//
// Loading maps instead of copying: the file is memory-mapped read-only once
// (core/support/filemapping.h, shared by every tensor of that file while any
// of them is alive, unmapped after the last) and the loaded TensorData is a
// view into it (TensorData::mapped), so a 2.5 GB model costs address space and
// page cache, not 2.5 GB of heap. At map time the file's size (fstat) is
// checked against offset + length; a file that shrank since import is refused
// ("external data file is shorter than recorded at import"). Residual risk: a
// file truncated by another process while mapped raises SIGBUS on the next
// read of a vanished page; nothing short of copying can prevent that.
// Data at an offset that is not a multiple of its element size, or in a file
// that cannot be mapped, is read into the heap instead (pread; typed access
// to mapped data must be aligned).
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

// Reads the bytes of a resolved reference into the heap (fails if the file shrank since).
Expected<std::vector<std::uint8_t>> readExternalData(const TensorData::External &ext);

// A read-only view of a resolved reference in the file's shared mapping (fails
// if the file shrank since), whatever the offset's alignment.
Expected<TensorData::Mapped> mapExternalData(const TensorData::External &ext);

// Loaded data for `data`: `data` itself when it is not external, else a new
// TensorData viewing the mapped file (or, for an offset not aligned to the
// element size, holding a heap copy).
Expected<std::shared_ptr<const TensorData>> loadTensorData(const std::shared_ptr<const TensorData> &data);

// Replaces every external initializer of `g` by its loaded (mapped) data.
Status loadExternalData(Graph &g);

} // namespace tessera
