// One axis of an ONNX Slice, normalised: the semantics that shape inference
// (core/ops/movement.cpp), the reference kernel and the CPU backend's strided
// copy share, so a slice reads the same elements everywhere.
//
// ONNX Slice (opset 1–13): a negative start or end counts from the end of
// the axis; both are clamped into the axis ([0, dim] for a positive step,
// [-1, dim - 1] for a negative one); a step larger in magnitude than the
// axis selects at most its first element, so it is clamped to dim + 1 (which
// also keeps start + k * step from overflowing). A zero step is the caller's
// error to report before calling (asserted here).
#pragma once

#include <cstdint>

namespace tessera::ops {

struct SliceAxis {
    std::int64_t start = 0; // the first element read along the axis
    std::int64_t step = 1;  // from one element read to the next
    std::int64_t out = 0;   // how many are read: the output's extent
};

SliceAxis sliceAxis(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t dim);

} // namespace tessera::ops
