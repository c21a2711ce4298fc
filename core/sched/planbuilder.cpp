#include "core/sched/planbuilder.h"

#include "core/ir/analysis.h"
#include "core/support/assert.h"

#include <algorithm>
#include <unordered_set>

namespace tessera {

PlanBuilder::PlanBuilder(const Graph &g, const CostModel &cost) : m_graph(g), m_cost(cost)
{
    auto order = topologicalOrder(g);
    TS_ASSERT_MSG(order.isOk(), "PlanBuilder needs an acyclic graph");
    m_rank = topologicalRanks(*order);
    m_plan.graphName = g.name;
}

TaskId PlanBuilder::addKernel(std::string name, std::vector<NodeId> nodes, const KernelPlacement &placement,
                              Binding binding, std::int32_t stage, std::string strategy)
{
    TS_ASSERT(!nodes.empty());
    std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
        return m_rank[static_cast<std::size_t>(a)] < m_rank[static_cast<std::size_t>(b)];
    });
    const std::unordered_set<NodeId> inKernel(nodes.begin(), nodes.end());

    Task task;
    task.kind = TaskKind::Compute;
    task.binding = binding;
    task.stage = stage;
    task.label = name;
    KernelEstimate estimate = m_cost.estimateKernel(m_graph, nodes, placement);
    task.cost = estimate.cost;
    if (m_lastBarrier >= 0)
        task.deps.push_back(m_lastBarrier);
    for (NodeId n : nodes)
        for (TensorId t : m_graph.node(n).inputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tt = m_graph.tensor(t);
            if (tt.producer == kInvalidId || inKernel.count(tt.producer))
                continue;
            auto it = m_producer.find(t);
            TS_ASSERT_MSG(it != m_producer.end(), "kernel issued before the producer of one of its inputs");
            task.deps.push_back(it->second);
            if (auto b = m_buffer.find(t); b != m_buffer.end())
                task.reads.push_back(b->second);
        }
    std::sort(task.deps.begin(), task.deps.end());
    task.deps.erase(std::unique(task.deps.begin(), task.deps.end()), task.deps.end());
    std::sort(task.reads.begin(), task.reads.end());
    task.reads.erase(std::unique(task.reads.begin(), task.reads.end()), task.reads.end());

    task.kernel = m_plan.addKernel(std::move(name), nodes, std::move(strategy));
    const TaskId id = static_cast<TaskId>(m_plan.tasks.size());
    const std::string ioLevel = placement.ioLevel;
    for (NodeId n : nodes)
        for (TensorId t : m_graph.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            m_producer[t] = id;
            const Tensor &tt = m_graph.tensor(t);
            const bool escapes =
                std::any_of(tt.consumers.begin(), tt.consumers.end(), [&](NodeId c) { return !inKernel.count(c); }) ||
                std::find(m_graph.outputs.begin(), m_graph.outputs.end(), t) != m_graph.outputs.end();
            if (!escapes)
                continue;
            Buffer b;
            b.tensor = t;
            b.level = ioLevel;
            b.bytes = tt.bytes();
            const BufferId bid = m_plan.addBuffer(std::move(b));
            m_buffer[t] = bid;
            task.writes.push_back(bid);
        }
    m_pending.emplace_back(id, std::move(estimate));
    return m_plan.addTask(std::move(task));
}

std::size_t PlanBuilder::costStage()
{
    if (m_pending.empty())
        return 0;
    std::vector<std::int32_t> streamIds; // in order of first use
    std::vector<std::vector<const KernelEstimate *>> streams;
    std::vector<std::vector<TaskId>> tasks;
    for (const auto &[id, estimate] : m_pending) {
        const std::int32_t stream = m_plan.tasks[static_cast<std::size_t>(id)].binding.stream;
        auto it = std::find(streamIds.begin(), streamIds.end(), stream);
        const auto s = static_cast<std::size_t>(it - streamIds.begin());
        if (it == streamIds.end()) {
            streamIds.push_back(stream);
            streams.emplace_back();
            tasks.emplace_back();
        }
        streams[s].push_back(&estimate);
        tasks[s].push_back(id);
    }
    const StageEstimate stage = m_cost.estimateStage(streams);
    for (std::size_t s = 0; s < tasks.size(); ++s)
        for (std::size_t k = 0; k < tasks[s].size(); ++k)
            m_plan.tasks[static_cast<std::size_t>(tasks[s][k])].cost = stage.costs[s][k];
    m_pending.clear();
    return streams.size();
}

ExecutionPlan PlanBuilder::finish()
{
    costStage();
    return std::move(m_plan);
}

TaskId PlanBuilder::addBarrier(std::int32_t stage)
{
    const std::size_t streams = costStage();
    Task t;
    t.kind = TaskKind::Barrier;
    t.stage = stage;
    t.label = "barrier";
    t.cost.timeNs = t.cost.syncNs = m_cost.barrierAfterNs(streams);
    for (std::size_t i = m_sinceBarrier; i < m_plan.tasks.size(); ++i)
        t.deps.push_back(static_cast<TaskId>(i));
    if (t.deps.empty() && m_lastBarrier >= 0)
        t.deps.push_back(m_lastBarrier);
    const TaskId id = m_plan.addTask(std::move(t));
    m_lastBarrier = id;
    m_sinceBarrier = m_plan.tasks.size();
    return id;
}

} // namespace tessera
