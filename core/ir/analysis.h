// Graph analyses every scheduler needs: topological order, reachability and
// DAG width (the size of the largest antichain: the most operators that could
// run at once). An inter-operator search's cost grows with the width (thesis §3.3,
// complexity O(n·(n/d+1)^(2d)) for width d).
#pragma once

#include "core/ir/graph.h"

#include <cstdint>
#include <vector>

namespace tessera {

// Kahn's order, ties broken by node id (deterministic). Fails with the name of
// a node on a cycle.
Expected<std::vector<NodeId>> topologicalOrder(const Graph &g);

// rank[node] = position of the node in `order` (the inverse permutation).
std::vector<std::int32_t> topologicalRanks(const std::vector<NodeId> &order);

// Transitive reachability between nodes as dense bitsets: reaches(a, b) is true
// if there is a path of length >= 1 from a to b. O(n²/64) memory: 20,000 nodes
// take 50 MB; callers on bigger graphs should work per block.
class Reachability
{
public:
    explicit Reachability(const Graph &g); // the graph must be acyclic
    bool reaches(NodeId from, NodeId to) const;
    bool comparable(NodeId a, NodeId b) const { return reaches(a, b) || reaches(b, a); }
    std::size_t size() const { return m_n; }

private:
    std::size_t m_n = 0;
    std::size_t m_words = 0;
    std::vector<std::uint64_t> m_bits; // row i: nodes reachable from i
};

struct DagWidth {
    std::int64_t width = 0;        // size of a maximum antichain
    std::vector<NodeId> antichain; // one maximum antichain, ascending ids
};

// Exact width by Dilworth's theorem: n minus a maximum matching in the
// bipartite graph of the transitive closure (Hopcroft–Karp). Considers only the
// nodes in `subset` when it is non-empty (e.g. one block).
DagWidth dagWidth(const Graph &g, const std::vector<NodeId> &subset = {});

// True when nodes a and b compute the same values: the same op and domain,
// equal attributes, the same input tensors and outputs of the same types and
// shapes, and an op whose result depends on nothing else (not opaque, not a
// random generator). Used for common-subexpression elimination and to verify it.
bool sameComputation(const Graph &g, NodeId a, NodeId b);

} // namespace tessera
