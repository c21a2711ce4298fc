// Tiles of reductions, LayerNormalization, data movement (Slice, Split,
// Gather, Pad), Cast and Resize as compiled code (issue 13: "every other
// fused kernel ... compiled"); the entry is makeTiledOp (lower.h), called by tiled.cpp's
// lowerTiledTask for each write (core/plan/tiles.h NodeWrite) of these types.
//
// What each write becomes, per box of the output it writes (tiled.cpp first
// tries rowops.cpp's LLVM row kernel on reductions over trailing axes and on
// LayerNormalization boxes covering the normalised dims; these are the rest):
//   ReduceSum/Mean/Max/Min/Prod/L1/L2/SumSquare
//       one oneDNN reduction over the box's input window (the box's ranges on
//       the kept dims, the reduced dims whole; keepdims 0 maps the box's dims
//       onto the kept ones). The window is reordered from its strided view of
//       the run's tensor into a dense tile on the thread's scratch when it is
//       not dense already, reduced, and the result reordered into the box's
//       view when that is not dense. Unit dims are dropped first, so a row
//       box of a row-major tensor is its own dense view (no reorder).
//   LayerNormalization
//       one oneDNN layer_normalization over [outer..., L]: the box's dims
//       before `axis` (unit dims dropped) and L = the normalised dims; scale
//       and bias read from the run's tensors. A box that splits the
//       normalised dims is normalised over its whole rows into a dense tile
//       on the thread's scratch and its part reordered out (the other boxes
//       of those rows compute them again: the price of the plan's split).
//   Slice (constant starts/ends/axes/steps), Split (output k: the input
//       from Σ_{j<k} extent_j along the axis), Pad (constant mode)
//       a list of runs made at compile time: per row of the box (its last
//       dim), the input elements it reads (start + i·step per dim) or, for
//       Pad, the part outside the input filled with the constant; adjacent
//       runs contiguous on both sides merged (a box covering whole trailing
//       dims is one memcpy). A run with an input step other than 1 (a
//       strided Slice) copies element by element.
//   Cast, Resize/Upsample (datamove.cpp makeCastOp, makeResizeOp)
//       a typed conversion loop over the box's contiguous runs; the
//       reference kernel's interpolation taps summed over the box's rows.
//   Gather (int32/int64 indices, read at run time)
//       per index of the box's dims before the axis and per entry of the
//       box's index dims, the index read and range-checked as the reference
//       kernel does, then the box's inner sub-box of that data row copied as
//       its contiguous runs (computed once per box).
// Assumes plain row-major storage of every tensor touched (the tiled ops list
// no blocked groups) and static shapes. Declined, each with its reason in
// CpuOp::declined ("fallback/<op>: tiled: <why>" in the run report): a
// type other than float32 for the oneDNN ops and Pad (the copies take any
// element type), ranks past oneDNN's (6; 5 for LayerNormalization), axes or
// bounds known only at run time, a reduction over nothing (a copy),
// LayerNormalization's Mean/InvStdDev outputs in use or a broadcast
// scale/bias, Pad modes other than constant, negative pads or an `axes`
// input, a step-0 or out-of-range Slice, casts from or to bool and the
// 16-bit floats, a Resize that interpolates a dim before the last two, the
// engine switched off by TESSERA_CPU_ENGINES. ReduceLogSum(Exp) and ArgMax/ArgMin
// are not claimed here (no oneDNN primitive: the row kernel or the reference
// kernel, as over whole tensors).
#include "backends/cpu/dnnlcommon.h"
#include "backends/cpu/lower.h"
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>

