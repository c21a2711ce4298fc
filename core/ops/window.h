// Internal to core/ops: sliding-window attributes shared by Conv,
// ConvTranspose, MaxPool and AveragePool (strides, dilations, pads, auto_pad)
// and the forward output-extent rule of the ONNX Conv/Pool specs.
#pragma once

#include "core/ops/opdef.h"

namespace tessera::ops::detail {

// One spatial axis of a sliding window.
struct Window {
    std::int64_t in = 0, taps = 1, stride = 1, dilation = 1, padBegin = 0, padEnd = 0, out = 0;
    std::int64_t extent() const { return (taps - 1) * dilation + 1; }
};

enum class AutoPad : std::uint8_t { NotSet, SameUpper, SameLower, Valid };

struct WindowAttrs {
    AutoPad autoPad = AutoPad::NotSet;
    std::vector<std::int64_t> strides, dilations, pads; // k, k, 2k entries
};

// Reads and validates strides/dilations (default 1, positive), pads (default
// 0, non-negative, [x1_begin, ..., x1_end, ...]) and auto_pad for k axes.
Expected<WindowAttrs> readWindowAttrs(const OpContext &c, std::size_t k);

// kernel_shape attribute: k positive entries (required when `weight` is empty,
// else it must equal the weight's spatial dims, which it defaults to).
Expected<Shape> readKernelShape(const OpContext &c, std::size_t k, const Shape *weightSpatial);

// Forward windows (Conv, pools): output extents and effective pads.
//  NOTSET: out = floor((in + pads - extent) / stride) + 1, or ceil with
//          ceilMode, dropping a last window that would start in the end pad;
//  SAME_*: out = ceil(in / stride), total pad (out-1)*stride + extent - in
//          split evenly, the odd one at the end (UPPER) or beginning (LOWER);
//  VALID:  out = floor((in - extent) / stride) + 1, no pads.
Expected<std::vector<Window>> forwardWindows(const OpContext &c, const WindowAttrs &a, const Shape &inSpatial,
                                             const Shape &kernel, bool ceilMode);

} // namespace tessera::ops::detail
