// Stage latency models of stagelatency.h; the formulas are documented there.
#include "plugins/ios/stagelatency.h"

#include "core/ir/analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace tessera {

ModelStageLatency::ModelStageLatency(const Graph &g, const IosUnitSet &units, const CostModel &cost)
    : m_graph(g), m_units(units), m_cost(cost)
{
    auto order = topologicalOrder(g);
    if (order)
        m_rank = topologicalRanks(*order);
    m_kernels.reserve(units.units.size());
    m_conv.reserve(units.units.size());
    for (const IosUnit &unit : units.units) {
        std::vector<NodeId> nodes = unit.nodes;
        sortByRank(nodes);
        m_kernels.push_back(cost.estimateKernel(g, nodes, {}));
        m_conv.push_back(iosConvUnit(g, unit).has_value());
    }
}

void ModelStageLatency::sortByRank(std::vector<NodeId> &nodes) const
{
    // The order PlanBuilder gives a kernel's nodes, so the search and the plan agree.
    if (m_rank.empty())
        return;
    std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
        return m_rank[static_cast<std::size_t>(a)] < m_rank[static_cast<std::size_t>(b)];
    });
}

KernelEstimate ModelStageLatency::mergedKernel(const std::vector<std::int32_t> &units) const
{
    std::vector<NodeId> nodes;
    for (std::int32_t u : units) {
        const IosUnit &unit = m_units.units[static_cast<std::size_t>(u)];
        nodes.insert(nodes.end(), unit.nodes.begin(), unit.nodes.end());
    }
    sortByRank(nodes);
    return m_cost.estimateKernel(m_graph, nodes, {});
}

double ModelStageLatency::stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const
{
    if (strategy == IosStrategy::Merge && groups.size() == 1 && groups[0].size() > 1) {
        for (std::int32_t u : groups[0])
            if (!m_conv[static_cast<std::size_t>(u)])
                return std::numeric_limits<double>::infinity();
        const KernelEstimate merged = mergedKernel(groups[0]);
        return m_cost.stageSpanNs({{&merged}}) + m_cost.barrierAfterNs(1);
    }
    thread_local std::vector<std::vector<const KernelEstimate *>> streams;
    streams.resize(groups.size());
    std::size_t busy = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        streams[g].clear();
        for (std::int32_t u : groups[g])
            streams[g].push_back(&m_kernels[static_cast<std::size_t>(u)]);
        busy += !groups[g].empty();
    }
    return m_cost.stageSpanNs(streams) + m_cost.barrierAfterNs(busy);
}

// ---- measured -----------------------------------------------------------------

MeasuredStageLatency::MeasuredStageLatency(const Graph &g, const IosUnitSet &units, StageRunner &runner,
                                           const StageLatencyModel *fallback)
    : m_graph(g), m_units(units), m_runner(runner), m_fallback(fallback)
{}

double MeasuredStageLatency::stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const
{
    std::string key(iosStrategyName(strategy));
    key += ':';
    std::vector<std::vector<NodeId>> nodes(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        key += g ? "|" : "";
        for (std::size_t i = 0; i < groups[g].size(); ++i) {
            const IosUnit &unit = m_units.units[static_cast<std::size_t>(groups[g][i])];
            for (std::size_t n = 0; n < unit.nodes.size(); ++n)
                key += (i || n ? "," : "") + m_graph.node(unit.nodes[n]).name;
            nodes[g].insert(nodes[g].end(), unit.nodes.begin(), unit.nodes.end());
        }
    }
    if (auto it = m_cache.find(key); it != m_cache.end())
        return it->second;
    ++m_measurements;
    Expected<double> ns = m_runner.measureNs(strategy, nodes);
    if (ns) {
        m_cache.emplace(std::move(key), *ns);
        return *ns;
    }
    if (m_failure.isOk())
        m_failure = ns.status();
    return m_fallback ? m_fallback->stageNs(strategy, groups) : std::numeric_limits<double>::infinity();
}

} // namespace tessera
