#include "plugins/pcgc/lowering.h"

#include "core/sched/planbuilder.h"

#include <algorithm>
#include <unordered_set>

namespace tessera::pcgc {

namespace {

// The cost model with the assigned nodes (common subexpressions) left out of
// every kernel: they are copied, not computed (their copy is not costed: its
// bytes stay in the kernel's level, as the computed node's would).
class AssignedAwareCost final : public CostModel
{
public:
    AssignedAwareCost(const CostModel &base, const std::vector<NodeAssignment> &assigned) : m_base(base)
    {
        for (const NodeAssignment &a : assigned)
            m_assigned.insert(a.node);
    }
    std::string name() const override { return m_base.name(); }
    KernelEstimate estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                  const KernelPlacement &p) const override
    {
        std::vector<NodeId> computed;
        for (NodeId n : nodes)
            if (!m_assigned.count(n))
                computed.push_back(n);
        return m_base.estimateKernel(g, computed.empty() ? nodes : computed, p);
    }
    KernelEstimate estimateShapedKernel(const std::vector<ShapedLaunch> &launches) const override
    {
        return m_base.estimateShapedKernel(launches);
    }
    StageEstimate estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const override
    {
        return m_base.estimateStage(streams);
    }
    double stageSpanNs(const std::vector<std::vector<const KernelEstimate *>> &streams) const override
    {
        return m_base.stageSpanNs(streams);
    }
    TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const override
    {
        return m_base.transferCost(bytes, fromLevel, toLevel);
    }
    double syncNs() const override { return m_base.syncNs(); }

private:
    const CostModel &m_base;
    std::unordered_set<NodeId> m_assigned;
};

} // namespace

ExecutionPlan lowerPartition(const Graph &g, const CostModel &baseCost, const Partition &partition,
                             const ParallelPlan &parallel)
{
    const AssignedAwareCost cost(baseCost, partition.assigned);
    PlanBuilder builder(g, cost);
    auto strategy = [&](const FusedGroup &grp) -> std::string {
        if (grp.folded)
            return "pcgc-folded";
        const std::vector<NodeId> &nodes = grp.nodes;
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
                builder.addKernel(groupLabel(g, nodes), nodes, {}, b, stage, strategy(partition.groups[i]));
                pending = true;
            }
        if (wave.parallel()) {
            builder.addBarrier(stage);
            pending = false;
        }
    }
    ExecutionPlan plan = builder.finish();
    // Common subexpressions: the kernel holding the node copies it (verify.h checks it).
    for (const NodeAssignment &a : partition.assigned)
        for (Kernel &k : plan.kernels)
            if (std::find(k.nodes.begin(), k.nodes.end(), a.node) != k.nodes.end())
                k.assigned.push_back(a);
    // Folded constants are computed once, when the plan is loaded: no per-inference cost.
    for (Task &t : plan.tasks)
        if (t.kind == TaskKind::Compute && plan.kernels[static_cast<std::size_t>(t.kernel)].strategy == "pcgc-folded") {
            t.cost = TaskCost{};
            t.label = "constant folding (once, when loaded): " + t.label;
        }
    return plan;
}

} // namespace tessera::pcgc
