#include "plugins/pcgc/partition.h"

#include "core/ir/analysis.h"
#include "core/support/assert.h"

#include <queue>

#include <algorithm>

namespace tessera::pcgc {

std::vector<std::int32_t> nodeRanks(const Graph &g)
{
    auto order = topologicalOrder(g);
    TS_ASSERT(order.isOk());
    return topologicalRanks(*order);
}

namespace {

// Group successor lists and in-degrees of the quotient graph.
void quotient(const Graph &g, const std::vector<std::vector<NodeId>> &groups,
              std::vector<std::vector<std::size_t>> &succ, std::vector<std::int32_t> &indegree)
{
    std::vector<std::int64_t> groupOf(g.nodeCount(), -1);
    for (std::size_t i = 0; i < groups.size(); ++i)
        for (NodeId n : groups[i])
            groupOf[static_cast<std::size_t>(n)] = static_cast<std::int64_t>(i);
    succ.assign(groups.size(), {});
    indegree.assign(groups.size(), 0);
    for (std::size_t i = 0; i < groups.size(); ++i) {
        for (NodeId n : groups[i])
            for (NodeId s : g.successors(n)) {
                const std::int64_t j = groupOf[static_cast<std::size_t>(s)];
                if (j >= 0 && static_cast<std::size_t>(j) != i)
                    succ[i].push_back(static_cast<std::size_t>(j));
            }
        std::sort(succ[i].begin(), succ[i].end());
        succ[i].erase(std::unique(succ[i].begin(), succ[i].end()), succ[i].end());
        for (std::size_t j : succ[i])
            ++indegree[j];
    }
}

std::vector<std::size_t> groupOrderOrEmpty(const Graph &g, const std::vector<std::vector<NodeId>> &groups,
                                           const std::vector<std::int32_t> &rank)
{
    std::vector<std::vector<std::size_t>> succ;
    std::vector<std::int32_t> indegree;
    quotient(g, groups, succ, indegree);
    // Kahn's algorithm, ready groups by the rank of their first node (deterministic).
    auto key = [&](std::size_t i) { return rank[static_cast<std::size_t>(groups[i].front())]; };
    auto later = [&](std::size_t a, std::size_t b) { return key(a) > key(b); };
    std::priority_queue<std::size_t, std::vector<std::size_t>, decltype(later)> ready(later);
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (indegree[i] == 0)
            ready.push(i);
    std::vector<std::size_t> order;
    while (!ready.empty()) {
        const std::size_t i = ready.top();
        ready.pop();
        order.push_back(i);
        for (std::size_t j : succ[i])
            if (--indegree[j] == 0)
                ready.push(j);
    }
    if (order.size() != groups.size())
        return {};
    return order;
}

} // namespace

bool groupsAcyclic(const Graph &g, const std::vector<std::vector<NodeId>> &groups)
{
    std::vector<std::int32_t> rank(g.nodeCount(), 0); // any key works for the check
    return groupOrderOrEmpty(g, groups, rank).size() == groups.size();
}

std::vector<std::size_t> groupOrder(const Graph &g, const std::vector<std::vector<NodeId>> &groups,
                                    const std::vector<std::int32_t> &rank)
{
    std::vector<std::size_t> order = groupOrderOrEmpty(g, groups, rank);
    TS_ASSERT(order.size() == groups.size());
    return order;
}

std::vector<std::string> nodeNames(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> names;
    names.reserve(nodes.size());
    for (NodeId n : nodes)
        names.push_back(g.node(n).name);
    return names;
}

std::string groupLabel(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::string s;
    for (std::size_t i = 0; i < nodes.size() && i < 3; ++i)
        s += (i ? "+" : "") + g.node(nodes[i]).name;
    if (nodes.size() > 3)
        s += "+" + std::to_string(nodes.size() - 3);
    return s;
}

} // namespace tessera::pcgc
