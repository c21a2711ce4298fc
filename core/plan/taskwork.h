// taskWork: what one compute task of a plan computes and moves, for a
// backend's achieved rates (GFLOP/s, GB/s, the share of the device's peak)
// and for benches that compare a plan's work with the graph's.
//
// FLOPs: every kernel node's (ops::opCost) times the fraction of its output
// the task computes, over the regions taskRegions infers from the task's
// tiles (recomputed halos included, so a plan that recomputes shows more
// than the graph). Bytes: the regions it reads of tensors from outside the
// kernel, and the regions of the kernel's output nodes it writes
// (taskWrites of kernelOutputNodes: intermediates that stay inside the
// kernel are not counted), at each tensor's dtype. A task whose regions cannot be inferred counts
// whole tensors. Barriers and data-movement tasks compute nothing.
#pragma once

#include "core/plan/plan.h"

namespace tessera {

struct TaskWork {
    double flops = 0;
    double bytesRead = 0;
    double bytesWritten = 0;
};

TaskWork taskWork(const Graph &g, const ExecutionPlan &plan, const Task &task);

} // namespace tessera
