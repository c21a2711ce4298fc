#include "plugins/greedy/greedy.h"

#include "core/cost/costmodel.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "core/sched/planbuilder.h"

#include <algorithm>
#include <cmath>

namespace tessera {

namespace {

class GreedyScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "greedy",
            "Greedy",
            "every ready operator in one stage, one stream each, a barrier between stages",
            "ios thesis §4.2 (greedy schedule)",
            {},
            {{"stages", "stages issued"},
             {"kernels", "kernels issued"},
             {"max_stage_width", "most operators in one stage"}},
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
        auto byRank = [&](NodeId a, NodeId b) {
            return rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)];
        };

        std::vector<int> missing(g.nodeCount());
        std::vector<NodeId> ready;
        for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
            if (!(missing[static_cast<std::size_t>(n)] = static_cast<int>(g.predecessors(n).size())))
                ready.push_back(n);

        PlanBuilder builder(g, *req.cost);
        std::int32_t stage = 0;
        std::size_t done = 0, widest = 0;
        while (!ready.empty()) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            std::sort(ready.begin(), ready.end(), byRank);
            std::vector<std::string> names;
            for (NodeId n : ready)
                names.push_back(g.node(n).name);
            std::vector<DecisionOption> options{
                {"all", "all " + std::to_string(ready.size()) + " ready operators", std::nan(""), {}, {}}};
            if (ready.size() > 1)
                for (NodeId n : ready)
                    options.push_back({"only:" + g.node(n).name, "only " + g.node(n).name, std::nan(""), {}, {}});
            const std::int32_t pick = decisions.decide(decisionKey("greedy.stage", names), "greedy.stage", options, 0);
            std::vector<NodeId> stageOps =
                pick == 0 ? ready : std::vector<NodeId>{ready[static_cast<std::size_t>(pick - 1)]};

            double stageNs = 0;
            for (std::size_t i = 0; i < stageOps.size(); ++i) {
                Binding b;
                b.stream = static_cast<std::int32_t>(i);
                const TaskId t = builder.addKernel(g.node(stageOps[i]).name, {stageOps[i]}, {}, b, stage);
                stageNs = std::max(stageNs, builder.plan().tasks[static_cast<std::size_t>(t)].cost.timeNs);
            }
            builder.addBarrier(stage);
            widest = std::max(widest, stageOps.size());

            auto &s =
                trace.add("stage", "ready: " + std::to_string(ready.size()) + " operators",
                          "stage " + std::to_string(stage) + " runs " + std::to_string(stageOps.size()),
                          pick == 0 ? "greedy: every ready operator joins the stage" : "override: one operator only");
            s.touched = stageOps;
            s.numbers = {{"stage_ns", stageNs}, {"operators", double(stageOps.size())}};
            trace.linkLastDecision(decisions);

            std::vector<NodeId> next;
            for (NodeId n : ready)
                if (std::find(stageOps.begin(), stageOps.end(), n) == stageOps.end())
                    next.push_back(n);
            for (NodeId n : stageOps)
                for (NodeId c : g.successors(n))
                    if (--missing[static_cast<std::size_t>(c)] == 0)
                        next.push_back(c);
            ready = std::move(next);
            done += stageOps.size();
            ++stage;
            if (req.progress)
                req.progress(double(done) / double(g.nodeCount()));
        }
        ScheduleResult result;
        result.plan = builder.finish();
        result.stats["stages"] = stage;
        result.stats["kernels"] = double(result.plan.kernels.size());
        result.stats["max_stage_width"] = double(widest);
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createGreedyScheduler()
{
    return std::make_unique<GreedyScheduler>();
}

void registerGreedyPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createGreedyScheduler());
}

} // namespace tessera
