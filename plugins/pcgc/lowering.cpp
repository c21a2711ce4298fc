#include "plugins/pcgc/lowering.h"

#include "core/sched/planbuilder.h"

#include <algorithm>
#include <unordered_set>

namespace tessera::pcgc {

ExecutionPlan lowerPartition(const Graph &g, const CostModel &cost, const Partition &partition)
{
    std::vector<std::vector<NodeId>> groups;
    for (const FusedGroup &grp : partition.groups)
        groups.push_back(grp.nodes);
    const std::vector<std::int32_t> rank = nodeRanks(g);
    PlanBuilder builder(g, cost);
    for (std::size_t i : groupOrder(g, groups, rank)) {
        const std::unordered_set<NodeId> inside(groups[i].begin(), groups[i].end());
        bool anyRecord = false, allStable = true;
        for (const FusionRecord &r : partition.records)
            if (inside.count(r.producerSide.front()) && inside.count(r.consumerSide.front())) {
                anyRecord = true;
                allStable = allStable && r.stable;
            }
        const std::string strategy = !anyRecord ? "pcgc-single" : allStable ? "pcgc-stable" : "pcgc-fused";
        builder.addKernel(groupLabel(g, groups[i]), groups[i], {}, {}, static_cast<std::int32_t>(i), strategy);
    }
    return builder.finish();
}

} // namespace tessera::pcgc
