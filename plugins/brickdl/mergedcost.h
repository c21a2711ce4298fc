// The cost of a merged sub-graph (brickdl-icpp24 §3.2, §3.3.4, §4.3): BrickDL
// runs a sub-graph as ONE kernel launched from the host, whose thread blocks
// are the bricks (padded: one per output-brick chain; memoized: one per root
// of the backtracking), each calling the operators' kernels brick by brick
// and run in waves over the SMs; intermediates stay in the on-chip level (the
// A100's L2) between layers. The kernel is costed through the shared model as
// one ShapedLaunch (core/cost/costmodel.h):
//   - FLOPs: every brick computation's share of its node's FLOPs (its region
//     over the node's output), halo recomputation included;
//   - blocks: the thread blocks above; atomics: the memoized tags'
//     compulsory and conflicting atomics (§3.2.2), at the device's atomic
//     rate (§4.3.1);
//   - bytes at main memory (the slowest level): the activations read from
//     outside the sub-graph once, each weight once, each sub-graph output
//     written once; bytes at the on-chip level: every brick's reads and
//     writes of intermediates, and the re-reads of halos of outside
//     activations and of the weights by every further brick (they stay on
//     chip with the sub-graph, §3.3.1).
// A brick computation's share of the kernel (for the plan's tasks) is its
// share of the FLOPs (of the elements where the FLOPs are zero).
// Choices where the paper is vague: a brick's thread block has one thread per
// output element of the largest brick (all channels), in whole warps, at most
// 1024 (CUDA's limit), and no shared memory (the bricks live in global memory
// / L2, §3.1).
#pragma once

#include "core/cost/costmodel.h"
#include "core/ops/ops.h"
#include "plugins/brickdl/memoized.h"
#include "plugins/brickdl/padded.h"
#include "plugins/brickdl/subgraph.h"

#include <string>
#include <vector>

namespace tessera::brickdl {

struct BrickWork {
    NodeId node = kInvalidId;
    const ops::Region *region = nullptr; // of the node's output 0
};

struct MergedKernel {
    ShapedLaunch launch;
    KernelEstimate estimate;
    std::vector<double> shares; // per BrickWork, Σ = 1
};

Expected<MergedKernel> mergedKernel(const Graph &g, const SubGraph &sub, const std::vector<BrickWork> &work,
                                    std::int64_t blocks, double atomics, const CostModel &cost,
                                    const std::string &onChipLevel);
// Padded bricks: every chain's steps, one block per chain, no atomics.
Expected<MergedKernel> paddedKernel(const Graph &g, const SubGraph &sub, const PaddedBricks &bricks,
                                    const CostModel &cost, const std::string &onChipLevel);
// Memoized bricks: every brick once, one block per root, the tags' atomics.
Expected<MergedKernel> memoizedKernel(const Graph &g, const SubGraph &sub, const MemoizedBricks &bricks,
                                      const CostModel &cost, const std::string &onChipLevel);

} // namespace tessera::brickdl
