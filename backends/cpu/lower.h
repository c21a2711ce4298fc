// Lowering one compute task of a plan to CpuOps (internal to backends/cpu).
//
// A task computing whole tensors walks its kernel's nodes in order; at each
// node not yet emitted it tries, in turn: a oneDNN anchor with its fused
// epilogue (onednn.cpp), for softmax, layer normalisation and reductions an
// LLVM row kernel (rowops.cpp) and else a oneDNN primitive (dnnlprims.cpp), a
// copy (datamove.cpp), an LLVM element-wise chain (the longest run of
// element-wise nodes linked by single-use, same-shape tensors inside the
// kernel, compiled through the JitCache), and the reference kernel. A view
// (Transpose, constant Slice, the reshapes, Expand) whose only reader joins
// such a chain is not lowered where it stands: the chain reads the view's
// input through the view's strides and base element (viewfold.cpp, no copy
// and no storage for the view's output). Since the task's ops run in list
// order and the view comes before its reader in the kernel, such a view is
// deferred; when no chain takes it (the chain declined, or its reader went
// to another engine) it is lowered as before — a copy, else the reference
// kernel — right before the op of its reader, or before the oneDNN anchor
// whose epilogue reads it (so the anchor can still take that read as a
// post-op operand). A tiled
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

// Fused intermediates of a tiled task (tiled.cpp): tensors a task's ops
// keep only in a tile-sized buffer on the running thread's scratch — the
// region the task computes of them, row-major over the region's extents,
// addressed from the region's origin. The task's ops do not list them in
// their reads or writes: the tensor has no storage in the run's arena
// unless another task writes it whole.
using LocalTensors = std::map<TensorId, ops::Region>;

// Where a tiled op finds a tensor: the run's whole row-major tensor, or a
// fused intermediate's tile-sized buffer (row-major over its region's
// extents, index `origin` at its first element). tiled.cpp makes them.
struct Frame {
    std::vector<std::int64_t> strides;
    std::vector<std::int64_t> origin;
    std::int64_t at(std::size_t d, std::int64_t i) const { return (i - origin[d]) * strides[d]; }
};
struct TaskScratch {
    LocalTensors regions;                    // fused intermediate -> the region its buffer holds
    std::map<TensorId, std::int64_t> offset; // its buffer's byte offset in the task's scratch
    std::int64_t bytes = 0;                  // the task's scratch (buffers share bytes when not live together)
    // lowerTask: the task's ops in parts run one after the other (one per
    // tile when it runs tile by tile), each with its buffers from the
    // scratch's start; `bytes` is the largest part's.
    struct Part {
        std::size_t firstOp = 0;
        std::map<TensorId, std::int64_t> offset;
    };
    std::vector<Part> parts;
};

// Calls f(idx) for each index of an odometer over `extents` (the last dim
// fastest; once, with no dims, for none): a tiled op's walk over the outer
// dims of a box, one call per contiguous run.
template <class F> void forEachIndex(const std::vector<std::int64_t> &extents, F &&f)
{
    std::vector<std::int64_t> idx(extents.size(), 0);
    for (;;) {
        f(idx);
        std::size_t d = idx.size();
        while (d > 0 && ++idx[d - 1] == extents[d - 1])
            idx[--d] = 0;
        if (d == 0)
            return;
    }
}

// `cancel` (may be null) is looked at before each node's op is made (a oneDNN
// primitive, an LLVM chain compile): set, the task's lowering stops with
// ErrorCode::Cancelled.
// With `scratch` (may be null), a tiled task keeps its fused intermediates in
// tile-sized buffers and lists them there (none: a task of whole tensors); a
// task with m > 1 tiles of each tiled node runs tile by tile (m parts: the
// i-th tile of each), so its scratch holds one tile's intermediates at a time.
Expected<std::vector<CpuOpPtr>> lowerTask(const Graph &g, const ExecutionPlan &plan, const Task &task,
                                          const Constants &constants, JitCache *jit, DnnlConstantCache *dnnlCache,
                                          LowerStats &stats, const std::atomic<bool> *cancel = nullptr,
                                          TaskScratch *scratch = nullptr);

// Whether lowerTask() lowers `task` as a tiled task (lowerTiledTask: some
// region short of its whole tensor); false for a task that is no compute task.
Expected<bool> taskIsTiled(const Graph &g, const ExecutionPlan &plan, const Task &task);

// tiled.cpp: a task whose regions are short of whole tensors, as
// core/plan/tiles.h taskWrites lists its writes. `scratch` (may be null):
// in, the candidates for tile-sized buffers in its regions
// (fusedIntermediates); out, those the ops keep there and where.
Expected<std::vector<CpuOpPtr>> lowerTiledTask(const Graph &g, const Kernel &k, const Task &task,
                                               const TaskRegions &regions, const Constants &constants, JitCache *jit,
                                               bool useDnnl, bool useCopy, LowerStats &stats,
                                               const std::atomic<bool> *cancel, TaskScratch *scratch = nullptr);

