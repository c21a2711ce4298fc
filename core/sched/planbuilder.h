// PlanBuilder: the common lowering path for schedulers whose kernels compute
// whole tensors (the baselines, inter-operator stages, PCGC fusion groups). Tiled and
// instance-split schedulers (GraphTurbo, Welder, BrickDL) add their tasks
// directly to an ExecutionPlan.
//
// Dependencies are derived, not declared: a kernel task depends on the tasks
// that produced its external inputs and on the last barrier. Each escaping
// tensor gets a buffer at the kernel's I/O level so liveness is visible.
#pragma once

#include "core/cost/costmodel.h"
#include "core/plan/plan.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace tessera {

class PlanBuilder
{
public:
    PlanBuilder(const Graph &g, const CostModel &cost);

    // A task computing `nodes` (any order; sorted topologically here) as one kernel.
    TaskId addKernel(std::string name, std::vector<NodeId> nodes, const KernelPlacement &placement = {},
                     Binding binding = {}, std::int32_t stage = -1, std::string strategy = {});
    // A barrier after every task issued since the previous barrier; later
    // tasks depend on it. Costs the cost model's syncNs.
    TaskId addBarrier(std::int32_t stage = -1);

    const ExecutionPlan &plan() const { return m_plan; }
    ExecutionPlan finish() { return std::move(m_plan); }

private:
    const Graph &m_graph;
    const CostModel &m_cost;
    ExecutionPlan m_plan;
    std::vector<std::int32_t> m_rank;                  // topological rank per node
    std::unordered_map<TensorId, TaskId> m_producer;   // tensor -> task that wrote it
    std::unordered_map<TensorId, BufferId> m_buffer;   // tensor -> buffer holding it
    TaskId m_lastBarrier = -1;
    std::size_t m_sinceBarrier = 0;                    // first task index after the last barrier
};

} // namespace tessera
