// PlanBuilder: the common lowering path for schedulers whose kernels compute
// whole tensors (the baselines, inter-operator stages, PCGC fusion groups). Tiled and
// instance-split schedulers (GraphTurbo, Welder, BrickDL) add their tasks
// directly to an ExecutionPlan.
//
// Costs come from the cost model in two steps: each kernel alone
// (CostModel::estimateKernel), then, at each barrier and at finish(), the
// kernels issued since the previous barrier as one stage, one stream per
// binding.stream (CostModel::estimateStage: launch waits and contention for
// cores). A task's time is then from its stream's previous task's end to its
// own end, so the plan's estimated timeline reproduces the model's stages.
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
    // tasks depend on it. Costs CostModel::barrierAfterNs of that stage.
    TaskId addBarrier(std::int32_t stage = -1);

    // The plan so far; tasks since the last barrier carry their costs alone
    // until the next barrier or finish() costs their stage.
    const ExecutionPlan &plan() const { return m_plan; }
    ExecutionPlan finish();

private:
    std::size_t costStage(); // the pending kernels as one stage; returns its stream count

    std::vector<std::pair<TaskId, KernelEstimate>> m_pending; // kernels since the last barrier
    const Graph &m_graph;
    const CostModel &m_cost;
    ExecutionPlan m_plan;
    std::vector<std::int32_t> m_rank;                // topological rank per node
    std::unordered_map<TensorId, TaskId> m_producer; // tensor -> task that wrote it
    std::unordered_map<TensorId, BufferId> m_buffer; // tensor -> buffer holding it
    TaskId m_lastBarrier = -1;
    std::size_t m_sinceBarrier = 0; // first task index after the last barrier
};

} // namespace tessera
