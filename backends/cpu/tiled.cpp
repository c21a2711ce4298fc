// Lowering a tiled task to CpuOps: a task whose regions are short of whole
// tensors (GraphTurbo instances, Welder tiles, BrickDL bricks, any scheduler
// that sets Task::tiles) runs compiled code over its tiles.
//
// The task is executed as core/plan/tiles.h taskWrites lists it — per node
// output, the boxes it writes, in kernel order, halos included — and each
// write becomes, in turn:
//   S0  Softmax/LogSoftmax (a box covering the normalised axis, the
//       innermost), LayerNormalization (a box covering the normalised dims)
//       and the Reduce* ops over trailing axes: the whole tensor's LLVM row
//       kernel per contiguous run of the box's rows, addressed through
//       Frames (rowops.cpp makeRowTileOp); what it declines goes on to S1 or
//       tiledops.cpp.
//   S1  Conv, MaxPool/AveragePool (and their Global forms), MatMul, Gemm,
//       Softmax/LogSoftmax (a box covering the normalised axis) with one
//       output: one oneDNN primitive per box (makeDnnlTileOp) on views of
//       the run's row-major tensors (strided memory descriptors with an
//       element offset). A convolution or pooling box reads the input window
//       its outputs need, the halo included; only the part of the window
//       outside the tensor is padding (the node's own padding at the true
//       borders, none inside). The window is reordered into the layout the
//       primitive prefers (a tile-sized buffer on the thread's scratch) and
//       the result reordered into the box. A channel box of a grouped
//       convolution must cover whole groups; constant weights are sliced to
//       the box's output channels and prepared once per slice (shared by the
//       plan's tasks). The activations (and, after a Conv, a constant
//       BatchNormalization) that follow over the same boxes are post-ops
//       (Epilogue). Concat and Transpose: oneDNN reorders from views of the
//       inputs to the box (makeReorderTileOp, the "copy" engine); the
//       reshapes: the box's contiguous runs copied (makeFlatCopyTileOp).
//   S2  an element-wise chain (lower.cpp makeJitOp with the task's writes):
//       the chain's last node's boxes as LLVM-compiled loops over their
//       contiguous runs; chain intermediates stay in registers.
//   S3  anything else, or what S1/S2 cannot express exactly, on the
//       reference kernel over the same boxes (makeReferenceTileOp), with the
//       reason in CpuOp::declined, so the run report lists it among the
//       fallbacks ("fallback/<op>: tiled: <why>").
// Fused intermediates (fusedintermediates.cpp says which tensors qualify):
//   F1  the task is lowered with each candidate in a tile-sized buffer (a
//       Frame: row-major over its region's extents, from the region's
//       origin) that S0's row runs, S1's views, S2's runs and the reorders
//       address; while
//       an op cannot (S3, a reshape's flat copy, a Gemm's C read whole, any
//       op not made on Frames), the task is lowered again without the
//       tensors it touches;
//   F2  candidates some op writes are kept (an epilogue's or a chain's
//       intermediates are never stored) and taken out of the ops' reads
//       and writes, so cpu.cpp gives them no arena storage;
//   F3  their buffers placed in the task's scratch, sharing bytes when no
//       op lies in both their spans; cpu.cpp points the task's tensor
//       table at the worker's scratch.
// Assumes float32 tensors for S1/S2 (else S3) and plain (row-major) storage
// of every tensor a tiled op touches: the ops list no blocked groups, so the
// layout pass hands them plain copies of blocked neighbours.
#include "backends/cpu/cpuop.h"
#include "backends/cpu/dnnlcommon.h"
#include "backends/cpu/lower.h"
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cassert>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

namespace tessera::cpu {

namespace {

using dnnl::memory;
using Dims = memory::dims;

// A unit dim's stride never moves an address, but oneDNN 2.6 reads it when
// it picks an implementation: a MatMul's B padded to rank 3 with stride 0
// there gets the reference kernel (ViT-B/32 under GraphTurbo: 140 s a run
// instead of 0.5 s). A unit dim gets the stride that sits it outside every
// later dim, as in a row-major tensor.
memory::desc view(const Dims &dims, Dims strides)
{
    assert(dims.size() == strides.size());
    for (std::size_t d = dims.size(); d-- > 0;)
        if (dims[d] == 1) {
            std::int64_t outside = 1;
            for (std::size_t e = d + 1; e < dims.size(); ++e)
                outside = std::max(outside, strides[e] * dims[e]);
            strides[d] = outside;
        }
    return memory::desc(dims, memory::data_type::f32, strides);
}

bool isF32(const Graph &g, TensorId t)
{
    return t != kInvalidId && g.tensor(t).dtype == DType::Float32;
}

Frame frameOf(const Graph &g, const LocalTensors *local, TensorId t)
{
    const Shape &s = g.tensor(t).shape;
    if (local)
        if (auto it = local->find(t); it != local->end()) {
            Shape extents;
            Dims origin;
            for (const ops::Interval &i : it->second) {
                extents.push_back(i.size());
                origin.push_back(i.begin);
            }
            return {reference::stridesOf(extents), origin};
        }
    return {reference::stridesOf(s), Dims(s.size(), 0)};
}

// The frame seen through `rank - r` leading unit dims (a MatMul operand
// padded to the output's rank).
Frame padded(Frame f, std::size_t rank)
{
    while (f.strides.size() < rank) {
        f.strides.insert(f.strides.begin(), 0);
        f.origin.insert(f.origin.begin(), 0);
    }
    return f;
}

// Convolution weights sliced to output channels [c0, c1) and reordered into
// a primitive's layout, shared by every box (of every task) that asks for
// the same slice in the same layout while some op holds it.
class PreparedWeights
{
public:
    std::shared_ptr<const std::vector<float>> get(const float *weights, std::int64_t offset,
                                                  const memory::desc &sliceMd, const memory::desc &want)
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        for (auto it = m_entries.begin(); it != m_entries.end();) {
            auto held = it->data.lock();
            if (!held) {
                it = m_entries.erase(it);
                continue;
            }
            if (it->weights == weights && it->offset == offset && it->slice == sliceMd && it->want == want)
                return held;
            ++it;
        }
        auto data = std::make_shared<std::vector<float>>(want.get_size() / sizeof(float));
        memory from(sliceMd, dnnlEngine(), const_cast<float *>(weights + offset));
        memory to(want, dnnlEngine(), data->data());
        dnnl::stream stream(dnnlEngine());
        dnnl::reorder(from, to).execute(stream, from, to);
        stream.wait();
        m_entries.push_back({weights, offset, sliceMd, want, data});
        return data;
    }

private:
    struct Entry {
        const float *weights;
        std::int64_t offset;
        memory::desc slice, want;
        std::weak_ptr<const std::vector<float>> data;
    };
    std::mutex m_mutex;
    std::vector<Entry> m_entries;
};

PreparedWeights &preparedWeights()
{
    static PreparedWeights cache;
    return cache;
}

// One box of one node: a primitive on views of the run's tensors.
struct Piece {
    dnnl::primitive prim;
    memory::desc srcMd, weightsMd, biasMd, dstMd, scratchMd; // the primitive's
    memory::desc srcView, weightsView, biasView, dstView;    // on the run's tensors
    std::int64_t srcOff = 0, weightsOff = 0, biasOff = 0, dstOff = 0;
    std::optional<dnnl::reorder> srcIn, dstOut;        // view -> primitive's layout, and back
    std::shared_ptr<const std::vector<float>> weights; // prepared (else the view)
    std::string impl;                                  // oneDNN's implementation
    // Binary post-ops' second operands: per-channel constants from `off`.
    struct Binary {
        int index = 0; // position among the post-ops
        memory::desc md;
        std::shared_ptr<const std::vector<float>> constants; // held: the epilogue's is gone by run time
        std::int64_t off = 0;
    };
    std::vector<Binary> binaries;
};

class DnnlTileOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        auto at = [&](TensorId t, std::int64_t off) {
            return static_cast<void *>(reinterpret_cast<float *>(tensors[t]) + off);
        };
        return runTiled(label, [&](const dnnl::stream &stream) {
            const dnnl::engine &e = dnnlEngine();
            for (const Piece &p : m_pieces) {
                std::unordered_map<int, memory> args;
                const memory src = stagedSource(stream, memory(p.srcView, e, at(m_src, p.srcOff)), p.srcIn, p.srcMd);
                memory dstView(p.dstView, e, at(m_dst, p.dstOff));
                memory dst = stagedDestination(dstView, p.dstOut.has_value(), p.dstMd);
                args.emplace(DNNL_ARG_SRC, src);
                args.emplace(DNNL_ARG_DST, dst);
                if (p.weights)
                    args.emplace(DNNL_ARG_WEIGHTS, memory(p.weightsMd, e, const_cast<float *>(p.weights->data())));
                else if (m_weights != kInvalidId)
                    args.emplace(DNNL_ARG_WEIGHTS, memory(p.weightsView, e, at(m_weights, p.weightsOff)));
                if (m_bias != kInvalidId)
                    args.emplace(DNNL_ARG_BIAS, memory(p.biasView, e, at(m_bias, p.biasOff)));
                for (const Piece::Binary &b : p.binaries)
                    args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(b.index) | DNNL_ARG_SRC_1,
                                 memory(b.md, e, const_cast<float *>(b.constants->data() + b.off)));
                args.emplace(DNNL_ARG_SCRATCHPAD, scratchpadMemory(p.scratchMd));
                p.prim.execute(stream, args);
                if (p.dstOut)
                    p.dstOut->execute(stream, dst, dstView);
            }
        });
    }

    TensorId m_src = kInvalidId, m_weights = kInvalidId, m_bias = kInvalidId, m_dst = kInvalidId;
    std::vector<Piece> m_pieces;
};

