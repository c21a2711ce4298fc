// The tile-graph (welder-osdi23 §3.1) and its connecting half of the scheduling interface
// (Fig. 6 SetConnect; Fig. 7 lines 26–31 ExtractSubgraph).
//
// A TileGraph is the model's data-flow graph whose edges (producer node → consumer node, one
// per distinct pair) carry the memory level their reuse-tile is held at: 0 (the slowest level,
// the default: not connected, the tensor goes through global memory) or a faster WelderLevels
// index. ExtractSubgraph(node, level) is the connected sub-graph around `node` over edges
// connected ABOVE `level` — at level 0 a fused kernel, at level 1 the part of it whose
// intermediates stay above shared memory, and so on (the L0 → L1 → L2 grouping of Fig. 5).
// Opaque nodes (no index map) are never connected. A connection that would make a sub-graph
// non-convex (a path leaving it and re-entering, possibly through other fused kernels) is
// refused by `wouldCycle`, since such a fused kernel could not be ordered.
#pragma once

#include "core/ir/graph.h"
#include "core/ops/ops.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::welder {

struct TileEdge {
    NodeId producer = kInvalidId;
    NodeId consumer = kInvalidId;
    std::vector<TensorId> tensors; // tensors of producer the consumer reads
    int level = 0;                 // SetConnect level; 0 = not connected
};

class TileGraph
{
public:
    explicit TileGraph(const Graph &g); // asserts g is acyclic (callers verified it)
    // Copies share the graph and its axis maps; their connection levels are their own.

    const Graph &graph() const { return *m_graph; }
    const std::vector<TileEdge> &edges() const { return m_edges; }
    const std::vector<NodeId> &topoOrder() const { return m_order; }
    std::int32_t rank(NodeId n) const { return m_rank[static_cast<std::size_t>(n)]; }
    // Edge indices leaving / entering a node, in consumer / producer rank order.
    const std::vector<int> &outEdges(NodeId n) const { return m_out[static_cast<std::size_t>(n)]; }
    const std::vector<int> &inEdges(NodeId n) const { return m_in[static_cast<std::size_t>(n)]; }
    int edgeIndex(NodeId producer, NodeId consumer) const; // -1 if none
    // ops::axisMaps of a node's first output, computed once (empty for opaque nodes).
    const std::vector<ops::InputAxes> &axes(NodeId n) const { return (*m_axes)[static_cast<std::size_t>(n)]; }

    // Fig. 6 SetConnect(edge, level).
    void setConnect(int edge, int level) { m_edges[static_cast<std::size_t>(edge)].level = level; }
    int connectLevel(int edge) const { return m_edges[static_cast<std::size_t>(edge)].level; }

    // Fig. 7 ExtractSubgraph(node, level): nodes reachable from `node` over edges connected
    // above `level`, in topological order.
    std::vector<NodeId> extractSubgraph(NodeId node, int level) const;
    // Every level-`level` sub-graph (each node in exactly one), in topological order of their first nodes.
    std::vector<std::vector<NodeId>> subgraphs(int level) const;
    // Convexity of a prospective sub-graph: a node outside `nodes` on a path that leaves `nodes`
    // and re-enters it, where reaching a node reaches its whole current level-0 sub-graph (kernels
    // run as units, so a cycle through other fused kernels counts too); kInvalidId if there is
    // none, i.e. `nodes` can be one kernel.
    NodeId wouldCycle(const std::vector<NodeId> &nodes) const;

    std::string edgeName(int edge) const; // "producer→consumer"

    // The parts of a sub-graph signature (subgraphtiling.h) that do not depend on the sub-graph,
    // made once: per node its op type, opaque mark and attributes ("Conv{k=v;}("), per tensor its
    // dtype and shape ("1[2,3,]") and its text as an input from outside the sub-graph ('x' or 'c'
    // with the shape, a constant of at most 16 elements with its values).
    struct SignatureParts {
        std::vector<std::string> nodeHead, shapeText, externalText;
    };
    const SignatureParts &signatureParts() const { return *m_signatureParts; }

private:
    const Graph *m_graph;
    std::vector<TileEdge> m_edges;
    std::vector<NodeId> m_order;
    std::vector<std::int32_t> m_rank;
    std::vector<std::vector<int>> m_out, m_in;
    std::vector<std::vector<NodeId>> m_succ; // Graph::successors (sorted by id) of every node
    std::shared_ptr<const SignatureParts> m_signatureParts;
    // Shared by copies (a copy is a tile-graph with other connection levels: concurrent trials).
    std::shared_ptr<const std::vector<std::vector<ops::InputAxes>>> m_axes;
};

} // namespace tessera::welder
