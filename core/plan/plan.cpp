#include "core/plan/plan.h"

#include "core/support/assert.h"
#include "core/support/units.h"

#include <algorithm>
#include <map>

namespace tessera {

std::string_view costKindName(CostKind k)
{
    switch (k) {
    case CostKind::Estimated: return "estimated";
    case CostKind::Simulated: return "simulated";
    case CostKind::Measured: return "measured";
    }
    return "?";
}

std::optional<CostKind> costKindFromName(std::string_view name)
{
    for (CostKind k : {CostKind::Estimated, CostKind::Simulated, CostKind::Measured})
        if (costKindName(k) == name)
            return k;
    return std::nullopt;
}

std::string_view taskKindName(TaskKind k)
{
    switch (k) {
    case TaskKind::Compute: return "compute";
    case TaskKind::Copy: return "copy";
    case TaskKind::Concat: return "concat";
    case TaskKind::Split: return "split";
    case TaskKind::Redistribute: return "redistribute";
    case TaskKind::Barrier: return "barrier";
    }
    return "?";
}

KernelId ExecutionPlan::addKernel(std::string name, std::vector<NodeId> nodes, std::string strategy)
{
    Kernel k;
    k.id = static_cast<KernelId>(kernels.size());
    k.name = std::move(name);
    k.nodes = std::move(nodes);
    k.strategy = std::move(strategy);
    kernels.push_back(std::move(k));
    return kernels.back().id;
}

TaskId ExecutionPlan::addTask(Task t)
{
    t.id = static_cast<TaskId>(tasks.size());
    tasks.push_back(std::move(t));
    return tasks.back().id;
}

BufferId ExecutionPlan::addBuffer(Buffer b)
{
    b.id = static_cast<BufferId>(buffers.size());
    buffers.push_back(std::move(b));
    return buffers.back().id;
}

TaskCost sumCosts(const std::vector<const TaskCost *> &costs)
{
    TaskCost sum;
    for (std::size_t i = 0; i < costs.size(); ++i) {
        const TaskCost &c = *costs[i];
        sum.timeNs += c.timeNs;
        sum.computeNs += c.computeNs;
        sum.memoryNs += c.memoryNs;
        sum.launchNs += c.launchNs;
        sum.contentionNs += c.contentionNs;
        sum.syncNs += c.syncNs;
        sum.kind = i == 0 ? c.kind : std::min(sum.kind, c.kind);
        sum.energyJ += c.energyJ;
        for (const auto &[level, bytes] : c.bytesByLevel)
            sum.bytesByLevel[level] += bytes;
    }
    return sum;
}

std::string costPartsText(const TaskCost &c)
{
    const auto part = [](const char *name, double ns) {
        return std::string(name) + " " + units::durationNs(ns < 0.5 ? 0.0 : ns);
    };
    return part("compute", c.computeNs) + ", " + part("memory", c.memoryNs) + ", " + part("launch", c.launchNs) + ", " +
           part("contention", c.contentionNs) + ", " + part("sync", c.syncNs);
}

TaskCost ExecutionPlan::totalCost() const
{
    std::vector<const TaskCost *> costs;
    costs.reserve(tasks.size());
    for (const Task &t : tasks)
        costs.push_back(&t.cost);
    return sumCosts(costs);
}

std::vector<TaskTiming> ExecutionPlan::estimatedTimeline() const
{
    std::vector<TaskTiming> out(tasks.size());
    std::map<std::pair<int, int>, double> laneFree; // (lane kind, id) -> time it is free
    std::map<std::pair<int, int>, std::int32_t> laneIndex;
    for (const Task &t : tasks) {
        double start = 0;
        for (TaskId d : t.deps) {
            TS_ASSERT(d >= 0 && d < t.id);
            start = std::max(start, out[static_cast<std::size_t>(d)].endNs);
        }
        std::vector<std::pair<int, int>> lanes;
        if (t.binding.stream >= 0)
            lanes.push_back({0, t.binding.stream});
        else if (t.binding.core >= 0)
            for (int c = 0; c < std::max(1, t.binding.coreCount); ++c)
                lanes.push_back({1, std::max(0, t.binding.cluster) * 4096 + t.binding.core + c});
        else if (t.binding.cluster >= 0)
            lanes.push_back({2, t.binding.cluster});
        else
            lanes.push_back({3, 0});
        for (const auto &l : lanes)
            start = std::max(start, laneFree[l]);
        const double end = start + t.cost.timeNs;
        for (const auto &l : lanes)
            laneFree[l] = end;
        auto [it, inserted] = laneIndex.try_emplace(lanes.front(), static_cast<std::int32_t>(laneIndex.size()));
        out[static_cast<std::size_t>(t.id)] = {t.id, start, end, it->second};
    }
    return out;
}

double ExecutionPlan::estimatedLatencyNs() const
{
    double end = 0;
    for (const TaskTiming &t : estimatedTimeline())
        end = std::max(end, t.endNs);
    return end;
}

std::vector<std::pair<TaskId, TaskId>> ExecutionPlan::bufferLiveRanges() const
{
    std::vector<std::pair<TaskId, TaskId>> live(buffers.size(), {-1, -1});
    for (const Task &t : tasks)
        for (const auto *list : {&t.reads, &t.writes})
            for (BufferId b : *list) {
                if (b < 0 || static_cast<std::size_t>(b) >= live.size())
                    continue; // the verifier reports unknown buffers
                auto &[first, last] = live[static_cast<std::size_t>(b)];
                if (first < 0)
                    first = t.id;
                last = t.id;
            }
    return live;
}

} // namespace tessera