// The reorders between the piece's views and its primitive's layouts.
template <class Pd> void finish(Piece &p, const Pd &pd)
{
    p.srcMd = pd.src_desc();
    p.dstMd = pd.dst_desc();
    p.scratchMd = pd.scratchpad_desc();
    p.impl = pd.impl_info_str();
    if (p.srcMd != p.srcView)
        p.srcIn = dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), p.srcView, dnnlEngine(), p.srcMd));
    if (p.dstMd != p.dstView)
        p.dstOut = dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), p.dstMd, dnnlEngine(), p.dstView));
}

// The chain right after a tiled Conv/MatMul/Gemm that writes the same boxes,
// as oneDNN post-ops of its primitives (the tile's result passes through
// them before it is stored; the chain's intermediates are never written):
// Relu, LeakyRelu, Sigmoid, Tanh, Clip (constant bounds) as eltwise steps; a
// BatchNormalization with constant parameters after a Conv as a per-channel
// multiply and add (x·k + (B - mean·k), k = scale / sqrt(var + eps)); after
// a MatMul/Gemm an Add of a constant row (a bias over the last dim). Not a
// residual Add: as a binary post-op on the strided view of its box it moves
// oneDNN 2.6 to its GEMM-based convolution (ResNet-50 at 128², Welder's
// plan: 0.43 s a run against 0.06 s without); it stays an LLVM chain.
struct Epilogue {
    struct Step {
        dnnl::algorithm alg = dnnl::algorithm::undef;
        float alpha = 0, beta = 0;
        bool binary = false;
        std::shared_ptr<const std::vector<float>> perChannel; // binary: constants along `axis`
        std::size_t axis = 1;                                 // channels (Conv) or the last dim
    };
    struct Link {
        NodeId node = kInvalidId;
        std::vector<Step> steps;
        TensorId out = kInvalidId;
    };
    std::vector<Link> links;
    TensorId out() const { return links.empty() ? kInvalidId : links.back().out; }
};

// The primitive attributes of one piece (its post-ops), recording in `p` the
// second operands of the binary steps: the piece writes box `r` (dims
// `dstDims`) of the anchor's output.
dnnl::primitive_attr pieceAttr(const Epilogue &e, const ops::Region &r, const Dims &dstDims, Piece &p)
{
    dnnl::primitive_attr attr = userScratchpad();
    if (e.links.empty())
        return attr;
    dnnl::post_ops po;
    int index = 0;
    for (const Epilogue::Link &link : e.links)
        for (const Epilogue::Step &step : link.steps) {
            if (!step.binary) {
                po.append_eltwise(1.0f, step.alg, step.alpha, step.beta);
            } else {
                Piece::Binary b;
                b.index = index;
                Dims dims(dstDims.size(), 1);
                dims[step.axis] = dstDims[step.axis];
                b.md = view(dims, reference::stridesOf(Shape(dims.begin(), dims.end())));
                b.constants = step.perChannel;
                b.off = r[step.axis].begin;
                po.append_binary(step.alg, b.md);
                p.binaries.push_back(std::move(b));
            }
            ++index;
        }
    attr.set_post_ops(po);
    return attr;
}

std::optional<Epilogue::Step> eltwiseOf(const Graph &g, const Constants &c, const Node &n)
{
    using A = dnnl::algorithm;
    if (n.opType == "Relu")
        return Epilogue::Step{A::eltwise_relu};
    if (n.opType == "LeakyRelu")
        return Epilogue::Step{A::eltwise_relu, static_cast<float>(n.attrFloat("alpha", 0.01))};
    if (n.opType == "Sigmoid")
        return Epilogue::Step{A::eltwise_logistic};
    if (n.opType == "Tanh")
        return Epilogue::Step{A::eltwise_tanh};
    if (n.opType != "Clip")
        return std::nullopt;
    auto bound = [&](const char *attr, std::size_t input, float absent) -> std::optional<float> {
        if (n.attr(attr))
            return static_cast<float>(n.attrFloat(attr, absent));
        if (input >= n.inputs.size() || n.inputs[input] == kInvalidId)
            return absent;
        const float *v = c.f32(n.inputs[input]);
        if (!v || g.tensor(n.inputs[input]).elements() != 1)
            return std::nullopt;
        return *v;
    };
    const auto lo = bound("min", 1, -FLT_MAX), hi = bound("max", 2, FLT_MAX);
    if (!lo || !hi)
        return std::nullopt;
    return Epilogue::Step{A::eltwise_clip, *lo, *hi};
}

