// Data movement compiled as copies (issue 13, "data movement ... compiled"):
// Concat and Split (any element type), Gather (any element type, int32/int64
// indices read at run time), constant-mode Pad (float32), Transpose and Slice
// with constant bounds (4- and 8-byte elements) and the reshapes (Reshape,
// Flatten, Squeeze, Unsqueeze, and an Identity no element-wise chain took:
// the same bytes, one memcpy), whole tensors,
// plain layouts but where said. One entry, makeCopyOp.
//
// Concat along axis a of inputs x_i is, per index of the dims before a (the
// outer count), one contiguous copy of each input's row of C_i·inner elements
// to its offset in the output's row: memcpy at the memory system's speed,
// where the reference kernel walks element by element. Split is the same
// copies the other way (its outputs' extents along a are its sizes).
//
// Gather along a is, per index i of the indices and per outer index, one
// row of the data's dims after a (BERT's word embedding: one 768-float row
// per token); the index is checked per gathered row as the reference kernel
// does (an out-of-range index fails the run, naming it). On the blocked layout
// (layout.h) a channel Concat (Split) whose parts all hold whole channel blocks is
// the same copy: per image, input i's blocks are contiguous (C_i/b · H·W·b =
// C_i·H·W elements) and land at channel offset Σ C_j·H·W of the output, so
// the op takes its inputs and output blocked together and runs unchanged.
// Channels-last (nhwc) makes the rows one pixel's channels.
//
// Pad (mode constant, no negative pads): the output filled with the constant,
// then each innermost row of the input copied to its place. On a blocked
// layout with no pad along the channels the same loops run over the storage
// order's dims ([N][C/b][H][W][b] or [N][H][W][C]); the filled pixels' padded
// channel lanes hold the constant, which is finite.
//
// Transpose and Slice are one strided copy: output dims the input walks as
// one are merged first (BERT's [1,128,12,64] by (0,2,1,3) is [128,12,64] by
// (1,0,2)); the output is then walked in order, the innermost run copied with
// memcpy when the input walks it contiguously too, element by element at the
// input's stride otherwise.
//
// Generated code: with the backend's JitCache (makeCopyOp's `jit`), Transpose,
// Slice, each part of a Concat or Split, and Pad's fill and interior are LLVM
// kernels instead (jit.h MoveProgram: constant trip counts and strides for
// the op's final geometry, its layout included, compiled when the layouts
// are known — useLayouts — and cached by content), which block a transpose
// for the caches and let LLVM vectorise short strided runs the loops above
// take one element or one memcpy call at a time. A move of fewer than
// kJitMoveBytes stays on the loops above (a compile, ~10 ms, costs more than
// such a copy ever saves: shape arithmetic on a few int64s), as does the
// whole backend when the JIT module is unavailable. Not generated: the
// reshapes (one memcpy of the whole tensor, which is what LLVM's loop-idiom
// pass makes of a contiguous copy loop too) and Gather (one memcpy per row
// at an index known only at run time, range-checked as it is read).
// Cast between float32/float64 and the 8- to 64-bit integers (makeCastOp,
// whole tensors or the contiguous runs of a tiled task's boxes): one typed
// loop per run that the compiler vectorises; float to integer saturates and
// maps NaN to 0, as the reference kernel does. Bool and the 16-bit floats
// stay on the reference kernel (it converts them through double).
// Resize/Upsample (float32; makeResizeOp, whole tensors or a tiled task's
// boxes): the reference kernel's per-axis taps (reference::resizeTaps: every
// mode and coordinate transformation it takes), summed per output element
// in double as it does; taken when only the last two dims interpolate (the
// others map each output index to one input index), which is NCHW's image
// resize: per output row one list of row taps, per column its column taps.
// Assumes static shapes that agree off the axis (the importer checked them).
#include "backends/cpu/cpuop.h"
#include "backends/cpu/jit.h"
#include "backends/reference/kernel.h"
#include "core/ops/slice.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <type_traits>

