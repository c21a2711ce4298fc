#include "plugins/brickdl/subgraph.h"

#include "core/hw/device.h"
#include "core/ops/ops.h"

#include <algorithm>
#include <set>

namespace tessera::brickdl {

std::string_view strategyName(Strategy s)
{
    switch (s) {
    case Strategy::Padded: return "padded";
    case Strategy::Memoized: return "memoized";
    case Strategy::Library: return "library";
    }
    return "?";
}

std::string notBrickable(const Graph &g, NodeId id)
{
    const Node &n = g.node(id);
    const std::string what = n.opType + " " + n.name + ": ";
    if (n.opaque)
        return what + "unknown operator";
    if (n.outputs.size() != 1 || n.outputs[0] == kInvalidId)
        return what + "not a single-output operator";
    const Tensor &out = g.tensor(n.outputs[0]);
    if (out.isConstant())
        return what + "constant";
    if (!isFloat(out.dtype))
        return what + "non-float output";
    const std::vector<int> dims = activationDims(out.shape);
    if (dims.empty())
        return what + "output rank " + std::to_string(out.shape.size()) + " has no spatial dims";
    const auto axes = ops::axisMaps(g, n, 0);
    bool activation = false;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const TensorId t = n.inputs[i];
        if (t == kInvalidId || g.tensor(t).isConstant())
            continue;
        activation = true;
        if (i >= axes.size() || axes[i].opaque)
            return what + "input " + std::to_string(i) + " has no per-axis index map";
        const Shape &inShape = g.tensor(t).shape;
        if (inShape.size() == out.shape.size())
            for (int d : axes[i].reducedDims)
                if (d != 1 && d < static_cast<int>(inShape.size()) && inShape[static_cast<std::size_t>(d)] > 1)
                    return what + "reduces input " + std::to_string(i) + " over dim " + std::to_string(d);
        for (int d : dims) {
            const bool mapped = std::any_of(axes[i].maps.begin(), axes[i].maps.end(),
                                            [&](const ops::AxisMap &m) { return m.outputDim == d; });
            if (!mapped && out.shape[static_cast<std::size_t>(d)] > 1 && g.tensor(t).shape.size() == out.shape.size())
                return what + "output dim " + std::to_string(d) + " reduces input " + std::to_string(i);
        }
    }
    if (!activation)
        return what + "reads no activation";
    return {};
}

bool preferredCut(const Node &n)
{
    static const std::set<std::string, std::less<>> kCut{"MaxPool",       "AveragePool", "GlobalAveragePool",
                                                         "GlobalMaxPool", "LpPool",      "BatchNormalization"};
    return kCut.count(n.opType) > 0;
}

bool shrinkingReduction(const Graph &g, NodeId id)
{
    const Node &n = g.node(id);
    static const std::set<std::string, std::less<>> kPool{"MaxPool", "AveragePool", "GlobalAveragePool",
                                                          "GlobalMaxPool", "LpPool"};
    if (!kPool.count(n.opType) || n.inputs.empty() || n.inputs[0] == kInvalidId || n.outputs.empty())
        return false;
    const Shape &in = g.tensor(n.inputs[0]).shape, &out = g.tensor(n.outputs[0]).shape;
    std::int64_t inSize = 1, outSize = 1;
    for (std::size_t d = 2; d < in.size() && d < out.size(); ++d) {
        inSize *= in[d];
        outSize *= out[d];
    }
    return outSize < inSize;
}

std::vector<bool> materialised(const Graph &g, const SubGraph &sub)
{
    const std::set<NodeId> members(sub.nodes.begin(), sub.nodes.end());
    const std::set<NodeId> outputs(sub.outputs.begin(), sub.outputs.end());
    std::vector<bool> out(sub.nodes.size(), true);
    for (std::size_t i = 0; i < sub.nodes.size(); ++i) {
        const Node &n = g.node(sub.nodes[i]);
        if (opClassOf(n.opType) != OpClass::Elementwise)
            continue;
        NodeId producer = kInvalidId;
        int activations = 0;
        for (TensorId t : n.inputs)
            if (t != kInvalidId && !g.tensor(t).isConstant()) {
                ++activations;
                producer = g.tensor(t).producer;
            }
        if (activations != 1 || !members.count(producer) || outputs.count(producer))
            continue;
        const Tensor &po = g.tensor(g.node(producer).outputs[0]);
        if (po.consumers.size() == 1 && po.consumers[0] == sub.nodes[i])
            out[i] = false;
    }
    return out;
}

std::vector<NodeId> subGraphOutputs(const Graph &g, const std::vector<NodeId> &nodes)
{
    const std::set<NodeId> in(nodes.begin(), nodes.end());
    std::vector<NodeId> outs;
    for (NodeId n : nodes) {
        bool escapes = false;
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end())
                escapes = true;
            for (NodeId c : g.tensor(t).consumers)
                escapes |= !in.count(c);
        }
        if (escapes)
            outs.push_back(n);
    }
    return outs;
}

BrickGrid nodeGrid(const Graph &g, NodeId n, std::int64_t brick)
{
    const Shape &shape = g.tensor(g.node(n).outputs[0]).shape;
    return BrickGrid(shape, activationDims(shape), brick);
}

std::int64_t memoizedFootprint(const Graph &g, const std::vector<NodeId> &nodes)
{
    const std::set<NodeId> in(nodes.begin(), nodes.end());
    std::set<TensorId> counted;
    std::int64_t bytes = 0;
    for (NodeId n : nodes) {
        const Node &node = g.node(n);
        for (TensorId t : node.outputs)
            if (t != kInvalidId && counted.insert(t).second)
                bytes += g.tensor(t).bytes();
        for (TensorId t : node.inputs) {
            if (t == kInvalidId || in.count(g.tensor(t).producer))
                continue;
            if (counted.insert(t).second)
                bytes += g.tensor(t).bytes();
        }
    }
    return bytes;
}

std::int64_t largestWindow(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::int64_t w = 1;
    for (NodeId n : nodes) {
        const Node &node = g.node(n);
        auto k = node.attrInts("kernel_shape");
        if (k.empty() && node.opType == "Conv" && node.inputs.size() > 1 && node.inputs[1] != kInvalidId) {
            const Shape &ws = g.tensor(node.inputs[1]).shape;
            k.assign(ws.begin() + std::min<std::ptrdiff_t>(2, static_cast<std::ptrdiff_t>(ws.size())), ws.end());
        }
        for (std::int64_t e : k)
            w = std::max(w, e);
    }
    return w;
}

} // namespace tessera::brickdl