// BatchNormalization (inference, constant parameters, only Y used) as a
// per-channel multiply and add.
std::optional<std::vector<Epilogue::Step>> batchNormOf(const Graph &g, const Constants &c, const Node &n)
{
    if (n.opType != "BatchNormalization" || n.inputs.size() < 5)
        return std::nullopt;
    for (std::size_t o = 1; o < n.outputs.size(); ++o)
        if (n.outputs[o] != kInvalidId && !g.tensor(n.outputs[o]).consumers.empty())
            return std::nullopt;
    const Shape &x = g.tensor(n.inputs[0]).shape;
    if (x.size() < 2)
        return std::nullopt;
    const std::int64_t channels = x[1];
    const float *v[4];
    for (std::size_t i = 0; i < 4; ++i) {
        const TensorId t = n.inputs[i + 1];
        v[i] = t == kInvalidId || !isF32(g, t) || g.tensor(t).elements() != channels ? nullptr : c.f32(t);
        if (!v[i])
            return std::nullopt;
    }
    const double eps = n.attrFloat("epsilon", 1e-5);
    auto k = std::make_shared<std::vector<float>>(static_cast<std::size_t>(channels));
    auto b = std::make_shared<std::vector<float>>(static_cast<std::size_t>(channels));
    for (std::int64_t i = 0; i < channels; ++i) {
        const double kk = v[0][i] / std::sqrt(static_cast<double>(v[3][i]) + eps);
        (*k)[static_cast<std::size_t>(i)] = static_cast<float>(kk);
        (*b)[static_cast<std::size_t>(i)] = static_cast<float>(v[1][i] - v[2][i] * kk);
    }
    Epilogue::Step mul{dnnl::algorithm::binary_mul}, add{dnnl::algorithm::binary_add};
    mul.binary = add.binary = true;
    mul.perChannel = std::move(k);
    add.perChannel = std::move(b);
    return std::vector<Epilogue::Step>{mul, add};
}

// Add(t, c) or Add(c, t) with c a constant broadcast along the last dim only
// ([N], [1, N], ...): a binary add of constants along the last dim.
std::optional<Epilogue::Step> rowBiasOf(const Graph &g, const Constants &c, const Node &n, TensorId t)
{
    if (n.opType != "Add" || n.inputs.size() != 2 || (n.inputs[0] != t) == (n.inputs[1] != t))
        return std::nullopt;
    const TensorId other = n.inputs[0] == t ? n.inputs[1] : n.inputs[0];
    const Shape &y = g.tensor(t).shape, &b = g.tensor(other).shape;
    if (!isF32(g, other) || !c.f32(other) || b.empty() || b.size() > y.size() || b.back() != y.back())
        return std::nullopt;
    for (std::size_t d = 0; d + 1 < b.size(); ++d)
        if (b[d] != 1)
            return std::nullopt;
    const float *v = c.f32(other);
    Epilogue::Step step{dnnl::algorithm::binary_add};
    step.binary = true;
    step.perChannel = std::make_shared<const std::vector<float>>(v, v + y.back());
    step.axis = y.size() - 1;
    return step;
}

Epilogue epilogueOf(const FusionScope &s, NodeId anchor, const std::map<NodeId, std::vector<ops::Region>> &boxes)
{
    const Graph &g = s.graph;
    Epilogue e;
    const auto anchorBoxes = boxes.find(anchor);
    const bool conv = g.node(anchor).opType == "Conv";
    TensorId t = g.node(anchor).outputs[0];
    for (;;) {
        const Tensor &tensor = g.tensor(t);
        if (tensor.consumers.size() != 1 || std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end())
            break;
        const NodeId c = tensor.consumers.front();
        const int pos = s.position(c);
        const auto cBoxes = boxes.find(c);
        if (pos < 0 || s.done[static_cast<std::size_t>(pos)] || cBoxes == boxes.end() ||
            cBoxes->second != anchorBoxes->second)
            break;
        const Node &n = g.node(c);
        if (n.inputs.empty() || n.outputs.empty() || !isF32(g, n.outputs[0]) ||
            g.tensor(n.outputs[0]).shape != tensor.shape)
            break;
        Epilogue::Link link{c, {}, n.outputs[0]};
        if (auto elt = n.inputs[0] == t ? eltwiseOf(g, s.constants, n) : std::nullopt) {
            link.steps = {*elt};
        } else if (auto bn = conv && n.inputs[0] == t ? batchNormOf(g, s.constants, n) : std::nullopt) {
            link.steps = std::move(*bn);
        } else if (auto bias = !conv ? rowBiasOf(g, s.constants, n, t) : std::nullopt) {
            link.steps = {*bias};
        } else {
            break;
        }
        e.links.push_back(std::move(link));
        t = n.outputs[0];
    }
    return e;
}

// S1, Conv and pooling: a box of the output [N, C, spatial...].
struct Windowed {
    bool conv = false, global = false;
    dnnl::algorithm alg = dnnl::algorithm::undef;
    std::vector<reference::Window> windows;
    std::int64_t group = 1;
    const float *weights = nullptr;
};

