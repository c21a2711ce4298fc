// A1: stitching (AStitch, ASPLOS'22 §4, as graphturbo-osdi23 §4.2/§5.2
// describes it: "by targeting memory-intensive ops, AStitch also implements
// [buffer stitching] ... our work also considers compute-intensive ops").
//
// Nodes are visited in topological order. A compute-intensive node (op class
// gemm: Conv, ConvTranspose, MatMul, Gemm) and an opaque node form a kernel of
// their own. A memory-intensive node (element-wise, reduction, movement,
// other) joins the kernel of one of its producers that is itself memory-
// intensive, when the kernels stay acyclic (no producer of the node lies in a
// kernel that depends on that kernel — which also keeps the kernel convex);
// the choice is the decision
// "astitch.stitch" keyed by the node: stitch (preferred) or a new kernel.
// Choices where AStitch's GPU design does not carry over (written down here):
//   - one producer kernel is joined per node (the first candidate in input
//     order); kernels are not merged with each other afterwards;
//   - a stitched kernel may have several escaping outputs (AStitch's
//     multi-output stitching), no size cap: what does not fit LB spills (A2).
#pragma once

#include "core/support/status.h"
#include "plugins/astitch/common.h"

namespace tessera::astitch {

struct Stitching {
    std::vector<StitchKernel> kernels; // issue order: topological over kernels, earliest last node first
    std::vector<int> kernelOf;         // per node, -1 for none
    int stitched = 0;                  // nodes joined into a producer's kernel
};

Expected<Stitching> stitchKernels(Context &ctx);

} // namespace tessera::astitch
