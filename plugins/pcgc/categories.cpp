#include "plugins/pcgc/categories.h"

#include <map>
#include <string>

namespace tessera::pcgc {

namespace {

// How an op type is categorised: a fixed category, or a rule on its parameters.
enum class Entry : std::uint8_t {
    Algebraic,
    Broadcast,
    Reduction,
    TwoPhase,
    Complex,
    Infusible,
    ConvByKernel,       // 1×1 → two-phase, else complex
    ElementwiseByShape, // same shapes → algebraic, broadcasting → broadcast
};

// The category table (pcgc §3.3 (1)–(6), with the examples the paper names).
const std::map<std::string, Entry, std::less<>> &table()
{
    static const std::map<std::string, Entry, std::less<>> kTable{
        // (1) algebraic: element by element ("RELU, ADD, MUL").
        {"Relu", Entry::Algebraic},
        {"LeakyRelu", Entry::Algebraic},
        {"Sigmoid", Entry::Algebraic},
        {"Tanh", Entry::Algebraic},
        {"Clip", Entry::Algebraic},
        {"Erf", Entry::Algebraic},
        {"Exp", Entry::Algebraic},
        {"Sqrt", Entry::Algebraic},
        {"Neg", Entry::Algebraic},
        {"Abs", Entry::Algebraic},
        {"HardSigmoid", Entry::Algebraic},
        {"HardSwish", Entry::Algebraic},
        {"Gelu", Entry::Algebraic},
        {"Pow", Entry::Algebraic},
        {"Cast", Entry::Algebraic},
        {"Identity", Entry::Algebraic},
        {"Dropout", Entry::Algebraic},
        {"Add", Entry::ElementwiseByShape},
        {"Sub", Entry::ElementwiseByShape},
        {"Mul", Entry::ElementwiseByShape},
        {"Div", Entry::ElementwiseByShape},
        // (2) broadcast: copies to match shapes ("BN"), and shape adjustments.
        {"BatchNormalization", Entry::Broadcast},
        {"Reshape", Entry::Broadcast},
        {"Flatten", Entry::Broadcast},
        {"Transpose", Entry::Broadcast},
        {"Squeeze", Entry::Broadcast},
        {"Unsqueeze", Entry::Broadcast},
        {"Expand", Entry::Broadcast},
        // (3) reduction: fewer elements along an axis ("SUM, ARGMAX").
        {"ReduceSum", Entry::Reduction},
        {"ReduceMean", Entry::Reduction},
        {"ReduceMax", Entry::Reduction},
        {"ReduceMin", Entry::Reduction},
        {"ArgMax", Entry::Reduction},
        {"ArgMin", Entry::Reduction},
        {"Softmax", Entry::Reduction},
        {"LayerNormalization", Entry::Reduction},
        {"GlobalAveragePool", Entry::Reduction},
        {"GlobalMaxPool", Entry::Reduction},
        // (4) complex: "CONV5×5, FC".
        {"Gemm", Entry::Complex},
        {"MatMul", Entry::Complex},
        {"ConvTranspose", Entry::Complex},
        {"Conv", Entry::ConvByKernel},
        // (6) two-phase: "MAXPOOL, CONV1×1" (Conv above).
        {"MaxPool", Entry::TwoPhase},
        {"AveragePool", Entry::TwoPhase},
        // (5) infusible: no profit fused ("constants"), and data movement between tensors.
        {"Constant", Entry::Infusible},
        {"Concat", Entry::Infusible},
        {"Split", Entry::Infusible},
        {"Shape", Entry::Infusible},
        {"Gather", Entry::Infusible},
    };
    return kTable;
}

bool isOneByOne(const Graph &g, const Node &node)
{
    std::vector<std::int64_t> k = node.attrInts("kernel_shape");
    if (k.empty()) {
        const Tensor *w = g.input(node, 1);
        if (w && w->shape.size() > 2)
            k.assign(w->shape.begin() + 2, w->shape.end());
    }
    if (k.empty())
        return false;
    for (std::int64_t d : k)
        if (d != 1)
            return false;
    return true;
}

bool broadcasts(const Graph &g, const Node &node)
{
    const Tensor *out = g.output(node, 0);
    if (!out)
        return false;
    // An operand of another shape (a bias, a scale, a row) is copied out: broadcast.
    for (TensorId t : node.inputs)
        if (t != kInvalidId && g.tensor(t).shape != out->shape)
            return true;
    return false;
}

} // namespace

std::string_view categoryName(OpCategory c)
{
    switch (c) {
    case OpCategory::Algebraic: return "algebraic";
    case OpCategory::Broadcast: return "broadcast";
    case OpCategory::Reduction: return "reduction";
    case OpCategory::TwoPhase: return "two-phase";
    case OpCategory::Complex: return "complex";
    case OpCategory::Infusible: return "infusible";
    }
    return "?";
}

OpCategory categoryOf(const Graph &g, const Node &node)
{
    if (node.opaque || (!node.domain.empty() && node.domain != "ai.onnx"))
        return OpCategory::Infusible;
    const auto it = table().find(node.opType);
    if (it == table().end())
        return OpCategory::Infusible;
    switch (it->second) {
    case Entry::Algebraic: return OpCategory::Algebraic;
    case Entry::Broadcast: return OpCategory::Broadcast;
    case Entry::Reduction: return OpCategory::Reduction;
    case Entry::TwoPhase: return OpCategory::TwoPhase;
    case Entry::Complex: return OpCategory::Complex;
    case Entry::Infusible: return OpCategory::Infusible;
    case Entry::ConvByKernel: return isOneByOne(g, node) ? OpCategory::TwoPhase : OpCategory::Complex;
    case Entry::ElementwiseByShape: return broadcasts(g, node) ? OpCategory::Broadcast : OpCategory::Algebraic;
    }
    return OpCategory::Infusible;
}

} // namespace tessera::pcgc