std::string windowedPiece(const Graph &g, const Node &n, const Windowed &w, const ops::Region &r, Piece &p,
                          const Epilogue &e, const Frame &fx, const Frame &fy)
{
    const Shape &x = g.tensor(n.inputs[0]).shape, &y = g.tensor(n.outputs[0]).shape;
    const Dims &xs = fx.strides, &ys = fy.strides;
    const std::size_t rank = x.size();
    const std::int64_t c0 = r[1].begin, c1 = r[1].end, cb = c1 - c0, nb = r[0].size();
    // Input channels the box reads.
    std::int64_t ic0 = c0, icb = cb, groups = 1;
    Dims wdims;
    if (w.conv) {
        const Shape &ws = g.tensor(n.inputs[1]).shape;
        const std::int64_t ocg = y[1] / w.group, icg = x[1] / w.group;
        if (w.group == 1) {
            ic0 = 0;
            icb = x[1];
            wdims.assign(ws.begin(), ws.end());
            wdims[0] = cb;
        } else {
            if (c0 % ocg != 0 || c1 % ocg != 0)
                return "a channel box across groups";
            groups = cb / ocg;
            ic0 = c0 / ocg * icg;
            icb = groups * icg;
            wdims.assign(ws.begin(), ws.end());
            wdims[0] = ocg;
            wdims.insert(wdims.begin(), groups);
        }
    }
    Dims srcDims{nb, icb}, dstDims{nb, cb}, strides, kernel, dilation, padL, padR;
    std::int64_t srcOff = fx.at(0, r[0].begin) + fx.at(1, ic0), dstOff = fy.at(0, r[0].begin) + fy.at(1, c0);
    for (std::size_t d = 2; d < rank; ++d) {
        const std::int64_t X = x[d];
        dstDims.push_back(r[d].size());
        dstOff += fy.at(d, r[d].begin);
        if (w.global) {
            srcOff += fx.at(d, 0);
            srcDims.push_back(X);
            strides.push_back(1);
            kernel.push_back(X);
            dilation.push_back(0);
            padL.push_back(0);
            padR.push_back(0);
            continue;
        }
        const reference::Window &win = w.windows[d - 2];
        const std::int64_t in0 = r[d].begin * win.stride - win.padBegin;
        const std::int64_t in1 = (r[d].end - 1) * win.stride - win.padBegin + (win.taps - 1) * win.dilation + 1;
        const std::int64_t a = std::max<std::int64_t>(in0, 0), b = std::min(in1, X);
        if (b <= a)
            return "a box whose window lies in the padding";
        if (std::max<std::int64_t>(in1 - X, 0) > win.padEnd && w.alg == dnnl::algorithm::pooling_avg_include_padding)
            return "a ceil_mode window past the end padding with count_include_pad";
        srcDims.push_back(b - a);
        srcOff += fx.at(d, a);
        strides.push_back(win.stride);
        kernel.push_back(win.taps);
        dilation.push_back(win.dilation - 1);
        padL.push_back(a - in0);
        padR.push_back(in1 - b);
    }
    p.srcView = view(srcDims, Dims(xs.begin(), xs.end()));
    p.dstView = view(dstDims, Dims(ys.begin(), ys.end()));
    p.srcOff = srcOff;
    p.dstOff = dstOff;
    const auto any = memory::format_tag::any;
    const memory::desc srcAny(srcDims, memory::data_type::f32, any), dstAny(dstDims, memory::data_type::f32, any);
    if (!w.conv) {
        // Pooling's source must have a layout: the plain dense window.
        const memory::desc src(srcDims, memory::data_type::f32,
                               reference::stridesOf(Shape(srcDims.begin(), srcDims.end())));
        dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, w.alg, src, dstAny, strides, kernel,
                                         dilation, padL, padR);
        dnnl::pooling_v2_forward::primitive_desc pd(d, userScratchpad(), dnnlEngine());
        p.prim = dnnl::pooling_v2_forward(pd);
        finish(p, pd);
        return {};
    }
    const memory::desc wAny(wdims, memory::data_type::f32, any);
    const bool bias = n.inputs.size() > 2 && n.inputs[2] != kInvalidId;
    using CF = dnnl::convolution_forward;
    const auto prop = dnnl::prop_kind::forward_inference;
    const auto alg = dnnl::algorithm::convolution_direct;
    if (bias) {
        p.biasView = view({cb}, {1});
        p.biasOff = c0;
    }
    auto d = bias ? CF::desc(prop, alg, srcAny, wAny, p.biasView, dstAny, strides, dilation, padL, padR)
                  : CF::desc(prop, alg, srcAny, wAny, dstAny, strides, dilation, padL, padR);
    CF::primitive_desc pd(d, pieceAttr(e, r, dstDims, p), dnnlEngine());
    p.prim = CF(pd);
    finish(p, pd);
    const std::int64_t perOut = g.tensor(n.inputs[1]).elements() / y[1];
    p.weightsMd = pd.weights_desc();
    p.weights = preparedWeights().get(
        w.weights, c0 * perOut, view(wdims, reference::stridesOf(Shape(wdims.begin(), wdims.end()))), p.weightsMd);
    return {};
}

// S1, MatMul and Gemm: a box of the output [batch..., M, N].
struct Product {
    Shape a, b; // padded to the output's rank
    bool transA = false, transB = false;
    TensorId c = kInvalidId; // Gemm's C (a bias broadcast to [M, N])
};

std::string productPiece(const Graph &g, const Node &n, const Product &m, const ops::Region &r, Piece &p,
                         const Epilogue &e, const Frame &fa0, const Frame &fb0, const Frame &fy)
{
    const Shape &y = g.tensor(n.outputs[0]).shape;
    const std::size_t rank = y.size();
    const Frame fa = padded(fa0, rank), fb = padded(fb0, rank);
    const Dims &as = fa.strides, &bs = fb.strides, &ys = fy.strides;
    const std::int64_t K = m.transA ? m.a[rank - 2] : m.a[rank - 1];
    Dims aDims, bDims, aStr, bStr, dDims;
    std::int64_t aOff = 0, bOff = 0, dOff = 0;
    for (std::size_t d = 0; d + 2 < rank; ++d) {
        aDims.push_back(m.a[d] == 1 ? 1 : r[d].size());
        bDims.push_back(m.b[d] == 1 ? 1 : r[d].size());
        aStr.push_back(as[d]);
        bStr.push_back(bs[d]);
        aOff += m.a[d] == 1 ? 0 : fa.at(d, r[d].begin);
        bOff += m.b[d] == 1 ? 0 : fb.at(d, r[d].begin);
    }
    for (std::size_t d = 0; d < rank; ++d) {
        dDims.push_back(r[d].size());
        dOff += fy.at(d, r[d].begin);
    }
    const std::int64_t m0 = r[rank - 2].begin, n0 = r[rank - 1].begin;
    aDims.insert(aDims.end(), {r[rank - 2].size(), K});
    bDims.insert(bDims.end(), {K, r[rank - 1].size()});
    // A is [M, K] ([K, M] transposed), B [K, N] ([N, K]), at their frames' strides.
    const std::size_t r2 = rank - 2, r1 = rank - 1;
    if (!m.transA) {
        aStr.insert(aStr.end(), {as[r2], as[r1]});
        aOff += fa.at(r2, m0) + fa.at(r1, 0);
    } else {
        aStr.insert(aStr.end(), {as[r1], as[r2]});
        aOff += fa.at(r1, m0) + fa.at(r2, 0);
    }
    if (!m.transB) {
        bStr.insert(bStr.end(), {bs[r2], bs[r1]});
        bOff += fb.at(r1, n0) + fb.at(r2, 0);
    } else {
        bStr.insert(bStr.end(), {bs[r1], bs[r2]});
        bOff += fb.at(r2, n0) + fb.at(r1, 0);
    }
    p.srcView = view(aDims, aStr);
    p.weightsView = view(bDims, bStr);
    p.dstView = view(dDims, Dims(ys.begin(), ys.end()));
    p.srcOff = aOff;
    p.weightsOff = bOff;
    p.dstOff = dOff;
    if (m.c != kInvalidId) {
        const Shape &c = g.tensor(m.c).shape;
        const std::int64_t cM = c.size() >= 2 ? c[c.size() - 2] : 1, cN = c.empty() ? 1 : c.back();
        p.biasView = view({cM == 1 ? 1 : r[0].size(), cN == 1 ? 1 : r[1].size()}, {cN, 1});
        p.biasOff = (cM == 1 ? 0 : m0 * cN) + (cN == 1 ? 0 : n0);
    }
    auto describe = [&](const memory::desc &src, const memory::desc &dst) {
        std::optional<dnnl::matmul::desc> d;
        if (m.c != kInvalidId)
            d.emplace(src, p.weightsView, p.biasView, dst);
        else
            d.emplace(src, p.weightsView, dst);
        Piece q; // the binary post-ops' operands, recorded again per attempt
        dnnl::primitive_attr attr = pieceAttr(e, r, dDims, q);
        return std::make_pair(dnnl::matmul::primitive_desc(*d, attr, dnnlEngine()), std::move(q.binaries));
    };
    // On the views when oneDNN has a JIT kernel for them; else (a column
    // tile's strided output under a binary post-op) on dense tiles of A and
    // the output that the piece reorders in and out.
    auto [pd, binaries] = describe(p.srcView, p.dstView);
    if (isReferenceImpl(pd.impl_info_str())) {
        auto dense = describe(memory::desc(aDims, memory::data_type::f32, memory::format_tag::any),
                              memory::desc(dDims, memory::data_type::f32, memory::format_tag::any));
        if (!isReferenceImpl(dense.first.impl_info_str()))
            std::tie(pd, binaries) = std::move(dense);
    }
    p.binaries = std::move(binaries);
    p.prim = dnnl::matmul(pd);
    finish(p, pd);
    return {};
}

