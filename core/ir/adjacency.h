// Node-to-node adjacency of a Graph in compressed (CSR) form, and Kahn's order
// over it. Shared by the analyses and hierarchy inference, which walk the same
// edges many times: building it once costs O(n + uses·log) and avoids the
// per-call vectors of Graph::successors().
//
// Edges are distinct (producer node, consumer node) pairs, ascending per node;
// a node reading its own output has a self-edge (a cycle).
#pragma once

#include "core/ir/graph.h"

#include <span>
#include <vector>

namespace tessera {

class Adjacency
{
public:
    explicit Adjacency(const Graph &g);

    std::size_t nodeCount() const { return m_succOff.size() - 1; }
    std::size_t edgeCount() const { return m_succ.size(); }
    std::span<const NodeId> successors(NodeId n) const { return row(m_succOff, m_succ, n); }
    std::span<const NodeId> predecessors(NodeId n) const { return row(m_predOff, m_pred, n); }

private:
    static std::span<const NodeId> row(const std::vector<std::int32_t> &off, const std::vector<NodeId> &v, NodeId n)
    {
        const auto i = static_cast<std::size_t>(n);
        return {v.data() + off[i], static_cast<std::size_t>(off[i + 1] - off[i])};
    }

    std::vector<std::int32_t> m_succOff, m_predOff; // nodeCount() + 1 offsets
    std::vector<NodeId> m_succ, m_pred;
};

// Kahn's algorithm with a min-heap on node id, so ties go to the smaller id and
// the order is deterministic. On a cycle the result is shorter than
// nodeCount(): it holds exactly the nodes not on or behind a cycle.
std::vector<NodeId> kahnOrder(const Adjacency &adj);

} // namespace tessera
