#include "plugins/brickdl/brickdl.h"

#include "core/cost/costmodel.h"
#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/plugin/extensions.h"
#include "plugins/brickdl/bricksize.h"
#include "plugins/brickdl/lower.h"
#include "plugins/brickdl/memoized.h"
#include "plugins/brickdl/padded.h"
#include "plugins/brickdl/partition.h"
#include "plugins/brickdl/strategy.h"

#include <cmath>
#include <string>

namespace tessera {

namespace {

using namespace brickdl;

class BrickdlScheduler final : public IScheduler
{
public:
    const SchedulerInfo &info() const override
    {
        static const SchedulerInfo kInfo{
            "brickdl",
            "BrickDL (merged execution with bricks)",
            "merge layers over bricks of the feature maps so intermediates stay on chip; padded or memoized "
            "bricks per sub-graph",
            "brickdl-icpp24 §3.2–§3.3",
            {
                {"brick",
                 OptionSpec::Kind::Enum,
                 std::string("auto"),
                 "brick size for every sub-graph; auto = the §3.3.3 model",
                 -1e300,
                 1e300,
                 {"auto", "4", "8", "16", "32"}},
                {"tau",
                 OptionSpec::Kind::Double,
                 4096.0,
                 "parallelism threshold τ of the brick-size model",
                 1,
                 1e9,
                 {}},
                {"delta",
                 OptionSpec::Kind::Double,
                 0.15,
                 "padded data growth Δ above which memoized bricks are used",
                 0,
                 100,
                 {}},
                {"rule",
                 OptionSpec::Kind::Enum,
                 std::string("delta"),
                 "padded or memoized: by Δ (the paper) or by the cost model's estimate",
                 -1e300,
                 1e300,
                 {"delta", "cost"}},
                {"cut_fill",
                 OptionSpec::Kind::Double,
                 0.55,
                 "fraction of the on-chip level filled before cutting after pooling/BN",
                 0,
                 1,
                 {}},
                {"level",
                 OptionSpec::Kind::String,
                 std::string(""),
                 "on-chip memory level the sub-graphs stay in (\"\" = the largest below main memory)",
                 -1e300,
                 1e300,
                 {}},
            },
            {{"subgraphs", "merged sub-graphs"},
             {"library_nodes", "nodes run as library kernels"},
             {"padded_subgraphs", "sub-graphs with padded bricks"},
             {"memoized_subgraphs", "sub-graphs with memoized bricks"},
             {"brick_tasks", "brick tasks"},
             {"recompute_tasks", "tasks recomputing halos"},
             {"compulsory_atomics", "compulsory atomics of memoized bricks"},
             {"conflict_atomics", "conflicting atomics of memoized bricks"}},
        };
        return kInfo;
    }

