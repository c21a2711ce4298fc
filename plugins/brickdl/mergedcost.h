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
//     compulsory and conflicting atomics (§3.2.2), each 87.45 ns of latency
//     on its block's path (§4.3.1), hidden behind the other resident blocks;
//   - device calls: one library call per brick computation (padded: every
//     chain step; memoized: every brick) of a member stored as bricks (a fused
//     point-wise epilogue rides in its producer's call), issued from the device (§3.3.4:
//     "each brick makes a fine-grained invocation to the cuDNN library API
//     ... launched from the device using dynamic parallelism"), each
//     overheads.deviceLaunch of the device's issue capacity, serialised
//     (ShapedLaunch::deviceCalls);
//   - bytes at main memory (the slowest level): the activations read from
//     outside the sub-graph once, each weight once, each sub-graph output
//     written once; bytes at the on-chip level: every brick's reads and
//     writes of intermediates, and the re-reads of halos of outside
//     activations and of the weights by every further brick (they stay on
//     chip with the sub-graph, §3.3.1).
// A brick computation's share of the kernel (for the plan's tasks) is its
// share of the FLOPs (of the elements where the FLOPs are zero).
// Why the per-call term (§4.5.2, Fig. 11; reference bench_bricksize.csv,
// totals in the paper's units, cuDNN 918): memoized 4³ 981 > 32³ 900 > 8³ 871
// > 16³ 785 (the best of all), padded 4³ 955 > 32³ 930 > 8³ 850 > 16³ 810.
// "Bricks of size 4³ perform the worst due to ... increased atomic operations
// for ... memoized bricks"; Fig. 11's stacks put the difference in atomics
// (117 vs 53) and "Other" (534 vs 427: recursion, synchronisation, data
// manipulation), with compute flat (330 vs 305). Without a per-brick term the
// model had memoized 4³ 383.8 ms = 8³ 384.1 < 16³ 391.4 < 32³ 481.7 (all
// compute-bound at the FP32 peak; the atomics' latency hides behind the other
// resident blocks): it missed what grows with the number of bricks (175,616
// per layer at 4³, 2,744 at 16³). Of the candidates — atomics charged
// device-serially (§4.3.1 read literally: N_atomic × T_atomic makes ResNet-50's
// memoized sub-graphs of ~5,000 atomics 12× their modelled time, against Fig.
// 8's 2–6 % atomic share, and makes 2+2+2 beat 3+3 in §4.5.1), tail effects
// (already modelled: 32³'s 343 blocks leave a partial wave), on-chip capacity
// (the live window of a raster order grows with B, so it would favour small
// bricks) and per-element index overhead (≤ 1 % beside 3,456 FLOPs per output
// element) — only a cost per brick call orders them as the paper does. Its
// size is fitted (least squares) to Fig. 11's memoized totals relative to 16³ (1.25, 1.11, 1,
// 1.15 for 4³, 8³, 16³, 32³): 210 ns of device time per call gives 1.26,
// 1.01, 1, 1.23 (devices/nvidia-a100.json overheads.deviceLaunch). Stated
// orderings then hold: memoized 16³ < 8³ < 32³ < 4³ and 16³ memoized best of
// all; padded 4³ the worst padded. Not reproduced: padded 8³ < 32³ (the model
// recomputes Fig. 4's full halos, 2.1× the work at 8³ over three 3³ layers,
// where Fig. 11's padded compute is only 9 % above memoized); and §4.5.1's
// memoized partitions stay within 0.5 % of each other (the same bricks in
// each; Fig. 10 has 6 merged 23 % slower than 3+3). The same term costs the
// CNNs at batch 1, whose 4×4 bricks do little work per call: ResNet-50 4.64
// → 5.41 ms, DarkNet-53 5.04 → 8.79 ms (layer fusion 5.01, 6.27; BENCHMARKS.md
// 2026-11-27). The paper's baseline is tiled cuDNN calls paying the same per
// call; layer fusion here is not.
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