// fusedintermediates.cpp: the candidates of a tiled task for tile-sized buffers.
LocalTensors fusedIntermediates(const Graph &g, const ExecutionPlan &plan, const Kernel &k, const TaskRegions &regions);

// tiledops.cpp: the write `w` of a reduction, LayerNormalization, Cast, Slice,
// Split, Gather or Pad (tiledOpType) as oneDNN primitives or copies over its
// boxes; no op and `declined` saying why when it cannot (the caller runs the
// reference kernel). `useDnnl`/`useCopy`: the engines TESSERA_CPU_ENGINES allows.
bool tiledOpType(std::string_view opType);
NativeAttempt makeTiledOp(const Graph &g, const Constants &constants, const NodeWrite &w, bool useDnnl, bool useCopy);

// rowops.cpp: Softmax, LogSoftmax, LayerNormalization and the Reduce* ops
// (rowOpType) as an LLVM row kernel (jit.h RowProgram) when the normalised or
// reduced dims are the innermost ones; no op and `declined` saying why
// otherwise (the caller tries oneDNN, then the reference kernel). An
// unavailable JIT is a declined node (and `stats.jitUnavailable`); a failed
// compile an error.
bool rowOpType(std::string_view opType);
Expected<NativeAttempt> makeRowOp(const FusionScope &s, std::size_t pos, JitCache &jit, LowerStats &stats);

// rowops.cpp, tiled: the boxes of a rowOpType node's output as the same row
// kernels, the input in frame `fx` and the output in `fy` (scale and bias
// read whole from the run's tensors): one call per contiguous run of a box's
// rows. A box must cover the normalised dims (a reduction's reduced ones are
// whole by construction), and both frames hold a row contiguously; else, or
// when the node is no row kernel, declined (the caller tries oneDNN).
// Errors as makeRowOp's.
Expected<NativeAttempt> makeRowTileOp(const Graph &g, const Constants &constants, NodeId node,
                                      const std::vector<ops::Region> &boxes, const Frame &fx, const Frame &fy,
                                      JitCache &jit, LowerStats &stats);

// viewfold.cpp: views an element-wise chain of a whole-tensor task reads
// through strides instead of a copy (issue 13, "data movement ... as code
// generated by LLVM"). A view node — Transpose, Slice with constant bounds
// (any steps: a negative one walks its dim backwards from its start), Reshape,
// Flatten, Squeeze, Unsqueeze, Expand — maps each index of its output to one
// element of its input: base + Σ_d i_d · strides[d] (0 along an Expand's
// broadcast dims, < 0 along a reversed Slice's). Views stack (a Reshape of a Transpose of
// a Slice) while each step composes: a reshape merges or splits only dims its
// input walks as one (numpy's no-copy reshape rule; always so for a
// contiguous input). A stack is folded when its last view's output is float32,
// not a graph output, and read by exactly one node, of the same kernel, that
// joins an element-wise chain (joinsChain); every view of the stack likewise
// has its next one as its only reader.
struct ViewFold {
    TensorId source = kInvalidId;       // the tensor the chain reads in the view's stead
    std::int64_t base = 0;              // the element of `source` at the view's index 0
    std::vector<std::int64_t> strides;  // per dim of the view's output, in elements of `source`
    std::vector<std::size_t> positions; // kernel positions of the stack's views, first to last
};
using ViewFolds = std::map<TensorId, ViewFold>; // the last view's output -> its fold
ViewFolds foldableViews(const Graph &g, const Constants &constants, const std::vector<NodeId> &kernelNodes);

// lower.cpp: whether node n can join an element-wise chain (its own output's shape).
bool joinsChain(const Graph &g, const Constants &constants, const Node &n);

// tiledops.cpp: a Slice's first element read and step per dim of its input,
// from constant bounds (empty, or why not). Shared by the tiled Slice and
// the views chains fold.
std::string sliceGeometry(const Graph &g, const Node &n, const Constants &constants, std::vector<std::int64_t> &start,
                          std::vector<std::int64_t> &step);

// lower.cpp: the LLVM element-wise chain starting at kernel position `pos`
// (null when none starts there; its nodes marked done in `s` otherwise).
// With `tiles` (a tiled task: the regions each node writes) the chain writes
// only the regions of its last node; its intermediates are never stored.
// `local` (with `tiles`): operands and the output in tile-sized buffers.
// `views` (whole tensors only): an input of a chain node that is the output
// of a fold whose views are not yet lowered is read from the fold's source
// through its strides and base; the views are marked done and listed in the
// op's nodes and label ("Transpose+Add").
Expected<CpuOpPtr> makeJitOp(FusionScope &s, std::size_t pos, JitCache &jit, LowerStats &stats,
                             const std::map<NodeId, std::vector<ops::Region>> *tiles = nullptr,
                             const LocalTensors *local = nullptr, const ViewFolds *views = nullptr);

} // namespace tessera::cpu
