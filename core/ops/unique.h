// Unique's selection (ONNX Unique-11), shared by core/ops (output extents)
// and the backends (the values). Definition in unique.cpp.
#pragma once

#include "core/ir/types.h"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace tessera::ops {

// The distinct slices of x (shape `shape`) along `axis`, or its distinct
// elements (flattened) without one: first[k] is the position (along the
// axis, or flat) of the first occurrence of unique slice k, in ascending
// order of the slices (sorted, lexicographic over the slice's row-major
// elements) or in order of first occurrence; inverse[i] is the unique slice
// position i holds; counts[k] how often slice k occurs.
struct UniqueResult {
    std::vector<std::int64_t> first, inverse, counts;
};
UniqueResult uniqueOf(std::span<const double> x, const Shape &shape, std::optional<std::int64_t> axis, bool sorted);

} // namespace tessera::ops
