#include "core/ir/adjacency.h"

#include <queue>

#include <algorithm>
#include <functional>

namespace tessera {

Adjacency::Adjacency(const Graph &g)
{
    const std::size_t n = g.nodeCount();
    m_succOff.assign(n + 1, 0);
    std::vector<NodeId> scratch;
    for (std::size_t v = 0; v < n; ++v) {
        scratch.clear();
        for (TensorId t : g.nodes()[v].outputs)
            if (t != kInvalidId)
                scratch.insert(scratch.end(), g.tensor(t).consumers.begin(), g.tensor(t).consumers.end());
        std::sort(scratch.begin(), scratch.end());
        scratch.erase(std::unique(scratch.begin(), scratch.end()), scratch.end());
        m_succ.insert(m_succ.end(), scratch.begin(), scratch.end());
        m_succOff[v + 1] = static_cast<std::int32_t>(m_succ.size());
    }

    // Transpose by counting sort; visiting sources in ascending order keeps
    // every predecessor row ascending.
    m_predOff.assign(n + 1, 0);
    for (NodeId s : m_succ)
        ++m_predOff[static_cast<std::size_t>(s) + 1];
    for (std::size_t v = 0; v < n; ++v)
        m_predOff[v + 1] += m_predOff[v];
    m_pred.resize(m_succ.size());
    std::vector<std::int32_t> fill(m_predOff.begin(), m_predOff.end() - 1);
    for (std::size_t v = 0; v < n; ++v)
        for (NodeId s : successors(static_cast<NodeId>(v)))
            m_pred[static_cast<std::size_t>(fill[static_cast<std::size_t>(s)]++)] = static_cast<NodeId>(v);
}

std::vector<NodeId> kahnOrder(const Adjacency &adj)
{
    const std::size_t n = adj.nodeCount();
    std::vector<std::int32_t> indegree(n);
    std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
    for (std::size_t v = 0; v < n; ++v)
        if ((indegree[v] = static_cast<std::int32_t>(adj.predecessors(static_cast<NodeId>(v)).size())) == 0)
            ready.push(static_cast<NodeId>(v));

    std::vector<NodeId> order;
    order.reserve(n);
    while (!ready.empty()) {
        const NodeId v = ready.top();
        ready.pop();
        order.push_back(v);
        for (NodeId s : adj.successors(v))
            if (--indegree[static_cast<std::size_t>(s)] == 0)
                ready.push(s);
    }
    return order;
}

} // namespace tessera