// S1, Softmax and LogSoftmax: a box that covers the normalised axis (opset
// 13) or every axis from it on (earlier opsets, which flatten them).
std::string softmaxPiece(const Graph &g, const Node &n, const ops::Region &r, Piece &p, const Frame &fx,
                         const Frame &fy)
{
    const Shape &x = g.tensor(n.inputs[0]).shape;
    const bool coerce2d = g.opsetVersion < 13;
    auto axis = reference::normAxis(n, n.attrInt("axis", coerce2d ? 1 : -1), static_cast<std::int64_t>(x.size()));
    if (!axis)
        return axis.status().message();
    const auto a = static_cast<std::size_t>(*axis);
    Dims dims, strides, dstStrides;
    std::int64_t off = 0, dstOff = 0;
    for (std::size_t d = 0; d < x.size(); ++d) {
        off += fx.at(d, r[d].begin);
        dstOff += fy.at(d, r[d].begin);
        if (d == a || (coerce2d && d > a))
            if (r[d].begin != 0 || r[d].end != x[d])
                return "a box that splits the normalised axis";
    }
    const std::size_t kept = coerce2d ? a : x.size();
    for (std::size_t d = 0; d < kept; ++d) {
        dims.push_back(r[d].size());
        strides.push_back(fx.strides[d]);
        dstStrides.push_back(fy.strides[d]);
    }
    if (coerce2d) {
        std::int64_t L = 1;
        for (std::size_t d = a; d < x.size(); ++d)
            L *= x[d];
        dims.push_back(L);
        strides.push_back(1);
        dstStrides.push_back(1);
    }
    if (dims.size() > 6)
        return "rank " + std::to_string(dims.size());
    p.srcView = view(dims, strides);
    p.dstView = view(dims, dstStrides);
    p.srcOff = off;
    p.dstOff = dstOff;
    const memory::desc dense = plainDesc(std::vector<std::int64_t>(dims.begin(), dims.end()));
    const dnnl::algorithm alg =
        n.opType == "LogSoftmax" ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
    dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, dense, dense, static_cast<int>(a));
    dnnl::softmax_v2_forward::primitive_desc pd(d, userScratchpad(), dnnlEngine());
    p.prim = dnnl::softmax_v2_forward(pd);
    finish(p, pd);
    return {};
}

// S1, Concat and Transpose: each box of the output as oneDNN reorders from
// views of the input(s) to the view of the box (block copies at any strides).
class ReorderTileOp final : public CpuOp
{
public:
    struct Move {
        dnnl::reorder prim;
        memory::desc from, to;
        TensorId src = kInvalidId;
        std::int64_t srcOff = 0, dstOff = 0;
    };

    Status run(std::uint8_t *const *tensors) const override
    {
        return runTiled(label, [&](const dnnl::stream &stream) {
            for (const Move &m : m_moves) {
                memory from(m.from, dnnlEngine(), reinterpret_cast<float *>(tensors[m.src]) + m.srcOff);
                memory to(m.to, dnnlEngine(), reinterpret_cast<float *>(tensors[m_dst]) + m.dstOff);
                m.prim.execute(stream, from, to);
            }
        });
    }

    TensorId m_dst = kInvalidId;
    std::vector<Move> m_moves;
};

// S1, the reshapes (Reshape, Flatten, Squeeze, Unsqueeze, Identity): a box
// of the output is a set of contiguous runs whose flat offsets are the
// input's too (row-major order is what a reshape keeps); one copy per run.
class FlatCopyTileOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        for (const reference::Run &r : m_runs)
            std::memcpy(tensors[m_dst] + r.offset * m_bytes, tensors[m_src] + r.offset * m_bytes,
                        static_cast<std::size_t>(r.length) * m_bytes);
        return Status::ok();
    }

    TensorId m_src = kInvalidId, m_dst = kInvalidId;
    std::int64_t m_bytes = 0;
    std::vector<reference::Run> m_runs;
};

bool reshapeType(std::string_view t)
{
    return t == "Reshape" || t == "Flatten" || t == "Squeeze" || t == "Unsqueeze" || t == "Identity";
}

CpuOpPtr makeFlatCopyTileOp(const Graph &g, NodeId id, const std::vector<ops::Region> &boxes, const LocalTensors *local)
{
    const Node &n = g.node(id);
    if (n.inputs.empty() || n.inputs[0] == kInvalidId || n.outputs.size() != 1 || n.outputs[0] == kInvalidId)
        return nullptr;
    // Flat offsets are the same in both only in whole tensors.
    if (local && (local->count(n.inputs[0]) || local->count(n.outputs[0])))
        return nullptr;
    const Tensor &x = g.tensor(n.inputs[0]), &y = g.tensor(n.outputs[0]);
    if (x.dtype != y.dtype || dtypeSize(y.dtype) == 0 || x.elements() != y.elements())
        return nullptr;
    auto op = std::make_unique<FlatCopyTileOp>();
    op->m_src = n.inputs[0];
    op->m_dst = n.outputs[0];
    op->m_bytes = static_cast<std::int64_t>(dtypeSize(y.dtype));
    for (const ops::Region &r : boxes)
        for (const reference::Run &run : reference::contiguousRuns(r, y.shape))
            if (run.length > 0)
                op->m_runs.push_back(run);
    op->engine = Engine::Copy;
    op->impl = "tiled:runs";
    op->nodes = {id};
    op->reads = {n.inputs[0]};
    op->writes = {n.outputs[0]};
    op->label = n.opType;
    return op;
}

struct Attempt {
    CpuOpPtr op;
    std::string declined;
};

