// The CPU backend's compiled operation contract (internal to backends/cpu).
//
// compile() turns each compute task of a plan into a list of CpuOps; one CpuOp
// computes one or more graph nodes of the task's kernel (a oneDNN convolution
// with its fused epilogue, an LLVM-compiled element-wise chain, or one node on
// the reference kernel). An op reads and writes whole tensors through a table
// of per-run pointers indexed by TensorId (constants, inputs, the run's arena,
// output buffers); a tensor an op fused away (a convolution's output consumed
// by its epilogue) has no storage at all. Ops are immutable after compile and
// may run concurrently with other ops of the same plan.
//
// The engines each live behind one file: onednn.cpp (dnnl.hpp), jit.cpp
// (LLVM ORC), datamove.cpp (copies), reffallback.cpp (backends/reference
// kernels). No
// third-party header is included from here.
#pragma once

#include "core/ir/graph.h"
#include "core/ops/ops.h"
#include "core/support/status.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::cpu {

// Copy: data movement compiled as block copies (datamove.cpp).
enum class Engine : std::uint8_t { OneDnn, Jit, Copy, Reference };
std::string_view engineName(Engine e); // "onednn", "llvm-jit", "copy", "reference"

class JitCache;

// What the layout pass (layout.h) tells an op after choosing, per tensor,
// plain row-major storage (NCHW) or the activation layout oneDNN's fastest
// convolutions use on this host ("blocked" below, whichever it is):
//   block 16 or 8: nChw16c / nChw8c, [N][ceil(C/b)][H][W][b], channels padded
//                  with zeros to a multiple of b (direct JIT kernels);
//   block 1:       channels-last nhwc, [N][H][W][C] (brgemm kernels; the
//                  innermost block is one pixel's channels).
// An op sees as blocked only the tensors it listed in its blockedGroups();
// a blocked tensor it did not list reaches it as a plain copy (layout.h).
struct LayoutContext {
    const Graph &graph;
    const std::vector<bool> &blocked;  // per TensorId
    int block = 0;                     // 16, 8, 1 as above; 0: the host has none
    JitCache *jit = nullptr;           // for ops that regenerate code (null: none)
    std::vector<TensorId> listed = {}; // the op's blockedGroups() members (set per op)
    bool isBlocked(TensorId t) const
    {
        return t != kInvalidId && blocked[static_cast<std::size_t>(t)] &&
               std::find(listed.begin(), listed.end(), t) != listed.end();
    }
};

class CpuOp
{
public:
    virtual ~CpuOp() = default;
    // Computes the op's outputs; `tensors[t]` is tensor t's storage (null when
    // t has none in this plan). Fails on data-dependent problems only.
    virtual Status run(std::uint8_t *const *tensors) const = 0;

    // Layout hooks (layout.h). blockedGroups(): sets of the tensors this op
    // touches that it can take in the blocked layout of `block` channels, each
    // set all blocked or all plain (a pooling's source and destination); a
    // tensor in no set must stay plain. useLayouts(): adapts the op to the
    // chosen layouts (called once, before any run, whatever was chosen).
    virtual std::vector<std::vector<TensorId>> blockedGroups(const Graph &, int /*block*/) const { return {}; }
    virtual Status useLayouts(const LayoutContext &) { return Status::ok(); }
    // Reorders between layouts that a run of this op executes (metrics).
    virtual int reorders() const { return 0; }

    Engine engine = Engine::Reference;
    std::vector<NodeId> nodes;    // graph nodes it computes (first: the anchor)
    std::vector<TensorId> reads;  // tensors it reads (may include constants)
    std::vector<TensorId> writes; // tensors it writes
    std::string label;            // "Conv+BatchNormalization+Relu"
    std::string impl;             // the engine's implementation, when it has several ("x64:gemm:jit")
    // A reference-kernel op of a type some engine compiles: why this node was
    // not compiled (reported in the run's metrics as "fallback/<op>: <why>").
    std::string declined;
};
using CpuOpPtr = std::unique_ptr<CpuOp>;