namespace tessera::cpu {

std::string MoveProgram::key() const
{
    std::ostringstream os;
    os << elementBytes << "|d";
    for (std::int64_t d : dims)
        os << ' ' << d;
    os << "|i";
    for (std::int64_t v : inStrides)
        os << ' ' << v;
    os << "|o";
    for (std::int64_t v : outStrides)
        os << ' ' << v;
    return os.str();
}

namespace {

// Moves smaller than this stay C++ loops (see above).
constexpr std::int64_t kJitMoveBytes = 4096;

// Drops unit dims and merges adjacent dims both sides walk as one.
void collapse(MoveProgram &p)
{
    MoveProgram c;
    c.elementBytes = p.elementBytes;
    for (std::size_t d = 0; d < p.dims.size(); ++d) {
        if (p.dims[d] == 1)
            continue;
        if (!c.dims.empty() && c.inStrides.back() == p.inStrides[d] * p.dims[d] &&
            c.outStrides.back() == p.outStrides[d] * p.dims[d]) {
            c.dims.back() *= p.dims[d];
            c.inStrides.back() = p.inStrides[d];
            c.outStrides.back() = p.outStrides[d];
            continue;
        }
        c.dims.push_back(p.dims[d]);
        c.inStrides.push_back(p.inStrides[d]);
        c.outStrides.push_back(p.outStrides[d]);
    }
    if (c.dims.empty()) {
        c.dims = {1};
        c.inStrides = {1};
        c.outStrides = {1};
    }
    p = std::move(c);
}

// The kernel of `p`, or null when the C++ loop runs instead: no JIT, a move
// under kJitMoveBytes, an element width LLVM is not asked for, or the JIT
// unavailable. A failed compile is an error.
Expected<MoveFunction> moveKernel(JitCache *jit, MoveProgram p)
{
    std::int64_t elements = 1;
    for (std::int64_t d : p.dims)
        elements *= d;
    const int e = p.elementBytes;
    if (!jit || elements <= 0 || elements * e < kJitMoveBytes || (e != 1 && e != 2 && e != 4 && e != 8))
        return MoveFunction(nullptr);
    collapse(p);
    auto fn = jit->get(p);
    if (!fn && fn.status().code() == ErrorCode::Unavailable)
        return MoveFunction(nullptr);
    return fn;
}

// Concat and Split: per outer index, each part's row at its offset in the
// whole tensor's row, gathered into it (Concat) or scattered from it (Split).
class RowsOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        std::uint8_t *whole = tensors[m_whole];
        for (std::size_t i = 0; i < m_parts.size(); ++i) {
            const Part &p = m_parts[i];
            if (p.row <= 0)
                continue;
            std::uint8_t *part = tensors[p.tensor];
            if (const MoveFunction k = i < m_kernels.size() ? m_kernels[i] : nullptr) {
                if (m_split)
                    k(part, whole + p.offset);
                else
                    k(whole + p.offset, part);
                continue;
            }
            for (std::int64_t o = 0; o < m_outer; ++o) {
                std::uint8_t *row = whole + o * m_wholeRow + p.offset;
                if (m_split)
                    std::memcpy(part + o * p.row, row, static_cast<std::size_t>(p.row));
                else
                    std::memcpy(row, part + o * p.row, static_cast<std::size_t>(p.row));
            }
        }
        return Status::ok();
    }

    std::vector<std::vector<TensorId>> blockedGroups(const Graph &g, int block) const override
    {
        const Shape &y = g.tensor(m_whole).shape;
        if (block <= 0 || m_axis != 1 || y.size() != 4 || g.tensor(m_whole).dtype != DType::Float32)
            return {};
        std::vector<TensorId> group{m_whole};
        for (const Part &p : m_parts) {
            if (g.tensor(p.tensor).shape[1] % block != 0)
                return {};
            group.push_back(p.tensor);
        }
        return {group};
    }

    // nhwc (block 1): per pixel, each part's C_i channels at their offset.
    // Then the parts' kernels, for the final geometry.
    Status useLayouts(const LayoutContext &ctx) override
    {
        const auto elem = static_cast<std::int64_t>(dtypeSize(ctx.graph.tensor(m_whole).dtype));
        if (ctx.block == 1 && ctx.isBlocked(m_whole)) {
            const Shape &y = ctx.graph.tensor(m_whole).shape;
            m_outer = y[0] * y[2] * y[3];
            m_wholeRow = y[1] * elem;
            std::int64_t at = 0;
            for (Part &p : m_parts) {
                p.row = ctx.graph.tensor(p.tensor).shape[1] * elem;
                p.offset = at;
                at += p.row;
            }
            impl = "nhwc";
        }
        // Per part: [outer, its row] between its own rows and the whole's
        // (a null kernel: that part's rows by memcpy).
        m_kernels.assign(m_parts.size(), nullptr);
        bool generated = false;
        for (std::size_t i = 0; i < m_parts.size(); ++i) {
            const Part &p = m_parts[i];
            if (p.row <= 0)
                continue;
            const std::int64_t row = p.row / elem, wholeRow = m_wholeRow / elem;
            MoveProgram move{static_cast<int>(elem), {m_outer, row}, {row, 1}, {wholeRow, 1}};
            if (m_split)
                std::swap(move.inStrides, move.outStrides);
            auto fn = moveKernel(m_jit, move);
            if (!fn)
                return fn.status();
            m_kernels[i] = *fn;
            generated = generated || *fn;
        }
        if (generated)
            impl = impl.empty() ? "llvm" : impl + ":llvm";
        return Status::ok();
    }

    struct Part {
        TensorId tensor;
        std::int64_t row;    // bytes per outer index
        std::int64_t offset; // bytes into the whole tensor's row
    };
    std::vector<Part> m_parts;
    JitCache *m_jit = nullptr;           // null: no generated kernels
    std::vector<MoveFunction> m_kernels; // per part (null: an empty part); empty: the C++ loop
    std::int64_t m_outer = 1, m_wholeRow = 0;
    std::size_t m_axis = 0;
    bool m_split = false;          // Split: the whole tensor is read, the parts written
    TensorId m_whole = kInvalidId; // Concat's output, Split's input
};

// Gather along axis a: per index of the data's dims before a, per index in
// the indices tensor (read at run time; negative ones count from the end,
// out of range is a run-time error as on the reference kernel), one
// contiguous row of the dims after a.
class GatherOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        std::uint8_t *out = tensors[m_out];
        const std::uint8_t *data = tensors[m_data];
        const std::uint8_t *indices = tensors[m_indices];
        const auto row = static_cast<std::size_t>(m_row);
        for (std::int64_t k = 0; k < m_count; ++k) {
            std::int64_t v = 0;
            if (Status error; !gatherRow(indices, m_index64, k, m_extent, v, error))
                return error;
            for (std::int64_t o = 0; o < m_outer; ++o)
                std::memcpy(out + (o * m_count + k) * m_row, data + (o * m_extent + v) * m_row, row);
        }
        return Status::ok();
    }

    std::int64_t m_outer = 1, m_extent = 0, m_count = 0, m_row = 0; // m_row in bytes
    bool m_index64 = true;
    TensorId m_data = kInvalidId, m_indices = kInvalidId, m_out = kInvalidId;
};

class PadOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        auto *out = reinterpret_cast<float *>(tensors[m_out]);
        const auto *in = reinterpret_cast<const float *>(tensors[m_in]);
        if (m_fill && m_interior) {
            m_fill(out, &m_value);
            m_interior(out + m_interiorAt, in);
            return Status::ok();
        }
        std::fill(out, out + m_outElements, m_value);
        const std::size_t rank = m_inDims.size();
        const std::int64_t row = m_inDims.back();
        std::vector<std::int64_t> idx(rank, 0);
        std::vector<std::int64_t> outStride(rank, 1);
        for (std::size_t d = rank; d-- > 1;)
            outStride[d - 1] = outStride[d] * m_outDims[d];
        std::int64_t rows = 1;
        for (std::size_t d = 0; d + 1 < rank; ++d)
            rows *= m_inDims[d];
        for (std::int64_t r = 0; r < rows; ++r) {
            std::int64_t o = m_begin[rank - 1];
            for (std::size_t d = 0; d + 1 < rank; ++d)
                o += (idx[d] + m_begin[d]) * outStride[d];
            std::memcpy(out + o, in + r * row, static_cast<std::size_t>(row) * sizeof(float));
            for (std::size_t d = rank - 1; d-- > 0;) { // odometer over the rows
                if (++idx[d] < m_inDims[d])
                    break;
                idx[d] = 0;
            }
        }
        return Status::ok();
    }

    std::vector<std::vector<TensorId>> blockedGroups(const Graph &g, int block) const override
    {
        const Shape &x = g.tensor(m_in).shape, &y = g.tensor(m_out).shape;
        if (block <= 0 || x.size() != 4 || x[1] != y[1])
            return {};
        return {{m_in, m_out}};
    }

    Status useLayouts(const LayoutContext &ctx) override
    {
        if (ctx.isBlocked(m_out))
            block(ctx);
        // The kernels for the final geometry: the output filled with the
        // value (one element repeated), then the input's box at its place.
        const std::vector<std::int64_t> outStrides = reference::stridesOf(m_outDims);
        m_interiorAt = 0;
        for (std::size_t d = 0; d < m_outDims.size(); ++d)
            m_interiorAt += m_begin[d] * outStrides[d];
        auto fill = moveKernel(m_jit, {4, {m_outElements}, {0}, {1}});
        if (!fill)
            return fill.status();
        auto interior = moveKernel(m_jit, {4, m_inDims, reference::stridesOf(m_inDims), outStrides});
        if (!interior)
            return interior.status();
        if (*fill && *interior) {
            m_fill = *fill;
            m_interior = *interior;
            impl = impl.empty() ? "llvm" : impl + ":llvm";
        }
        return Status::ok();
    }

    void block(const LayoutContext &ctx)
    {
        const Shape &x = ctx.graph.tensor(m_in).shape, &y = ctx.graph.tensor(m_out).shape;
        const std::vector<std::int64_t> b = m_begin;
        if (ctx.block == 1) {
            m_inDims = {x[0], x[2], x[3], x[1]};
            m_outDims = {y[0], y[2], y[3], y[1]};
            m_begin = {b[0], b[2], b[3], 0};
            impl = "nhwc";
        } else {
            const std::int64_t cb = (x[1] + ctx.block - 1) / ctx.block;
            m_inDims = {x[0], cb, x[2], x[3], ctx.block};
            m_outDims = {y[0], cb, y[2], y[3], ctx.block};
            m_begin = {b[0], 0, b[2], b[3], 0};
            impl = "blocked";
        }
        m_outElements = 1;
        for (std::int64_t v : m_outDims)
            m_outElements *= v;
    }

    std::vector<std::int64_t> m_inDims, m_outDims, m_begin; // in storage order
    std::int64_t m_outElements = 0;
    float m_value = 0;
    JitCache *m_jit = nullptr;                           // null: no generated kernels
    MoveFunction m_fill = nullptr, m_interior = nullptr; // both or neither
    std::int64_t m_interiorAt = 0;                       // the input's first element in the output
    TensorId m_in = kInvalidId, m_out = kInvalidId;
};

class TransposeOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        if (m_kernel) {
            m_kernel(tensors[m_out], tensors[m_in] + m_base * m_elem);
            return Status::ok();
        }
        if (m_elem == 4)
            walk<std::uint32_t>(tensors);
        else
            walk<std::uint64_t>(tensors);
        return Status::ok();
    }

    template <class T> void walk(std::uint8_t *const *tensors) const
    {
        T *out = reinterpret_cast<T *>(tensors[m_out]);
        const T *in = reinterpret_cast<const T *>(tensors[m_in]);
        const std::size_t rank = m_outDims.size();
        const std::int64_t inner = m_outDims.back(), innerStride = m_inStrides.back();
        std::int64_t rows = 1;
        for (std::size_t d = 0; d + 1 < rank; ++d)
            rows *= m_outDims[d];
        std::vector<std::int64_t> idx(rank, 0);
        std::int64_t src = m_base;
        for (std::int64_t r = 0; r < rows; ++r, out += inner) {
            if (innerStride == 1)
                std::memcpy(out, in + src, static_cast<std::size_t>(inner) * sizeof(T));
            else
                for (std::int64_t i = 0; i < inner; ++i)
                    out[i] = in[src + i * innerStride];
            for (std::size_t d = rank - 1; d-- > 0;) { // odometer over the output's rows
                src += m_inStrides[d];
                if (++idx[d] < m_outDims[d])
                    break;
                src -= idx[d] * m_inStrides[d];
                idx[d] = 0;
            }
        }
    }

    Status useLayouts(const LayoutContext &) override
    {
        auto fn =
            moveKernel(m_jit, {static_cast<int>(m_elem), m_outDims, m_inStrides, reference::stridesOf(m_outDims)});
        if (!fn)
            return fn.status();
        if ((m_kernel = *fn))
            impl = "llvm";
        return Status::ok();
    }

    std::vector<std::int64_t> m_outDims;   // merged
    std::vector<std::int64_t> m_inStrides; // per output dim: the input's element stride (negative: backwards)
    std::int64_t m_base = 0;               // the input element of output element 0
    std::int64_t m_elem = 4;
    JitCache *m_jit = nullptr;       // null: no generated kernel
    MoveFunction m_kernel = nullptr; // set by useLayouts when generated
    TensorId m_in = kInvalidId, m_out = kInvalidId;
};

// Reshape, Flatten, Squeeze, Unsqueeze, Identity: the input's bytes, unchanged.
class ReshapeOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        if (tensors[m_out] != tensors[m_in])
            std::memcpy(tensors[m_out], tensors[m_in], m_bytes);
        return Status::ok();
    }
    std::size_t m_bytes = 0;
    TensorId m_in = kInvalidId, m_out = kInvalidId;
};

} // namespace

std::string sliceStartsAndSteps(const Node &n, const Shape &x, const Shape &y, const std::vector<std::int64_t> &starts,
                                const std::vector<std::int64_t> &ends, std::vector<std::int64_t> axes,
                                std::vector<std::int64_t> steps, std::vector<std::int64_t> &start,
                                std::vector<std::int64_t> &step)
{
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        return "starts, ends, axes and steps of different lengths";
    start.assign(x.size(), 0);
    step.assign(x.size(), 1);
    for (std::size_t i = 0; i < starts.size(); ++i) {
        auto ax = reference::normAxis(n, axes[i], static_cast<std::int64_t>(x.size()));
        if (!ax)
            return ax.status().message();
        if (steps[i] == 0)
            return "a zero step";
        const auto d = static_cast<std::size_t>(*ax);
        const ops::SliceAxis s = ops::sliceAxis(starts[i], ends[i], steps[i], x[d]);
        start[d] = s.start;
        step[d] = s.step;
    }
    for (std::size_t d = 0; d < x.size(); ++d) {
        const std::int64_t last = start[d] + (y[d] - 1) * step[d];
        if (y[d] > 0 && (last < 0 || last >= x[d] || start[d] < 0 || start[d] >= x[d]))
            return "a slice reaching outside the input";
    }
    return {};
}

