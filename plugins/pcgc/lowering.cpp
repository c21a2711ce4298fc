#include "plugins/pcgc/lowering.h"

#include "core/sched/planbuilder.h"

#include <algorithm>
#include <unordered_set>

namespace tessera::pcgc {

ExecutionPlan lowerPartition(const Graph &g, const CostModel &cost, const Partition &partition,
                             const ParallelPlan &parallel)
{
    PlanBuilder builder(g, cost);
    auto strategy = [&](const std::vector<NodeId> &nodes) -> std::string {
        const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
        bool anyRecord = false, allStable = true;
        for (const FusionRecord &r : partition.records)
            if (inside.count(r.producerSide.front()) && inside.count(r.consumerSide.front())) {
                anyRecord = true;
                allStable = allStable && r.stable;
            }
        return !anyRecord ? "pcgc-single" : allStable ? "pcgc-stable" : "pcgc-fused";
    };
    bool pending = false; // kernels issued since the last barrier
    for (std::size_t w = 0; w < parallel.waves.size(); ++w) {
        const Wave &wave = parallel.waves[w];
        const auto stage = static_cast<std::int32_t>(w);
        if (wave.parallel() && pending)
            builder.addBarrier(stage);
        for (std::size_t s = 0; s < wave.streams.size(); ++s)
            for (std::size_t i : wave.streams[s]) {
                const std::vector<NodeId> &nodes = partition.groups[i].nodes;
                Binding b;
                if (wave.parallel())
                    b.stream = static_cast<std::int32_t>(s);
                builder.addKernel(groupLabel(g, nodes), nodes, {}, b, stage, strategy(nodes));
                pending = true;
            }
        if (wave.parallel()) {
            builder.addBarrier(stage);
            pending = false;
        }
    }
    return builder.finish();
}

} // namespace tessera::pcgc
