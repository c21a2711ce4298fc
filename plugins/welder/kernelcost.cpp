#include "plugins/welder/kernelcost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace tessera::welder {

std::string KernelCoster::signature(const std::vector<NodeId> &nodes) const
{
    return subgraphSignature(*m_ctx.tg, nodes);
}

const Tiling &KernelCoster::tiling(const std::vector<NodeId> &nodes)
{
    std::string sig = signature(nodes);
    auto it = m_caches->level0.find(sig);
    if (it != m_caches->level0.end()) {
        ++m_hits;
        return *it->second;
    }
    ++m_misses;
    auto t = std::make_unique<Tiling>(
        subGraphTiling(m_ctx, nodes, 0, primaryDomain(m_ctx.tg->graph(), nodes), m_ctx.params.topk));
    return *m_caches->level0.emplace(std::move(sig), std::move(t)).first->second;
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
