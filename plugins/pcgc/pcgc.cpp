#include "plugins/pcgc/pcgc.h"

#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "plugins/pcgc/crossboundary.h"
#include "plugins/pcgc/learnedcost.h"
#include "plugins/pcgc/lowering.h"
#include "plugins/pcgc/pcgccommands.h"
#include "plugins/pcgc/recut.h"
#include "plugins/pcgc/staticfusion.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tessera {

namespace {

std::string hText(double cap)
{
    if (cap <= 0)
        return "none";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", cap);
    return buf;
}

// Issue 17: the target and H are decisions too ("pcgc.target", "pcgc.h"),
// preferred = the options' values, so an override replays the re-cutting
// with the other target or another cap. H's choices: the option's value, the
// usual caps 1, 1.05, 1.1, 1.25, 1.5 and none.
void decideTargetAndH(pcgc::RecutOptions &options, DecisionContext &decisions, Trace &trace)
{
    const bool time = options.objective == pcgc::Objective::Time;
    const std::int32_t target =
        decisions.decide(decisionKey("pcgc.target", {}), "pcgc.target",
                         {{"time", "minimise time (energy capped by H)", std::nan(""), {}, {}},
                          {"power", "minimise energy (time capped by H)", std::nan(""), {}, {}}},
                         time ? 0 : 1);
    options.objective = target == 0 ? pcgc::Objective::Time : pcgc::Objective::Energy;
    trace.add("objective", "target", target == 0 ? "time" : "power", "Algorithm 2's Target (option target)");
    trace.linkLastDecision(decisions);

    std::vector<double> caps{options.cap > 0 ? options.cap : 0.0};
    for (double c : {1.0, 1.05, 1.1, 1.25, 1.5, 0.0})
        if (std::none_of(caps.begin(), caps.end(), [&](double x) { return hText(x) == hText(c); }))
            caps.push_back(c);
    std::vector<DecisionOption> choices;
    for (double c : caps)
        choices.push_back(
            {hText(c),
             c > 0 ? "H = " + hText(c) + " × the static-fusion plan's " + (target == 0 ? "energy" : "time") : "no cap",
             std::nan(""),
             {},
             {}});
    const std::int32_t h = decisions.decide(decisionKey("pcgc.h", {}), "pcgc.h", std::move(choices), 0);
    options.cap = caps[static_cast<std::size_t>(h)];
    trace.add("objective", "threshold H", options.cap > 0 ? "h = " + hText(options.cap) : "no cap",
              "Algorithm 2's H (option h)");
    trace.linkLastDecision(decisions);
}

class PcgcScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "pcgc",
            "PCGC (fusion-splitting rules)",
            "rule-guided static fusion to a fixed point, then cost-model re-cutting at the fusion records for time "
            "or energy under a cap on the other",
            "pcgc §3.3 (static fusion, Fig. 4), §3.4 (parallel processing, cross-boundary optimisation), §3.5 "
            "(Algorithm 1), §3.6 (Algorithm 2)",
            {{"target",
              OptionSpec::Kind::Enum,
              std::string("time"),
              "what the re-cutting minimises (Algorithm 2's Target): time, or power (the energy of one inference; "
              "'energy' is the same)",
              -1e300,
              1e300,
              {"time", "power", "energy"}},
             {"h",
              OptionSpec::Kind::Double,
              1.1,
              "H: the other metric may reach h × its static-fusion value (0 = no cap); a value no plan meets is "
              "refused with the least one that does",
              0,
              1000,
              {}},
             {"margin",
              OptionSpec::Kind::Double,
              -1.0,
              "a split must be predicted better than keeping by this share (-1 = auto: twice the learned model's "
              "held-back error, 0 for the analytic model)",
              -1,
              1,
              {}},
             {"parallel",
              OptionSpec::Kind::Bool,
              true,
              "§3.4: run independent sub-graphs of a wave on parallel streams when the device has the virtual units",
              0,
              1,
              {}},
             {"cross_boundary",
              OptionSpec::Kind::Bool,
              true,
              "§3.4: constant folding, inlining of small sub-graphs and common-subexpression elimination across "
              "the fusion boundaries",
              0,
              1,
              {}},
             {"cost_model",
              OptionSpec::Kind::Enum,
              std::string("analytic"),
              "what the re-cutting asks: the analytic DeviceCostModel, or the learned model of §3.5 (trained by "
              "tessera-cli pcgc-train; falls back to the analytic model, with a trace step saying why)",
              -1e300,
              1e300,
              {"analytic", "learned"}},
             {"model_file",
              OptionSpec::Kind::String,
              std::string(),
              "the learned model's file (default: the user's data folder, tessera/pcgc/<device>.json)",
              -1e300,
              1e300,
              {}}},
            {{"groups_static", "sub-graphs after static fusion"},
             {"fusions", "fusion records"},
             {"stable_fusions", "fusions by a stable rule"},
             {"passes", "static-fusion passes to the fixed point"},
             {"splits", "re-cuts (Algorithm 2 splits)"},
             {"kept_within_margin", "groups kept: the best split's predicted gain was within the model's margin"},
             {"split_margin", "the share a split must gain by (2 × the learned model's held-back error; 0: analytic)"},
             {"kernels", "kernels issued"},
             {"folded", "nodes folded into constants (§3.4 constant folding)"},
             {"assigned", "common subexpressions computed once (§3.4 CSE)"},
             {"inlined", "small sub-graphs inlined into their consumer (§3.4 inlining)"},
             {"parallel_waves", "waves of independent sub-graphs run on parallel streams (§3.4)"},
             {"learned_model", "1 when the re-cutting used the learned cost model, 0 for the analytic one"},
             {"model_time_ns", "Σ kernel time after re-cutting (cost model)"},
             {"model_energy_j", "Σ kernel energy after re-cutting (cost model)"}},
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        if (!req.graph || !req.device || !req.cost)
            return Status::error(ErrorCode::Usage, "pcgc needs a graph, a device and a cost model");
        const Graph &g = *req.graph;
        if (auto order = topologicalOrder(g); !order)
            return order.status();