namespace tessera::cpu {

namespace {

using dnnl::memory;
using Dims = memory::dims;

bool isF32(const Graph &g, TensorId t)
{
    return t != kInvalidId && g.tensor(t).dtype == DType::Float32;
}

NativeAttempt declined(std::string why)
{
    return {nullptr, std::move(why)};
}

// Outputs past the first that some node or the graph reads.
bool extraOutputUsed(const Graph &g, const Node &n)
{
    for (std::size_t o = 1; o < n.outputs.size(); ++o) {
        const TensorId t = n.outputs[o];
        if (t != kInvalidId &&
            (!g.tensor(t).consumers.empty() || std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end()))
            return true;
    }
    return false;
}

// --- oneDNN: reductions and LayerNormalization ----------------------------------

// One box: a primitive on dense tiles, reordered from and to views of the
// run's tensors where those are not dense.
struct Piece {
    dnnl::primitive prim;
    memory::desc srcView, dstView, srcMd, dstMd, scratchMd, meanMd, varMd;
    memory::desc dstTile;                // the box's part of the dense result, when that is more (else zero)
    std::int64_t dstTileOff = 0;         // its first element, in the dense result
    std::int64_t srcOff = 0, dstOff = 0; // elements
    std::optional<dnnl::reorder> srcIn, dstOut;
};

class ViewPrimitiveOp final : public CpuOp
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
                memory dstView(p.dstView, e, at(m_dst, p.dstOff));
                const memory src = stagedSource(stream, memory(p.srcView, e, at(m_src, p.srcOff)), p.srcIn, p.srcMd);
                const memory dst = stagedDestination(dstView, p.dstOut.has_value(), p.dstMd);
                std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}};
                args.emplace(DNNL_ARG_SCRATCHPAD, scratchpadMemory(p.scratchMd));
                if (m_scale != kInvalidId) {
                    args.emplace(DNNL_ARG_SCALE, memory(m_vecMd, e, tensors[m_scale]));
                    if (m_shift != kInvalidId)
                        args.emplace(DNNL_ARG_SHIFT, memory(m_vecMd, e, tensors[m_shift]));
                    // Statistics nobody reads: one scratch slot, variance after mean.
                    const std::size_t meanBytes = (p.meanMd.get_size() + 63) / 64 * 64;
                    std::uint8_t *stats = threadScratch(3, meanBytes + p.varMd.get_size());
                    if (p.meanMd.get_size() > 0)
                        args.emplace(DNNL_ARG_MEAN, memory(p.meanMd, e, stats));
                    if (p.varMd.get_size() > 0)
                        args.emplace(DNNL_ARG_VARIANCE, memory(p.varMd, e, stats + meanBytes));
                }
                p.prim.execute(stream, args);
                if (p.dstOut) {
                    memory result =
                        p.dstTile.is_zero()
                            ? dst
                            : memory(p.dstTile, e, static_cast<float *>(dst.get_data_handle()) + p.dstTileOff);
                    p.dstOut->execute(stream, result, dstView);
                }
            }
        });
    }

    TensorId m_src = kInvalidId, m_dst = kInvalidId, m_scale = kInvalidId, m_shift = kInvalidId;
    memory::desc m_vecMd; // LayerNormalization's scale and shift
    std::vector<Piece> m_pieces;
};

// The piece's dense tiles and the reorders between them and its views.
void finish(Piece &p, const memory::desc &srcMd, const memory::desc &dstMd, const dnnl::primitive_desc &pd)
{
    const dnnl::engine &e = dnnlEngine();
    p.srcMd = srcMd;
    p.dstMd = dstMd;
    p.scratchMd = pd.scratchpad_desc();
    if (p.srcMd != p.srcView)
        p.srcIn = dnnl::reorder(dnnl::reorder::primitive_desc(e, p.srcView, e, p.srcMd));
    if (p.dstMd != p.dstView)
        p.dstOut = dnnl::reorder(dnnl::reorder::primitive_desc(e, p.dstMd, e, p.dstView));
}

