// What the graph view knows about a node or group before any pixel is drawn:
// the op category that picks its colour, its label lines, and the box size the
// layout reserves for it. Sizes come from a character-width estimate (no
// QFontMetrics here: this library is Qt Core only); the view elides text that
// does not fit. One table, so layout and drawing agree.
#pragma once

#include "core/ir/graph.h"
#include "core/ir/hierarchy.h"

#include <QSizeF>
#include <QString>

#include <cstdint>
#include <string_view>

namespace tessera::layout {

enum class OpCategory : std::uint8_t {
    Conv,         // Conv, ConvTranspose
    MatMul,       // MatMul, Gemm, Einsum, Attention
    Elementwise,  // arithmetic and activations
    Norm,         // BatchNormalization, LayerNormalization, Softmax, ...
    Pool,         // MaxPool, AveragePool, Global*, Reduce*
    Shape,        // Reshape, Flatten, Squeeze, Shape, Cast, ...
    DataMovement, // Transpose, Concat, Split, Slice, Gather, Pad, Resize, ...
    Other,
};
inline constexpr int kOpCategoryCount = 8;

OpCategory opCategory(std::string_view opType);
std::string_view opCategoryName(OpCategory c); // "conv", "matmul", ...

// "1x64x56x56" of the first output, or "" if it has none.
QString nodeShapeText(const Graph &g, const Node &n);
// "12.3 GFLOPs", "450 kFLOPs"; "" for <= 0.
QString flopsText(double flops);

struct BoxMetrics {
    static constexpr double kCharWidth = 6.6;  // average advance of the view's 11 px UI font
    static constexpr double kNodeHeight = 40;  // two lines: op type, output shape
    static constexpr double kGroupHeight = 46; // two lines: name, "N nodes · FLOPs"
    static constexpr double kMinNodeWidth = 84;
    static constexpr double kMaxNodeWidth = 190;
    static constexpr double kMinGroupWidth = 120;
    static constexpr double kMaxGroupWidth = 240;
    static constexpr double kPadding = 12; // inside an expanded group's frame
    static constexpr double kHeader = 26;  // title strip of an expanded group's frame
    static constexpr double kPortSize = 6;
};

QSizeF nodeBoxSize(const Graph &g, const Node &n);
QSizeF groupBoxSize(const Group &group);

} // namespace tessera::layout
