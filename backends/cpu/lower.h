// Lowering one compute task of a plan to CpuOps (internal to backends/cpu).
//
// A task computing whole tensors walks its kernel's nodes in order; at each
// node not yet emitted it tries, in turn: a oneDNN anchor with its fused
// epilogue (onednn.cpp), an LLVM element-wise chain (the longest run of
// element-wise nodes linked by single-use, same-shape tensors inside the
// kernel, compiled through the JitCache), and the reference kernel. A tiled
// task (some region short of its whole tensor) is lowered by tiled.cpp over
// the regions core/plan/tiles.h works out (the steps the reference backend
// takes): oneDNN and LLVM code over the tiles, the reference kernel for what
// they cannot express.
#pragma once

#include "backends/cpu/cpuop.h"
#include "backends/cpu/jit.h"
#include "core/plan/plan.h"
#include "core/plan/tiles.h"

#include <atomic>
#include <map>
#include <vector>

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

// Whether lowerTask() lowers `task` as a tiled task (lowerTiledTask: some
// region short of its whole tensor); false for a task that is no compute task.
Expected<bool> taskIsTiled(const Graph &g, const ExecutionPlan &plan, const Task &task);

// tiled.cpp: a task whose regions are short of whole tensors, as
// core/plan/tiles.h taskWrites lists its writes.
Expected<std::vector<CpuOpPtr>> lowerTiledTask(const Graph &g, const Kernel &k, const Task &task,
                                               const TaskRegions &regions, const Constants &constants, JitCache *jit,
                                               bool useDnnl, bool useCopy, LowerStats &stats,
                                               const std::atomic<bool> *cancel);

// lower.cpp: the LLVM element-wise chain starting at kernel position `pos`
// (null when none starts there; its nodes marked done in `s` otherwise).
// With `tiles` (a tiled task: the regions each node writes) the chain writes
// only the regions of its last node; its intermediates are never stored.
Expected<CpuOpPtr> makeJitOp(FusionScope &s, std::size_t pos, JitCache &jit, LowerStats &stats,
                             const std::map<NodeId, std::vector<ops::Region>> *tiles = nullptr);

} // namespace tessera::cpu