// A box of the reduction's output: its input window and the box as views,
// unit dims of the window dropped.
std::string reductionPiece(const Graph &g, const Node &n, const DnnlReduction &red, const ops::Region &box, Piece &p)
{
    const Shape &x = g.tensor(n.inputs[0]).shape, &y = g.tensor(n.outputs[0]).shape;
    const Dims xs = reference::stridesOf(x), ys = reference::stridesOf(y);
    Dims srcDims, srcStrides, dstDims, dstStrides;
    std::size_t j = 0; // the output dim of input dim d
    for (std::size_t d = 0; d < x.size(); ++d) {
        const bool kept = !red.reduced[d] || red.keepDims;
        const std::size_t yd = j;
        if (kept)
            ++j;
        if (red.reduced[d]) {
            if (x[d] == 1)
                continue;
            srcDims.push_back(x[d]);
            srcStrides.push_back(xs[d]);
            dstDims.push_back(1);
            dstStrides.push_back(0); // set below
            continue;
        }
        const ops::Interval &range = box[yd];
        p.srcOff += range.begin * xs[d];
        p.dstOff += range.begin * ys[yd];
        if (range.size() == 1)
            continue;
        srcDims.push_back(range.size());
        srcStrides.push_back(xs[d]);
        dstDims.push_back(range.size());
        dstStrides.push_back(ys[yd]);
    }
    assert(j == y.size());
    bool any = false;
    for (std::size_t d = 0; d < srcDims.size(); ++d)
        any = any || srcDims[d] != dstDims[d];
    if (!any) // oneDNN refuses src == dst
        return "every reduced axis has extent 1 (a copy)";
    // A reduced dim's stride in the box view: what row-major order over the
    // view's dims gives it (its extent is 1, any stride is one element).
    std::int64_t next = 1;
    for (std::size_t d = dstDims.size(); d-- > 0;) {
        if (dstDims[d] == 1)
            dstStrides[d] = next;
        else
            next = dstStrides[d] * dstDims[d];
    }
    const auto f32 = memory::data_type::f32;
    p.srcView = memory::desc(srcDims, f32, srcStrides);
    p.dstView = memory::desc(dstDims, f32, dstStrides);
    const memory::desc src = plainDesc(srcDims), dst = plainDesc(dstDims);
    dnnl::reduction::desc d(red.alg, src, dst, red.p, 0.f);
    dnnl::reduction::primitive_desc pd(d, userScratchpad(), dnnlEngine());
    p.prim = dnnl::reduction(pd);
    finish(p, src, dst, pd);
    return {};
}

// A box of LayerNormalization's output: the primitive over the rows the box
// touches, [outer..., L] (L = the normalised dims, whole). A box that splits
// the normalised dims is computed over its whole rows into a dense tile on
// the thread's scratch, whose part in the box is then reordered out.
std::string layerNormPiece(std::size_t axis, float eps, bool shift, const Shape &x, const ops::Region &box, Piece &p)
{
    const Dims xs = reference::stridesOf(x);
    Dims dims, strides, tileDims, tileOffsets, boxStrides, rowDims;
    std::int64_t L = 1;
    bool split = false;
    for (std::size_t d = 0; d < x.size(); ++d) {
        if (d >= axis) {
            split = split || box[d].begin != 0 || box[d].end != x[d];
            L *= x[d];
            p.dstOff += box[d].begin * xs[d];
        } else {
            p.srcOff += box[d].begin * xs[d];
            if (box[d].size() == 1)
                continue;
            dims.push_back(box[d].size());
            strides.push_back(xs[d]);
        }
        rowDims.push_back(d >= axis ? x[d] : box[d].size());
        tileDims.push_back(box[d].size());
        tileOffsets.push_back(d >= axis ? box[d].begin : 0);
        boxStrides.push_back(xs[d]);
    }
    p.dstOff += p.srcOff;
    if (dims.empty()) {
        dims.push_back(1);
        strides.push_back(L);
    }
    if (dims.size() > 4)
        return "rank " + std::to_string(dims.size() + 1) + " after dropping unit dims";
    if (split && rowDims.size() > 6)
        return "a box that splits the normalised dims past rank 6";
    dims.push_back(L);
    strides.push_back(1);
    const auto f32 = memory::data_type::f32;
    p.srcView = memory::desc(dims, f32, strides);
    const memory::desc dense = plainDesc(dims);
    auto flags = dnnl::normalization_flags::use_scale;
    if (shift)
        flags = flags | dnnl::normalization_flags::use_shift;
    dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, dense, eps, flags);
    dnnl::layer_normalization_forward::primitive_desc pd(d, userScratchpad(), dnnlEngine());
    p.prim = dnnl::layer_normalization_forward(pd);
    p.meanMd = pd.query_md(dnnl::query::exec_arg_md, DNNL_ARG_MEAN);
    p.varMd = pd.query_md(dnnl::query::exec_arg_md, DNNL_ARG_VARIANCE);
    if (!split) {
        p.dstView = p.srcView;
        finish(p, dense, dense, pd);
        return {};
    }
    p.dstView = dense; // no reorder from finish(): the one below
    finish(p, dense, dense, pd);
    p.dstView = memory::desc(tileDims, f32, boxStrides);
    const Dims rowStrides = reference::stridesOf(Shape(rowDims.begin(), rowDims.end()));
    p.dstTile = memory::desc(tileDims, f32, rowStrides);
    for (std::size_t d = 0; d < rowDims.size(); ++d)
        p.dstTileOff += tileOffsets[d] * rowStrides[d];
    p.dstOut = dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), p.dstTile, dnnlEngine(), p.dstView));
    return {};
}