Attempt declined(std::string why)
{
    return {nullptr, std::move(why)};
}

Attempt makeReorderTileOp(const Graph &g, NodeId id, const std::vector<ops::Region> &boxes, const LocalTensors *local)
{
    const Node &n = g.node(id);
    if (n.outputs.size() != 1 || !isF32(g, n.outputs[0]))
        return declined("not float32");
    for (TensorId t : n.inputs)
        if (!isF32(g, t))
            return declined("not float32");
    const Shape &y = g.tensor(n.outputs[0]).shape;
    const auto rank = static_cast<std::int64_t>(y.size());
    if (rank == 0 || rank > 6)
        return declined("rank " + std::to_string(rank));
    const Frame fy = frameOf(g, local, n.outputs[0]);
    const Dims &ys = fy.strides;
    auto op = std::make_unique<ReorderTileOp>();
    op->m_dst = n.outputs[0];
    auto move = [&](TensorId src, const Dims &dims, const Dims &srcStrides, std::int64_t srcOff, std::int64_t dstOff) {
        ReorderTileOp::Move m;
        m.from = view(dims, srcStrides);
        m.to = view(dims, ys);
        m.prim = dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), m.from, dnnlEngine(), m.to));
        m.src = src;
        m.srcOff = srcOff;
        m.dstOff = dstOff;
        op->m_moves.push_back(std::move(m));
    };
    std::vector<std::int64_t> perm;
    std::int64_t axis = 0;
    if (n.opType == "Transpose") {
        perm = n.attrInts("perm");
        if (perm.empty())
            for (std::int64_t d = rank; d-- > 0;)
                perm.push_back(d);
        if (static_cast<std::int64_t>(perm.size()) != rank)
            return declined("perm does not match the rank");
    } else {
        auto a = reference::normAxis(n, n.attrInt("axis", 0), rank);
        if (!a)
            return declined(a.status().message());
        axis = *a;
    }
    try {
        for (const ops::Region &r : boxes) {
            if (ops::regionElements(r) == 0)
                continue;
            Dims dims;
            std::int64_t dstOff = 0;
            for (std::int64_t d = 0; d < rank; ++d) {
                dims.push_back(r[static_cast<std::size_t>(d)].size());
                dstOff += fy.at(static_cast<std::size_t>(d), r[static_cast<std::size_t>(d)].begin);
            }
            if (!perm.empty()) {
                const Frame fx = frameOf(g, local, n.inputs[0]);
                Dims st;
                std::int64_t off = 0;
                for (std::int64_t d = 0; d < rank; ++d) {
                    const auto from = static_cast<std::size_t>(perm[static_cast<std::size_t>(d)]);
                    st.push_back(fx.strides[from]);
                    off += fx.at(from, r[static_cast<std::size_t>(d)].begin);
                }
                move(n.inputs[0], dims, st, off, dstOff);
                continue;
            }
            // Concat: the part of the box each input covers along the axis.
            const auto ax = static_cast<std::size_t>(axis);
            std::int64_t at = 0;
            for (TensorId t : n.inputs) {
                const Shape &xi = g.tensor(t).shape;
                const std::int64_t b = std::max(r[ax].begin, at), e = std::min(r[ax].end, at + xi[ax]);
                if (b < e) {
                    const Frame fx = frameOf(g, local, t);
                    Dims part = dims;
                    part[ax] = e - b;
                    std::int64_t off = 0, to = 0;
                    for (std::size_t d = 0; d < y.size(); ++d) {
                        off += fx.at(d, d == ax ? b - at : r[d].begin);
                        to += fy.at(d, d == ax ? b : r[d].begin);
                    }
                    move(t, part, fx.strides, off, to);
                }
                at += xi[ax];
            }
        }
    } catch (const dnnl::error &e) {
        return declined(std::string("oneDNN: ") + e.what());
    }
    op->engine = Engine::Copy;
    op->impl = "tiled:reorder";
    op->nodes = {id};
    for (TensorId t : n.inputs)
        op->reads.push_back(t);
    op->writes = {n.outputs[0]};
    op->label = n.opType;
    return {std::move(op), {}};
}

