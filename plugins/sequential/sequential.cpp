#include "plugins/sequential/sequential.h"

#include "core/cost/costmodel.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "core/sched/epilogues.h"
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
            {{"epilogues", OptionSpec::Kind::Bool, true,
              "an element-wise op read only from its producer runs in that producer's kernel (conv + bias + "
              "activation as one cuDNN call: the operators of the ios thesis' schedules); false = one kernel per "
              "node"}},
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
        OperatorDag dag = operatorDag(g, req.options.getBool("epilogues"));
        const std::vector<std::vector<NodeId>> &ops = dag.ops;
        std::vector<int> &missing = dag.inDegree;
        auto rankOf = [&](std::size_t o) { return rank[static_cast<std::size_t>(ops[o].front())]; };
        std::set<std::pair<std::int32_t, std::size_t>> ready; // by the head's rank
        for (std::size_t o = 0; o < ops.size(); ++o)
            if (!missing[o])
                ready.insert({rankOf(o), o});

        PlanBuilder builder(g, *req.cost);
        std::int32_t step = 0;
        while (!ready.empty()) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            std::vector<DecisionOption> options;
            std::vector<std::string> names;
            std::vector<std::size_t> candidates;
            for (const auto &[r, o] : ready) {
                const Node &head = g.node(ops[o].front());
                candidates.push_back(o);
                names.push_back(head.name);
                options.push_back({head.name,
                                   describeOperator(g, ops[o]),
                                   std::nan(""),
                                   "topological index " + std::to_string(r),
                                   {}});
            }
            const std::int32_t pick =
                decisions.decide(decisionKey("sequential.next", names), "sequential.next", std::move(options), 0);
            const std::size_t o = candidates[static_cast<std::size_t>(pick)];
            ready.erase({rankOf(o), o});
            const std::string &name = g.node(ops[o].front()).name;
            const TaskId task = builder.addKernel(name, ops[o], {}, {}, step);
            auto &s = trace.add("issue", "ready: " + std::to_string(candidates.size()) + " operators", "run " + name,
                                pick == 0 ? "lowest topological index among the ready operators" : "override");
            s.touched = ops[o];
            s.numbers = {{"est_ns", builder.plan().tasks[static_cast<std::size_t>(task)].cost.timeNs}};
            s.delta = {"kernel " + std::to_string(step) + " = " + describeOperator(g, ops[o])};
            trace.linkLastDecision(decisions);
            for (std::int32_t c : dag.readers[o])
                if (--missing[static_cast<std::size_t>(c)] == 0)
                    ready.insert({rankOf(static_cast<std::size_t>(c)), static_cast<std::size_t>(c)});
            ++step;
            if (req.progress)
                req.progress(double(step) / double(ops.size()));
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
