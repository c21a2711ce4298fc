#include "plugins/brickdl/lower.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace tessera::brickdl {

namespace {

std::string regionText(const ops::Region &r)
{
    std::string s = "[";
    for (std::size_t i = 0; i < r.size(); ++i)
        s += (i ? "," : "") + std::to_string(r[i].begin) + ":" + std::to_string(r[i].end);
    return s + "]";
}

} // namespace

BrickLowering::BrickLowering(ExecutionPlan &plan, const Graph &g, const CostModel &cost, const Device &device,
                             std::string onChipLevel)
    : m_plan(plan), m_graph(g), m_cost(cost), m_device(device), m_onChip(std::move(onChipLevel)),
      m_cores(std::max(1, device.totalCores())), m_kernel(g.nodeCount(), -1)
{}

KernelId BrickLowering::kernelOf(NodeId n, Strategy s)
{
    auto &k = m_kernel[static_cast<std::size_t>(n)];
    if (k < 0)
        k = m_plan.addKernel("k" + std::to_string(m_plan.kernels.size()) + ":" + m_graph.node(n).name, {n},
                             std::string(strategyName(s)));
    return k;
}

TaskCost BrickLowering::share(const MergedKernel &kernel, std::size_t i)
{
    const TaskCost &k = kernel.estimate.cost;
    const double f = kernel.shares[i];
    TaskCost c = k;
    c.timeNs = k.timeNs * f;
    c.computeNs = k.computeNs * f;
    c.memoryNs = k.memoryNs * f;
    c.launchNs = k.launchNs * f;
    c.contentionNs = k.contentionNs * f;
    c.syncNs = k.syncNs * f;
    c.energyJ = k.energyJ * f;
    for (auto &[level, bytes] : c.bytesByLevel)
        bytes = static_cast<std::int64_t>(static_cast<double>(bytes) * f);
    return c;
}

BufferId BrickLowering::brickBuffer(NodeId n, const ops::Region &region, std::int64_t elements)
{
    const Tensor &out = m_graph.tensor(m_graph.node(n).outputs[0]);
    Buffer b;
    b.tensor = m_graph.node(n).outputs[0];
    b.level = m_onChip;
    b.region = region;
    b.bytes = elements * static_cast<std::int64_t>(dtypeSize(out.dtype));
    return m_plan.addBuffer(std::move(b));
}

std::vector<TaskId> BrickLowering::padded(const SubGraph &sub, const PaddedBricks &bricks, const MergedKernel &kernel,
                                          TaskId after)
{
    std::vector<TaskId> tasks;
    std::size_t work = 0; // index into kernel.shares: chains' steps in order
    for (std::size_t ci = 0; ci < bricks.chains.size(); ++ci) {
        const PaddedChain &chain = bricks.chains[ci];
        std::unordered_map<NodeId, std::pair<TaskId, BufferId>> done; // member -> its task and buffer in this chain
        for (const auto &[n, region] : chain.steps) {
            Task t;
            t.kind = TaskKind::Compute;
            t.kernel = kernelOf(n, Strategy::Padded);
            t.tiles = {NodeTile{n, 0, region}};
            if (after >= 0)
                t.deps.push_back(after);
            for (TensorId in : m_graph.node(n).inputs) {
                if (in == kInvalidId)
                    continue;
                const auto it = done.find(m_graph.tensor(in).producer);
                if (it == done.end())
                    continue;
                if (std::find(t.deps.begin(), t.deps.end(), it->second.first) == t.deps.end())
                    t.deps.push_back(it->second.first);
                if (it->second.second >= 0)
                    t.reads.push_back(it->second.second);
            }
            const bool sink = n == chain.sink;
            t.recompute = !sink;
            t.binding.core = static_cast<std::int32_t>(ci % static_cast<std::size_t>(m_cores));
            t.binding.stream = 0;
            t.stage = sub.index;
            BufferId buf = -1;
            if (!sink) {
                buf = brickBuffer(n, region, ops::regionElements(region));
                t.writes.push_back(buf);
            }
            t.cost = share(kernel, work++);
            t.label = "padded " + m_graph.node(n).name + " " + regionText(region) + " for " +
                      m_graph.node(chain.sink).name + " brick " + std::to_string(chain.brick);
            const TaskId id = m_plan.addTask(std::move(t));
            done[n] = {id, buf};
            tasks.push_back(id);
        }
    }
    return tasks;
}

