#include "plugins/welder/tilegraph.h"

#include "core/ir/analysis.h"
#include "core/support/assert.h"

#include <algorithm>
#include <map>

namespace tessera::welder {

TileGraph::TileGraph(const Graph &g) : m_graph(&g)
{
    auto order = topologicalOrder(g);
    TS_ASSERT_MSG(order.isOk(), "the tile-graph needs an acyclic graph");
    m_order = *order;
    m_rank.assign(g.nodeCount(), 0);
    for (std::size_t i = 0; i < m_order.size(); ++i)
        m_rank[static_cast<std::size_t>(m_order[i])] = static_cast<std::int32_t>(i);
    auto axes = std::make_shared<std::vector<std::vector<ops::InputAxes>>>(g.nodeCount());
    for (NodeId n : m_order)
        if (!g.node(n).opaque)
            (*axes)[static_cast<std::size_t>(n)] = ops::axisMaps(g, g.node(n));
    m_axes = std::move(axes);
    auto parts = std::make_shared<SignatureParts>();
    parts->nodeHead.resize(g.nodeCount());
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n) {
        const Node &node = g.node(n);
        std::string &h = parts->nodeHead[static_cast<std::size_t>(n)];
        h = node.opType + (node.opaque ? "!" : "") + "{";
        for (const auto &[k, a] : node.attrs)
            h += k + "=" + a.str() + ";";
        h += "}(";
    }
    parts->shapeText.resize(g.tensorCount());
    parts->externalText.resize(g.tensorCount());
    for (std::size_t t = 0; t < g.tensorCount(); ++t) {
        const Tensor &tt = g.tensor(static_cast<TensorId>(t));
        std::string shape = std::to_string(static_cast<int>(tt.dtype)) + "[";
        for (std::int64_t d : tt.shape)
            shape += std::to_string(d) + ",";
        shape += "]";
        std::string external = std::string(tt.isConstant() ? "c" : "x") + shape;
        if (tt.isConstant() && tt.elements() <= 16)
            for (std::int64_t i = 0; i < tt.elements(); ++i) {
                const auto v = tt.data->floatAt(i);
                external += ":" + (v ? std::to_string(*v) : std::string("?"));
            }
        parts->shapeText[t] = std::move(shape);
        parts->externalText[t] = std::move(external);
    }
    m_signatureParts = std::move(parts);
    m_succ.resize(g.nodeCount());
    for (NodeId n : m_order)
        m_succ[static_cast<std::size_t>(n)] = g.successors(n);
    m_out.resize(g.nodeCount());
    m_in.resize(g.nodeCount());
    for (NodeId p : m_order) {
        std::map<std::int32_t, TileEdge> byConsumer; // consumer rank -> edge
        for (TensorId t : g.node(p).outputs) {
            if (t == kInvalidId)
                continue;
            for (NodeId c : g.tensor(t).consumers) {
                TileEdge &e = byConsumer[m_rank[static_cast<std::size_t>(c)]];
                e.producer = p;
                e.consumer = c;
                if (std::find(e.tensors.begin(), e.tensors.end(), t) == e.tensors.end())
                    e.tensors.push_back(t);
            }
        }
        for (auto &[r, e] : byConsumer) {
            const int idx = static_cast<int>(m_edges.size());
            m_out[static_cast<std::size_t>(p)].push_back(idx);
            m_in[static_cast<std::size_t>(e.consumer)].push_back(idx);
            m_edges.push_back(std::move(e));
        }
    }
}

int TileGraph::edgeIndex(NodeId producer, NodeId consumer) const
{
    for (int e : m_out[static_cast<std::size_t>(producer)])
        if (m_edges[static_cast<std::size_t>(e)].consumer == consumer)
            return e;
    return -1;
}

std::vector<NodeId> TileGraph::extractSubgraph(NodeId node, int level) const
{
    // A mark per node, reset before returning (one per thread: copies of a tile-graph run trials
    // concurrently).
    thread_local std::vector<char> seen;
    if (seen.size() < m_rank.size())
        seen.assign(m_rank.size(), 0);
    std::vector<NodeId> out{node};
    seen[static_cast<std::size_t>(node)] = 1;
    for (std::size_t i = 0; i < out.size(); ++i) {
        const NodeId n = out[i];
        for (const auto *list : {&m_out[static_cast<std::size_t>(n)], &m_in[static_cast<std::size_t>(n)]})
            for (int e : *list) {
                const TileEdge &edge = m_edges[static_cast<std::size_t>(e)];
                if (edge.level <= level)
                    continue;
                const NodeId other = edge.producer == n ? edge.consumer : edge.producer;
                if (!seen[static_cast<std::size_t>(other)]) {
                    seen[static_cast<std::size_t>(other)] = 1;
                    out.push_back(other);
                }
            }
    }
    for (NodeId n : out)
        seen[static_cast<std::size_t>(n)] = 0;
    std::sort(out.begin(), out.end(), [&](NodeId a, NodeId b) { return rank(a) < rank(b); });
    return out;
}

std::vector<std::vector<NodeId>> TileGraph::subgraphs(int level) const
{
    std::vector<bool> done(m_graph->nodeCount(), false);
    std::vector<std::vector<NodeId>> out;
    for (NodeId n : m_order) {
        if (done[static_cast<std::size_t>(n)])
            continue;
        out.push_back(extractSubgraph(n, level));
        for (NodeId m : out.back())
            done[static_cast<std::size_t>(m)] = true;
    }
    return out;
}

NodeId TileGraph::wouldCycle(const std::vector<NodeId> &nodes) const
{
    std::vector<char> inside(m_rank.size(), 0), reached(m_rank.size(), 0);
    for (NodeId n : nodes)
        inside[static_cast<std::size_t>(n)] = 1;
    // Nodes outside reachable from inside, each with its whole current kernel (kernels run as
    // units); reaching inside again means the merged kernel could not be ordered.
    std::vector<NodeId> stack;
    auto reach = [&](NodeId s) {
        for (NodeId k : extractSubgraph(s, 0))
            if (!inside[static_cast<std::size_t>(k)] && !reached[static_cast<std::size_t>(k)]) {
                reached[static_cast<std::size_t>(k)] = 1;
                stack.push_back(k);
            }
    };
    for (NodeId n : nodes)
        for (NodeId s : m_succ[static_cast<std::size_t>(n)])
            if (!inside[static_cast<std::size_t>(s)] && !reached[static_cast<std::size_t>(s)])
                reach(s);
    while (!stack.empty()) {
        const NodeId x = stack.back();
        stack.pop_back();
        for (NodeId s : m_succ[static_cast<std::size_t>(x)]) {
            if (inside[static_cast<std::size_t>(s)])
                return x;
            if (!reached[static_cast<std::size_t>(s)])
                reach(s);
        }
    }
    return kInvalidId;
}

std::string TileGraph::edgeName(int edge) const
{
    const TileEdge &e = m_edges[static_cast<std::size_t>(edge)];
    return m_graph->node(e.producer).name + "→" + m_graph->node(e.consumer).name;
}

} // namespace tessera::welder
