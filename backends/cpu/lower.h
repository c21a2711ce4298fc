// Lowering one compute task of a plan to CpuOps (internal to backends/cpu).
//
// A task computing whole tensors walks its kernel's nodes in order; at each
// node not yet emitted it tries, in turn: a oneDNN anchor with its fused
// epilogue (onednn.cpp), an LLVM element-wise chain (the longest run of
// element-wise nodes linked by single-use, same-shape tensors inside the
// kernel, compiled through the JitCache), and the reference kernel. A tiled
// task (some region short of its whole tensor) runs its nodes on the
// reference kernels over the regions core/plan/tiles.h works out — the same
// steps the reference backend takes.
#pragma once

#include "backends/cpu/cpuop.h"
#include "backends/cpu/jit.h"
#include "core/plan/plan.h"

#include <atomic>

namespace tessera::cpu {

struct LowerStats {
    int jitChains = 0;          // element-wise chains handed to the JitCache
    std::string jitUnavailable; // why the JIT could not be used (empty: it could)
};

// `cancel` (may be null) is looked at before each node's op is made (a oneDNN
// primitive, an LLVM chain compile): set, the task's lowering stops with
// ErrorCode::Cancelled.
Expected<std::vector<CpuOpPtr>> lowerTask(const Graph &g, const ExecutionPlan &plan, const Task &task,
                                          const Constants &constants, JitCache *jit, DnnlConstantCache *dnnlCache,
                                          LowerStats &stats, const std::atomic<bool> *cancel = nullptr);

} // namespace tessera::cpu
