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
// A brick task runs as one thread block on one core (GPU: SM): chain /
// thread block r is bound to core r mod cores, and costed by the device cost
// model for its fraction of the node on one core, reading and writing the
// on-chip level unless it touches data from outside the sub-graph or writes
// a sub-graph output (then main memory); a node's weights are read from main
// memory by its first brick task only (they stay on chip with the
// sub-graph), and brick tasks carry no host launch time: BrickDL launches
// them from the device (§3.3.4: dynamic parallelism, CUDA graphs). Intermediate bricks get buffers at
// the on-chip level, live from their producer to their last reader, and a
// memoized sub-graph a buffer of tags for its whole run.
#pragma once

#include "core/cost/costmodel.h"
#include "core/hw/device.h"
#include "core/plan/plan.h"
#include "plugins/brickdl/memoized.h"
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
    std::vector<TaskId> padded(const SubGraph &sub, const PaddedBricks &bricks, TaskId after);
    std::vector<TaskId> memoized(const SubGraph &sub, const MemoizedBricks &bricks, TaskId after);
    std::vector<TaskId> library(const SubGraph &sub, TaskId after);
    TaskId barrier(std::vector<TaskId> deps, std::int32_t stage);

private:
    KernelId kernelOf(NodeId n, Strategy s);
    TaskCost brickCost(NodeId n, const ops::Region &region, bool mainMemory);
    bool readsOutside(const SubGraph &sub, NodeId n) const;
    BufferId brickBuffer(NodeId n, const ops::Region &region, std::int64_t elements);

    ExecutionPlan &m_plan;
    const Graph &m_graph;
    const CostModel &m_cost;
    const Device &m_device;
    std::string m_onChip;
    int m_cores = 1;
    std::vector<KernelId> m_kernel;  // per node, -1 until created
    std::vector<bool> m_weightsRead; // per node: a brick task already read its weights
};

} // namespace tessera::brickdl