namespace {

// Binds a copy op to node n: output 0 from input 0, reading every input the
// node has (constant shapes and bounds too, so the runner orders them).
template <class Op> void bindCopy(Op &op, const Node &node, NodeId n)
{
    op.m_in = node.inputs[0];
    op.m_out = node.outputs[0];
    for (TensorId t : node.inputs)
        if (t != kInvalidId)
            op.reads.push_back(t);
    op.writes = {op.m_out};
    op.nodes = {n};
    op.label = node.opType;
    op.engine = Engine::Copy;
}

// out[i] = in[base + Σ_d i_d · strides[d]] over the output's dims (Transpose,
// Slice): unit dims dropped, adjacent dims merged where the input walks them
// as one.
CpuOpPtr stridedCopy(const Graph &g, NodeId n, const Shape &outDims, const std::vector<std::int64_t> &inStrides,
                     std::int64_t base, JitCache *jit)
{
    const Node &node = g.node(n);
    const Tensor &x = g.tensor(node.inputs[0]);
    std::vector<std::int64_t> dims, strides;
    for (std::size_t d = 0; d < outDims.size(); ++d) {
        if (outDims[d] == 1)
            continue;
        if (!dims.empty() && strides.back() == inStrides[d] * outDims[d]) {
            dims.back() *= outDims[d];
            strides.back() = inStrides[d];
        } else {
            dims.push_back(outDims[d]);
            strides.push_back(inStrides[d]);
        }
    }
    if (dims.empty()) {
        dims = {1};
        strides = {1};
    }
    auto op = std::make_unique<TransposeOp>();
    op->m_outDims = std::move(dims);
    op->m_inStrides = std::move(strides);
    op->m_base = base;
    op->m_elem = static_cast<std::int64_t>(dtypeSize(x.dtype));
    op->m_jit = jit;
    bindCopy(*op, node, n);
    return op;
}

bool copyableTypes(const Tensor &x, const Tensor &y)
{
    const std::size_t elem = dtypeSize(x.dtype);
    return (elem == 4 || elem == 8) && y.dtype == x.dtype && y.shape.size() == x.shape.size() && !x.shape.empty() &&
           x.elements() > 0 && y.elements() > 0;
}

// A constant int64/int32 input as integers, or nothing.
std::optional<std::vector<std::int64_t>> constInts(const Graph &g, const Constants &c, const Node &n, std::size_t i)
{
    if (i >= n.inputs.size() || n.inputs[i] == kInvalidId)
        return std::vector<std::int64_t>{};
    const auto &data = c.data[static_cast<std::size_t>(n.inputs[i])];
    const DType t = g.tensor(n.inputs[i]).dtype;
    if (!data || (t != DType::Int64 && t != DType::Int32))
        return std::nullopt;
    std::vector<std::int64_t> v;
    if (t == DType::Int64)
        v.assign(reinterpret_cast<const std::int64_t *>(data->view().data()),
                 reinterpret_cast<const std::int64_t *>(data->view().data()) + data->view().size() / 8);
    else
        v.assign(reinterpret_cast<const std::int32_t *>(data->view().data()),
                 reinterpret_cast<const std::int32_t *>(data->view().data()) + data->view().size() / 4);
    return v;
}

CpuOpPtr makeTransposeOp(const Graph &g, NodeId n, JitCache *jit)
{
    const Node &node = g.node(n);
    if (node.opType != "Transpose" || node.inputs.empty() || node.outputs.empty() || node.inputs[0] == kInvalidId)
        return nullptr;
    const Tensor &x = g.tensor(node.inputs[0]), &y = g.tensor(node.outputs[0]);
    if (!copyableTypes(x, y))
        return nullptr;
    const std::size_t rank = x.shape.size();
    std::vector<std::int64_t> perm = node.attrInts("perm");
    if (perm.empty())
        for (std::size_t d = rank; d-- > 0;)
            perm.push_back(static_cast<std::int64_t>(d));
    if (perm.size() != rank)
        return nullptr;
    const std::vector<std::int64_t> inStride = reference::stridesOf(x.shape);
    std::vector<std::int64_t> strides(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        if (perm[d] < 0 || perm[d] >= static_cast<std::int64_t>(rank))
            return nullptr;
        const auto p = static_cast<std::size_t>(perm[d]);
        if (x.shape[p] != y.shape[d])
            return nullptr;
        strides[d] = inStride[p];
    }
    return stridedCopy(g, n, y.shape, strides, 0, jit);
}

// Slice with constant starts, ends, axes and steps (inputs, or attributes
// before opset 10): starts clamped as ONNX says (negative from the end;
// [0, dim] going forward, [0, dim - 1] going backward); the output's extent
// per dim is the graph's (its shape inference applied the ends).
CpuOpPtr makeSliceOp(const Graph &g, NodeId n, const Constants &constants, JitCache *jit)
{
    const Node &node = g.node(n);
    if (node.opType != "Slice" || node.inputs.empty() || node.outputs.empty() || node.inputs[0] == kInvalidId)
        return nullptr;
    const Tensor &x = g.tensor(node.inputs[0]), &y = g.tensor(node.outputs[0]);
    if (!copyableTypes(x, y))
        return nullptr;
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (node.inputs.size() > 1) {
        auto s = constInts(g, constants, node, 1), e = constInts(g, constants, node, 2),
             a = constInts(g, constants, node, 3), st = constInts(g, constants, node, 4);
        if (!s || !e || !a || !st)
            return nullptr;
        starts = *s, ends = *e, axes = *a, steps = *st;
    } else {
        starts = node.attrInts("starts"), ends = node.attrInts("ends"), axes = node.attrInts("axes");
    }
    std::vector<std::int64_t> start, step;
    if (!sliceStartsAndSteps(node, x.shape, y.shape, starts, ends, std::move(axes), std::move(steps), start, step)
             .empty())
        return nullptr;
    const std::vector<std::int64_t> st = reference::stridesOf(x.shape);
    std::vector<std::int64_t> strides(x.shape.size());
    std::int64_t base = 0;
    for (std::size_t d = 0; d < x.shape.size(); ++d) {
        strides[d] = st[d] * step[d];
        base += start[d] * st[d];
    }
    return stridedCopy(g, n, y.shape, strides, base, jit);
}

CpuOpPtr makeReshapeOp(const Graph &g, NodeId n)
{
    const Node &node = g.node(n);
    static const char *const types[] = {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
    if (std::find(std::begin(types), std::end(types), node.opType) == std::end(types) || node.inputs.empty() ||
        node.outputs.empty() || node.inputs[0] == kInvalidId || node.outputs[0] == kInvalidId)
        return nullptr;
    const Tensor &x = g.tensor(node.inputs[0]), &y = g.tensor(node.outputs[0]);
    if (x.dtype != y.dtype || x.bytes() != y.bytes() || x.bytes() < 0)
        return nullptr;
    auto op = std::make_unique<ReshapeOp>();
    op->m_bytes = static_cast<std::size_t>(x.bytes());
    bindCopy(*op, node, n);
    return op;
}

CpuOpPtr makePadOp(const Graph &g, NodeId n, const Constants &constants, JitCache *jit)
{
    const Node &node = g.node(n);
    if (node.opType != "Pad" || node.inputs.empty() || node.outputs.empty() || node.inputs[0] == kInvalidId)
        return nullptr;
    const Tensor &x = g.tensor(node.inputs[0]), &y = g.tensor(node.outputs[0]);
    if (x.dtype != DType::Float32 || y.dtype != DType::Float32 || x.shape.empty() || x.shape.size() != y.shape.size() ||
        node.attrString("mode", "constant") != "constant")
        return nullptr;
    const std::size_t rank = x.shape.size();
    std::vector<std::int64_t> pads = node.attrInts("pads");
    auto input = [&](std::size_t i) { return i < node.inputs.size() && node.inputs[i] != kInvalidId; };
    if (input(3))
        return nullptr; // axes: left to the reference kernel
    if (input(1)) {
        const auto &data = constants.data[static_cast<std::size_t>(node.inputs[1])];
        if (!data || g.tensor(node.inputs[1]).dtype != DType::Int64)
            return nullptr;
        pads.assign(reinterpret_cast<const std::int64_t *>(data->view().data()),
                    reinterpret_cast<const std::int64_t *>(data->view().data()) + data->view().size() / 8);
    }
    if (pads.size() != 2 * rank)
        return nullptr;
    auto op = std::make_unique<PadOp>();
    op->m_jit = jit;
    op->m_value = static_cast<float>(node.attrFloat("value", 0.0));
    if (input(2)) {
        const float *v = constants.f32(node.inputs[2]);
        if (!v || g.tensor(node.inputs[2]).dtype != DType::Float32)
            return nullptr;
        if (g.tensor(node.inputs[2]).elements() > 0)
            op->m_value = *v;
    }
    op->m_outElements = y.elements();
    for (std::size_t d = 0; d < rank; ++d) {
        if (pads[d] < 0 || pads[d + rank] < 0 || x.shape[d] + pads[d] + pads[d + rank] != y.shape[d])
            return nullptr;
        if (x.shape[d] == 0)
            return nullptr;
    }
    op->m_inDims = x.shape;
    op->m_outDims = y.shape;
    op->m_begin.assign(pads.begin(), pads.begin() + static_cast<long>(rank));
    op->m_in = node.inputs[0];
    op->m_out = node.outputs[0];
    op->reads = {op->m_in};
    for (std::size_t i = 1; i < node.inputs.size(); ++i)
        if (node.inputs[i] != kInvalidId)
            op->reads.push_back(node.inputs[i]);
    op->writes = {op->m_out};
    op->nodes = {n};
    op->label = "Pad";
    op->engine = Engine::Copy;
    return op;
}

// Concat (`split` false) or Split (true) along `axis` of the whole tensor
// (Concat's output, Split's input); the parts are the other side's tensors,
// in order. Null when a shape or type does not add up.
CpuOpPtr makeRowsOp(const Graph &g, NodeId n, TensorId whole, const std::vector<TensorId> &parts, bool split,
                    JitCache *jit)
{
    const Node &node = g.node(n);
    if (whole == kInvalidId || parts.empty())
        return nullptr;
    const Tensor &y = g.tensor(whole);
    const auto rank = static_cast<std::int64_t>(y.shape.size());
    std::int64_t axis = node.attrInt("axis", 0);
    if (axis < 0)
        axis += rank;
    if (rank == 0 || axis < 0 || axis >= rank)
        return nullptr;
    const auto a = static_cast<std::size_t>(axis);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < a; ++d)
        outer *= y.shape[d];
    for (std::size_t d = a + 1; d < y.shape.size(); ++d)
        inner *= y.shape[d];
    const auto elem = static_cast<std::int64_t>(dtypeSize(y.dtype));
    auto op = std::make_unique<RowsOp>();
    op->m_jit = jit;
    std::int64_t at = 0;
    for (TensorId t : parts) {
        if (t == kInvalidId)
            return nullptr;
        const Tensor &x = g.tensor(t);
        if (x.dtype != y.dtype || x.shape.size() != y.shape.size())
            return nullptr;
        for (std::size_t d = 0; d < y.shape.size(); ++d)
            if (d != a && x.shape[d] != y.shape[d])
                return nullptr;
        const std::int64_t row = x.shape[a] * inner * elem;
        op->m_parts.push_back({t, row, at});
        at += row;
    }
    if (at != y.shape[a] * inner * elem || elem <= 0)
        return nullptr;
    op->m_outer = outer;
    op->m_wholeRow = at;
    op->m_axis = a;
    op->m_split = split;
    op->m_whole = whole;
    if (split) {
        op->reads = {whole};
        op->writes = parts;
    } else {
        op->reads = parts;
        op->writes = {whole};
    }
    for (std::size_t i = split ? 1 : node.inputs.size(); i < node.inputs.size(); ++i)
        if (node.inputs[i] != kInvalidId)
            op->reads.push_back(node.inputs[i]); // Split's sizes: its outputs' shapes already say them
    op->nodes = {n};
    op->label = node.opType;
    op->engine = Engine::Copy;
    return op;
}

CpuOpPtr makeConcatOp(const Graph &g, NodeId n, JitCache *jit)
{
    const Node &node = g.node(n);
    if (node.outputs.size() != 1)
        return nullptr;
    return makeRowsOp(g, n, node.outputs[0], node.inputs, false, jit);
}

CpuOpPtr makeSplitOp(const Graph &g, NodeId n, JitCache *jit)
{
    const Node &node = g.node(n);
    if (node.inputs.empty())
        return nullptr;
    return makeRowsOp(g, n, node.inputs[0], node.outputs, true, jit);
}

// Gather with int32/int64 indices of any shape, data of any element type.
CpuOpPtr makeGatherOp(const Graph &g, NodeId n)
{
    const Node &node = g.node(n);
    if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.inputs[0] == kInvalidId ||
        node.inputs[1] == kInvalidId || node.outputs[0] == kInvalidId)
        return nullptr;
    const Tensor &x = g.tensor(node.inputs[0]), &idx = g.tensor(node.inputs[1]), &y = g.tensor(node.outputs[0]);
    if ((idx.dtype != DType::Int64 && idx.dtype != DType::Int32) || x.dtype != y.dtype || x.shape.empty())
        return nullptr;
    const auto rank = static_cast<std::int64_t>(x.shape.size());
    std::int64_t axis = node.attrInt("axis", 0);
    if (axis < 0)
        axis += rank;
    if (axis < 0 || axis >= rank)
        return nullptr;
    const auto a = static_cast<std::size_t>(axis);
    auto op = std::make_unique<GatherOp>();
    std::int64_t inner = 1;
    for (std::size_t d = 0; d < a; ++d)
        op->m_outer *= x.shape[d];
    for (std::size_t d = a + 1; d < x.shape.size(); ++d)
        inner *= x.shape[d];
    op->m_extent = x.shape[a];
    op->m_count = idx.elements();
    op->m_row = inner * static_cast<std::int64_t>(dtypeSize(x.dtype));
    if (op->m_row <= 0 || op->m_extent <= 0 || op->m_count < 0 || op->m_outer * op->m_count * inner != y.elements())
        return nullptr;
    op->m_index64 = idx.dtype == DType::Int64;
    op->m_data = node.inputs[0];
    op->m_indices = node.inputs[1];
    op->m_out = node.outputs[0];
    op->reads = {op->m_data, op->m_indices};
    op->writes = {op->m_out};
    op->nodes = {n};
    op->label = "Gather";
    op->engine = Engine::Copy;
    return op;
}