// `unframed`: fused intermediates among the op's tensors that it reads
// whole (a Gemm's C).
Attempt makeDnnlTileOp(const Graph &g, const Constants &constants, NodeId id, const std::vector<ops::Region> &boxes,
                       const Epilogue &epilogue, const LocalTensors *local, std::set<TensorId> &unframed)
{
    const Node &n = g.node(id);
    if (n.inputs.empty() || !isF32(g, n.inputs[0]) || n.outputs.empty() || !isF32(g, n.outputs[0]))
        return declined("not float32");
    for (std::size_t o = 1; o < n.outputs.size(); ++o)
        if (n.outputs[o] != kInvalidId && !g.tensor(n.outputs[o]).consumers.empty())
            return declined("a second output is used");
    const Shape &x = g.tensor(n.inputs[0]).shape, &y = g.tensor(n.outputs[0]).shape;
    auto op = std::make_unique<DnnlTileOp>();
    op->m_src = n.inputs[0];
    op->m_dst = n.outputs[0];
    const bool fused = epilogue.out() != kInvalidId;
    if (fused)
        op->m_dst = epilogue.out();
    const Frame fx = frameOf(g, local, n.inputs[0]), fy = frameOf(g, local, op->m_dst);
    std::function<std::string(const ops::Region &, Piece &)> piece;
    Windowed w;
    Product m;
    if (n.opType == "Softmax" || n.opType == "LogSoftmax") {
        op->reads = {n.inputs[0]};
        piece = [&](const ops::Region &r, Piece &p) { return softmaxPiece(g, n, r, p, fx, fy); };
    } else if (n.opType == "MatMul" || n.opType == "Gemm") {
        if (n.inputs.size() < 2 || !isF32(g, n.inputs[1]))
            return declined("not float32");
        m.a = x;
        m.b = g.tensor(n.inputs[1]).shape;
        if (m.a.size() < 2 || m.b.size() < 2 || y.size() > 6)
            return declined("a rank-1 operand");
        if (n.opType == "Gemm") {
            if (n.attrFloat("alpha", 1.0) != 1.0 || n.attrFloat("beta", 1.0) != 1.0)
                return declined("alpha or beta other than 1");
            m.transA = n.attrInt("transA", 0) != 0;
            m.transB = n.attrInt("transB", 0) != 0;
            if (n.inputs.size() > 2 && n.inputs[2] != kInvalidId) {
                m.c = n.inputs[2];
                if (!isF32(g, m.c) || g.tensor(m.c).shape.size() > 2)
                    return declined("C not a float32 matrix");
                op->m_bias = m.c;
            }
        }
        while (m.a.size() < y.size())
            m.a.insert(m.a.begin(), 1);
        while (m.b.size() < y.size())
            m.b.insert(m.b.begin(), 1);
        op->m_weights = n.inputs[1];
        op->reads = {n.inputs[0], n.inputs[1]};
        if (m.c != kInvalidId)
            op->reads.push_back(m.c);
        const Frame fb = frameOf(g, local, n.inputs[1]);
        piece = [&, fb](const ops::Region &r, Piece &p) { return productPiece(g, n, m, r, p, epilogue, fx, fb, fy); };
    } else {
        if (x.size() < 3 || x.size() > 5 || y.size() != x.size())
            return declined("rank " + std::to_string(x.size()));
        w.conv = n.opType == "Conv";
        w.global = n.opType.rfind("Global", 0) == 0;
        const bool max = n.opType == "MaxPool" || n.opType == "GlobalMaxPool";
        w.alg = max ? dnnl::algorithm::pooling_max
                : (!w.conv && !w.global && n.attrInt("count_include_pad", 0) != 0)
                    ? dnnl::algorithm::pooling_avg_include_padding
                    : dnnl::algorithm::pooling_avg_exclude_padding;
        Shape k;
        if (w.conv) {
            if (n.inputs.size() < 2 || !isF32(g, n.inputs[1]) || !(w.weights = constants.f32(n.inputs[1])))
                return declined("runtime weights");
            if (n.inputs.size() > 2 && n.inputs[2] != kInvalidId) {
                if (!isF32(g, n.inputs[2]))
                    return declined("not float32");
                op->m_bias = n.inputs[2];
            }
            w.group = n.attrInt("group", 1);
            const Shape &ws = g.tensor(n.inputs[1]).shape;
            if (w.group < 1 || x[1] % w.group != 0 || ws[0] % w.group != 0 || ws.size() != x.size())
                return declined("its groups");
            k.assign(ws.begin() + 2, ws.end());
        } else if (!w.global) {
            k = n.attrInts("kernel_shape");
            if (k.size() + 2 != x.size())
                return declined("kernel_shape does not match the input rank");
        }
        if (!w.global) {
            auto windows =
                reference::forwardWindows(n, Shape(x.begin() + 2, x.end()), Shape(y.begin() + 2, y.end()), k);
            if (!windows)
                return declined(windows.status().message());
            w.windows = std::move(*windows);
        }
        for (TensorId t : n.inputs)
            if (t != kInvalidId)
                op->reads.push_back(t);
        piece = [&](const ops::Region &r, Piece &p) { return windowedPiece(g, n, w, r, p, epilogue, fx, fy); };
    }
    for (const ops::Region &r : boxes) {
        if (ops::regionElements(r) == 0)
            continue;
        Piece p;
        try {
            if (std::string why = piece(r, p); !why.empty())
                return declined(why);
        } catch (const dnnl::error &e) {
            return declined(std::string("oneDNN: ") + e.what());
        }
        // The op is named by its first piece's implementation, or by the
        // first that is oneDNN's reference code (reported: see cpu.cpp).
        if (op->impl.empty() || (!isReferenceImpl(op->impl) && isReferenceImpl(p.impl)))
            op->impl = "tiled:" + p.impl;
        op->m_pieces.push_back(std::move(p));
    }
    if (local && local->count(op->m_bias))
        unframed.insert(op->m_bias); // a bias is read whole
    op->engine = Engine::OneDnn;
    op->nodes = {id};
    op->writes = {op->m_dst};
    op->label = n.opType;
    for (const Epilogue::Link &link : epilogue.links) {
        const Node &e = g.node(link.node);
        op->nodes.push_back(link.node);
        op->label += "+" + e.opType;
        for (TensorId t : e.inputs)
            if (t != kInvalidId && std::find(op->reads.begin(), op->reads.end(), t) == op->reads.end() &&
                g.tensor(t).producer != id &&
                std::find(op->nodes.begin(), op->nodes.end(), g.tensor(t).producer) == op->nodes.end())
                op->reads.push_back(t);
    }
    return {std::move(op), {}};
}

bool tiledDnnlType(std::string_view t)
{
    return t == "Conv" || t == "MatMul" || t == "Gemm" || t == "MaxPool" || t == "AveragePool" ||
           t == "GlobalAveragePool" || t == "GlobalMaxPool" || t == "Softmax" || t == "LogSoftmax";
}