        pcgc::Partition partition = pcgc::staticFusion(g, *req.device, decisions, trace);
        if (req.cancelled())
            return Status::error(ErrorCode::Cancelled, "cancelled");
        if (req.progress)
            req.progress(0.5);
        ScheduleResult result;
        result.stats["groups_static"] = double(partition.groups.size());
        result.stats["fusions"] = double(partition.records.size());
        result.stats["stable_fusions"] = double(
            std::count_if(partition.records.begin(), partition.records.end(), [](const auto &r) { return r.stable; }));
        result.stats["passes"] = double(partition.passes);

        pcgc::RecutOptions options;
        options.objective = req.options.getString("target") == "time" ? pcgc::Objective::Time : pcgc::Objective::Energy;
        options.cap = req.options.getDouble("h");
        decideTargetAndH(options, decisions, trace);
        if (!pcgc::hasPowerModel(*req.device)) {
            // Nothing to minimise or cap: every energy is 0 J.
            if (options.objective == pcgc::Objective::Energy)
                return Status::error(ErrorCode::InvalidInput,
                                     "pcgc target=power: device '" + req.device->id +
                                         "' has no power model (no static power, pJ/op or pJ/byte), so every plan "
                                         "costs 0 J; use target=time, or give the device a power model");
            if (options.cap > 0)
                trace.add("re-cut", "no cap on energy",
                          "device '" + req.device->id + "' has no power model: h is ignored",
                          "every energy is 0 J, so H = h × 0 J would refuse every split");
            options.cap = 0;
        }
        std::unique_ptr<pcgc::LearnedCostModel> learned;
        if (req.options.getString("cost_model") == "learned") {
            std::string path = req.options.getString("model_file");
            if (path.empty())
                path = pcgc::defaultModelPath(req.device->id);
            auto loaded = pcgc::LearnedCostModel::load(path, *req.device);
            if (loaded) {
                learned = std::move(*loaded);
                const pcgc::Accuracy &a = learned->time().accuracy;
                char mape[64];
                std::snprintf(mape, sizeof mape, "time MAPE %.2f %% on %d held-back ops", a.mape * 100, a.count);
                trace.add("cost model", "learned: " + path,
                          mape + (learned->power() ? std::string() : "; " + learned->powerNote()),
                          "§3.5: the re-cutting compares the learned model's predictions");
            } else {
                trace.add("cost model", "analytic DeviceCostModel (fallback)", loaded.status().message(),
                          "the learned model was asked for but cannot be used; the documented fallback is the "
                          "analytic model every scheduler shares");
            }
        }
        result.stats["learned_model"] = learned ? 1.0 : 0.0;
        // The split margin (recut.h): twice the learned model's held-back
        // error for the target (energy = power × time: both models' errors),
        // as a split's gain is the difference of two predictions; else none.
        options.margin = req.options.getDouble("margin");
        if (options.margin < 0) {
            options.margin = 0;
            if (learned) {
                options.margin = learned->time().accuracy.mape;
                if (options.objective == pcgc::Objective::Energy && learned->power())
                    options.margin += learned->power()->accuracy.mape;
                options.margin *= 2;
            }
        }
        options.margin = std::min(options.margin, 0.9);
        const CostModel &recutCost = learned ? static_cast<const CostModel &>(*learned) : *req.cost;
        const pcgc::RecutResult cut = pcgc::recut(g, recutCost, partition, options, decisions, trace);
        if (req.cancelled())
            return Status::error(ErrorCode::Cancelled, "cancelled");
        if (!cut.hMet) {
            const bool capsEnergy = options.objective == pcgc::Objective::Time;
            const double before = capsEnergy ? cut.energyJBefore : cut.timeNsBefore;
            const double after = capsEnergy ? cut.energyJAfter : cut.timeNsAfter;
            const char *unit = capsEnergy ? " J" : " ns";
            char msg[512];
            std::snprintf(msg, sizeof msg,
                          "pcgc h=%g: no plan the re-cutting reaches meets H = %.4g%s (%s of the static-fusion plan "
                          "%.4g%s; after re-cutting %.4g%s); h >= 1 keeps the static-fusion plan within it, h=0 "
                          "removes the cap",
                          options.cap, cut.h, unit, capsEnergy ? "energy" : "time", before, unit, after, unit);
            return Status::error(ErrorCode::InvalidInput, msg);
        }
        result.stats["splits"] = double(cut.splits);
        result.stats["kept_within_margin"] = double(cut.withinMargin);
        result.stats["split_margin"] = options.margin;
        result.stats["model_time_ns"] = cut.timeNsAfter;
        result.stats["model_energy_j"] = cut.energyJAfter;