// --- Cast -------------------------------------------------------------------------

// Float to integer without undefined behaviour: NaN → 0, saturating.
template <typename To> To toInteger(double v)
{
    if (std::isnan(v))
        return 0;
    if (v <= static_cast<double>(std::numeric_limits<To>::lowest()))
        return std::numeric_limits<To>::lowest();
    if (v >= static_cast<double>(std::numeric_limits<To>::max()))
        return std::numeric_limits<To>::max();
    return static_cast<To>(v);
}

using ConvertFn = void (*)(const std::uint8_t *x, std::uint8_t *y, std::int64_t offset, std::int64_t length);

template <typename From, typename To>
void convert(const std::uint8_t *x, std::uint8_t *y, std::int64_t offset, std::int64_t length)
{
    const From *a = reinterpret_cast<const From *>(x) + offset;
    To *b = reinterpret_cast<To *>(y) + offset;
    for (std::int64_t i = 0; i < length; ++i) {
        if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>)
            b[i] = toInteger<To>(static_cast<double>(a[i]));
        else
            b[i] = static_cast<To>(a[i]); // NOLINT(bugprone-signed-char-misuse): int8 is signed
    }
}

// Calls f(T{}) with the C++ type of an element of t; false for the types not taken.
template <typename F> bool visitType(DType t, F &&f)
{
    switch (t) {
    case DType::Float32: return f(float{}), true;
    case DType::Float64: return f(double{}), true;
    case DType::Int8: return f(std::int8_t{}), true;
    case DType::UInt8: return f(std::uint8_t{}), true;
    case DType::Int16: return f(std::int16_t{}), true;
    case DType::Int32: return f(std::int32_t{}), true;
    case DType::Int64: return f(std::int64_t{}), true;
    case DType::UInt16: return f(std::uint16_t{}), true;
    case DType::UInt32: return f(std::uint32_t{}), true;
    case DType::UInt64: return f(std::uint64_t{}), true;
    default: return false;
    }
}

class CastOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        for (const reference::Run &r : m_runs)
            m_convert(tensors[m_in], tensors[m_out], r.offset, r.length);
        return Status::ok();
    }

    ConvertFn m_convert = nullptr;
    std::vector<reference::Run> m_runs;
    TensorId m_in = kInvalidId, m_out = kInvalidId;
};

// --- Resize -------------------------------------------------------------------------

class ResizeOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        const auto *x = reinterpret_cast<const float *>(tensors[m_in]);
        auto *y = reinterpret_cast<float *>(tensors[m_out]);
        const std::size_t rank = m_axes.size();
        static const std::vector<reference::ResizeTap> one{{0, 1.0}};
        for (const ops::Region &r : m_boxes) {
            std::vector<std::int64_t> idx;
            for (const ops::Interval &i : r)
                idx.push_back(i.begin);
            for (;;) { // one output row (the last dim's range) per step
                std::int64_t base = 0, dst = 0;
                bool outside = false;
                for (std::size_t d = 0; d + 2 < rank; ++d) {
                    const auto o = static_cast<std::size_t>(idx[d]);
                    base += m_axes[d].taps[o][0].offset;
                    outside = outside || m_axes[d].outside[o];
                    dst += idx[d] * m_yStrides[d];
                }
                const std::vector<reference::ResizeTap> *rows = &one;
                if (rank >= 2) {
                    const auto o = static_cast<std::size_t>(idx[rank - 2]);
                    rows = &m_axes[rank - 2].taps[o];
                    outside = outside || m_axes[rank - 2].outside[o];
                    dst += idx[rank - 2] * m_yStrides[rank - 2];
                }
                const reference::ResizeAxis &cols = m_axes[rank - 1];
                for (std::int64_t o = r.back().begin; o < r.back().end; ++o) {
                    const auto c = static_cast<std::size_t>(o);
                    if (outside || cols.outside[c]) {
                        y[dst + o] = m_extrapolation;
                        continue;
                    }
                    double sum = 0;
                    for (const reference::ResizeTap &h : *rows)
                        for (const reference::ResizeTap &w : cols.taps[c])
                            sum += h.weight * w.weight * x[base + h.offset + w.offset];
                    y[dst + o] = static_cast<float>(sum);
                }
                std::size_t d = rank - 1; // odometer over the dims before the last
                for (;;) {
                    if (d == 0)
                        goto next;
                    --d;
                    if (++idx[d] < r[d].end)
                        break;
                    idx[d] = r[d].begin;
                }
            }
        next:;
        }
        return Status::ok();
    }

    std::vector<reference::ResizeAxis> m_axes;
    std::vector<std::int64_t> m_yStrides;
    float m_extrapolation = 0;
    std::vector<ops::Region> m_boxes;
    TensorId m_in = kInvalidId, m_out = kInvalidId;
};

} // namespace