// The task's ops with the fused intermediates `local` (may be null) in
// tile-sized buffers; `unframed` gets those an op could not address there.
Expected<std::vector<CpuOpPtr>> lowerWrites(const Graph &g, const Kernel &k, const Task &task,
                                            const TaskRegions &regions, const Constants &constants, JitCache *jit,
                                            bool useDnnl, bool useCopy, LowerStats &stats,
                                            const std::atomic<bool> *cancel, const LocalTensors *local,
                                            std::set<TensorId> &unframed)
{
    std::vector<NodeWrite> writes = taskWrites(g, k, task, regions);
    std::map<NodeId, std::vector<ops::Region>> boxes; // output 0 of single-write nodes
    std::map<NodeId, int> count;
    for (const NodeWrite &w : writes)
        ++count[w.node];
    for (const NodeWrite &w : writes)
        if (w.output == 0 && count[w.node] == 1)
            boxes[w.node] = w.regions;
    std::vector<bool> done(k.nodes.size(), false);
    FusionScope scope{g, k.nodes, done, constants, nullptr};
    std::vector<CpuOpPtr> out;
    std::set<const CpuOp *> framed; // ops made on the Frames of `local`
    NodeId previous = kInvalidId;
    for (NodeWrite &w : writes) {
        const int pos = scope.position(w.node);
        assert(pos >= 0);
        if (done[static_cast<std::size_t>(pos)] && w.node != previous)
            continue; // computed inside an element-wise chain (S2)
        previous = w.node;
        if (cancel && cancel->load(std::memory_order_relaxed))
            return Status::error(ErrorCode::Cancelled, "compiling the plan was cancelled");
        const Node &n = g.node(w.node);
        std::string why;
        if (jit && rowOpType(n.opType) && w.output == 0 && !n.inputs.empty() && n.inputs[0] != kInvalidId &&
            !n.outputs.empty() && n.outputs[0] != kInvalidId) {
            // S0: LLVM row kernels over the boxes; what they decline goes on
            // to oneDNN below.
            auto a = makeRowTileOp(g, constants, w.node, w.regions, frameOf(g, local, n.inputs[0]),
                                   frameOf(g, local, n.outputs[0]), *jit, stats);
            if (!a)
                return a.status();
            if (a->op) {
                for (TensorId t : a->op->reads) // scale and bias are read whole
                    if (t != n.inputs[0] && local && local->count(t))
                        unframed.insert(t);
                done[static_cast<std::size_t>(pos)] = true;
                framed.insert(a->op.get());
                out.push_back(std::move(a->op));
                continue;
            }
        }
        if (tiledOpType(n.opType)) {
            // Reductions, LayerNormalization and data movement (tiledops.cpp).
            NativeAttempt a = makeTiledOp(g, constants, w, useDnnl, useCopy);
            if (a.op) {
                done[static_cast<std::size_t>(pos)] = true;
                out.push_back(std::move(a.op));
                continue;
            }
            why = std::move(a.declined);
        } else if (boxes.count(w.node)) {
            // S1.
            if (tiledDnnlType(n.opType)) {
                if (!useDnnl) {
                    why = "oneDNN disabled by TESSERA_CPU_ENGINES";
                } else {
                    const OneThread oneThread;
                    // With the epilogue as post-ops; while oneDNN refuses them,
                    // with one link fewer.
                    const bool anchor = n.opType == "Conv" || n.opType == "MatMul" || n.opType == "Gemm";
                    Epilogue epilogue = anchor ? epilogueOf(scope, w.node, boxes) : Epilogue{};
                    Attempt a = makeDnnlTileOp(g, constants, w.node, w.regions, epilogue, local, unframed);
                    while (!a.op && !epilogue.links.empty()) {
                        epilogue.links.pop_back();
                        a = makeDnnlTileOp(g, constants, w.node, w.regions, epilogue, local, unframed);
                    }
                    if (a.op)
                        for (const Epilogue::Link &link : epilogue.links)
                            done[static_cast<std::size_t>(scope.position(link.node))] = true;
                    if (a.op) {
                        done[static_cast<std::size_t>(pos)] = true;
                        framed.insert(a.op.get());
                        out.push_back(std::move(a.op));
                        continue;
                    }
                    why = std::move(a.declined);
                }
            } else if (n.opType == "Concat" || n.opType == "Transpose") {
                if (!useCopy) {
                    why = "copies disabled by TESSERA_CPU_ENGINES";
                } else {
                    const OneThread oneThread;
                    Attempt a = makeReorderTileOp(g, w.node, w.regions, local);
                    if (a.op) {
                        done[static_cast<std::size_t>(pos)] = true;
                        framed.insert(a.op.get());
                        out.push_back(std::move(a.op));
                        continue;
                    }
                    why = std::move(a.declined);
                }
            } else {
                // S2 (an Identity alone computes nothing there: a copy).
                if (jit) {
                    auto op = makeJitOp(scope, static_cast<std::size_t>(pos), *jit, stats, &boxes, local);
                    if (!op)
                        return op.status();
                    if (*op) {
                        framed.insert(op->get());
                        out.push_back(std::move(*op));
                        continue;
                    }
                }
                if (useCopy && reshapeType(n.opType))
                    if (CpuOpPtr op = makeFlatCopyTileOp(g, w.node, w.regions, local)) {
                        done[static_cast<std::size_t>(pos)] = true;
                        out.push_back(std::move(op));
                        continue;
                    }
            }
        }
        // S3.
        // A type some engine compiles over whole tensors says why it did not here.
        if (why.empty() &&
            (tiledDnnlType(n.opType) || dnnlPrimitiveOpType(n.opType) || makeCopyOp(g, w.node, constants) != nullptr))
            why = "not compiled over tiles";
        auto op = makeReferenceTileOp(g, w.node, w.output, std::move(w.regions));
        if (!op)
            return op.status();
        (*op)->declined = why.empty() ? std::string() : "tiled: " + why;
        done[static_cast<std::size_t>(pos)] = true;
        out.push_back(std::move(*op));
    }
    // Only the ops made on Frames (S0's row kernels, S1's primitives and
    // reorders, S2's chains) address a tile-sized buffer; every other op (the reference
    // kernels, a flat copy, any op added later) addresses whole tensors.
    for (const CpuOpPtr &op : out)
        if (!framed.count(op.get()))
            for (const std::vector<TensorId> *ts : {&op->reads, &op->writes})
                for (TensorId t : *ts)
                    if (local && local->count(t))
                        unframed.insert(t);
    return out;
}

} // namespace

Expected<std::vector<CpuOpPtr>> lowerTiledTask(const Graph &g, const Kernel &k, const Task &task,
                                               const TaskRegions &regions, const Constants &constants, JitCache *jit,
                                               bool useDnnl, bool useCopy, LowerStats &stats,
                                               const std::atomic<bool> *cancel, TaskScratch *scratch)
{
    LocalTensors *local = scratch ? &scratch->regions : nullptr;
    // F1: lower with every candidate in a tile-sized buffer; while some op
    // cannot address one there, lower again without those (each round drops
    // at least one, so this ends).
    for (;;) {
        std::set<TensorId> unframed;
        auto ops = lowerWrites(g, k, task, regions, constants, jit, useDnnl, useCopy, stats, cancel,
                               local && !local->empty() ? local : nullptr, unframed);
        if (!ops || !local || local->empty())
            return ops;
        if (!unframed.empty()) {
            for (TensorId t : unframed)
                local->erase(t);
            continue;
        }
        // F2: keep those some op writes (an epilogue's or a chain's
        // intermediates are never stored), and take every kept one out of
        // the ops' reads and writes: no other task sees it.
        std::set<TensorId> written;
        for (const CpuOpPtr &op : *ops)
            written.insert(op->writes.begin(), op->writes.end());
        std::erase_if(*local, [&](const auto &entry) { return !written.count(entry.first); });
        // F3: their buffers in the task's scratch, first fit in the order
        // the ops write them; two share bytes when no op lies in both their
        // spans (first write to last use).
        std::map<TensorId, std::pair<std::size_t, std::size_t>> span;
        for (std::size_t i = 0; i < ops->size(); ++i)
            for (const std::vector<TensorId> *ts : {&(*ops)[i]->writes, &(*ops)[i]->reads})
                for (TensorId t : *ts)
                    if (local->count(t)) {
                        auto [it, first] = span.try_emplace(t, i, i);
                        it->second.second = i;
                    }
        std::vector<std::pair<std::size_t, TensorId>> order;
        for (const auto &[t, s] : span)
            order.push_back({s.first, t});
        std::sort(order.begin(), order.end());
        struct Placed {
            std::int64_t offset, bytes;
            std::size_t first, last;
        };
        std::vector<Placed> placed;
        for (const auto &[first, t] : order) {
            const auto last = span[t].second;
            const std::int64_t bytes =
                (ops::regionElements(local->at(t)) * static_cast<std::int64_t>(dtypeSize(g.tensor(t).dtype)) + 63) /
                64 * 64;
            std::vector<std::pair<std::int64_t, std::int64_t>> busy;
            for (const Placed &p : placed)
                if (p.first <= last && first <= p.last)
                    busy.push_back({p.offset, p.offset + p.bytes});
            std::sort(busy.begin(), busy.end());
            std::int64_t at = 0;
            for (const auto &[lo, hi] : busy) {
                if (lo - at >= bytes)
                    break;
                at = std::max(at, hi);
            }
            placed.push_back({at, bytes, first, last});
            scratch->offset[t] = at;
            scratch->bytes = std::max(scratch->bytes, at + bytes);
        }
        for (CpuOpPtr &op : *ops)
            for (std::vector<TensorId> *ts : {&op->reads, &op->writes})
                std::erase_if(*ts, [&](TensorId t) { return local->count(t) > 0; });
        return ops;
    }
}

} // namespace tessera::cpu