    Expected<ScheduleResult> run(const ScheduleRequest &req, DecisionContext &decisions, Trace &trace) const override
    {
        const Graph &g = *req.graph;
        if (!req.device)
            return Status::error(ErrorCode::Usage, "brickdl needs a device (its on-chip memory level)");
        const Device &device = *req.device;
        auto order = topologicalOrder(g);
        if (!order)
            return order.status();

        // The on-chip level: named, or the largest level below main memory.
        const std::string &levelName = req.options.getString("level");
        const MemoryLevel *level = nullptr;
        if (!levelName.empty()) {
            level = device.level(levelName);
            if (!level) {
                std::string known;
                for (const MemoryLevel &l : device.levels)
                    known += (known.empty() ? "" : ", ") + l.name;
                return Status::error(ErrorCode::Usage,
                                     "device " + device.id + " has no level '" + levelName + "'; known: " + known);
            }
        } else if (device.levels.size() >= 2) {
            level = &device.levels[device.levels.size() - 2];
        } else {
            return Status::error(ErrorCode::Usage, "device " + device.id + " has no on-chip level below main memory");
        }

        // S1
        PartitionOptions po{level->name, level->capacityBytes, req.options.getDouble("cut_fill")};
        std::vector<SubGraph> subs = partitionGraph(g, *order, po, decisions, trace);
        if (req.cancelled())
            return Status::error(ErrorCode::Cancelled, "cancelled");

        const double tau = req.options.getDouble("tau");
        const std::string &brick = req.options.getString("brick");
        const std::int64_t forced = brick == "auto" ? 0 : std::stoll(brick);
        StrategyOptions so{req.options.getDouble("delta"), req.options.getString("rule") == "cost", level->name,
                           level->capacityBytes};
        const int cores = std::max(1, device.totalCores());
        std::vector<PaddedBricks> padded(subs.size());
        std::vector<MemoizedBricks> memo(subs.size());
        std::vector<MergedKernel> paddedKernels(subs.size()), memoKernels(subs.size());
        for (std::size_t i = 0; i < subs.size(); ++i) {
            if (req.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            if (req.progress)
                req.progress(double(i) / double(subs.size()));
            SubGraph &sub = subs[i];
            if (!sub.merged)
                continue;
            // S2
            chooseBrickSize(g, sub, tau, forced, decisions, trace);
            if (!sub.merged)
                continue;
            // S3, S4
            auto p = padBricks(g, sub, sub.brick);
            if (!p)
                return p.status();
            auto m = memoizeBricks(g, sub, sub.brick, cores);
            if (!m)
                return m.status();
            auto &sp = trace.add("§3.2.1 padded bricks", "sub-graph " + std::to_string(sub.index),
                                 std::to_string(p->chains.size()) +
                                     " chains, Δ = " + std::to_string(std::lround(100 * p->delta())) + " %",
                                 "halos grown through the members' index maps");
            sp.numbers = {{"exact_elements", double(p->exactElements)}, {"padded_elements", double(p->paddedElements)}};
            sp.touched = sub.nodes;
            auto &sm = trace.add("§3.2.2 memoized bricks", "sub-graph " + std::to_string(sub.index),
                                 std::to_string(m->order.size()) + " bricks, " + std::to_string(m->compulsoryAtomics) +
                                     " + " + std::to_string(m->conflictAtomics) + " atomics",
                                 "backtracking from every output brick");
            sm.numbers = {{"bricks", double(m->order.size())}, {"tag_bytes", double(m->tagBytes)}};
            sm.touched = sub.nodes;
            // S5: both variants as the merged kernel the device runs (mergedcost.h), timed by the shared model.
            auto pk = paddedKernel(g, sub, *p, *req.cost, level->name);
            if (!pk)
                return pk.status();
            auto mk = memoizedKernel(g, sub, *m, *req.cost, level->name);
            if (!mk)
                return mk.status();
            StrategyEstimates est{pk->estimate.cost.timeNs, mk->estimate.cost.timeNs};
            sub.strategy = chooseStrategy(g, sub, *p, *m, est, so, decisions, trace);
            if (sub.strategy == Strategy::Library) {
                sub.merged = false;
                sub.libraryReason = "neither bricks variant fits " + level->name;
            }
            padded[i] = std::move(*p);
            memo[i] = std::move(*m);
            paddedKernels[i] = std::move(*pk);
            memoKernels[i] = std::move(*mk);
        }

        // S6
        ScheduleResult result;
        ExecutionPlan &plan = result.plan;
        plan.device = device.id;
        plan.graphName = g.name;
        BrickLowering lower(plan, g, *req.cost, device, level->name);
        TaskId after = -1;
        double merged = 0, libraryNodes = 0, paddedSubs = 0, memoSubs = 0, brickTasks = 0, recompute = 0,
               compulsory = 0, conflicts = 0;
        for (std::size_t i = 0; i < subs.size(); ++i) {
            const SubGraph &sub = subs[i];
            const Strategy s = sub.merged ? sub.strategy : Strategy::Library;
            std::vector<TaskId> tasks = s == Strategy::Padded ? lower.padded(sub, padded[i], paddedKernels[i], after)
                                        : s == Strategy::Memoized ? lower.memoized(sub, memo[i], memoKernels[i], after)
                                                                  : lower.library(sub, after);
            if (s == Strategy::Library) {
                libraryNodes += double(sub.nodes.size());
            } else {
                ++merged;
                brickTasks += double(tasks.size());
                (s == Strategy::Padded ? paddedSubs : memoSubs) += 1;
                if (s == Strategy::Memoized) {
                    compulsory += double(sub.compulsoryAtomics);
                    conflicts += double(sub.conflictAtomics);
                }
                for (TaskId t : tasks)
                    recompute += plan.tasks[static_cast<std::size_t>(t)].recompute ? 1 : 0;
            }
            auto &st = trace.add("lower", "sub-graph " + std::to_string(sub.index),
                                 std::to_string(tasks.size()) + " " + std::string(strategyName(s)) + " tasks",
                                 s == Strategy::Library ? sub.libraryReason
                                                        : "brick " + std::to_string(sub.brick) + ", ends in a barrier");
            st.touched = sub.nodes;
            st.delta = {"sub-graph " + std::to_string(sub.index) + " = " + std::to_string(sub.nodes.size()) +
                        " nodes " + std::string(strategyName(s))};
            after = lower.barrier(std::move(tasks), sub.index);
        }
        result.stats = {{"subgraphs", merged},
                        {"library_nodes", libraryNodes},
                        {"padded_subgraphs", paddedSubs},
                        {"memoized_subgraphs", memoSubs},
                        {"brick_tasks", brickTasks},
                        {"recompute_tasks", recompute},
                        {"compulsory_atomics", compulsory},
                        {"conflict_atomics", conflicts}};
        return result;
    }
};

} // namespace

std::unique_ptr<IScheduler> createBrickdlScheduler()
{
    return std::make_unique<BrickdlScheduler>();
}

void registerBrickdlPlugin(Extensions &extensions)
{
    extensions.schedulers().add(createBrickdlScheduler());
}

} // namespace tessera
