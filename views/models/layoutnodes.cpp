// Op categories, label text and box sizes for the graph view (layoutnodes.h).
#include "views/models/layoutnodes.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace tessera::layout {
namespace {

// Op type -> category, sorted by name for binary search. Anything absent is Other.
constexpr std::array<std::pair<std::string_view, OpCategory>, 92> kCategories{{
    {"Abs", OpCategory::Elementwise},
    {"Add", OpCategory::Elementwise},
    {"And", OpCategory::Elementwise},
    {"ArgMax", OpCategory::Pool},
    {"ArgMin", OpCategory::Pool},
    {"Attention", OpCategory::MatMul},
    {"AveragePool", OpCategory::Pool},
    {"BatchNormalization", OpCategory::Norm},
    {"Cast", OpCategory::Shape},
    {"Ceil", OpCategory::Elementwise},
    {"Clip", OpCategory::Elementwise},
    {"Concat", OpCategory::DataMovement},
    {"Constant", OpCategory::Shape},
    {"ConstantOfShape", OpCategory::Shape},
    {"Conv", OpCategory::Conv},
    {"ConvInteger", OpCategory::Conv},
    {"ConvTranspose", OpCategory::Conv},
    {"Cos", OpCategory::Elementwise},
    {"DepthToSpace", OpCategory::DataMovement},
    {"Div", OpCategory::Elementwise},
    {"Dropout", OpCategory::Elementwise},
    {"Einsum", OpCategory::MatMul},
    {"Elu", OpCategory::Elementwise},
    {"Equal", OpCategory::Elementwise},
    {"Erf", OpCategory::Elementwise},
    {"Exp", OpCategory::Elementwise},
    {"Expand", OpCategory::DataMovement},
    {"Flatten", OpCategory::Shape},
    {"Floor", OpCategory::Elementwise},
    {"Gather", OpCategory::DataMovement},
    {"GatherElements", OpCategory::DataMovement},
    {"GatherND", OpCategory::DataMovement},
    {"Gelu", OpCategory::Elementwise},
    {"Gemm", OpCategory::MatMul},
    {"GlobalAveragePool", OpCategory::Pool},
    {"GlobalMaxPool", OpCategory::Pool},
    {"Greater", OpCategory::Elementwise},
    {"GroupNormalization", OpCategory::Norm},
    {"HardSigmoid", OpCategory::Elementwise},
    {"HardSwish", OpCategory::Elementwise},
    {"Identity", OpCategory::Shape},
    {"InstanceNormalization", OpCategory::Norm},
    {"LRN", OpCategory::Norm},
    {"LayerNormalization", OpCategory::Norm},
    {"LeakyRelu", OpCategory::Elementwise},
    {"Less", OpCategory::Elementwise},
    {"Log", OpCategory::Elementwise},
    {"LogSoftmax", OpCategory::Norm},
    {"MatMul", OpCategory::MatMul},
    {"MatMulInteger", OpCategory::MatMul},
    {"Max", OpCategory::Elementwise},
    {"MaxPool", OpCategory::Pool},
    {"Mean", OpCategory::Elementwise},
    {"Min", OpCategory::Elementwise},
    {"Mish", OpCategory::Elementwise},
    {"Mul", OpCategory::Elementwise},
    {"Neg", OpCategory::Elementwise},
    {"Not", OpCategory::Elementwise},
    {"Or", OpCategory::Elementwise},
    {"PRelu", OpCategory::Elementwise},
    {"Pad", OpCategory::DataMovement},
    {"Pow", OpCategory::Elementwise},
    {"Range", OpCategory::Shape},
    {"Reciprocal", OpCategory::Elementwise},
    {"ReduceL2", OpCategory::Pool},
    {"ReduceMax", OpCategory::Pool},
    {"ReduceMean", OpCategory::Pool},
    {"ReduceMin", OpCategory::Pool},
    {"ReduceProd", OpCategory::Pool},
    {"ReduceSum", OpCategory::Pool},
    {"Relu", OpCategory::Elementwise},
    {"Reshape", OpCategory::Shape},
    {"Resize", OpCategory::DataMovement},
    {"ScatterND", OpCategory::DataMovement},
    {"Selu", OpCategory::Elementwise},
    {"Shape", OpCategory::Shape},
    {"Sigmoid", OpCategory::Elementwise},
    {"Sin", OpCategory::Elementwise},
    {"Slice", OpCategory::DataMovement},
    {"Softmax", OpCategory::Norm},
    {"Softplus", OpCategory::Elementwise},
    {"SpaceToDepth", OpCategory::DataMovement},
    {"Split", OpCategory::DataMovement},
    {"Sqrt", OpCategory::Elementwise},
    {"Squeeze", OpCategory::Shape},
    {"Sub", OpCategory::Elementwise},
    {"Sum", OpCategory::Elementwise},
    {"Tanh", OpCategory::Elementwise},
    {"Tile", OpCategory::DataMovement},
    {"Transpose", OpCategory::DataMovement},
    {"Unsqueeze", OpCategory::Shape},
    {"Where", OpCategory::Elementwise},
}};

constexpr bool sortedTable()
{
    for (std::size_t i = 1; i < kCategories.size(); ++i)
        if (!(kCategories[i - 1].first < kCategories[i].first))
            return false;
    return true;
}
static_assert(sortedTable(), "kCategories must stay sorted for binary search");

double textWidth(qsizetype chars, double scale = 1.0)
{
    return static_cast<double>(chars) * BoxMetrics::kCharWidth * scale;
}

} // namespace

