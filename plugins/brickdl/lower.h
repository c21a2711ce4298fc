// Lowering BrickDL's bricks to the ExecutionPlan (brickdl-icpp24 §3.2,
// §3.3.4: "we invoke each operator's kernel at the fine-grained granularity
// of bricks and reschedule their order of execution"):
//   - one kernel per member node (cuDNN at brick level), one compute task per
//     (node, brick) whose NodeTile is the brick's region of the node output;
//   - padded: per output brick a chain of tasks over the padded regions;
//     tasks for members other than the chain's sink recompute halos others
//     also compute (recompute = true); chains are independent of each other;
//   - memoized: each brick once, in backtracking order, depending on the
//     bricks it reads (dependency chains across layers); its tag updates
//     cost the device's atomicNs each (two compulsory plus conflicts);
//   - library: whole-tensor tasks, one per node with its element-wise
//     epilogue (cuDNN's conv + bias + activation; the paper's fallback);
//   - a barrier after every sub-graph (bricks synchronise only at its end).
// A merged sub-graph is ONE kernel on the device (mergedcost.h: its bricks
// are thread blocks run in waves over the SMs, launched once from the host);
// its tasks share that kernel's estimate by their share of its FLOPs and run
// in order on stream 0, so the plan's timeline adds up to the kernel's time.
// A brick task keeps the SM its thread block runs on (chain / root r on core
// r mod cores). Intermediate bricks get buffers at the on-chip level, live
// from their producer to their last reader, and a memoized sub-graph a
// buffer of tags for its whole run.
#pragma once

#include "core/cost/costmodel.h"
#include "core/hw/device.h"
#include "core/plan/plan.h"
#include "plugins/brickdl/memoized.h"
#include "plugins/brickdl/mergedcost.h"
#include "plugins/brickdl/padded.h"
#include "plugins/brickdl/subgraph.h"

#include <vector>

namespace tessera::brickdl {

class BrickLowering
{
public:
    BrickLowering(ExecutionPlan &plan, const Graph &g, const CostModel &cost, const Device &device,
                  std::string onChipLevel);

    // Each appends a sub-graph's tasks, all depending on `after` (a barrier, or -1).
    // `kernel` is paddedKernel() / memoizedKernel() of the same bricks.
    std::vector<TaskId> padded(const SubGraph &sub, const PaddedBricks &bricks, const MergedKernel &kernel,
                               TaskId after);
    std::vector<TaskId> memoized(const SubGraph &sub, const MemoizedBricks &bricks, const MergedKernel &kernel,
                                 TaskId after);
    std::vector<TaskId> library(const SubGraph &sub, TaskId after);
    TaskId barrier(std::vector<TaskId> deps, std::int32_t stage);

private:
    KernelId kernelOf(NodeId n, Strategy s);
    static TaskCost share(const MergedKernel &kernel, std::size_t i);
    BufferId brickBuffer(NodeId n, const ops::Region &region, std::int64_t elements);

    ExecutionPlan &m_plan;
    const Graph &m_graph;
    const CostModel &m_cost;
    const Device &m_device;
    std::string m_onChip;
    int m_cores = 1;
    std::vector<KernelId> m_kernel; // per node, -1 until created
};

} // namespace tessera::brickdl
