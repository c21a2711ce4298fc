// PCGC lowering: the final sub-graphs (after static fusion and re-cutting)
// become whole-tensor kernels through the shared PlanBuilder
// (core/sched/planbuilder.h), issued in an order of the sub-graph DAG;
// PlanBuilder costs every task (time and energy) with the shared cost model.
// The sub-graphs are issued wave by wave (parallel.h, §3.4): a serial wave's
// kernels on the default stream, a parallel wave's on its streams between two
// barriers (one before, when kernels precede it since the last barrier, and
// one after), so PlanBuilder costs them as one stage of concurrent streams.
// Each kernel's stage number is its wave.
// A kernel is tagged "pcgc-stable" when every fusion inside it was stable,
// "pcgc-fused" when it holds a cost-evaluated fusion, "pcgc-single" alone.
// Cross-boundary rewrites (crossboundary.h): the folded constants' kernel is
// "pcgc-folded" and costs nothing per inference (computed once, when the plan
// is loaded); a common subexpression becomes Kernel::assigned of the kernel
// holding it, and the kernels are costed without the assigned nodes.
// Assumes: the groups cover every node once and form a DAG (static fusion's
// B2 and the re-cutting's cycle check keep it so).
#pragma once

#include "core/cost/costmodel.h"
#include "core/plan/plan.h"
#include "plugins/pcgc/parallel.h"
#include "plugins/pcgc/partition.h"

namespace tessera::pcgc {

ExecutionPlan lowerPartition(const Graph &g, const CostModel &cost, const Partition &partition,
                             const ParallelPlan &parallel);

} // namespace tessera::pcgc
