#include "plugins/layerfusion/layerfusion.h"

#include "core/cost/costmodel.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "core/sched/planbuilder.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

namespace tessera {

namespace {

enum class Pattern { Follower, GemmAnchor, ReduceAnchor, Opaque };

Pattern patternOf(const Node &n)
{
    static const std::set<std::string_view> kGemm{"Conv", "ConvTranspose", "MatMul", "Gemm"};
    static const std::set<std::string_view> kReduce{"ReduceMean",  "ReduceSum",         "Softmax",           "MaxPool",
                                                    "AveragePool", "GlobalAveragePool", "LayerNormalization"};
    if (n.opaque)
        return Pattern::Opaque;
    if (kGemm.count(n.opType))
        return Pattern::GemmAnchor;
    if (kReduce.count(n.opType))
        return Pattern::ReduceAnchor;
    return Pattern::Follower;
}

struct Group {
    std::vector<NodeId> nodes;
    bool hasAnchor = false;
    bool opaque = false;
};

class LayerFusionScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "layer-fusion",
            "Layer fusion (TVM-style)",
            "fuse element-wise and injective operators into their producer's kernel; every kernel output goes to DRAM",
            "graphturbo-osdi23 §1.2 (TVM baseline)",
            {},
            {{"kernels", "kernels issued"}, {"fused_ops", "operators fused into another's kernel"}},
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        auto order = topologicalOrder(g);
        if (!order)
            return order.status();

        std::vector<std::int32_t> groupOf(g.nodeCount(), -1);
        std::vector<Group> groups;
        std::size_t fused = 0;
        for (NodeId n : *order) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            const Node &node = g.node(n);
            const Pattern pat = patternOf(node);
            std::int32_t target = -1;
            NodeId via = kInvalidId;
            if (pat == Pattern::Follower || pat == Pattern::ReduceAnchor) {
                for (TensorId t : node.inputs) {
                    if (t == kInvalidId || g.tensor(t).producer == kInvalidId)
                        continue;
                    const NodeId p = g.tensor(t).producer;
                    const Group &pg = groups[static_cast<std::size_t>(groupOf[static_cast<std::size_t>(p)])];
                    if (pg.opaque || (pat == Pattern::ReduceAnchor && pg.hasAnchor) || pg.nodes.back() != p)
                        continue;
                    if (g.successors(p) != std::vector<NodeId>{n})
                        continue;
                    if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end())
                        continue;
                    target = groupOf[static_cast<std::size_t>(p)];
                    via = p;
                    break;
                }
            }
            if (target >= 0) {
                const Group &tg = groups[static_cast<std::size_t>(target)];
                std::vector<DecisionOption> options{
                    {"fuse", "fuse into " + g.node(tg.nodes.front()).name + "'s kernel", std::nan(""), {}, {}},
                    {"separate", "start a new kernel", std::nan(""), {}, {}}};
                const std::int32_t pick =
                    decisions.decide(decisionKey("layer-fusion.fuse", {node.name}), "layer-fusion.fuse", options, 0);
                auto &s = trace.add("fuse", node.opType + " " + node.name + " follows " + g.node(via).name,
                                    pick == 0 ? "fused into kernel of " + g.node(tg.nodes.front()).name : "new kernel",
                                    pick == 0 ? "its producer's output is used by it alone" : "override");
                s.touched = {via, n};
                trace.linkLastDecision(decisions);
                if (pick != 0)
                    target = -1;
            }
            if (target < 0) {
                target = static_cast<std::int32_t>(groups.size());
                groups.push_back({});
            } else {
                ++fused;
            }
            Group &grp = groups[static_cast<std::size_t>(target)];
            grp.nodes.push_back(n);
            grp.hasAnchor |= pat == Pattern::GemmAnchor || pat == Pattern::ReduceAnchor;
            grp.opaque |= pat == Pattern::Opaque;
            groupOf[static_cast<std::size_t>(n)] = target;
        }

        // Issue kernels by the topological rank of their last node: a kernel
        // reads other kernels only through their tails, which come earlier.
        const std::vector<std::int32_t> rank = topologicalRanks(*order);
        std::vector<std::size_t> issue(groups.size());
        for (std::size_t i = 0; i < issue.size(); ++i)
            issue[i] = i;
        std::sort(issue.begin(), issue.end(), [&](std::size_t a, std::size_t b) {
            return rank[static_cast<std::size_t>(groups[a].nodes.back())] <
                   rank[static_cast<std::size_t>(groups[b].nodes.back())];
        });
        PlanBuilder builder(g, *req.cost);
        for (std::size_t i : issue) {
            const Group &grp = groups[i];
            std::string name = g.node(grp.nodes.front()).name;
            if (grp.nodes.size() > 1)
                name += " +" + std::to_string(grp.nodes.size() - 1);
            builder.addKernel(name, grp.nodes, {}, {}, static_cast<std::int32_t>(i), grp.opaque ? "opaque" : "fused");
        }
        trace.add("lower", std::to_string(groups.size()) + " kernels", "every kernel output stored to main memory");
        ScheduleResult result;
        result.plan = builder.finish();
        result.stats["kernels"] = double(result.plan.kernels.size());
        result.stats["fused_ops"] = double(fused);
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createLayerFusionScheduler()
{
    return std::make_unique<LayerFusionScheduler>();
}

void registerLayerfusionPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createLayerFusionScheduler());
}

} // namespace tessera
