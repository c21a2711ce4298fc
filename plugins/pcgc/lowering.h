// PCGC lowering: the final sub-graphs (after static fusion and re-cutting)
// become whole-tensor kernels through the shared PlanBuilder
// (core/sched/planbuilder.h), issued in an order of the sub-graph DAG;
// PlanBuilder costs every task (time and energy) with the shared cost model.
// A kernel is tagged "pcgc-stable" when every fusion inside it was stable,
// "pcgc-fused" when it holds a cost-evaluated fusion, "pcgc-single" alone.
// Assumes: the groups cover every node once and form a DAG (static fusion's
// B2 and the re-cutting's cycle check keep it so).
#pragma once

#include "core/cost/costmodel.h"
#include "core/plan/plan.h"
#include "plugins/pcgc/partition.h"

namespace tessera::pcgc {

ExecutionPlan lowerPartition(const Graph &g, const CostModel &cost, const Partition &partition);

} // namespace tessera::pcgc
