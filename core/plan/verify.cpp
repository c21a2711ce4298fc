#include "core/plan/verify.h"

#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/plan/ancestry.h"
#include "core/plan/regionindex.h"
#include "core/plan/taskmaps.h"
#include "core/plan/tiles.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <tuple>
#include <unordered_map>

namespace tessera {

namespace {

Location taskLoc(const ExecutionPlan &p, TaskId t)
{
    return {.node = "task " + std::to_string(t) +
                    (p.tasks[static_cast<std::size_t>(t)].label.empty()
                         ? std::string()
                         : " (" + p.tasks[static_cast<std::size_t>(t)].label + ")")};
}

// Ancestor sets of tasks (transitive deps): dense bitsets (ancestry.h) up
// to 16k tasks (32 MB), DFS for larger plans. Plans are verified once per run.
class TaskAncestry
{
public:
    explicit TaskAncestry(const ExecutionPlan &p) : m_plan(p)
    {
        m_n = p.tasks.size();
        if (m_n <= kMaxDense)
            m_dense.emplace(m_n, [&](std::size_t t) { return std::span<const TaskId>(p.tasks[t].deps); });
    }
    bool dependsOn(TaskId t, TaskId ancestor) const
    {
        if (t == ancestor)
            return true;
        if (m_dense)
            return m_dense->isAncestor(static_cast<std::size_t>(ancestor), static_cast<std::size_t>(t));
        // DFS over the tasks between the two (deps point to earlier tasks); `m_seen` holds the
        // query's stamp for visited tasks, so a query costs what it visits, not the plan's size.
        if (m_seen.empty())
            m_seen.assign(m_n, 0);
        if (++m_stamp == 0) {
            std::fill(m_seen.begin(), m_seen.end(), 0);
            m_stamp = 1;
        }
        m_stack.assign(1, t);
        while (!m_stack.empty()) {
            const TaskId x = m_stack.back();
            m_stack.pop_back();
            for (TaskId d : m_plan.tasks[static_cast<std::size_t>(x)].deps) {
                if (d == ancestor)
                    return true;
                if (d > ancestor && m_seen[static_cast<std::size_t>(d)] != m_stamp) {
                    m_seen[static_cast<std::size_t>(d)] = m_stamp;
                    m_stack.push_back(d);
                }
            }
        }
        return false;
    }

private:
    static constexpr std::size_t kMaxDense = 16384;
    const ExecutionPlan &m_plan;
    std::size_t m_n = 0;
    std::optional<AncestorBits> m_dense;
    mutable std::vector<std::uint32_t> m_seen;
    mutable std::uint32_t m_stamp = 0;
    mutable std::vector<TaskId> m_stack;
};

} // namespace

Status verifyPlan(const ExecutionPlan &plan, const Graph &g, const Device *device)
{
    return verifyPlan(plan, g, device, nullptr);
}

Status verifyPlan(const ExecutionPlan &plan, const Graph &g, const Device *device, const std::atomic<bool> *cancel)
{
    const auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    const auto cancelledStatus = [] { return Status::error(ErrorCode::Cancelled, "verification was cancelled"); };
    const auto nodeCount = static_cast<NodeId>(g.nodeCount());

    // S1: kernels name existing nodes in a topological order.
    auto topo = topologicalOrder(g);
    if (!topo)
        return topo.status();
    std::vector<std::int32_t> rank(g.nodeCount());
    for (std::size_t i = 0; i < topo->size(); ++i)
        rank[static_cast<std::size_t>((*topo)[i])] = static_cast<std::int32_t>(i);
    for (const Kernel &k : plan.kernels) {
        if (k.nodes.empty())
            return Status::invalid("kernel " + std::to_string(k.id) + " '" + k.name + "' has no nodes");
        for (std::size_t i = 0; i < k.nodes.size(); ++i) {
            if (k.nodes[i] < 0 || k.nodes[i] >= nodeCount)
                return Status::invalid("kernel '" + k.name + "' names node id " + std::to_string(k.nodes[i]) +
                                       " which does not exist");
            if (i && rank[static_cast<std::size_t>(k.nodes[i])] <= rank[static_cast<std::size_t>(k.nodes[i - 1])])
                return Status::invalid("kernel '" + k.name + "' does not list its nodes in topological order",
                                       {.node = g.node(k.nodes[i]).name});
        }
    }

    if (cancelled())
        return cancelledStatus();
    // S2: tasks reference valid kernels, buffers, earlier tasks and bindings.
    std::vector<bool> kernelRun(plan.kernels.size(), false);
    for (const Task &t : plan.tasks) {
        if (t.id != static_cast<TaskId>(&t - plan.tasks.data()))
            return Status::invalid("task ids must equal their position", taskLoc(plan, t.id));
        for (TaskId d : t.deps)
            if (d < 0 || d >= t.id)
                return Status::invalid("depends on task " + std::to_string(d) + ", which is not issued before it",
                                       taskLoc(plan, t.id));
        for (BufferId b : t.reads)
            if (b < 0 || static_cast<std::size_t>(b) >= plan.buffers.size())
                return Status::invalid("reads buffer " + std::to_string(b) + " which does not exist",
                                       taskLoc(plan, t.id));
        for (BufferId b : t.writes)
            if (b < 0 || static_cast<std::size_t>(b) >= plan.buffers.size())
                return Status::invalid("writes buffer " + std::to_string(b) + " which does not exist",
                                       taskLoc(plan, t.id));
        if (t.kind == TaskKind::Compute) {
            if (t.kernel < 0 || static_cast<std::size_t>(t.kernel) >= plan.kernels.size())
                return Status::invalid("computes kernel " + std::to_string(t.kernel) + " which does not exist",
                                       taskLoc(plan, t.id));
            kernelRun[static_cast<std::size_t>(t.kernel)] = true;
        }
        if (device) {
            const Binding &b = t.binding;
            if (b.cluster >= device->topology.clusters)
                return Status::invalid("bound to cluster " + std::to_string(b.cluster) + " but " + device->id +
                                           " has " + std::to_string(device->topology.clusters),
                                       taskLoc(plan, t.id));
            const int cores = b.cluster >= 0 ? device->topology.coresPerCluster : device->totalCores();
            if (b.core >= 0 && (b.coreCount < 1 || b.core + b.coreCount > cores))
                return Status::invalid("bound to cores [" + std::to_string(b.core) + ", " +
                                           std::to_string(b.core + b.coreCount) + ") but only " +
                                           std::to_string(cores) + " exist",
                                       taskLoc(plan, t.id));
            if (b.unit >= static_cast<int>(device->units.size()))
                return Status::invalid("bound to compute unit " + std::to_string(b.unit) + " which does not exist",
                                       taskLoc(plan, t.id));
        }
    }
    for (std::size_t k = 0; k < plan.kernels.size(); ++k)
        if (!kernelRun[k])
            return Status::invalid("kernel '" + plan.kernels[k].name + "' is never run by a task");

    // S3: coverage. Kernel-internal nodes are computed by their kernel; a
    // kernel's output nodes must have their outputs covered exactly once by
    // non-recompute tiles.
    std::vector<TaskRegions> regions(plan.tasks.size());
    std::vector<bool> computed(g.nodeCount(), false);
    // producers[t] = (task, region) pairs that write tensor t.
    std::unordered_map<TensorId, std::vector<std::pair<TaskId, ops::Region>>> producers;
    std::unordered_map<TensorId, std::vector<ops::Region>> primaryTiles;
    // Per kernel: its output nodes and index maps (type inference once per node).
    std::vector<std::unique_ptr<KernelIndexMaps>> kernelMaps(plan.kernels.size());
    for (const Task &t : plan.tasks)
        if (t.kind == TaskKind::Compute && !kernelMaps[static_cast<std::size_t>(t.kernel)])
            kernelMaps[static_cast<std::size_t>(t.kernel)] =
                std::make_unique<KernelIndexMaps>(g, plan.kernels[static_cast<std::size_t>(t.kernel)]);
    // The regions of every compute task, each a pure function of its task: on up to 4 threads
    // for a large plan (a scheduler's replay re-verifies thousands of tasks). What is reported
    // below, in task order, is the same for any number of threads.
    std::vector<Status> regionErrors(plan.tasks.size());
    {
        std::atomic<std::size_t> next{0};
        const auto work = [&] {
            for (std::size_t i = next++; i < plan.tasks.size(); i = next++) {
                const Task &t = plan.tasks[i];
                if (t.kind != TaskKind::Compute || cancelled())
                    continue;
                const auto kernel = static_cast<std::size_t>(t.kernel);
                auto r = taskRegions(g, plan.kernels[kernel], t.tiles, kernelMaps[kernel].get());
                if (r)
                    regions[i] = std::move(*r);
                else
                    regionErrors[i] = r.status();
            }
        };
        constexpr std::size_t kTasksPerThread = 512;
        const std::size_t threads = std::min<std::size_t>(
            {4, std::max(1u, std::thread::hardware_concurrency()), plan.tasks.size() / kTasksPerThread + 1});
        std::vector<std::thread> pool;
        for (std::size_t i = 1; i < threads; ++i)
            pool.emplace_back(work);
        work();
        for (std::thread &t : pool)
            t.join();
    }
    for (const Task &t : plan.tasks) {
        if (cancelled())
            return cancelledStatus();
        if (t.kind != TaskKind::Compute)
            continue;
        const Kernel &k = plan.kernels[static_cast<std::size_t>(t.kernel)];
        const auto &maps = kernelMaps[static_cast<std::size_t>(t.kernel)];
        if (!regionErrors[static_cast<std::size_t>(t.id)].isOk())
            return regionErrors[static_cast<std::size_t>(t.id)].at(taskLoc(plan, t.id));
        const TaskRegions *r = &regions[static_cast<std::size_t>(t.id)];
        for (NodeId n : k.nodes)
            computed[static_cast<std::size_t>(n)] = true;
        const auto &outs = maps->outputNodes();
        for (const auto &[tensor, region] : r->computed) {
            producers[tensor].push_back({t.id, region});
            const NodeId p = g.tensor(tensor).producer;
            if (!t.recompute && std::find(outs.begin(), outs.end(), p) != outs.end())
                primaryTiles[tensor].push_back(region);
        }
    }
    for (NodeId n = 0; n < nodeCount; ++n) {
        const Node &node = g.node(n);
        if (!computed[static_cast<std::size_t>(n)])
            return Status::invalid("node is not computed by any task", {.node = node.name});
    }
    for (const auto &[tensor, tiles] : primaryTiles) {
        if (cancelled())
            return cancelledStatus();
        const Tensor &tt = g.tensor(tensor);
        const std::int64_t total = tt.elements();
        std::int64_t sum = 0;
        std::vector<const ops::Region *> items;
        items.reserve(tiles.size());
        for (const ops::Region &r : tiles)
            items.push_back(&r);
        const RegionIndex index(items);
        for (std::size_t i = 0; i < tiles.size(); ++i) {
            sum += ops::regionElements(tiles[i]);
            bool twice = false;
            index.forOverlapping(tiles[i], [&](std::size_t j) { twice = twice || j != i; });
            if (twice)
                return Status::invalid("output computed twice by tasks not marked recompute",
                                       {.node = g.node(tt.producer).name, .tensor = tt.name});
        }
        if (sum != total)
            return Status::invalid("tiles cover " + std::to_string(sum) + " of " + std::to_string(total) +
                                       " output elements",
                                   {.node = g.node(tt.producer).name, .tensor = tt.name});
    }

    // S3b: assignments (common subexpressions). An assigned node is one of its
    // kernel's nodes, computes what its source computes (sameComputation), and
    // its source is computed (not itself assigned) before it: earlier in the
    // same kernel, or whole by a task every task of the kernel depends on.
    TaskAncestry ancestry(plan);
    std::vector<bool> assignedNode(g.nodeCount(), false);
    for (const Kernel &k : plan.kernels)
        for (const NodeAssignment &a : k.assigned)
            if (a.node >= 0 && a.node < nodeCount)
                assignedNode[static_cast<std::size_t>(a.node)] = true;
    for (const Kernel &k : plan.kernels)
        for (const NodeAssignment &a : k.assigned) {
            const auto at = std::find(k.nodes.begin(), k.nodes.end(), a.node);
            if (at == k.nodes.end())
                return Status::invalid("kernel '" + k.name + "' assigns node id " + std::to_string(a.node) +
                                       " which it does not hold");
            const Node &node = g.node(a.node);
            if (a.from < 0 || a.from >= nodeCount || a.from == a.node)
                return Status::invalid("kernel '" + k.name + "' assigns from node id " + std::to_string(a.from) +
                                           ", which is not another node",
                                       {.node = node.name});
            const Node &from = g.node(a.from);
            if (!sameComputation(g, a.from, a.node))
                return Status::invalid("assigned from '" + from.name + "', which does not compute the same values",
                                       {.node = node.name});
            if (assignedNode[static_cast<std::size_t>(a.from)])
                return Status::invalid("assigned from '" + from.name + "', which is itself assigned, not computed",
                                       {.node = node.name});
            const auto fromAt = std::find(k.nodes.begin(), at, a.from);
            if (fromAt != at)
                continue; // computed earlier by the same kernel
            for (const Task &t : plan.tasks) {
                if (t.kind != TaskKind::Compute || t.kernel != k.id)
                    continue;
                for (TensorId out : from.outputs) {
                    if (out == kInvalidId)
                        continue;
                    const ops::Region whole = ops::fullRegion(g.tensor(out).shape);
                    auto it = producers.find(out);
                    const bool ready =
                        it != producers.end() && std::any_of(it->second.begin(), it->second.end(), [&](const auto &q) {
                            return q.first < t.id && ancestry.dependsOn(t.id, q.first) &&
                                   regionContains(q.second, whole);
                        });
                    if (!ready)
                        return Status::invalid("assigns '" + node.name + "' from '" + from.name +
                                                   "' without depending on a task that computes it whole",
                                               taskLoc(plan, t.id));
                }
            }
        }

    // S4: dependencies. Every region a task reads from another kernel's output
    // must be produced by tasks it (transitively) depends on.
    std::unordered_map<TensorId, std::vector<const ops::Region *>> producerRegions;
    std::unordered_map<TensorId, RegionIndex> producerIndex;
    for (const auto &[tensor, list] : producers) {
        auto &items = producerRegions[tensor];
        for (const auto &pr : list)
            items.push_back(&pr.second);
    }
    for (const auto &[tensor, items] : producerRegions)
        producerIndex.try_emplace(tensor, items);
    std::vector<std::size_t> near;
    for (const Task &t : plan.tasks) {
        if (cancelled())
            return cancelledStatus();
        if (t.kind != TaskKind::Compute)
            continue;
        for (const auto &[tensor, region] : regions[static_cast<std::size_t>(t.id)].read) {
            const Tensor &src = g.tensor(tensor);
            if (src.producer == kInvalidId || regionEmpty(region))
                continue; // graph input or constant
            auto it = producers.find(tensor);
            if (it == producers.end())
                return Status::invalid("reads a tensor no task produces",
                                       {.node = taskLoc(plan, t.id).node, .tensor = src.name});
            bool covered = false;
            // The producers whose regions overlap the read (an alternative below contains part of it,
            // so it overlaps it too).
            near.clear();
            producerIndex.at(tensor).forOverlapping(region, [&](std::size_t i) { near.push_back(i); });
            std::sort(near.begin(), near.end());
            for (std::size_t i : near) {
                const auto &[p, pr] = it->second[i];
                if (p >= t.id || !ancestry.dependsOn(t.id, p)) {
                    // Another task computing the same region that t does depend on is fine (recompute).
                    // (The intersection is taken out here: clang 14 cannot capture structured bindings.)
                    const auto needed = regionIntersect(pr, region);
                    const bool alternative = std::any_of(near.begin(), near.end(), [&](std::size_t j) {
                        const auto &q = it->second[j];
                        return q.first < t.id && ancestry.dependsOn(t.id, q.first) && regionContains(q.second, needed);
                    });
                    if (!alternative)
                        return Status::invalid("reads " + src.name + " produced by task " + std::to_string(p) +
                                                   " without depending on it",
                                               taskLoc(plan, t.id));
                }
                covered = true;
            }
            if (!covered)
                return Status::invalid("reads a region of " + src.name + " that no task produces", taskLoc(plan, t.id));
        }
    }

    if (cancelled())
        return cancelledStatus();
    // S5: capacities. A buffer is live from the first to the last task that
    // touches it; per level and scope instance the live bytes must fit.
    if (device && !plan.buffers.empty()) {
        const std::vector<std::pair<TaskId, TaskId>> live = plan.bufferLiveRanges();
        std::map<std::pair<std::string, int>, std::vector<std::pair<TaskId, std::int64_t>>> events;
        for (const Buffer &b : plan.buffers) {
            // An empty level name means the device's slowest level (main memory).
            const MemoryLevel *level = b.level.empty() ? &device->levels.back() : device->level(b.level);
            if (!level)
                return Status::invalid("buffer " + std::to_string(b.id) + " is placed in level '" + b.level +
                                       "' which " + device->id + " does not have");
            if (b.bytes < 0)
                return Status::invalid("buffer " + std::to_string(b.id) + " has negative size");
            const auto [first, last] = live[static_cast<std::size_t>(b.id)];
            if (first < 0)
                continue;
            auto &ev = events[{level->name, b.scopeIndex}];
            ev.push_back({first * 2, b.bytes});     // allocated before `first` runs
            ev.push_back({last * 2 + 1, -b.bytes}); // freed after `last`
        }
        for (auto &[key, ev] : events) {
            std::sort(ev.begin(), ev.end());
            const MemoryLevel *level = device->level(key.first);
            std::int64_t liveBytes = 0;
            for (const auto &[when, delta] : ev) {
                liveBytes += delta;
                if (liveBytes > level->capacityBytes)
                    return Status::invalid(
                        "level " + key.first + (key.second >= 0 ? "[" + std::to_string(key.second) + "]" : "") +
                            " holds " + std::to_string(liveBytes) + " bytes at task " + std::to_string(when / 2) +
                            ", capacity " + std::to_string(level->capacityBytes),
                        taskLoc(plan, when / 2));
            }
        }
    }
    return Status::ok();
}

} // namespace tessera