OpCategory opCategory(std::string_view opType)
{
    const auto it = std::lower_bound(kCategories.begin(), kCategories.end(), opType,
                                     [](const auto &e, std::string_view key) { return e.first < key; });
    return it != kCategories.end() && it->first == opType ? it->second : OpCategory::Other;
}

std::string_view opCategoryName(OpCategory c)
{
    static constexpr std::array<std::string_view, kOpCategoryCount> names{"conv", "matmul", "elementwise",   "norm",
                                                                          "pool", "shape",  "data movement", "other"};
    return names[static_cast<std::size_t>(c)];
}

QString nodeShapeText(const Graph &g, const Node &n)
{
    const Tensor *t = n.outputs.empty() ? nullptr : g.output(n, 0);
    return t ? QString::fromStdString(shapeStr(t->shape)) : QString();
}

QString flopsText(double flops)
{
    if (!(flops > 0))
        return {};
    static constexpr std::array<const char *, 6> units{"", "k", "M", "G", "T", "P"};
    std::size_t u = 0;
    while (flops >= 1000 && u + 1 < units.size()) {
        flops /= 1000;
        ++u;
    }
    return QStringLiteral("%1 %2FLOPs")
        .arg(flops, 0, 'f',
             flops < 10    ? 2
             : flops < 100 ? 1
                           : 0)
        .arg(QLatin1String(units[u]));
}

QSizeF nodeBoxSize(const Graph &g, const Node &n)
{
    const double title = textWidth(static_cast<qsizetype>(n.opType.size()), 1.1); // bold
    const double shape = textWidth(nodeShapeText(g, n).size(), 0.92);             // smaller
    const double w = std::clamp(std::max(title, shape) + 22, BoxMetrics::kMinNodeWidth, BoxMetrics::kMaxNodeWidth);
    return {std::round(w), BoxMetrics::kNodeHeight};
}

QSizeF groupBoxSize(const Group &group)
{
    const double title = textWidth(static_cast<qsizetype>(group.name.size()), 1.1);
    const double info = textWidth(QString::number(group.totalNodes).size() + 22, 0.92); // "N nodes · 12.3 GFLOPs"
    const double w = std::clamp(std::max(title, info) + 36, BoxMetrics::kMinGroupWidth, BoxMetrics::kMaxGroupWidth);
    return {std::round(w), BoxMetrics::kGroupHeight};
}

} // namespace tessera::layout
