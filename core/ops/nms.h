// NonMaxSuppression's selection (ONNX NonMaxSuppression-11), shared by
// core/ops (the output's extent: how many boxes are selected) and the
// backends (the selected indices). Definition in nms.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace tessera::ops {

struct NmsParams {
    std::int64_t batches = 0, classes = 0, boxes = 0; // boxes [batches, boxes, 4], scores [batches, classes, boxes]
    std::int64_t maxPerClass = 0;                     // max_output_boxes_per_class (0: select nothing)
    double iouThreshold = 0;
    std::optional<double> scoreThreshold;
    bool centerPointBox = false; // [x_center, y_center, width, height] instead of two corners
};

// (batch, class, box) of every selected box: batches in order, classes in
// order, boxes by descending score (ties: lower index first), each kept
// unless its IoU with a box already kept for that class exceeds the threshold.
std::vector<std::array<std::int64_t, 3>> nonMaxSuppression(const NmsParams &p, std::span<const double> boxes,
                                                           std::span<const double> scores);

} // namespace tessera::ops
