#include "plugins/ios/ios.h"

#include "plugins/ios/iossearchspace.h"
#include "plugins/ios/iosunits.h"
#include "plugins/ios/stagelatency.h"

#include <algorithm>
#include <cmath>

namespace tessera {

namespace {

class IosScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        using K = OptionSpec::Kind;
        static const SchedulerInfo kInfo{
            "ios",
            "IOS (inter-operator scheduler)",
            "dynamic programming over the last stage: concurrent groups on streams or merged convolutions, block by "
            "block",
            "ios thesis §3.2 Algorithm 1, §3.4 pruning",
            {
                {"strategy",
                 K::Enum,
                 std::string("both"),
                 "parallelisation strategies: merge (IOS-Merge), parallel (IOS-Parallel) or both (IOS-Both)",
                 0,
                 0,
                 {"merge", "parallel", "both"}},
                {"r", K::Int, std::int64_t{3}, "at most r operators per group (§3.4)", 1, 64, {}},
                {"s", K::Int, std::int64_t{8}, "at most s groups per stage (§3.4)", 1, 64, {}},
                {"part_size",
                 K::Int,
                 std::int64_t{50},
                 "blocks without explicit parts are cut into parts of at most this many units",
                 1,
                 1024,
                 {}},
                {"max_states",
                 K::Int,
                 std::int64_t{2'000'000},
                 "a part with more dp states is cut in two (auto_cut) or fails with a message",
                 1,
                 1e9,
                 {}},
                {"auto_cut",
                 K::Bool,
                 true,
                 "cut a part over max_states or max_transitions into halves until each fits (off: such a part fails)",
                 0,
                 0,
                 {}},
                {"max_transitions",
                 K::Int,
                 std::int64_t{20'000'000},
                 "a part with more (state, stage) pairs is cut in two (auto_cut) or fails and suggests smaller r and s",
                 1,
                 1e12,
                 {}},
            },
            {
                {"states", "dp states over all parts (∅ included)"},
                {"transitions", "(state, stage) pairs evaluated"},
                {"schedules", "feasible schedules (paths through the dp), product over parts"},
                {"log10_schedules", "log10 of schedules"},
                {"width", "largest width of a part (most units that can run at once)"},
                {"parts", "parts optimised"},
                {"stages", "stages in the schedule"},
                {"merged_stages", "stages that merge convolutions"},
                {"kernels", "kernels in the plan"},
                {"dp_latency_ms", "Σ cost[V]: the optimum under the stage latency model"},
                {"chosen_latency_ms", "latency of the schedule as chosen (overrides included)"},
                {"largest_part_states", "dp states of the largest part"},
                {"cuts", "parts cut in two because they were over max_states or max_transitions"},
            },
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        auto units = iosUnitsForGraph(g, req.modelProperties);
        if (!units)
            return units.status();
        auto &s0 = trace.add("S0: units", "graph of " + std::to_string(g.nodeCount()) + " nodes",
                             std::to_string(units->units.size()) + " units in " + std::to_string(units->blocks.size()) +
                                 " blocks",
                             "units from " + units->source);
        s0.numbers = {{"units", double(units->units.size())}, {"blocks", double(units->blocks.size())}};

        // The request's cost model: the one every scheduler's plan is costed with.
        const ModelStageLatency latency(g, *units, *req.cost);
        // The DP explorer's tables, only when asked: the default run keeps no log.
        IosSearchLog log;
        if (req.searchSpace)
            log = iosSearchLogFor(*req.searchSpace);
        const IosSearchContext context{&decisions, &trace, req.searchSpace ? &log : nullptr, req.cancel, req.progress};
        auto search = iosSearch(g, *units, latency, iosSearchOptions(req.options), context);
        if (!search)
            return search.status();
        // The plan is costed by the same model, stage by stage (PlanBuilder), so
        // it needs no stage estimates to scale its tasks to: drop them.
        IosSchedule lowered = search->schedule;
        for (IosStage &stage : lowered.stages)
            stage.latencyNs = std::nan("");
        auto plan = lowerIosSchedule(g, *units, lowered, *req.cost);
        if (!plan)
            return plan.status().prefix("ios schedule");

        ScheduleResult result;
        result.plan = std::move(*plan);
        double states = 0, transitions = 0, log10Schedules = 0, width = 0, largest = 0;
        for (const IosPartStats &p : search->parts) {
            states += double(p.states);
            transitions += double(p.transitions);
            log10Schedules += std::log10(p.schedules);
            width = std::max(width, double(p.width));
            largest = std::max(largest, double(p.states));
        }
        const auto merged =
            std::count_if(search->schedule.stages.begin(), search->schedule.stages.end(),
                          [](const IosStage &s) { return s.strategy == IosStrategy::Merge && s.groups[0].size() > 1; });
        result.stats = {{"states", states},
                        {"transitions", transitions},
                        {"log10_schedules", log10Schedules},
                        {"width", width},
                        {"parts", double(search->parts.size())},
                        {"stages", double(search->schedule.stages.size())},
                        {"merged_stages", double(merged)},
                        {"kernels", double(result.plan.kernels.size())},
                        {"dp_latency_ms", search->optimumNs / 1e6},
                        {"chosen_latency_ms", search->chosenNs / 1e6},
                        {"largest_part_states", largest},
                        {"cuts", double(search->cuts)}};
        // Beyond a double's range (NasNet: 10^334) only log10_schedules is reported:
        // JSON has no infinity.
        if (const double schedules = std::pow(10.0, log10Schedules); std::isfinite(schedules))
            result.stats["schedules"] = schedules;
        if (req.searchSpace)
            result.searchSpace =
                std::make_shared<const SearchSpace>(iosSearchSpace(g, *units, log, *search, *req.searchSpace));
        return result;
    }
};

} // namespace

IosSearchOptions iosSearchOptions(const OptionValues &values)
{
    IosSearchOptions o;
    const std::string &strategy = values.getString("strategy");
    o.merge = strategy != "parallel";
    o.parallel = strategy != "merge";
    o.maxGroupSize = static_cast<int>(values.getInt("r"));
    o.maxGroups = static_cast<int>(values.getInt("s"));
    o.partSize = static_cast<int>(values.getInt("part_size"));
    o.maxStates = values.getInt("max_states");
    o.autoCut = values.getBool("auto_cut");
    o.maxTransitions = values.getInt("max_transitions");
    return o;
}

std::unique_ptr<IScheduler> createIosScheduler()
{
    return std::make_unique<IosScheduler>();
}

} // namespace tessera