bool reductionType(std::string_view t)
{
    return t == "ReduceSum" || t == "ReduceMean" || t == "ReduceMax" || t == "ReduceMin" || t == "ReduceProd" ||
           t == "ReduceL1" || t == "ReduceL2" || t == "ReduceSumSquare";
}

NativeAttempt makeDnnlViewOp(const Graph &g, const Constants &constants, const NodeWrite &w)
{
    const Node &n = g.node(w.node);
    if (n.inputs.empty() || n.outputs.empty() || !isF32(g, n.inputs[0]) || !isF32(g, n.outputs[0]))
        return declined("not float32");
    if (w.output != 0 || extraOutputUsed(g, n))
        return declined("the Mean or InvStdDev output is used");
    auto op = std::make_unique<ViewPrimitiveOp>();
    op->m_src = n.inputs[0];
    op->m_dst = n.outputs[0];
    op->reads = {n.inputs[0]};
    std::function<std::string(const ops::Region &, Piece &)> piece;
    DnnlReduction red;
    std::size_t axis = 0;
    float eps = 0;
    bool shift = false;
    if (reductionType(n.opType)) {
        if (std::string why = dnnlReductionOf(g, n, constants, red); !why.empty())
            return declined(why);
        if (n.inputs.size() > 1 && n.inputs[1] != kInvalidId)
            op->reads.push_back(n.inputs[1]);
        piece = [&](const ops::Region &r, Piece &p) { return reductionPiece(g, n, red, r, p); };
    } else {
        assert(n.opType == "LayerNormalization");
        const Shape &x = g.tensor(n.inputs[0]).shape;
        auto a = reference::normAxis(n, n.attrInt("axis", -1), static_cast<std::int64_t>(x.size()));
        if (!a)
            return declined(a.status().message());
        axis = static_cast<std::size_t>(*a);
        std::int64_t L = 1;
        for (std::size_t d = axis; d < x.size(); ++d)
            L *= x[d];
        shift = n.inputs.size() > 2 && n.inputs[2] != kInvalidId;
        if (n.inputs.size() < 2 || !isF32(g, n.inputs[1]) || (shift && !isF32(g, n.inputs[2])))
            return declined("not float32");
        if (g.tensor(n.inputs[1]).elements() != L || (shift && g.tensor(n.inputs[2]).elements() != L))
            return declined("a scale or bias broadcast over the normalised dims");
        eps = static_cast<float>(n.attrFloat("epsilon", 1e-5));
        op->m_scale = n.inputs[1];
        op->m_shift = shift ? n.inputs[2] : kInvalidId;
        op->m_vecMd = plainDesc({L});
        op->reads.push_back(n.inputs[1]);
        if (shift)
            op->reads.push_back(n.inputs[2]);
        piece = [&](const ops::Region &r, Piece &p) {
            return layerNormPiece(axis, eps, shift, g.tensor(n.inputs[0]).shape, r, p);
        };
    }
    const OneThread oneThread;
    for (const ops::Region &r : w.regions) {
        if (ops::regionElements(r) == 0)
            continue;
        Piece p;
        try {
            if (std::string why = piece(r, p); !why.empty())
                return declined(why);
        } catch (const dnnl::error &e) {
            return declined(std::string("oneDNN: ") + e.what());
        }
        op->m_pieces.push_back(std::move(p));
    }
    op->engine = Engine::OneDnn;
    op->impl = "tiled:view";
    op->nodes = {w.node};
    op->writes = {n.outputs[0]};
    op->label = n.opType;
    return {std::move(op), {}};
}

