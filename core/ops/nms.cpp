// NonMaxSuppression (ONNX NonMaxSuppression-11): boxes [N, B, 4], scores
// [N, C, B], optional max_output_boxes_per_class (int64), iou_threshold and
// score_threshold (float scalars); selected_indices [S, 3] int64.
//
// The greedy selection (nms.h) runs as ONNX Runtime runs it: a box scoring
// at most score_threshold is never a candidate; a pair suppresses when
// IoU > iou_threshold; a box of zero or negative area has IoU 0 with
// everything.
// S depends on the boxes' and scores' values: Tessera's shapes are static,
// so every input must be a constant (a model's NMS over computed boxes is
// refused naming the node); the selection then runs at shape inference and
// the kernel recomputes it from the same data.
// Index map: the output reads every input whole. FLOPs: one IoU (about 15
// operations) per pair of candidate boxes of a class, counted as
// 15·N·C·B².
#include "core/ops/nms.h"

#include "core/ops/opdef.h"

#include <algorithm>
#include <numeric>

namespace tessera::ops {

namespace {

struct Box {
    double y1, x1, y2, x2;
};

Box corners(std::span<const double> b, bool center)
{
    if (center)
        return {b[1] - b[3] / 2, b[0] - b[2] / 2, b[1] + b[3] / 2, b[0] + b[2] / 2};
    return {std::min(b[0], b[2]), std::min(b[1], b[3]), std::max(b[0], b[2]), std::max(b[1], b[3])};
}

double iou(const Box &a, const Box &b)
{
    const double areaA = (a.y2 - a.y1) * (a.x2 - a.x1), areaB = (b.y2 - b.y1) * (b.x2 - b.x1);
    if (areaA <= 0 || areaB <= 0)
        return 0;
    const double h = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
    const double w = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
    const double inter = h * w;
    return inter / (areaA + areaB - inter);
}

} // namespace

std::vector<std::array<std::int64_t, 3>> nonMaxSuppression(const NmsParams &p, std::span<const double> boxes,
                                                           std::span<const double> scores)
{
    std::vector<std::array<std::int64_t, 3>> selected;
    if (p.maxPerClass <= 0)
        return selected;
    for (std::int64_t b = 0; b < p.batches; ++b) {
        std::vector<Box> bs;
        for (std::int64_t i = 0; i < p.boxes; ++i)
            bs.push_back(corners(boxes.subspan(static_cast<std::size_t>((b * p.boxes + i) * 4), 4), p.centerPointBox));
        for (std::int64_t c = 0; c < p.classes; ++c) {
            const double *s = scores.data() + (b * p.classes + c) * p.boxes;
            std::vector<std::int64_t> order;
            for (std::int64_t i = 0; i < p.boxes; ++i)
                if (!p.scoreThreshold || s[i] > *p.scoreThreshold)
                    order.push_back(i);
            std::stable_sort(order.begin(), order.end(), [&](std::int64_t u, std::int64_t v) { return s[u] > s[v]; });
            std::vector<std::int64_t> kept;
            for (std::int64_t i : order) {
                if (static_cast<std::int64_t>(kept.size()) >= p.maxPerClass)
                    break;
                const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](std::int64_t k) {
                    return iou(bs[static_cast<std::size_t>(i)], bs[static_cast<std::size_t>(k)]) > p.iouThreshold;
                });
                if (!suppressed) {
                    kept.push_back(i);
                    selected.push_back({b, c, i});
                }
            }
        }
    }
    return selected;
}

namespace detail {
namespace {

// The selection from the node's constant inputs.
Expected<std::vector<std::array<std::int64_t, 3>>> select(const OpContext &c)
{
    const Shape &b = c.shape(0), &s = c.shape(1);
    if (b.size() != 3 || b[2] != 4)
        return c.failAt(0, "boxes have shape " + dimsStr(b) + ", expected N x B x 4");
    if (s.size() != 3 || s[0] != b[0] || s[2] != b[1])
        return c.failAt(1, "scores have shape " + dimsStr(s) + ", expected " + std::to_string(b[0]) + " x C x " +
                               std::to_string(b[1]));
    NmsParams p{.batches = b[0], .classes = s[1], .boxes = b[1]};
    p.centerPointBox = c.n.attrInt("center_point_box", 0) != 0;
    const char *what = "boxes (NonMaxSuppression's output shape depends on its values)";
    auto boxes = c.constFloats(0, what);
    if (!boxes)
        return boxes.status();
    auto scores = c.constFloats(1, "scores (NonMaxSuppression's output shape depends on its values)");
    if (!scores)
        return scores.status();
    for (std::size_t i = 2; i < 5; ++i) {
        if (!c.has(i))
            continue;
        if (numElements(c.shape(i)) != 1)
            return c.failAt(i, "input " + std::to_string(i) + " must be a scalar, got " + dimsStr(c.shape(i)));
        auto v = c.constFloats(i, i == 2 ? "max_output_boxes_per_class" : i == 3 ? "iou_threshold" : "score_threshold");
        if (!v)
            return v.status();
        if (i == 2)
            p.maxPerClass = static_cast<std::int64_t>(std::min((*v)[0], 9.0e15));
        else if (i == 3)
            p.iouThreshold = (*v)[0];
        else
            p.scoreThreshold = (*v)[0];
    }
    return nonMaxSuppression(p, *boxes, *scores);
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    auto sel = select(c);
    if (!sel)
        return sel.status();
    outs = {{DType::Int64, {static_cast<std::int64_t>(sel->size()), 3}}};
    return Status::ok();
}

double flops(const OpContext &c)
{
    const Shape &s = c.shape(1);
    return s.size() == 3 ? 15 * elements(s) * static_cast<double>(s[2]) : 0;
}

Status regions(const OpContext &c, int, const Region &, std::vector<InputRegion> &in)
{
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i))
            in[i] = wholeRegion(c.shape(i));
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i))
            in[i].opaque = true;
}

constexpr AttrSpec kAttrs[] = {{"center_point_box", Attribute::Kind::Int}};
constexpr OpDef kOps[] = {
    {"NonMaxSuppression", 2, 5, 1, 1, kAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> nmsOps()
{
    return kOps;
}

} // namespace detail

} // namespace tessera::ops
