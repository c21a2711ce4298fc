#include "plugins/astitch/lowering.h"

#include "core/cost/costmodel.h"
#include "core/plan/tiles.h"
#include "core/sched/trace.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace tessera::astitch {

namespace {

class Lowerer
{
public:
    Lowerer(Context &ctx, const Stitching &st, const Levels &levels)
        : m_ctx(ctx), m_g(ctx.graph), m_dev(ctx.device), m_st(st), m_levels(levels)
    {}

    Expected<ExecutionPlan> run()
    {
        ExecutionPlan plan;
        plan.algorithm = "astitch";
        plan.device = m_dev.id;
        plan.graphName = m_g.name;
        const std::vector<StitchKernel> &ks = m_st.kernels;
        for (const StitchKernel &k : ks)
            plan.addKernel(kernelLabel(m_g, k), k.nodes, k.opaque ? "opaque" : "astitch");
        m_tasks.assign(ks.size(), {});
        m_out.assign(ks.size(), {});
        for (std::size_t i = 0; i < ks.size(); ++i) {
            if (m_ctx.cancelled && m_ctx.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
            for (std::size_t c = 0; c < ks[i].parts.size(); ++c)
                lowerPart(plan, static_cast<int>(i), c);
        }
        auto &step = m_ctx.trace.add("A4: lower to plan (§5.2)", std::to_string(plan.tasks.size()) + " tasks",
                                     std::to_string(plan.kernels.size()) + " kernels, " +
                                         std::to_string(plan.buffers.size()) + " buffers",
                                     "one task per kernel and cluster, inputs read in place at their level");
        step.numbers = {{"tasks", double(plan.tasks.size())}, {"buffers", double(plan.buffers.size())}};
        return plan;
    }

private:
    std::int32_t scopeOf(const MemoryLevel &l, int cluster, int core) const
    {
        switch (l.scope) {
        case MemoryScope::PerUnit:
        case MemoryScope::PerCore: return cluster * m_dev.topology.coresPerCluster + core;
        case MemoryScope::PerCluster: return cluster;
        case MemoryScope::Shared: return -1;
        }
        return -1;
    }

    std::vector<BufferId> addBuffers(ExecutionPlan &plan, TensorId t, const ops::Region &region, std::int64_t bytes,
                                     int level, int cluster)
    {
        const MemoryLevel &l = *m_dev.level(levelName(m_dev, level));
        std::vector<BufferId> ids;
        if (l.scope == MemoryScope::PerCore || l.scope == MemoryScope::PerUnit) {
            const std::int64_t share = (bytes + m_ctx.cores - 1) / m_ctx.cores;
            for (int c = 0; c < m_ctx.cores; ++c)
                ids.push_back(plan.addBuffer({0, t, l.name, scopeOf(l, cluster, c), region, share, -1}));
        } else {
            ids.push_back(plan.addBuffer({0, t, l.name, scopeOf(l, cluster, 0), region, bytes, -1}));
        }
        return ids;
    }

    BufferId inputBuffer(ExecutionPlan &plan, TensorId t)
    {
        auto it = m_inputs.find(t);
        if (it != m_inputs.end())
            return it->second;
        const MemoryLevel &l = *m_dev.level(levelName(m_dev, 2));
        const BufferId b = plan.addBuffer({0, t, l.name, scopeOf(l, 0, 0), {}, m_g.tensor(t).bytes(), -1});
        return m_inputs.emplace(t, b).first->second;
    }

    void lowerPart(ExecutionPlan &plan, int k, std::size_t c)
    {
        const StitchKernel &kernel = m_st.kernels[static_cast<std::size_t>(k)];
        const Part &part = kernel.parts[c];
        const auto parts = static_cast<std::int64_t>(kernel.parts.size());
        Task task;
        task.kind = TaskKind::Compute;
        task.kernel = k;
        task.tiles = part.tiles;
        task.binding = {part.cluster, 0, m_ctx.cores, -1, -1};
        task.stage = k;
        std::set<TaskId> deps;
        std::set<BufferId> reads;
        int inLevel = 0;
        for (const auto &[t, r] : part.read) {
            const Tensor &tt = m_g.tensor(t);
            if (tt.kind == Tensor::Kind::Input) {
                reads.insert(inputBuffer(plan, t));
                inLevel = 2;
                continue;
            }
            if (tt.producer == kInvalidId)
                continue; // constants: weights, read from DDR in the cost
            const int pk = m_st.kernelOf[static_cast<std::size_t>(tt.producer)];
            const StitchKernel &producer = m_st.kernels[static_cast<std::size_t>(pk)];
            if (!m_levels.itemOfOutput.count(t))
                continue; // an output of an unread node of the producer: nothing escapes
            for (std::size_t q = 0; q < producer.parts.size(); ++q) {
                auto w = producer.parts[q].computed.find(t);
                if (w == producer.parts[q].computed.end() || w->second.size() != r.size() ||
                    regionEmpty(regionIntersect(w->second, r)))
                    continue;
                deps.insert(m_tasks[static_cast<std::size_t>(pk)][q]);
                const auto &bufs = m_out[static_cast<std::size_t>(pk)][q].at(t);
                reads.insert(bufs.begin(), bufs.end());
                inLevel = std::max(inLevel, m_levels.levelOf(t));
            }
        }
        task.deps.assign(deps.begin(), deps.end());
        task.reads.assign(reads.begin(), reads.end());
        int outLevel = 0;
        std::map<TensorId, std::vector<BufferId>> written;
        for (TensorId t : kernel.outputs) {
            const int level = m_levels.levelOf(t);
            outLevel = std::max(outLevel, level);
            const ops::Region region = parts > 1 ? part.computed.at(t) : ops::Region{};
            written[t] = addBuffers(plan, t, region, (m_g.tensor(t).bytes() + parts - 1) / parts, level, part.cluster);
            task.writes.insert(task.writes.end(), written[t].begin(), written[t].end());
        }
        const int workLevel = m_levels.workLevel(k);
        const std::int64_t workBytes =
            m_levels.items[static_cast<std::size_t>(m_levels.workItem[static_cast<std::size_t>(k)])].bytes;
        if (workBytes > 0) {
            const auto work = addBuffers(plan, kInvalidId, {}, workBytes, workLevel, part.cluster);
            task.writes.insert(task.writes.end(), work.begin(), work.end());
        }
        auto cost = m_costs.find({k, outLevel, workLevel, inLevel});
        if (cost == m_costs.end()) {
            KernelPlacement placement;
            placement.cores = m_ctx.cores;
            placement.ioLevel = levelName(m_dev, outLevel);
            placement.intermediateLevel = levelName(m_dev, workLevel);
            placement.inputLevel = levelName(m_dev, inLevel);
            placement.workFraction = 1.0 / double(parts);
            cost = m_costs
                       .emplace(std::make_tuple(k, outLevel, workLevel, inLevel),
                                m_ctx.cost.kernelCost(m_g, kernel.nodes, placement))
                       .first;
        }
        task.cost = cost->second;
        task.label = kernelLabel(m_g, kernel) + (parts > 1 ? "@c" + std::to_string(part.cluster) : "") + " → " +
                     levelName(m_dev, outLevel);
        const TaskId id = plan.addTask(std::move(task));
        m_tasks[static_cast<std::size_t>(k)].push_back(id);
        m_out[static_cast<std::size_t>(k)].push_back(std::move(written));
    }

    Context &m_ctx;
    const Graph &m_g;
    const Device &m_dev;
    const Stitching &m_st;
    const Levels &m_levels;
    std::vector<std::vector<TaskId>> m_tasks;                                  // per kernel, per part
    std::vector<std::vector<std::map<TensorId, std::vector<BufferId>>>> m_out; // per kernel, per part
    std::map<TensorId, BufferId> m_inputs;
    std::map<std::tuple<int, int, int, int>, TaskCost> m_costs; // (kernel, out, work, in level)
};

} // namespace

Expected<ExecutionPlan> lowerToPlan(Context &ctx, const Stitching &st, const Levels &levels)
{
    return Lowerer(ctx, st, levels).run();
}

} // namespace tessera::astitch