std::vector<TaskId> BrickLowering::memoized(const SubGraph &sub, const MemoizedBricks &bricks,
                                            const MergedKernel &kernel, TaskId after)
{
    std::vector<TaskId> tasks;
    const std::set<NodeId> outputs(sub.outputs.begin(), sub.outputs.end());
    Buffer tags;
    tags.level = m_onChip;
    tags.bytes = bricks.tagBytes;
    const BufferId tagBuffer = m_plan.addBuffer(std::move(tags));
    std::vector<BufferId> buffers(bricks.order.size(), -1);
    for (std::size_t i = 0; i < bricks.order.size(); ++i) {
        const MemoBrick &mb = bricks.order[i];
        Task t;
        t.kind = TaskKind::Compute;
        t.kernel = kernelOf(mb.node, Strategy::Memoized);
        t.tiles = {NodeTile{mb.node, 0, mb.region}};
        if (after >= 0)
            t.deps.push_back(after);
        t.reads.push_back(tagBuffer);
        for (std::int32_t d : mb.deps) {
            const TaskId dep = tasks[static_cast<std::size_t>(d)];
            if (std::find(t.deps.begin(), t.deps.end(), dep) == t.deps.end())
                t.deps.push_back(dep);
            const BufferId b = buffers[static_cast<std::size_t>(d)];
            if (b >= 0 && std::find(t.reads.begin(), t.reads.end(), b) == t.reads.end())
                t.reads.push_back(b);
        }
        t.writes.push_back(tagBuffer);
        const bool output = outputs.count(mb.node) > 0;
        if (!output) {
            const BrickGrid grid = nodeGrid(m_graph, mb.node, sub.brick);
            buffers[i] = brickBuffer(mb.node, mb.region, grid.storedElements());
            t.writes.push_back(buffers[i]);
        }
        t.binding.core = mb.root % m_cores;
        t.binding.stream = 0;
        t.stage = sub.index;
        t.cost = share(kernel, i);
        t.label = "memoized " + m_graph.node(mb.node).name + " brick " + std::to_string(mb.brick) + " " +
                  regionText(mb.region);
        tasks.push_back(m_plan.addTask(std::move(t)));
    }
    return tasks;
}

std::vector<TaskId> BrickLowering::library(const SubGraph &sub, TaskId after)
{
    // cuDNN-style groups: a node joins the previous one's kernel when it is
    // element-wise and that node's only reader (conv + bias + activation).
    std::vector<std::vector<NodeId>> groups;
    for (NodeId n : sub.nodes) {
        const auto preds = m_graph.predecessors(n);
        const bool epilogue =
            !groups.empty() && opClassOf(m_graph.node(n).opType) == OpClass::Elementwise && preds.size() == 1 &&
            preds[0] == groups.back().back() && m_graph.successors(preds[0]).size() == 1 &&
            subGraphOutputs(m_graph, {preds[0]}).size() == 1 &&
            std::find(m_graph.outputs.begin(), m_graph.outputs.end(), m_graph.node(preds[0]).outputs[0]) ==
                m_graph.outputs.end();
        if (epilogue)
            groups.back().push_back(n);
        else
            groups.push_back({n});
    }
    std::vector<TaskId> tasks;
    std::unordered_map<NodeId, TaskId> done;
    for (const auto &group : groups) {
        Task t;
        t.kind = TaskKind::Compute;
        std::string name = "k" + std::to_string(m_plan.kernels.size()) + ":" + m_graph.node(group.front()).name;
        if (group.size() > 1)
            name += " +" + std::to_string(group.size() - 1);
        t.kernel = m_plan.addKernel(std::move(name), group, std::string(strategyName(Strategy::Library)));
        if (after >= 0)
            t.deps.push_back(after);
        for (NodeId n : group)
            for (NodeId p : m_graph.predecessors(n)) {
                const auto it = done.find(p);
                if (it != done.end() && std::find(t.deps.begin(), t.deps.end(), it->second) == t.deps.end())
                    t.deps.push_back(it->second);
            }
        t.stage = sub.index;
        t.cost = m_cost.kernelCost(m_graph, group, {});
        t.label = "library " + m_graph.node(group.front()).name;
        const TaskId id = m_plan.addTask(std::move(t));
        for (NodeId n : group)
            done[n] = id;
        tasks.push_back(id);
    }
    return tasks;
}

TaskId BrickLowering::barrier(std::vector<TaskId> deps, std::int32_t stage)
{
    Task t;
    t.kind = TaskKind::Barrier;
    t.deps = std::move(deps);
    t.stage = stage;
    t.cost.syncNs = t.cost.timeNs = m_cost.syncNs();
    t.label = "end of sub-graph " + std::to_string(stage);
    return m_plan.addTask(std::move(t));
}

} // namespace tessera::brickdl
