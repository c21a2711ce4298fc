// Measured kernel costs first, the device model for the rest (measuredcost.h).
#include "core/cost/measuredcost.h"

#include <cmath>

namespace tessera {

KernelEstimate MeasuredCostModel::estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                                 const KernelPlacement &p) const
{
    KernelEstimate est = m_model.estimateKernel(g, nodes, p);
    auto [it, added] = m_cache.try_emplace(nodes, std::nan(""));
    if (added) {
        ++m_measurements;
        if (Expected<double> ns = m_meter.kernelNs(g, nodes); ns && *ns >= 0)
            it->second = *ns;
    }
    const double measured = it->second;
    if (std::isnan(measured) || est.launches.empty())
        return est;
    double alone = 0;
    for (const Launch &l : est.launches)
        alone += l.aloneNs;
    const double f = alone > 0 ? measured / alone : 1.0;
    for (Launch &l : est.launches) {
        l.aloneNs = std::max(l.aloneNs * f, 1e-3);
        l.blockNs *= f; // demand (cores' worth of throughput) stays the model's
    }
    est.cost.kind = m_meter.kind();
    const StageEstimate alone1 = m_model.estimateStage({{&est}});
    TaskCost c = alone1.costs[0][0];
    c.kind = m_meter.kind();
    est.cost = c;
    return est;
}

StageEstimate MeasuredCostModel::estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const
{
    StageEstimate out = m_model.estimateStage(streams);
    for (std::size_t s = 0; s < out.costs.size(); ++s)
        for (std::size_t t = 0; t < out.costs[s].size(); ++t) {
            TaskCost &c = out.costs[s][t];
            // The kernel's own kind (measured, simulated or estimated), unless
            // the stage added contention (beyond rounding: under half a
            // nanosecond is none): the sharing of cores is modelled.
            c.kind = c.contentionNs >= 0.5 ? CostKind::Estimated : streams[s][t]->cost.kind;
        }
    return out;
}

} // namespace tessera