// --- copies: Slice, Split, Pad ----------------------------------------------------------

// dst[dstOff + i] = fill ? value : src[srcOff + i·srcStep], i < length (elements).
struct CopyRun {
    std::int64_t srcOff = 0, dstOff = 0, length = 0, srcStep = 1;
    bool fill = false;
};

class RunCopyOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        const std::uint8_t *src = tensors[m_src];
        std::uint8_t *dst = tensors[m_dst];
        const auto elem = static_cast<std::size_t>(m_elem);
        for (const CopyRun &r : m_runs) {
            std::uint8_t *to = dst + r.dstOff * m_elem;
            if (r.fill) {
                for (std::int64_t i = 0; i < r.length; ++i)
                    std::memcpy(to + i * m_elem, &m_fill, elem);
            } else if (r.srcStep == 1) {
                std::memcpy(to, src + r.srcOff * m_elem, static_cast<std::size_t>(r.length) * elem);
            } else {
                const std::uint8_t *from = src + r.srcOff * m_elem;
                for (std::int64_t i = 0; i < r.length; ++i)
                    std::memcpy(to + i * m_elem, from + i * r.srcStep * m_elem, elem);
            }
        }
        return Status::ok();
    }

    // Appends a run, merged into the last one when both are contiguous.
    void add(CopyRun r)
    {
        if (r.length <= 0)
            return;
        if (r.length == 1)
            r.srcStep = 1;
        if (!m_runs.empty()) {
            CopyRun &last = m_runs.back();
            const bool contiguous =
                last.dstOff + last.length == r.dstOff && last.fill == r.fill &&
                (r.fill || (last.srcStep == 1 && r.srcStep == 1 && last.srcOff + last.length == r.srcOff));
            if (contiguous) {
                last.length += r.length;
                return;
            }
        }
        m_runs.push_back(r);
    }

    TensorId m_src = kInvalidId, m_dst = kInvalidId;
    std::int64_t m_elem = 4;
    float m_fill = 0; // Pad's constant (float32 only)
    std::vector<CopyRun> m_runs;
};

// Calls f(first index of each row of box r): an odometer over every dim but the last.
template <class F> void forEachRow(const ops::Region &r, F &&f)
{
    std::vector<std::int64_t> idx;
    for (const ops::Interval &range : r)
        idx.push_back(range.begin);
    for (;;) {
        f(idx);
        std::size_t d = r.size() - 1;
        for (;;) {
            if (d == 0)
                return;
            --d;
            if (++idx[d] < r[d].end)
                break;
            idx[d] = r[d].begin;
        }
    }
}

// Pad (constant mode): per dim the pad before, and the constant.
std::string padGeometry(const Graph &g, const Node &n, const Constants &constants, std::vector<std::int64_t> &begin,
                        float &value)
{
    const Shape &x = g.tensor(n.inputs[0]).shape, &y = g.tensor(n.outputs[0]).shape;
    const std::string mode = n.attrString("mode", "constant");
    if (mode != "constant")
        return "mode " + mode;
    auto input = [&](std::size_t i) { return i < n.inputs.size() && n.inputs[i] != kInvalidId; };
    if (input(3))
        return "an axes input";
    std::vector<std::int64_t> pads = n.attrInts("pads");
    if (input(1)) {
        if (!constants.data[static_cast<std::size_t>(n.inputs[1])])
            return "pads computed at run time";
        auto v = reference::constInts(g, n, 1);
        if (!v)
            return v.status().message();
        pads = std::move(*v);
    }
    const std::size_t rank = x.size();
    if (pads.size() != 2 * rank)
        return "pads do not match the rank";
    value = static_cast<float>(n.attrFloat("value", 0.0));
    if (input(2)) {
        const float *v = constants.f32(n.inputs[2]);
        if (!v || !isF32(g, n.inputs[2]))
            return "constant_value computed at run time";
        if (g.tensor(n.inputs[2]).elements() > 0)
            value = *v;
    }
    begin.assign(pads.begin(), pads.begin() + static_cast<long>(rank));
    for (std::size_t d = 0; d < rank; ++d)
        if (pads[d] < 0 || pads[d + rank] < 0)
            return "negative pads (a crop)";
        else if (x[d] + pads[d] + pads[d + rank] != y[d])
            return "pads do not match the shapes";
    return {};
}

