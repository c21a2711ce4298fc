#include "plugins/pcgc/crossboundary.h"

#include "core/ir/analysis.h"
#include "core/support/assert.h"
#include "plugins/pcgc/constfold.h"
#include "plugins/pcgc/cse.h"
#include "plugins/pcgc/inlining.h"

#include <algorithm>

namespace tessera::pcgc {

RewriteState::RewriteState(const Graph &graph, const CostModel &model, Partition &p, DecisionContext &ctx, Trace &t)
    : g(graph), cost(model), partition(p), decisions(ctx), trace(t), rank(nodeRanks(graph)),
      groupOf(graph.nodeCount(), kNone), visited(graph.nodeCount(), false)
{
    for (std::size_t i = 0; i < p.groups.size(); ++i) {
        for (NodeId n : p.groups[i].nodes)
            groupOf[static_cast<std::size_t>(n)] = i;
        if (p.groups[i].folded)
            foldedGroup = i;
    }
    for (std::size_t n = 0; n < groupOf.size(); ++n)
        TS_ASSERT(groupOf[n] != kNone); // the partition covers every node
}

void RewriteState::moveNode(NodeId n, std::size_t to)
{
    std::vector<NodeId> &from = partition.groups[groupOf[static_cast<std::size_t>(n)]].nodes;
    from.erase(std::remove(from.begin(), from.end(), n), from.end());
    std::vector<NodeId> &into = partition.groups[to].nodes;
    into.insert(std::upper_bound(into.begin(), into.end(), n,
                                 [&](NodeId a, NodeId b) {
                                     return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)];
                                 }),
                n);
    groupOf[static_cast<std::size_t>(n)] = to;
}

bool RewriteState::acyclicWith(NodeId n, std::size_t to) const
{
    std::vector<std::vector<NodeId>> groups = groupNodes();
    std::vector<NodeId> &from = groups[groupOf[static_cast<std::size_t>(n)]];
    from.erase(std::remove(from.begin(), from.end(), n), from.end());
    groups[to].push_back(n);
    return acyclic(std::move(groups));
}

bool RewriteState::acyclic(std::vector<std::vector<NodeId>> groups) const
{
    std::erase_if(groups, [](const std::vector<NodeId> &grp) { return grp.empty(); });
    return groupsAcyclic(g, groups);
}

std::vector<std::vector<NodeId>> RewriteState::groupNodes() const
{
    std::vector<std::vector<NodeId>> out;
    out.reserve(partition.groups.size());
    for (const FusedGroup &grp : partition.groups)
        out.push_back(grp.nodes);
    return out;
}

double RewriteState::timeNs(const std::vector<NodeId> &nodes) const
{
    return cost.kernelCost(g, nodes, {}).timeNs;
}

CrossBoundaryResult crossBoundary(const Graph &g, const CostModel &cost, Partition &partition,
                                  DecisionContext &decisions, Trace &trace)
{
    RewriteState state(g, cost, partition, decisions, trace);
    auto order = topologicalOrder(g); // select a node of in-degree 0, delete it and its edges, repeat
    TS_ASSERT(order.isOk());
    std::vector<bool> judged(partition.groups.size(), false);
    for (NodeId n : *order) {
        const std::size_t before = state.groupOf[static_cast<std::size_t>(n)];
        if (!foldConstant(state, n))
            eliminateCommon(state, n);
        state.visited[static_cast<std::size_t>(n)] = true;
        judged.resize(partition.groups.size(), false);
        // Inline a sub-graph once the traversal has passed all its nodes (the
        // group n left may be complete now as well as the one it is in).
        for (const std::size_t grp : {before, state.groupOf[static_cast<std::size_t>(n)]}) {
            const std::vector<NodeId> &nodes = partition.groups[grp].nodes;
            if (judged[grp] || nodes.empty() || !std::all_of(nodes.begin(), nodes.end(), [&](NodeId m) {
                    return state.visited[static_cast<std::size_t>(m)];
                }))
                continue;
            judged[grp] = true;
            inlineSmall(state, grp);
        }
    }

    // Drop the groups the rewrites emptied; keep the order by first node.
    std::erase_if(partition.groups, [](const FusedGroup &grp) { return grp.nodes.empty(); });
    std::sort(partition.groups.begin(), partition.groups.end(), [&](const FusedGroup &a, const FusedGroup &b) {
        return state.rank[static_cast<std::size_t>(a.nodes.front())] <
               state.rank[static_cast<std::size_t>(b.nodes.front())];
    });
    TS_ASSERT(groupsAcyclic(g, state.groupNodes()));
    auto &s = trace.add("cross-boundary",
                        std::to_string(state.result.folded) + " folded, " + std::to_string(state.result.assigned) +
                            " assigned, " + std::to_string(state.result.inlined) + " inlined",
                        std::to_string(partition.groups.size()) + " sub-graphs",
                        "§3.4 1): one topological traversal with constant folding, inlining and CSE");
    s.numbers = {{"folded", double(state.result.folded)},
                 {"assigned", double(state.result.assigned)},
                 {"inlined", double(state.result.inlined)},
                 {"groups", double(partition.groups.size())}};
    return state.result;
}

} // namespace tessera::pcgc
