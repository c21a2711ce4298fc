#include "core/ir/kernelgraph.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace tessera {

Expected<Graph> kernelGraph(const Graph &g, const std::vector<NodeId> &nodes)
{
    if (nodes.empty())
        return Status::invalid("a kernel of no nodes");
    std::vector<NodeId> order = nodes;
    std::sort(order.begin(), order.end());
    std::unordered_set<NodeId> inKernel(order.begin(), order.end());
    std::unordered_set<TensorId> written;
    for (NodeId n : order)
        for (TensorId t : g.node(n).outputs)
            if (t != kInvalidId)
                written.insert(t);

    Graph k;
    k.name = g.name + ":kernel";
    k.opsetVersion = g.opsetVersion;
    std::unordered_map<TensorId, TensorId> id; // g's tensor -> k's
    auto copyOf = [&](TensorId t) {
        if (auto it = id.find(t); it != id.end())
            return it->second;
        const Tensor &src = g.tensor(t);
        Tensor copy;
        copy.name = src.name;
        copy.dtype = src.dtype;
        copy.shape = src.shape;
        copy.data = src.data;
        copy.kind = src.isConstant()   ? Tensor::Kind::Initializer
                    : written.count(t) ? Tensor::Kind::Intermediate
                                       : Tensor::Kind::Input;
        const TensorId mine = k.addTensor(std::move(copy));
        if (k.tensor(mine).kind == Tensor::Kind::Input)
            k.inputs.push_back(mine);
        return id[t] = mine;
    };
    for (NodeId n : order) {
        const Node &src = g.node(n);
        Node copy = src;
        for (TensorId &t : copy.inputs)
            if (t != kInvalidId)
                t = copyOf(t);
        for (TensorId &t : copy.outputs)
            if (t != kInvalidId)
                t = copyOf(t);
        k.addNode(std::move(copy));
    }
    const std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());
    for (NodeId n : order)
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            const auto &users = g.tensor(t).consumers;
            const bool escapes = graphOutputs.count(t) ||
                                 std::any_of(users.begin(), users.end(), [&](NodeId u) { return !inKernel.count(u); });
            if (escapes)
                k.outputs.push_back(id.at(t));
        }
    if (k.outputs.empty())
        for (TensorId t : g.node(order.back()).outputs)
            if (t != kInvalidId)
                k.outputs.push_back(id.at(t));
    TS_TRY(k.verify());
    return k;
}

} // namespace tessera