NativeAttempt makeRunCopyOp(const Graph &g, const Constants &constants, const NodeWrite &w)
{
    const Node &n = g.node(w.node);
    if (n.inputs.empty() || n.inputs[0] == kInvalidId || w.output < 0 ||
        static_cast<std::size_t>(w.output) >= n.outputs.size() ||
        n.outputs[static_cast<std::size_t>(w.output)] == kInvalidId)
        return declined("a missing input or output");
    const TensorId out = n.outputs[static_cast<std::size_t>(w.output)];
    const Tensor &x = g.tensor(n.inputs[0]), &y = g.tensor(out);
    if (x.dtype != y.dtype || dtypeSize(x.dtype) == 0 || x.shape.size() != y.shape.size() || x.shape.empty())
        return declined("input and output differ in type or rank");
    const std::size_t rank = x.shape.size();
    // Per dim: the input element of output index i is start + i·step; Pad's
    // output index i reads input i - begin, or the constant outside it.
    std::vector<std::int64_t> start(rank, 0), step(rank, 1);
    auto op = std::make_unique<RunCopyOp>();
    const bool pad = n.opType == "Pad";
    if (n.opType == "Slice") {
        if (std::string why = sliceGeometry(g, n, constants, start, step); !why.empty())
            return declined(why);
    } else if (n.opType == "Split") {
        auto a = reference::normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(rank));
        if (!a)
            return declined(a.status().message());
        const auto axis = static_cast<std::size_t>(*a);
        for (std::size_t o = 0; o < static_cast<std::size_t>(w.output); ++o)
            if (n.outputs[o] != kInvalidId)
                start[axis] += g.tensor(n.outputs[o]).shape[axis];
        for (std::size_t d = 0; d < rank; ++d)
            if (d != axis && x.shape[d] != y.shape[d])
                return declined("parts that differ off the axis");
        if (start[axis] + y.shape[axis] > x.shape[axis])
            return declined("parts longer than the input");
    } else {
        assert(pad);
        if (x.dtype != DType::Float32)
            return declined("not float32");
        std::vector<std::int64_t> begin;
        if (std::string why = padGeometry(g, n, constants, begin, op->m_fill); !why.empty())
            return declined(why);
        for (std::size_t d = 0; d < rank; ++d)
            start[d] = -begin[d];
    }
    const Dims xs = reference::stridesOf(x.shape), ys = reference::stridesOf(y.shape);
    for (const ops::Region &r : w.regions) {
        if (ops::regionElements(r) == 0)
            continue;
        const ops::Interval &last = r.back();
        forEachRow(r, [&](const std::vector<std::int64_t> &idx) {
            std::int64_t src = 0, dst = 0;
            bool inside = true;
            for (std::size_t d = 0; d + 1 < rank; ++d) {
                const std::int64_t i = start[d] + idx[d] * step[d];
                inside = inside && i >= 0 && i < x.shape[d];
                src += i * xs[d];
                dst += idx[d] * ys[d];
            }
            dst += last.begin;
            const std::int64_t k = rank - 1, X = x.shape.back();
            if (!pad) {
                op->add({src + start[k] + last.begin * step[k], dst, last.size(), step[k], false});
                return;
            }
            // Pad's row: [begin, end) of the output row; input [0, X) at output [-start, X - start).
            const std::int64_t lo = inside ? std::clamp(-start[k], last.begin, last.end) : last.end;
            const std::int64_t hi = inside ? std::clamp(X - start[k], lo, last.end) : last.end;
            op->add({0, dst, lo - last.begin, 1, true});
            op->add({src + lo + start[k], dst + (lo - last.begin), hi - lo, 1, false});
            op->add({0, dst + (hi - last.begin), last.end - hi, 1, true});
        });
    }
    op->m_src = n.inputs[0];
    op->m_dst = out;
    op->m_elem = static_cast<std::int64_t>(dtypeSize(x.dtype));
    op->engine = Engine::Copy;
    op->impl = "tiled:runs";
    op->nodes = {w.node};
    for (TensorId t : n.inputs)
        if (t != kInvalidId)
            op->reads.push_back(t);
    op->writes = {out};
    op->label = n.opType;
    return {std::move(op), {}};
}

