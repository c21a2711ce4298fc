// The activation layout pass of the CPU backend (internal to backends/cpu).
//
// After every task is lowered, chooses per tensor plain row-major storage or
// oneDNN's channel-blocked layout, so that consecutive convolutions, poolings,
// element-wise chains and channel concatenations pass blocked activations to
// each other with no reorder between them (issue 13: before, every blocked
// convolution reordered its source in and its result out). A reorder is left
// only where a blocked producer meets a consumer that needs plain storage (a
// reference kernel, a matrix product, a graph output): the producing
// convolution then writes plain through its own reorder, once.
#pragma once

#include "backends/cpu/cpuop.h"

namespace tessera::cpu {

struct Layouts {
    std::vector<bool> blocked;       // per TensorId
    std::vector<std::int64_t> bytes; // per TensorId: storage in its layout (padded channels)
    int block = 0;                   // LayoutContext::block; 0: no blocked layout on this host
    int blockedTensors = 0;
};

// S1: candidates are rank-4 float32 activations (not graph inputs, outputs or
// constants) that every op touching them lists in one of its blockedGroups();
// S2: a group with one plain member makes every member plain, to a fixed
// point; S3: every op is told (useLayouts). `block` is the host's channel
// block (dnnlBlockSize()); 0 or `enabled` false leaves everything plain.
Expected<Layouts> assignLayouts(const Graph &g, const std::vector<CpuOp *> &ops, int block, bool enabled,
                                JitCache *jit);

} // namespace tessera::cpu
