// The activation layout pass of the CPU backend (internal to backends/cpu).
//
// After every task is lowered, chooses per tensor plain row-major storage or
// oneDNN's channel-blocked layout, so that consecutive convolutions, poolings,
// element-wise chains, channel concatenations and paddings pass blocked
// activations to each other with no reorder between them (issue 13: before,
// every blocked convolution reordered its source in and its result out). A
// reorder is left only where blocked meets plain: the graph's inputs and
// outputs (a convolution reorders its own source in or result out), and a
// consumer that needs plain storage (a reference kernel, a matrix product),
// which reads a plain copy made for it (one reorder per such consumer).
#pragma once

#include "backends/cpu/cpuop.h"

#include <atomic>

namespace tessera::cpu {

struct Layouts {
    std::vector<bool> blocked;       // per TensorId
    std::vector<std::int64_t> bytes; // per TensorId: storage in its layout (padded channels)
    int block = 0;                   // LayoutContext::block; 0: no blocked layout on this host
    int blockedTensors = 0;
    // Per op (in the order given): the blocked tensors it reads without
    // having listed them, which it must get as plain copies (withPlainViews).
    std::vector<std::vector<TensorId>> plainViews;
};

// S1: candidates are rank-4 float32 activations (not graph inputs, outputs or
// constants) whose one writer lists them in one of its blockedGroups() and
// whose readers that list them are at least as many as those that do not
// (each of those pays one reorder to a plain copy, where a plain tensor
// would cost the writer's reorder out and every blocked reader's in);
// S2: a group with one plain member makes every member plain, to a fixed
// point; S3: every op is told (useLayouts), and the plain readers of blocked
// tensors are listed (plainViews). `block` is the host's channel
// block (dnnlBlockSize()); 0 or `enabled` false leaves everything plain.
// `cancel` (may be null) is looked at before each op adapts (an op may
// regenerate its code): set, the pass stops with ErrorCode::Cancelled.
Expected<Layouts> assignLayouts(const Graph &g, const std::vector<CpuOp *> &ops, int block, bool enabled, JitCache *jit,
                                const std::atomic<bool> *cancel = nullptr);

} // namespace tessera::cpu