// Whether a oneDNN implementation name ("ref:any", "tiled:ref:any") is its
// reference code: correct, but orders of magnitude slower than its JIT
// kernels, so every such op is reported in the run's metrics.
inline bool isReferenceImpl(std::string_view impl)
{
    if (impl.substr(0, 6) == "tiled:")
        impl.remove_prefix(6);
    return impl.substr(0, 3) == "ref";
}

// Constant data of the compiled plan, per TensorId (null for non-constants),
// loaded once at compile time.
struct Constants {
    std::vector<std::shared_ptr<const TensorData>> data;
    const float *f32(TensorId t) const
    {
        const auto &d = data[static_cast<std::size_t>(t)];
        return d ? reinterpret_cast<const float *>(d->view().data()) : nullptr;
    }
};

// onednn.cpp: the constants of oneDNN ops prepared at compile time (weights
// with their BatchNormalization folded in, reordered into the primitive's
// layout; the bias), keyed by their content and the layout, so a re-compile
// (the same plan, or an override's plan) prepares only the anchors whose
// weights, folded parameters or chosen layout changed. Thread-safe; owned by
// the backend.
class DnnlConstantCache
{
public:
    DnnlConstantCache();
    ~DnnlConstantCache();
    DnnlConstantCache(const DnnlConstantCache &) = delete;
    DnnlConstantCache &operator=(const DnnlConstantCache &) = delete;
    int prepared() const; // anchors whose constants were folded/reordered
    int hits() const;     // anchors whose constants came from the cache
    // Drops the entries the compile that just ended did not use (the cache
    // holds one plan's constants, not every plan's ever compiled).
    void keepOnlyLastCompile();

    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Nodes of the task's kernel the fusion pass may absorb into an anchor: whole
// tensors, in the kernel, not yet emitted.
struct FusionScope {
    const Graph &graph;
    const std::vector<NodeId> &kernelNodes; // kernel order
    std::vector<bool> &done;                // per kernel position: already emitted or absorbed
    const Constants &constants;
    DnnlConstantCache *dnnlCache = nullptr; // null: prepare every anchor's constants afresh
    // Whether tensor t is available when an op at the current position runs
    // (a constant, a graph input, produced outside the kernel, or by an
    // already emitted node).
    bool available(TensorId t) const;
    // Kernel position of node n, or -1.
    int position(NodeId n) const;
};

// onednn.cpp: a oneDNN op for the Conv / MatMul / Gemm at kernel position
// `pos`, absorbing what it can of the chain that follows (BatchNormalization
// folded into the weights, activations and binary Add/Mul/Sub as post-ops).
// Null when oneDNN does not take the node (the caller falls back).
CpuOpPtr makeDnnlOp(FusionScope &scope, std::size_t pos);
bool dnnlAnchor(std::string_view opType); // Conv, MatMul, Gemm
// The host's activation layout for blocked tensors (LayoutContext::block:
// 16, 8, 1 for nhwc; 0: none), and whether the layout pass is on (TESSERA_CPU_BLOCKED=0
// turns it off).
int dnnlBlockSize();
bool blockedLayoutsEnabled();

// dnnlprims.cpp: a oneDNN primitive (pooling, softmax, reduction, layer or
// instance normalisation) for the node at kernel position `pos`, whole
// tensors. No op and an empty `declined` when the type has no primitive
// here; no op and `declined` saying why when this node cannot take one.
struct NativeAttempt {
    CpuOpPtr op;
    std::string declined;
};
bool dnnlPrimitiveOpType(std::string_view opType);
NativeAttempt makeDnnlPrimitiveOp(const FusionScope &scope, std::size_t pos);
// dnnlprims.cpp: whether an output of n past the first is read (by a node or
// as a graph output): LayerNormalization's Mean/InvStdDev, MaxPool's Indices.
bool extraOutputUsed(const Graph &g, const Node &n);

// rowops.cpp: the axes a Reduce* node `n` reduces (from its attribute or a
// constant input; all when none), per input dim, and its keepdims; empty, or
// why they cannot be known at compile time (axes computed at run time, no
// axes with noop_with_empty_axes). Shared by the LLVM row kernels and the
// oneDNN reductions (dnnlcommon.cpp).
std::string reductionAxes(const Graph &g, const Node &n, const Constants &constants, std::vector<bool> &reduced,
                          bool &keepDims);

// jit.cpp: see jit.h.

// onednn.cpp: `inner` reading the blocked tensors `views` (which it did not
// list in its blockedGroups) through plain copies: each run reorders them
// into this thread's scratch and hands `inner` a tensor table pointing there.
CpuOpPtr withPlainViews(CpuOpPtr inner, const Graph &g, std::vector<TensorId> views, int block);

// datamove.cpp: node n as block copies when it is data movement they take
// (Concat, Split, Gather, Pad, Transpose, Slice, Cast, Resize, the reshapes); null
// otherwise: the caller falls back. With `jit`, the op generates its copy
// loops with LLVM when the layouts are known (useLayouts; see datamove.cpp).
CpuOpPtr makeCopyOp(const Graph &g, NodeId n, const Constants &constants, JitCache *jit = nullptr);
// datamove.cpp: a Cast between float32/float64 and the integer types over
// the contiguous runs of `boxes` (whole tensors when empty); null and `why`
// set for the types it does not take.
CpuOpPtr makeCastOp(const Graph &g, NodeId n, const std::vector<ops::Region> &boxes, std::string &why);
// datamove.cpp: a float32 Resize/Upsample interpolating along its last two
// dims only, the same taps as the reference kernel, over `boxes` (whole
// tensors when empty); null and `why` set otherwise.
CpuOpPtr makeResizeOp(const Graph &g, NodeId n, const std::vector<ops::Region> &boxes, std::string &why);
// Gather's data row for entry k of `indices` (int64, else int32, storage):
// the index range-checked against the axis `extent` as the reference kernel
// does, then made non-negative; false and `error` set when out of range.
// Shared by the whole-tensor Gather (datamove.cpp) and the tiled one (tiledops.cpp).
inline bool gatherRow(const std::uint8_t *indices, bool index64, std::int64_t k, std::int64_t extent, std::int64_t &row,
                      Status &error)
{
    std::int64_t v = index64 ? reinterpret_cast<const std::int64_t *>(indices)[k]
                             : reinterpret_cast<const std::int32_t *>(indices)[k];
    if (v < -extent || v >= extent) {
        error = Status::invalid("gather: index " + std::to_string(v) + " is out of range for an axis of extent " +
                                std::to_string(extent));
        return false;
    }
    row = v < 0 ? v + extent : v;
    return true;
}
// datamove.cpp: a Slice's first element read and step per dim of input `x`
// from its starts/ends/axes/steps as read (empty axes: the leading dims;
// empty steps: 1), starts clamped as ONNX says (ops::sliceAxis); empty, or why
// not (lengths differ, an axis out of range, a zero step, an element of the
// output `y` read from outside `x`). Shared by the whole-tensor Slice
// (datamove.cpp) and the tiled one (tiledops.cpp).
std::string sliceStartsAndSteps(const Node &n, const Shape &x, const Shape &y, const std::vector<std::int64_t> &starts,
                                const std::vector<std::int64_t> &ends, std::vector<std::int64_t> axes,
                                std::vector<std::int64_t> steps, std::vector<std::int64_t> &start,
                                std::vector<std::int64_t> &step);

// reffallback.cpp: node n on the reference kernel over `regions` of output
// `output` (a whole-tensor op when `regions` is empty: every output, whole).
// Unsupported (naming op and node) when the reference backend cannot run it.
Expected<CpuOpPtr> makeReferenceOp(const Graph &g, NodeId n);
Expected<CpuOpPtr> makeReferenceTileOp(const Graph &g, NodeId n, int output, std::vector<ops::Region> regions);

} // namespace tessera::cpu