CpuOpPtr makeResizeOp(const Graph &g, NodeId n, const std::vector<ops::Region> &boxes, std::string &why)
{
    const Node &node = g.node(n);
    if (node.inputs.empty() || node.inputs[0] == kInvalidId || node.outputs.size() != 1 ||
        node.outputs[0] == kInvalidId) {
        why = "not a Resize with one output";
        return nullptr;
    }
    const Tensor &x = g.tensor(node.inputs[0]), &y = g.tensor(node.outputs[0]);
    if (x.dtype != DType::Float32 || y.dtype != DType::Float32) {
        why = "not float32";
        return nullptr;
    }
    if (x.shape.empty() || x.shape.size() != y.shape.size() || y.elements() == 0) {
        why = "a scalar or empty tensor";
        return nullptr;
    }
    auto taps = reference::resizeTaps(g, node);
    if (!taps) {
        why = taps.status().message();
        return nullptr;
    }
    const std::size_t rank = x.shape.size();
    // The dims before the last two must read one input element per output
    // index: the taps' weights, summed per input offset, are 1 at one offset
    // and 0 elsewhere (a cubic tap list at an integral coordinate is 0, 1,
    // 0, 0; an extent-1 axis clamps every tap to its one element).
    for (std::size_t d = 0; d + 2 < rank; ++d)
        for (auto &t : taps->axes[d].taps) {
            std::map<std::int64_t, double> byOffset;
            for (const reference::ResizeTap &tap : t)
                byOffset[tap.offset] += tap.weight;
            std::vector<reference::ResizeTap> kept;
            for (const auto &[offset, weight] : byOffset)
                if (weight != 0.0)
                    kept.push_back({offset, weight});
            if (kept.size() != 1 || std::abs(kept[0].weight - 1.0) > 1e-12) {
                why = "interpolation along a dim before the last two";
                return nullptr;
            }
            t = std::move(kept);
        }
    auto op = std::make_unique<ResizeOp>();
    op->m_axes = std::move(taps->axes);
    op->m_extrapolation = taps->extrapolation;
    op->m_yStrides = reference::stridesOf(y.shape);
    op->m_boxes = boxes;
    if (boxes.empty())
        op->m_boxes.push_back(ops::fullRegion(y.shape));
    bindCopy(*op, node, n);
    op->impl = boxes.empty() ? "taps" : "tiled:taps";
    return op;
}

CpuOpPtr makeCastOp(const Graph &g, NodeId n, const std::vector<ops::Region> &boxes, std::string &why)
{
    const Node &node = g.node(n);
    if (node.opType != "Cast" || node.inputs.empty() || node.outputs.size() != 1 || node.inputs[0] == kInvalidId ||
        node.outputs[0] == kInvalidId) {
        why = "not a Cast with one input and one output";
        return nullptr;
    }
    const Tensor &x = g.tensor(node.inputs[0]), &y = g.tensor(node.outputs[0]);
    ConvertFn fn = nullptr;
    const bool typed = visitType(
        x.dtype, [&]<typename From>(From) { visitType(y.dtype, [&]<typename To>(To) { fn = &convert<From, To>; }); });
    if (!typed || !fn) {
        why = "cast from " + std::string(dtypeName(x.dtype)) + " to " + std::string(dtypeName(y.dtype));
        return nullptr;
    }
    auto op = std::make_unique<CastOp>();
    op->m_convert = fn;
    if (boxes.empty())
        op->m_runs.push_back({0, y.elements()});
    for (const ops::Region &r : boxes)
        for (const reference::Run &run : reference::contiguousRuns(r, y.shape))
            if (run.length > 0)
                op->m_runs.push_back(run);
    op->m_in = node.inputs[0];
    op->m_out = node.outputs[0];
    op->reads = {op->m_in};
    op->writes = {op->m_out};
    op->nodes = {n};
    op->label = "Cast";
    op->engine = Engine::Copy;
    if (!boxes.empty())
        op->impl = "tiled:runs";
    return op;
}

CpuOpPtr makeCopyOp(const Graph &g, NodeId n, const Constants &constants, JitCache *jit)
{
    const std::string &type = g.node(n).opType;
    if (type == "Pad")
        return makePadOp(g, n, constants, jit);
    if (type == "Transpose")
        return makeTransposeOp(g, n, jit);
    if (type == "Slice")
        return makeSliceOp(g, n, constants, jit);
    if (type == "Concat")
        return makeConcatOp(g, n, jit);
    if (type == "Split")
        return makeSplitOp(g, n, jit);
    if (type == "Gather")
        return makeGatherOp(g, n);
    if (type == "Cast") {
        std::string why;
        return makeCastOp(g, n, {}, why);
    }
    if (type == "Resize" || type == "Upsample") {
        std::string why;
        return makeResizeOp(g, n, {}, why);
    }
    return makeReshapeOp(g, n);
}

} // namespace tessera::cpu
