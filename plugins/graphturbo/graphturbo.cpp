#include "plugins/graphturbo/graphturbo.h"

#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/plan/verify.h"
#include "core/plugin/extensions.h"
#include "core/sched/levelassign.h"
#include "core/sched/trace.h"
#include "plugins/graphturbo/batching.h"
#include "plugins/graphturbo/grouping.h"
#include "plugins/graphturbo/instances.h"
#include "plugins/graphturbo/lowering.h"
#include "plugins/graphturbo/ordering.h"
#include "plugins/graphturbo/scopes.h"

#include <cmath>
#include <set>

namespace tessera {

namespace {

using namespace graphturbo;

class GraphTurboScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "graphturbo",
            "GraphTurbo",
            "group the graph into sub-graphs sized by the local buffer, split them into instances bound to cores, "
            "order them to keep tensors in LB",
            "graphturbo-osdi23 §3.1-§3.5 (Algo. 1-4), §4.3-§4.4, §5.3",
            {{"lb_bytes",
              OptionSpec::Kind::Int,
              std::int64_t{0},
              "local buffer an instance may use, in bytes (0 = fastest level per core × cores per cluster)",
              0,
              1e15,
              {}},
             {"cores",
              OptionSpec::Kind::Int,
              std::int64_t{0},
              "cores an instance is spread over (0 = the device's cores per cluster)",
              0,
              4096,
              {}},
             {"clusters",
              OptionSpec::Kind::Int,
              std::int64_t{0},
              "clusters the batch is split over (0 = all of the device's; 1 = the paper's one-cluster view)",
              0,
              4096,
              {}},
             {"variant",
              OptionSpec::Kind::Enum,
              std::string("full"),
              "§5.3 variants (Fig. 15): llb = outputs kept in LLB/GB, no split; l1 = outputs kept in L1/LB, no "
              "split; split = l1 plus instance split and ordering; full = split plus across-layer scheduling (§4.4)",
              -1e300,
              1e300,
              {"llb", "l1", "split", "full"}},
             {"batches_per_cluster",
              OptionSpec::Kind::Int,
              std::int64_t{0},
              "§5.1 batches a cluster takes at a time; the rest runs as in-cluster loop iterations (0 = the batch "
              "spread over the clusters in one iteration)",
              0,
              1e9,
              {}},
             {"batch_allocation",
              OptionSpec::Kind::Enum,
              std::string("fixed"),
              "§5.1: fixed = batches_per_cluster as given; search = every divisor of the batch scheduled, the "
              "highest estimated throughput kept (Table 1)",
              -1e300,
              1e300,
              {"fixed", "search"}},
             {"hoist",
              OptionSpec::Kind::Bool,
              false,
              "§4.1: promoted weights hoisted GB → LB by a task of their own before each instance part, where "
              "they fit (off: inside the kernel)",
              -1e300,
              1e300,
              {}},
             {"recompute_check",
              OptionSpec::Kind::Bool,
              true,
              "refuse merges whose recomputed work and weights read again cost more than the stores they save "
              "(§3.1)",
              -1e300,
              1e300,
              {}}},
            {{"subgraphs", "sub-graphs after grouping"},
             {"merges", "merges accepted by Algo. 2"},
             {"instances", "sub-graph instances"},
             {"redundant_edges", "inherited instance edges eliminated"},
             {"copies", "copy tasks inserted"},
             {"redistributes", "redistribution tasks inserted (Fig. 9 right)"},
             {"gb_scopes", "instance outputs declared in GB by Algo. 4 (binding mismatch)"},
             {"overlapped_promotions", "weight promotions issued one layer ahead (§4.4)"},
             {"concats", "concatenation tasks inserted"},
             {"weight_promotions", "weight promotions DDR → GB (once per sub-graph and cluster)"},
             {"weight_hoists", "weight hoists GB → LB as tasks (option hoist)"},
             {"weight_mb_from_gb", "MB of weights the compute tasks read from GB, kept there across instances"},
             {"weight_mb_from_ddr", "MB of weights the compute tasks read from DDR (not kept in GB; a Gather table "
                                    "counted by its region, whole)"},
             {"spills", "tensors spilled from LB or GB"},
             {"lb_share", "share of instance bytes kept in LB"},
             {"batch", "the graph's batch (dim 0 of its first input)"},
             {"batches_per_cluster", "§5.1 batches a cluster takes per iteration (Table 1)"},
             {"iterations", "§5.1 in-cluster loop iterations (Table 1 'iter.')"},
             {"clusters_used", "clusters running compute tasks"},
             {"latency_ms", "estimated latency of the plan (Table 1)"},
             {"throughput_per_s", "batch / latency (Table 1)"}},
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        const Device &dev = *req.device;
        if (dev.levels.empty())
            return Status::invalid("device '" + dev.id + "' has no memory levels");
        int maxClusters = static_cast<int>(req.options.getInt("clusters"));
        if (maxClusters <= 0)
            maxClusters = dev.topology.clusters;
        maxClusters = std::max(1, std::min(maxClusters, dev.topology.clusters));
        const std::int64_t batch = graphBatch(g);
        if (req.options.getString("batch_allocation") == "search")
            return searchAllocation(req, decisions, trace, batch, maxClusters);
        auto alloc = allocateBatches(batch, req.options.getInt("batches_per_cluster"), maxClusters);
        if (!alloc)
            return alloc.status();
        return runPipeline(req, decisions, trace, *alloc);
    }

private:
    // §5.1: every candidate allocation scheduled and verified on its own (nested decisions with
    // the same overrides, a trace of its own), the decision "graphturbo.batch" over them, then
    // the chosen one scheduled for real.
    Expected<ScheduleResult> searchAllocation(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace,
                                              std::int64_t batch, int maxClusters) const
    {
        const std::vector<BatchAllocation> candidates = batchCandidates(batch, maxClusters);
        std::vector<DecisionOption> options;
        std::int32_t best = -1;
        double bestCost = 0, bestLatency = 0;
        for (const BatchAllocation &a : candidates) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            DecisionContext nested(decisions.overrides());
            Trace nestedTrace;
            auto r = runPipeline(req, nested, nestedTrace, a);
            Status ok = r ? verifyPlan(r->plan, *req.graph, req.device) : r.status();
            DecisionOption o{a.id(),
                             std::to_string(a.perCluster) + " per cluster × " + std::to_string(a.iterations) +
                                 " iterations on " + std::to_string(a.clusters) + " clusters",
                             std::nan(""),
                             {},
                             {}};
            if (!ok) {
                o.illegalReason = ok.message();
            } else {
                const double latency = r->plan.estimatedLatencyNs();
                o.cost = latency / double(batch); // ns per sample: lower is higher throughput
                o.detail = "latency " + std::to_string(latency / 1e6) + " ms, throughput " +
                           std::to_string(double(batch) / (latency / 1e9)) + " /s";
                if (best < 0 || o.cost < bestCost || (o.cost == bestCost && latency < bestLatency)) {
                    best = static_cast<std::int32_t>(options.size());
                    bestCost = o.cost;
                    bestLatency = latency;
                }
            }
            options.push_back(std::move(o));
        }
        if (best < 0)
            return Status::invalid("batch allocation: no allocation of the batch of " + std::to_string(batch) +
                                   " gives a valid plan");
        std::vector<std::string> scope;
        for (TensorId t : req.graph->inputs)
            scope.push_back(req.graph->tensor(t).name);
        const std::int32_t pick =
            decisions.decide(decisionKey("graphturbo.batch", scope), "graphturbo.batch", options, best);
        auto &step = trace.add("S0: batch allocation (§5.1)", std::to_string(candidates.size()) + " allocations",
                               options[static_cast<std::size_t>(pick)].label,
                               "the highest throughput of the estimated, verified plans (Table 1)");
        step.numbers = {{"candidates", double(candidates.size())},
                        {"ns_per_sample", options[static_cast<std::size_t>(pick)].cost}};
        trace.linkLastDecision(decisions);
        return runPipeline(req, decisions, trace, candidates[static_cast<std::size_t>(pick)]);
    }

    Expected<ScheduleResult> runPipeline(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace,
                                         const BatchAllocation &alloc) const
    {
        const Graph &g = *req.graph;
        const Device &dev = *req.device;
        auto order = topologicalOrder(g);
        if (!order)
            return order.status();

        Context ctx{g, dev, *req.cost, decisions, trace};
        ctx.rank = topologicalRanks(*order);
        ctx.nodeComputeNs.assign(g.nodeCount(), -1.0);
        ctx.cancelled = [&req] { return req.cancelled(); };
        ctx.cores = clusterCores(dev, req.options.getInt("cores"));
        ctx.clusters = alloc.clusters;
        ctx.iterations = alloc.iterations;
        const MemoryLevel &lb = dev.levels.front();
        const MemoryLevel &gb = dev.levels.size() > 1 ? dev.levels[1] : dev.levels.back();
        ctx.lbPerCore = fastestLevelPerCore(dev, ctx.cores);
        ctx.lbBytes = req.options.getInt("lb_bytes");
        if (ctx.lbBytes <= 0)
            ctx.lbBytes = ctx.lbPerCore * ctx.cores;
        else
            ctx.lbPerCore = std::min(ctx.lbPerCore, (ctx.lbBytes + ctx.cores - 1) / ctx.cores);
        // GB holds the activations §4.3 spills there and the weights promoted DDR → GB once per
        // sub-graph and cluster (§4.4) in what the activations leave free (lowering.h).
        ctx.weightBudget = &gb != &lb ? gb.capacityBytes : 0;
        ctx.gbBytes = gb.capacityBytes;
        ctx.recomputeCheck = req.options.getBool("recompute_check");
        ctx.hoist = req.options.getBool("hoist");
        const std::string &variant = req.options.getString("variant");
        ctx.variant = variant == "llb"     ? Variant::Llb
                      : variant == "l1"    ? Variant::L1
                      : variant == "split" ? Variant::Split
                                           : Variant::Full;
        auto &s0 =
            trace.add("S0: hardware (§3.1)", "device " + dev.id,
                      "LB " + std::to_string(ctx.lbBytes) + " B over " + std::to_string(ctx.cores) + " cores, GB " +
                          std::to_string(ctx.gbBytes) + " B",
                      "an instance spreads over the cores of one cluster; LB = " + lb.name + ", GB = " + gb.name);
        s0.numbers = {{"lb_bytes", double(ctx.lbBytes)},
                      {"gb_bytes", double(ctx.gbBytes)},
                      {"cores", ctx.cores},
                      {"clusters", ctx.clusters},
                      {"iterations", ctx.iterations}};

        auto grouping = groupSubGraphs(ctx);
        if (!grouping)
            return grouping.status();
        TS_TRY(checkLoopable(ctx, grouping->subgraphs));
        if (req.progress)
            req.progress(0.5);
        auto instances = splitInstances(ctx, grouping->subgraphs, grouping->ofNode);
        if (!instances)
            return instances.status();
        const Ordering ordering = orderInstances(ctx, grouping->subgraphs, *instances);
        if (ordering.order.size() != instances->instances.size())
            return Status::invalid("instance graph has a cycle");
        const ScopeStats scopes = inferBindingsAndScopes(ctx, grouping->subgraphs, *instances, ordering.order);
        auto lowered = lowerToPlan(ctx, grouping->subgraphs, *instances, ordering);
        if (!lowered)
            return lowered.status();
        if (req.progress)
            req.progress(1.0);

        ScheduleResult result;
        result.plan = std::move(lowered->plan);
        result.plan.modelHash = req.modelHash;
        result.stats["subgraphs"] = double(grouping->subgraphs.size());
        result.stats["merges"] = grouping->merges;
        result.stats["instances"] = double(instances->instances.size());
        result.stats["redundant_edges"] = double(instances->redundantEdges);
        result.stats["copies"] = lowered->copies;
        result.stats["concats"] = lowered->concats;
        result.stats["redistributes"] = lowered->redistributes;
        result.stats["gb_scopes"] = scopes.gbScopes;
        result.stats["overlapped_promotions"] = lowered->overlappedPromotions;
        result.stats["weight_promotions"] = lowered->promotions;
        result.stats["weight_hoists"] = lowered->hoists;
        result.stats["weight_mb_from_gb"] = lowered->weightBytesFromGb / 1e6;
        result.stats["weight_mb_from_ddr"] = lowered->weightBytesFromDdr / 1e6;
        result.stats["spills"] = double(lowered->memory.spills.size());
        result.stats["lb_share"] = lowered->memory.lbShare();
        // §5.1, Table 1: the allocation, and throughput and latency of the plan's estimate.
        std::set<int> used;
        for (const Task &t : result.plan.tasks)
            if (t.kind == TaskKind::Compute)
                used.insert(t.binding.cluster);
        const double latencyNs = result.plan.estimatedLatencyNs();
        result.stats["batch"] = double(alloc.batch);
        result.stats["batches_per_cluster"] = double(alloc.perCluster);
        result.stats["iterations"] = alloc.iterations;
        result.stats["clusters_used"] = double(used.size());
        result.stats["latency_ms"] = latencyNs / 1e6;
        result.stats["throughput_per_s"] = latencyNs > 0 ? double(alloc.batch) / (latencyNs / 1e9) : 0.0;
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createGraphTurboScheduler()
{
    return std::make_unique<GraphTurboScheduler>();
}

void registerGraphturboPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createGraphTurboScheduler());
}

} // namespace tessera