// --- copies: Gather ---------------------------------------------------------------------

class GatherTileOp final : public CpuOp
{
public:
    struct Box {
        std::vector<std::int64_t> outers;    // flat index over the dims before the axis
        std::vector<std::int64_t> positions; // flat index into the indices tensor
        std::vector<reference::Run> inner;   // runs of the inner sub-box, relative to a row
    };

    Status run(std::uint8_t *const *tensors) const override
    {
        std::uint8_t *out = tensors[m_out];
        const std::uint8_t *data = tensors[m_data], *indices = tensors[m_indices];
        for (const Box &b : m_boxes)
            for (std::int64_t o : b.outers)
                for (std::int64_t k : b.positions) {
                    std::int64_t v = 0;
                    if (Status error; !gatherRow(indices, m_index64, k, m_extent, v, error))
                        return error;
                    const std::uint8_t *from = data + (o * m_extent + v) * m_row;
                    std::uint8_t *to = out + (o * m_count + k) * m_row;
                    for (const reference::Run &r : b.inner)
                        std::memcpy(to + r.offset * m_elem, from + r.offset * m_elem,
                                    static_cast<std::size_t>(r.length * m_elem));
                }
        return Status::ok();
    }

    std::int64_t m_extent = 0, m_count = 0, m_row = 0, m_elem = 0; // m_row in bytes
    bool m_index64 = true;
    TensorId m_data = kInvalidId, m_indices = kInvalidId, m_out = kInvalidId;
    std::vector<Box> m_boxes;
};

// Flat row-major indices of every element of box r (over `shape`), in order.
std::vector<std::int64_t> flatIndices(const ops::Region &r, const Shape &shape)
{
    if (r.empty())
        return {0};
    return reference::boxOffsets(r, shape);
}