        pcgc::CrossBoundaryResult rewrites;
        if (req.options.getBool("cross_boundary"))
            rewrites = pcgc::crossBoundary(g, recutCost, partition, decisions, trace);
        result.stats["folded"] = double(rewrites.folded);
        result.stats["assigned"] = double(rewrites.assigned);
        result.stats["inlined"] = double(rewrites.inlined);
        if (req.cancelled())
            return Status::error(ErrorCode::Cancelled, "cancelled");

        const pcgc::ParallelPlan parallel =
            pcgc::planParallel(g, *req.device, *req.cost, partition, req.options.getBool("parallel"), decisions, trace);
        result.stats["parallel_waves"] = double(parallel.parallelWaves);
        result.plan = pcgc::lowerPartition(g, *req.cost, partition, parallel);
        result.stats["kernels"] = double(result.plan.kernels.size());
        if (req.progress)
            req.progress(1.0);
        trace.add("lower", std::to_string(result.plan.kernels.size()) + " kernels",
                  "one whole-tensor kernel per sub-graph (PlanBuilder)");
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createPcgcScheduler()
{
    return std::make_unique<PcgcScheduler>();
}

void registerPcgcPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createPcgcScheduler());
    extensions.addCommand(pcgc::trainCommand());
}

} // namespace tessera
