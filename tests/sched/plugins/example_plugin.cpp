// An out-of-tree scheduler plugin, as a third party would write one: compiled
// against Tessera's core headers, linked against nothing, loaded from a folder
// (core/sched/pluginloader.h). "example-chain" runs one kernel per operator in
// a topological order, records a trace step per kernel and asks one decision
// (which operator goes first among the graph's sources).
// EXAMPLE_SCHEDULER_NAME and EXAMPLE_ABI_OFFSET let the tests build misfits
// (a second scheduler of the same name; a plugin of another ABI).
#include "core/ir/analysis.h"
#include "core/sched/planbuilder.h"
#include "core/sched/pluginloader.h"

#include <cmath>
#include <memory>
#include <vector>

#ifndef EXAMPLE_SCHEDULER_NAME
#define EXAMPLE_SCHEDULER_NAME "example-chain"
#endif

namespace {

using namespace tessera;

class ExampleChainScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{EXAMPLE_SCHEDULER_NAME,
                                         "Example chain (plugin)",
                                         "one kernel per operator in a topological order, loaded from a plugin folder",
                                         "none (plugin example)",
                                         {},
                                         {{"kernels", "kernels issued"}}};
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        auto order = topologicalOrder(g);
        if (!order)
            return order.status();
        std::vector<DecisionOption> options;
        std::vector<std::string> names;
        for (NodeId n : *order)
            if (g.predecessors(n).empty()) {
                options.push_back({g.node(n).name, g.node(n).name, std::nan(""), {}, {}});
                names.push_back(g.node(n).name);
            }
        std::int32_t first = 0;
        if (!options.empty())
            first = decisions.decide(decisionKey("example.first", names), "example.first", std::move(options), 0);
        trace.add("start", std::to_string(names.size()) + " sources", "first: " + names[std::size_t(first)]);
        trace.linkLastDecision(decisions);

        PlanBuilder builder(g, *req.cost);
        std::int32_t step = 0;
        for (NodeId n : *order) {
            builder.addKernel(g.node(n).name, {n}, {}, {}, step++);
            trace.add("issue", g.node(n).opType, "kernel " + g.node(n).name).touched = {n};
        }
        ScheduleResult result;
        result.plan = builder.finish();
        result.stats["kernels"] = double(result.plan.kernels.size());
        return result;
    }
};

} // namespace

#ifdef EXAMPLE_ABI_OFFSET
extern "C" __attribute__((visibility("default"))) std::uint32_t tessera_scheduler_plugin_abi()
{
    return tessera::kSchedulerPluginAbi + EXAMPLE_ABI_OFFSET;
}
#else
TESSERA_SCHEDULER_PLUGIN
#endif

extern "C" __attribute__((visibility("default"))) void
tessera_create_schedulers(std::vector<std::unique_ptr<tessera::IScheduler>> *out)
{
    out->push_back(std::make_unique<ExampleChainScheduler>());
}
