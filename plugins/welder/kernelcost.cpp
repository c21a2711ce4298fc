#include "plugins/welder/kernelcost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace tessera::welder {

std::string KernelCoster::signature(const std::vector<NodeId> &nodes) const
{
    const TileGraph &tg = *m_ctx.tg;
    const Graph &g = tg.graph();
    std::unordered_map<NodeId, std::size_t> local;
    for (std::size_t i = 0; i < nodes.size(); ++i)
        local[nodes[i]] = i;
    const auto escaping = escapingTensors(g, nodes);
    auto shapeStr = [](const Tensor &t) {
        std::string s = std::to_string(static_cast<int>(t.dtype)) + "[";
        for (std::int64_t d : t.shape)
            s += std::to_string(d) + ",";
        return s + "]";
    };
    std::string sig;
    for (NodeId n : nodes) {
        const Node &node = g.node(n);
        sig += node.opType + (node.opaque ? "!" : "") + "{";
        for (const auto &[k, a] : node.attrs)
            sig += k + "=" + a.str() + ";";
        sig += "}(";
        for (TensorId t : node.inputs) {
            if (t == kInvalidId) {
                sig += "_,";
                continue;
            }
            const Tensor &tt = g.tensor(t);
            auto it = tt.producer != kInvalidId ? local.find(tt.producer) : local.end();
            if (it != local.end()) {
                const Node &p = g.node(tt.producer);
                const auto oi = std::find(p.outputs.begin(), p.outputs.end(), t) - p.outputs.begin();
                const int e = tg.edgeIndex(tt.producer, n);
                sig += "n" + std::to_string(it->second) + "." + std::to_string(oi) + "@" +
                       std::to_string(e >= 0 ? tg.connectLevel(e) : 0);
            } else {
                sig += std::string(tt.isConstant() ? "c" : "x") + shapeStr(tt);
                if (tt.isConstant() && tt.elements() <= 16)
                    for (std::int64_t i = 0; i < tt.elements(); ++i) {
                        const auto v = tt.data->floatAt(i);
                        sig += ":" + (v ? std::to_string(*v) : std::string("?"));
                    }
            }
            sig += ",";
        }
        sig += ")->";
        for (TensorId t : node.outputs) {
            if (t == kInvalidId) {
                sig += "_";
                continue;
            }
            sig += shapeStr(g.tensor(t));
            if (std::find(escaping.begin(), escaping.end(), t) != escaping.end())
                sig += t == escaping.front() ? "P" : "E";
        }
        sig += "|";
    }
    return sig;
}

const Tiling &KernelCoster::tiling(const std::vector<NodeId> &nodes)
{
    std::string sig = signature(nodes);
    auto it = m_cache.find(sig);
    if (it != m_cache.end()) {
        ++m_hits;
        return *it->second;
    }
    ++m_misses;
    auto t = std::make_unique<Tiling>(
        subGraphTiling(m_ctx, nodes, 0, primaryDomain(m_ctx.tg->graph(), nodes), m_ctx.params.topk));
    return *m_cache.emplace(std::move(sig), std::move(t)).first->second;
}

double KernelCoster::costNs(const std::vector<NodeId> &nodes)
{
    const Tiling &t = tiling(nodes);
    if (!t.candidates.empty())
        return t.candidates.front().costNs;
    if (nodes.size() == 1)
        return m_ctx.cost->kernelCost(m_ctx.tg->graph(), nodes, {}).timeNs;
    return std::numeric_limits<double>::infinity();
}

} // namespace tessera::welder
