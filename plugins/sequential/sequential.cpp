#include "plugins/sequential/sequential.h"

#include "core/cost/costmodel.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "core/sched/planbuilder.h"

#include <cmath>
#include <set>

namespace tessera {

namespace {

class SequentialScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "sequential",
            "Sequential",
            "one kernel per operator, run one at a time in a topological order",
            "ios thesis §4.2 (sequential schedule)",
            {},
            {{"kernels", "kernels issued"}},
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        auto order = topologicalOrder(g);
        if (!order)
            return order.status();
        const std::vector<std::int32_t> rank = topologicalRanks(*order);

        std::vector<int> missing(g.nodeCount());
        std::set<std::pair<std::int32_t, NodeId>> ready; // by rank
        for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n) {
            missing[static_cast<std::size_t>(n)] = static_cast<int>(g.predecessors(n).size());
            if (!missing[static_cast<std::size_t>(n)])
                ready.insert({rank[static_cast<std::size_t>(n)], n});
        }

        PlanBuilder builder(g, *req.cost);
        std::int32_t step = 0;
        while (!ready.empty()) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            std::vector<DecisionOption> options;
            std::vector<std::string> names;
            std::vector<NodeId> candidates;
            for (const auto &[r, n] : ready) {
                candidates.push_back(n);
                names.push_back(g.node(n).name);
                options.push_back({g.node(n).name,
                                   g.node(n).opType + " " + g.node(n).name,
                                   std::nan(""),
                                   "topological index " + std::to_string(r),
                                   {}});
            }
            const std::int32_t pick =
                decisions.decide(decisionKey("sequential.next", names), "sequential.next", std::move(options), 0);
            const NodeId n = candidates[static_cast<std::size_t>(pick)];
            ready.erase({rank[static_cast<std::size_t>(n)], n});
            const TaskId task = builder.addKernel(g.node(n).name, {n}, {}, {}, step);
            auto &s = trace.add("issue", "ready: " + std::to_string(candidates.size()) + " operators",
                                "run " + g.node(n).name,
                                pick == 0 ? "lowest topological index among the ready operators" : "override");
            s.touched = {n};
            s.numbers = {{"est_ns", builder.plan().tasks[static_cast<std::size_t>(task)].cost.timeNs}};
            s.delta = {"kernel " + std::to_string(step) + " = {" + g.node(n).name + "}"};
            trace.linkLastDecision(decisions);
            for (NodeId c : g.successors(n))
                if (--missing[static_cast<std::size_t>(c)] == 0)
                    ready.insert({rank[static_cast<std::size_t>(c)], c});
            ++step;
            if (req.progress)
                req.progress(double(step) / double(g.nodeCount()));
        }
        ScheduleResult result;
        result.plan = builder.finish();
        result.stats["kernels"] = double(result.plan.kernels.size());
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createSequentialScheduler()
{
    return std::make_unique<SequentialScheduler>();
}

void registerSequentialPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createSequentialScheduler());
}

} // namespace tessera