NativeAttempt makeGatherTileOp(const Graph &g, const NodeWrite &w)
{
    const Node &n = g.node(w.node);
    if (n.inputs.size() != 2 || n.outputs.size() != 1 || n.inputs[0] == kInvalidId || n.inputs[1] == kInvalidId ||
        n.outputs[0] == kInvalidId)
        return declined("a missing input or output");
    const Tensor &x = g.tensor(n.inputs[0]), &idx = g.tensor(n.inputs[1]), &y = g.tensor(n.outputs[0]);
    if (idx.dtype != DType::Int64 && idx.dtype != DType::Int32)
        return declined("indices of type " + std::string(dtypeName(idx.dtype)));
    if (x.dtype != y.dtype || x.shape.empty() || dtypeSize(x.dtype) == 0)
        return declined("data and output differ in type");
    auto a = reference::normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.shape.size()));
    if (!a)
        return declined(a.status().message());
    const auto axis = static_cast<std::size_t>(*a), q = idx.shape.size();
    if (y.shape.size() != x.shape.size() - 1 + q)
        return declined("an output rank other than data's - 1 + the indices'");
    const Shape outerShape(x.shape.begin(), x.shape.begin() + static_cast<long>(axis));
    const Shape innerShape(x.shape.begin() + static_cast<long>(axis) + 1, x.shape.end());
    auto op = std::make_unique<GatherTileOp>();
    op->m_elem = static_cast<std::int64_t>(dtypeSize(x.dtype));
    std::int64_t inner = 1;
    for (std::int64_t d : innerShape)
        inner *= d;
    op->m_extent = x.shape[axis];
    op->m_count = idx.elements();
    op->m_row = inner * op->m_elem;
    op->m_index64 = idx.dtype == DType::Int64;
    for (const ops::Region &r : w.regions) {
        if (ops::regionElements(r) == 0)
            continue;
        GatherTileOp::Box b;
        const ops::Region outerBox(r.begin(), r.begin() + static_cast<long>(axis)),
            indexBox(r.begin() + static_cast<long>(axis), r.begin() + static_cast<long>(axis + q)),
            innerBox(r.begin() + static_cast<long>(axis + q), r.end());
        b.outers = flatIndices(outerBox, outerShape);
        b.positions = flatIndices(indexBox, idx.shape);
        b.inner =
            innerBox.empty() ? std::vector<reference::Run>{{0, 1}} : reference::contiguousRuns(innerBox, innerShape);
        op->m_boxes.push_back(std::move(b));
    }
    op->m_data = n.inputs[0];
    op->m_indices = n.inputs[1];
    op->m_out = n.outputs[0];
    op->engine = Engine::Copy;
    op->impl = "tiled:gather";
    op->nodes = {w.node};
    op->reads = {op->m_data, op->m_indices};
    op->writes = {op->m_out};
    op->label = n.opType;
    return {std::move(op), {}};
}

} // namespace

std::string sliceGeometry(const Graph &g, const Node &n, const Constants &constants, std::vector<std::int64_t> &start,
                          std::vector<std::int64_t> &step)
{
    const Shape &x = g.tensor(n.inputs[0]).shape, &y = g.tensor(n.outputs[0]).shape;
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (n.inputs.size() > 1) {
        for (std::size_t i = 1; i < n.inputs.size() && i < 5; ++i)
            if (n.inputs[i] != kInvalidId && !constants.data[static_cast<std::size_t>(n.inputs[i])])
                return "bounds computed at run time";
        auto value = [&](std::size_t i) -> Expected<std::vector<std::int64_t>> {
            if (i >= n.inputs.size() || n.inputs[i] == kInvalidId)
                return std::vector<std::int64_t>{};
            return reference::constInts(g, n, i);
        };
        auto s = value(1), e = value(2), a = value(3), st = value(4);
        for (auto *v : {&s, &e, &a, &st})
            if (!*v)
                return v->status().message();
        starts = *s, ends = *e, axes = *a, steps = *st;
    } else {
        starts = n.attrInts("starts"), ends = n.attrInts("ends"), axes = n.attrInts("axes");
    }
    return sliceStartsAndSteps(n, x, y, starts, ends, std::move(axes), std::move(steps), start, step);
}

bool tiledOpType(std::string_view t)
{
    return reductionType(t) || t == "LayerNormalization" || t == "Slice" || t == "Split" || t == "Gather" ||
           t == "Pad" || t == "Cast" || t == "Resize" || t == "Upsample";
}

NativeAttempt makeTiledOp(const Graph &g, const Constants &constants, const NodeWrite &w, bool useDnnl, bool useCopy)
{
    const std::string &type = g.node(w.node).opType;
    if (reductionType(type) || type == "LayerNormalization") {
        if (!useDnnl)
            return declined("oneDNN disabled by TESSERA_CPU_ENGINES");
        return makeDnnlViewOp(g, constants, w);
    }
    if (!useCopy)
        return declined("copies disabled by TESSERA_CPU_ENGINES");
    if (type == "Gather")
        return makeGatherTileOp(g, w);
    if (type == "Cast" || type == "Resize" || type == "Upsample") {
        NativeAttempt a;
        a.op = type == "Cast" ? makeCastOp(g, w.node, w.regions, a.declined)
                              : makeResizeOp(g, w.node, w.regions, a.declined);
        return a;
    }
    return makeRunCopyOp(g, constants, w);
}

} // namespace tessera::cpu
