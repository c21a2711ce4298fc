#include "plugins/greedy/greedy.h"

#include "core/cost/costmodel.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "core/sched/epilogues.h"
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
            {{"epilogues", OptionSpec::Kind::Bool, true,
              "an element-wise op read only from its producer runs in that producer's kernel (conv + bias + "
              "activation as one cuDNN call: the operators of the ios thesis' schedules); false = one kernel per "
              "node"}},
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
        OperatorDag dag = operatorDag(g, req.options.getBool("epilogues"));
        const std::vector<std::vector<NodeId>> &ops = dag.ops;
        auto head = [&](std::int32_t o) { return ops[static_cast<std::size_t>(o)].front(); };
        auto byRank = [&](std::int32_t a, std::int32_t b) {
            return rank[static_cast<std::size_t>(head(a))] < rank[static_cast<std::size_t>(head(b))];
        };

        std::vector<std::int32_t> ready;
        for (std::size_t o = 0; o < ops.size(); ++o)
            if (!dag.inDegree[o])
                ready.push_back(static_cast<std::int32_t>(o));

        PlanBuilder builder(g, *req.cost);
        std::int32_t stage = 0;
        std::size_t done = 0, widest = 0;
        while (!ready.empty()) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            std::sort(ready.begin(), ready.end(), byRank);
            std::vector<std::string> names;
            for (std::int32_t o : ready)
                names.push_back(g.node(head(o)).name);
            std::vector<DecisionOption> options{
                {"all", "all " + std::to_string(ready.size()) + " ready operators", std::nan(""), {}, {}}};
            if (ready.size() > 1)
                for (std::int32_t o : ready)
                    options.push_back({"only:" + g.node(head(o)).name,
                                       "only " + describeOperator(g, ops[static_cast<std::size_t>(o)]),
                                       std::nan(""),
                                       {},
                                       {}});
            const std::int32_t pick = decisions.decide(decisionKey("greedy.stage", names), "greedy.stage", options, 0);
            std::vector<std::int32_t> stageOps =
                pick == 0 ? ready : std::vector<std::int32_t>{ready[static_cast<std::size_t>(pick - 1)]};

            double stageNs = 0;
            std::vector<NodeId> touched;
            for (std::size_t i = 0; i < stageOps.size(); ++i) {
                Binding b;
                b.stream = static_cast<std::int32_t>(i);
                const std::vector<NodeId> &op = ops[static_cast<std::size_t>(stageOps[i])];
                const TaskId t = builder.addKernel(g.node(op.front()).name, op, {}, b, stage);
                stageNs = std::max(stageNs, builder.plan().tasks[static_cast<std::size_t>(t)].cost.timeNs);
                touched.insert(touched.end(), op.begin(), op.end());
            }
            builder.addBarrier(stage);
            widest = std::max(widest, stageOps.size());

            auto &s =
                trace.add("stage", "ready: " + std::to_string(ready.size()) + " operators",
                          "stage " + std::to_string(stage) + " runs " + std::to_string(stageOps.size()),
                          pick == 0 ? "greedy: every ready operator joins the stage" : "override: one operator only");
            s.touched = std::move(touched);
            s.numbers = {{"stage_ns", stageNs}, {"operators", double(stageOps.size())}};
            trace.linkLastDecision(decisions);

            std::vector<std::int32_t> next;
            for (std::int32_t o : ready)
                if (std::find(stageOps.begin(), stageOps.end(), o) == stageOps.end())
                    next.push_back(o);
            for (std::int32_t o : stageOps)
                for (std::int32_t c : dag.readers[static_cast<std::size_t>(o)])
                    if (--dag.inDegree[static_cast<std::size_t>(c)] == 0)
                        next.push_back(c);
            ready = std::move(next);
            done += stageOps.size();
            ++stage;
            if (req.progress)
                req.progress(double(done) / double(ops.size()));
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
