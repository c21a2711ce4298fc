#include "plugins/astitch/astitch.h"

#include "core/hw/device.h"
#include "core/plugin/extensions.h"
#include "core/sched/levelassign.h"
#include "core/sched/trace.h"
#include "plugins/astitch/lowering.h"
#include "plugins/astitch/parts.h"

#include <algorithm>

namespace tessera {

namespace {

using namespace astitch;

class AstitchScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "astitch",
            "AStitch (baseline)",
            "stitch memory-intensive ops into kernels, one kernel per compute-intensive op, keep every tensor in the "
            "local buffer as far as it holds them; no instance split",
            "graphturbo-osdi23 §5.2 (AStitch baseline), §4.3 (allocation and spilling)",
            {{"cores",
              OptionSpec::Kind::Int,
              std::int64_t{0},
              "cores of a cluster a kernel runs on (0 = all of them)",
              0,
              4096,
              {}},
             {"clusters",
              OptionSpec::Kind::Int,
              std::int64_t{0},
              "clusters the batch is split over (0 = all of the device's)",
              0,
              4096,
              {}}},
            {{"kernels", "kernels after stitching"},
             {"stitched_ops", "memory-intensive ops stitched into a producer's kernel"},
             {"spread_kernels", "kernels spread over the clusters along the batch"},
             {"spills", "tensors spilled from LB or GB"},
             {"lb_share", "share of tensor bytes kept in LB"},
             {"scope_fast", "escaping tensors kept in the fastest level (Table 3's L1 column)"},
             {"scope_next", "escaping tensors in the next level (Table 3's LLB column)"},
             {"scope_slowest", "escaping tensors in the slowest level (Table 3's DDR column)"}},
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        const Device &dev = *req.device;
        if (dev.levels.empty())
            return Status::invalid("device '" + dev.id + "' has no memory levels");
        Context ctx{g, dev, *req.cost, decisions, trace};
        ctx.cancelled = [&req] { return req.cancelled(); };
        ctx.cores = clusterCores(dev, req.options.getInt("cores"));
        ctx.clusters = static_cast<int>(req.options.getInt("clusters"));
        if (ctx.clusters <= 0)
            ctx.clusters = dev.topology.clusters;
        ctx.clusters = std::clamp(ctx.clusters, 1, std::max(1, dev.topology.clusters));
        const MemoryLevel &lb = dev.levels.front();
        ctx.lbPerCore = fastestLevelPerCore(dev, ctx.cores);
        ctx.gbBytes = dev.levels.size() > 1 ? dev.levels[1].capacityBytes : 0;
        auto &s0 = trace.add("A0: hardware", "device " + dev.id,
                             std::to_string(ctx.lbPerCore) + " B " + lb.name + " per core × " +
                                 std::to_string(ctx.cores) + " cores, " + std::to_string(ctx.clusters) + " clusters",
                             "a kernel runs on all cores of a cluster; the batch is spread over the clusters");
        s0.numbers = {{"lb_per_core", double(ctx.lbPerCore)},
                      {"gb_bytes", double(ctx.gbBytes)},
                      {"cores", ctx.cores},
                      {"clusters", ctx.clusters}};

        auto st = stitchKernels(ctx);
        if (!st)
            return st.status();
        auto spread = assignParts(ctx, st->kernels);
        if (!spread)
            return spread.status();
        if (req.progress)
            req.progress(0.5);
        const Levels levels = assignKernelLevels(ctx, *st);
        auto plan = lowerToPlan(ctx, *st, levels);
        if (!plan)
            return plan.status();
        if (req.progress)
            req.progress(1.0);

        ScheduleResult result;
        result.plan = std::move(*plan);
        result.plan.modelHash = req.modelHash;
        int counts[3] = {0, 0, 0};
        for (const auto &[t, item] : levels.itemOfOutput)
            ++counts[levels.assignment.level[static_cast<std::size_t>(item)]];
        result.stats["kernels"] = double(st->kernels.size());
        result.stats["stitched_ops"] = st->stitched;
        result.stats["spread_kernels"] = *spread;
        result.stats["spills"] = double(levels.assignment.spills.size());
        result.stats["lb_share"] = levels.assignment.lbShare();
        result.stats["scope_fast"] = counts[0];
        result.stats["scope_next"] = counts[1];
        result.stats["scope_slowest"] = counts[2];
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createAstitchScheduler()
{
    return std::make_unique<AstitchScheduler>();
}

void registerAstitchPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createAstitchScheduler());
}

} // namespace tessera
