// Lowering one compute task to CpuOps (see lower.h): oneDNN anchors, LLVM
// row kernels (rowops.cpp) before oneDNN primitives, LLVM element-wise
// chains (reading the views viewfold.cpp folds into them through strides:
// a chain operand is a tensor, per dim an element stride, and a base
// element), reference kernels; tiled tasks in tiled.cpp.
#include "backends/cpu/lower.h"

#include "core/plan/tiles.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

namespace tessera::cpu {

std::string_view engineName(Engine e)
{
    switch (e) {
    case Engine::OneDnn: return "onednn";
    case Engine::Jit: return "llvm-jit";
    case Engine::Copy: return "copy";
    case Engine::Reference: return "reference";
    }
    return "?";
}

bool FusionScope::available(TensorId t) const
{
    const Tensor &tensor = graph.tensor(t);
    if (tensor.isConstant() || tensor.producer == kInvalidId)
        return true;
    const int p = position(tensor.producer);
    return p < 0 || done[static_cast<std::size_t>(p)];
}

int FusionScope::position(NodeId n) const
{
    auto it = std::find(kernelNodes.begin(), kernelNodes.end(), n);
    return it == kernelNodes.end() ? -1 : static_cast<int>(it - kernelNodes.begin());
}

std::string EwProgram::key() const
{
    std::ostringstream os;
    os << std::setprecision(9); // float constants round-trip: two programs differing in one share no key
    os << "d";
    for (std::int64_t d : dims)
        os << ' ' << d;
    for (const auto &s : strides) {
        os << "|s";
        for (std::int64_t v : s)
            os << ' ' << v;
    }
    for (const EwInstr &i : instrs)
        os << "|" << static_cast<int>(i.op) << ' ' << i.a << ' ' << i.b << ' ' << i.c << ' ' << i.alpha << ' '
           << i.beta;
    return os.str();
}

namespace {

// --- element-wise chains ------------------------------------------------------

using Op = EwInstr::Op;

std::optional<Op> unaryOp(std::string_view t)
{
    static const std::map<std::string_view, Op> ops = {{"Relu", Op::Relu},
                                                       {"LeakyRelu", Op::LeakyRelu},
                                                       {"Sigmoid", Op::Sigmoid},
                                                       {"Tanh", Op::Tanh},
                                                       {"Exp", Op::Exp},
                                                       {"Log", Op::Log},
                                                       {"Sqrt", Op::Sqrt},
                                                       {"Neg", Op::Neg},
                                                       {"Abs", Op::Abs},
                                                       {"Reciprocal", Op::Reciprocal},
                                                       {"Erf", Op::Erf},
                                                       {"Floor", Op::Floor},
                                                       {"Ceil", Op::Ceil},
                                                       {"Clip", Op::Clip},
                                                       {"HardSigmoid", Op::HardSigmoid},
                                                       {"HardSwish", Op::HardSwish},
                                                       {"Elu", Op::Elu},
                                                       {"Selu", Op::Selu},
                                                       {"Celu", Op::Celu},
                                                       {"ThresholdedRelu", Op::ThresholdedRelu},
                                                       {"Softplus", Op::Softplus},
                                                       {"Softsign", Op::Softsign},
                                                       {"Shrink", Op::Shrink},
                                                       {"Sign", Op::Sign},
                                                       {"Round", Op::Round}};
    auto it = ops.find(t);
    return it == ops.end() ? std::nullopt : std::optional<Op>(it->second);
}

std::optional<Op> binaryOp(std::string_view t)
{
    static const std::map<std::string_view, Op> ops = {{"Add", Op::Add}, {"Sub", Op::Sub}, {"Mul", Op::Mul},
                                                       {"Div", Op::Div}, {"Pow", Op::Pow}, {"PRelu", Op::PRelu}};
    auto it = ops.find(t);
    return it == ops.end() ? std::nullopt : std::optional<Op>(it->second);
}

// Variadic ops (two or more inputs), folded left to right into binary steps.
std::optional<Op> variadicOp(std::string_view t)
{
    static const std::map<std::string_view, Op> ops = {{"Sum", Op::Add}, {"Max", Op::Max}, {"Min", Op::Min}};
    auto it = ops.find(t);
    return it == ops.end() ? std::nullopt : std::optional<Op>(it->second);
}

bool allF32(const Graph &g, const Node &n)
{
    for (TensorId t : n.inputs)
        if (t != kInvalidId && g.tensor(t).dtype != DType::Float32)
            return false;
    return !n.outputs.empty() && n.outputs[0] != kInvalidId && g.tensor(n.outputs[0]).dtype == DType::Float32;
}

std::optional<float> constScalar(const Graph &g, const Constants &c, const Node &n, std::size_t i, float absent)
{
    if (i >= n.inputs.size() || n.inputs[i] == kInvalidId)
        return absent;
    const float *v = c.f32(n.inputs[i]);
    if (!v || g.tensor(n.inputs[i]).elements() != 1)
        return std::nullopt;
    return *v;
}

// Whether node n can join a chain of output shape `shape` (its output must have it).
bool chainable(const Graph &g, const Constants &c, const Node &n, const Shape &shape)
{
    if (n.opaque || !allF32(g, n) || g.tensor(n.outputs[0]).shape != shape)
        return false;
    for (std::size_t o = 1; o < n.outputs.size(); ++o)
        if (n.outputs[o] != kInvalidId && !g.tensor(n.outputs[o]).consumers.empty())
            return false;
    if (n.opType == "Clip")
        return (n.attr("min") || constScalar(g, c, n, 1, 0)) && (n.attr("max") || constScalar(g, c, n, 2, 0));
    if (unaryOp(n.opType) || n.opType == "Identity")
        return n.inputs.size() >= 1;
    if (binaryOp(n.opType) || variadicOp(n.opType)) {
        if (binaryOp(n.opType) ? n.inputs.size() != 2 : n.inputs.size() < 2)
            return false;
        for (TensorId t : n.inputs) // numpy broadcast to the output only
            if (t == kInvalidId || g.tensor(t).shape.size() > shape.size())
                return false;
        return true;
    }
    if (n.opType == "BatchNormalization") {
        if (n.inputs.size() < 5 || shape.size() < 2 || n.attrInt("training_mode", 0) != 0)
            return false;
        for (std::size_t i = 1; i < 5; ++i)
            if (!c.f32(n.inputs[i]) || g.tensor(n.inputs[i]).elements() != shape[1])
                return false;
        return true;
    }
    return false;
}

} // namespace

bool joinsChain(const Graph &g, const Constants &constants, const Node &n)
{
    return !n.outputs.empty() && n.outputs[0] != kInvalidId && chainable(g, constants, n, g.tensor(n.outputs[0]).shape);
}

namespace {

// S2 of makeJitOp: merges adjacent dims every operand walks the same way and
// drops unit dims.
void collapse(std::vector<std::int64_t> &dims, std::vector<std::vector<std::int64_t>> &strides)
{
    for (std::size_t d = dims.size(); d-- > 0;)
        if (dims[d] == 1 && dims.size() > 1) {
            dims.erase(dims.begin() + static_cast<long>(d));
            for (auto &st : strides)
                st.erase(st.begin() + static_cast<long>(d));
        }
    for (std::size_t d = dims.size(); d-- > 1;) {
        bool merge = true;
        for (const auto &st : strides)
            merge = merge && st[d - 1] == st[d] * dims[d];
        if (merge) {
            dims[d - 1] *= dims[d];
            dims.erase(dims.begin() + static_cast<long>(d));
            for (auto &st : strides) {
                st[d - 1] = st[d]; // the merged dim walks at the inner stride
                st.erase(st.begin() + static_cast<long>(d));
            }
        }
    }
}

// Instructions that map finite values to finite values (so the zero padding
// of a blocked tensor's last channel block stays finite, as a convolution
// reading it needs: its padded weights are zero).
bool finiteOnPadding(const std::vector<EwInstr> &instrs)
{
    for (const EwInstr &in : instrs)
        if (in.op == Op::Log || in.op == Op::Reciprocal || in.op == Op::Div || in.op == Op::Pow || in.op == Op::Exp ||
            in.op == Op::Sqrt)
            return false;
    return true;
}

std::vector<std::int64_t> rowMajor(const std::vector<std::int64_t> &dims)
{
    std::vector<std::int64_t> st(dims.size(), 1);
    for (std::size_t d = dims.size(); d-- > 1;)
        st[d - 1] = st[d] * dims[d];
    return st;
}

class JitOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        std::vector<const float *> ins(m_operands.size());
        for (std::size_t i = 0; i < m_operands.size(); ++i)
            ins[i] = m_operands[i].tensor != kInvalidId
                         ? reinterpret_cast<const float *>(tensors[m_operands[i].tensor]) + m_operands[i].base
                         : m_owned[static_cast<std::size_t>(m_operands[i].owned)].data();
        float *out = reinterpret_cast<float *>(tensors[m_out]);
        if (!m_tiled) {
            m_fn(out, ins.data());
            return Status::ok();
        }
        std::vector<const float *> at(ins.size());
        for (const Box &b : m_boxes)
            // Odometer over the box's outer dims; one call per contiguous run.
            forEachIndex(b.outer, [&](const std::vector<std::int64_t> &idx) {
                std::int64_t o = b.outBase;
                for (std::size_t d = 0; d < idx.size(); ++d)
                    o += idx[d] * b.outStride[d];
                for (std::size_t i = 0; i < ins.size(); ++i) {
                    std::int64_t off = b.operandBase[i];
                    for (std::size_t d = 0; d < idx.size(); ++d)
                        off += idx[d] * b.operandStride[i][d];
                    at[i] = ins[i] + off;
                }
                b.fn(out + o, at.data());
            });
        return Status::ok();
    }

    // A tiled chain: compiles one function per box (its contiguous runs).
    // Each box of the row-major output is walked as runs: the dims from the
    // last one the box cuts short inward are contiguous in the output (a run,
    // one call of the compiled function, operands at their own strides); the
    // dims outside it are counted by run().
    Status tile(std::vector<ops::Region> boxes, JitCache &jit)
    {
        m_tiled = true;
        const std::vector<std::int64_t> outRm = m_outStrides.empty() ? rowMajor(m_shape) : m_outStrides;
        const std::size_t rank = m_shape.size();
        auto origin = [](const std::vector<std::int64_t> &o, std::size_t d) { return o.empty() ? 0 : o[d]; };
        for (const ops::Region &r : boxes) {
            assert(r.size() == rank);
            bool empty = false;
            for (const ops::Interval &x : r)
                empty = empty || x.end <= x.begin;
            if (empty)
                continue;
            std::size_t k = rank - 1;
            while (k > 0 && r[k].begin == 0 && r[k].end == m_shape[k])
                --k;
            Box b;
            b.outBase = 0;
            b.operandBase.assign(m_operands.size(), 0);
            b.operandStride.assign(m_operands.size(), {});
            for (std::size_t d = 0; d < rank; ++d) {
                b.outBase += (r[d].begin - origin(m_outOrigin, d)) * outRm[d];
                for (std::size_t i = 0; i < m_operands.size(); ++i)
                    b.operandBase[i] += (r[d].begin - origin(m_rawOrigins[i], d)) * m_rawStrides[i][d];
                if (d < k) {
                    b.outer.push_back(r[d].end - r[d].begin);
                    b.outStride.push_back(outRm[d]);
                    for (std::size_t i = 0; i < m_operands.size(); ++i)
                        b.operandStride[i].push_back(m_rawStrides[i][d]);
                }
            }
            EwProgram p;
            for (std::size_t d = k; d < rank; ++d)
                p.dims.push_back(r[d].end - r[d].begin);
            for (const auto &st : m_rawStrides)
                p.strides.emplace_back(st.begin() + static_cast<long>(k), st.end());
            collapse(p.dims, p.strides);
            p.instrs = m_instrs;
            auto fn = jit.get(p);
            if (!fn)
                return fn.status();
            b.fn = *fn;
            m_boxes.push_back(std::move(b));
        }
        impl = "tiled";
        return Status::ok();
    }

    // A rank-4 chain whose tensor operands are all full-size takes them and
    // its output blocked together; its per-channel constants (a
    // BatchNormalization's) follow the channel blocks. A tiled chain stays
    // plain, and so does one reading an operand through a folded view (not
    // row-major over the output, or from a base element past the first).
    std::vector<std::vector<TensorId>> blockedGroups(const Graph &g, int block) const override
    {
        if (block <= 0 || m_shape.size() != 4 || m_tiled)
            return {};
        if (m_shape[1] % block != 0 && !finiteOnPadding(m_instrs))
            return {};
        const std::vector<std::int64_t> full = rowMajor(m_shape);
        std::vector<TensorId> group{m_out};
        for (std::size_t i = 0; i < m_operands.size(); ++i) {
            if (m_operands[i].tensor == kInvalidId)
                continue;
            if (g.tensor(m_operands[i].tensor).shape != Shape(m_shape) || m_operands[i].base != 0)
                return {};
            for (std::size_t d = 0; d < m_shape.size(); ++d)
                if (m_shape[d] != 1 && m_rawStrides[i][d] != full[d])
                    return {};
            group.push_back(m_operands[i].tensor);
        }
        return {group};
    }

    Status useLayouts(const LayoutContext &ctx) override
    {
        if (!ctx.isBlocked(m_out))
            return Status::ok();
        if (!ctx.jit)
            return Status::error(ErrorCode::Internal, "a blocked element-wise chain without a JIT");
        // nChw{b}c: [N][C/b][H][W][b], per-channel constants padded with
        // zeros; nhwc (block 1): [N][H][W][C].
        const std::int64_t b = ctx.block, cb = (m_shape[1] + b - 1) / b;
        const bool nhwc = b == 1;
        std::vector<std::int64_t> dims = nhwc
                                             ? std::vector<std::int64_t>{m_shape[0], m_shape[2], m_shape[3], m_shape[1]}
                                             : std::vector<std::int64_t>{m_shape[0], cb, m_shape[2], m_shape[3], b};
        std::vector<std::vector<std::int64_t>> strides;
        for (const Operand &o : m_operands) {
            if (o.tensor != kInvalidId) {
                strides.push_back(rowMajor(dims));
            } else if (nhwc) {
                strides.push_back({0, 0, 0, 1});
            } else {
                strides.push_back({0, b, 0, 0, 1});
                m_owned[static_cast<std::size_t>(o.owned)].resize(static_cast<std::size_t>(cb * b), 0.f);
            }
        }
        collapse(dims, strides);
        EwProgram program;
        program.dims = std::move(dims);
        program.strides = std::move(strides);
        program.instrs = m_instrs;
        auto fn = ctx.jit->get(program);
        if (!fn)
            return fn.status();
        m_fn = *fn;
        impl = "blocked";
        return Status::ok();
    }

    struct Operand {
        TensorId tensor = kInvalidId; // or:
        int owned = -1;               // index into m_owned (folded constants)
        std::int64_t base = 0;        // the element of `tensor` at index 0 (a folded view's, lower.h ViewFold)
    };
    std::vector<Operand> m_operands;
    std::vector<std::vector<float>> m_owned;
    EwFunction m_fn = nullptr;
    TensorId m_out = kInvalidId;
    // The chain before collapsing (for the blocked variant).
    std::vector<std::int64_t> m_shape;
    std::vector<std::vector<std::int64_t>> m_rawStrides; // per operand, over m_shape
    std::vector<EwInstr> m_instrs;
    // Tiled operands and output in tile-sized buffers (lower.h LocalTensors):
    // the index of their first element over m_shape (empty: 0), the output's
    // strides (empty: row-major over m_shape).
    std::vector<std::vector<std::int64_t>> m_rawOrigins; // per operand
    std::vector<std::int64_t> m_outStrides, m_outOrigin;
    // Tiled (tile()): the boxes of m_out it writes, as runs.
    struct Box {
        EwFunction fn = nullptr;
        std::vector<std::int64_t> outer;                      // extents of the dims outside a run
        std::vector<std::int64_t> outStride;                  // output elements per step of each
        std::vector<std::vector<std::int64_t>> operandStride; // per operand, the same
        std::int64_t outBase = 0;                             // the box's first element
        std::vector<std::int64_t> operandBase;                // per operand
    };
    bool m_tiled = false;
    std::vector<Box> m_boxes;
};

// Row-major strides of `in` broadcast (right-aligned) to `out`; 0 on broadcast dims.
std::vector<std::int64_t> bcastStrides(const Shape &out, const Shape &in)
{
    std::vector<std::int64_t> s(out.size(), 0);
    std::int64_t stride = 1;
    for (std::size_t k = 0; k < in.size(); ++k) {
        const std::size_t di = in.size() - 1 - k, dout = out.size() - 1 - k;
        if (in[di] != 1)
            s[dout] = stride;
        stride *= in[di];
    }
    return s;
}

// Strides over `out` of a tensor of shape `in` (right-aligned, 0 along its
// unit dims) whose elements are `inStrides` apart (a folded view's).
std::vector<std::int64_t> viewStrides(const Shape &out, const Shape &in, const std::vector<std::int64_t> &inStrides)
{
    std::vector<std::int64_t> s(out.size(), 0);
    for (std::size_t k = 0; k < in.size(); ++k) {
        const std::size_t di = in.size() - 1 - k, dout = out.size() - 1 - k;
        if (in[di] != 1)
            s[dout] = inStrides[di];
    }
    return s;
}

// Strides and origin over `out` of tensor `t` (right-aligned, 0 along its
// unit dims) kept in a tile-sized buffer holding `region` of it.
void localStrides(const Shape &out, const Shape &t, const ops::Region &region, std::vector<std::int64_t> &strides,
                  std::vector<std::int64_t> &origin)
{
    strides.assign(out.size(), 0);
    origin.assign(out.size(), 0);
    std::int64_t stride = 1;
    for (std::size_t k = 0; k < t.size(); ++k) {
        const std::size_t di = t.size() - 1 - k, dout = out.size() - 1 - k;
        if (t[di] != 1) {
            strides[dout] = stride;
            origin[dout] = region[di].begin;
        }
        stride *= region[di].size();
    }
}

} // namespace

Expected<CpuOpPtr> makeJitOp(FusionScope &s, std::size_t pos, JitCache &jit, LowerStats &stats,
                             const std::map<NodeId, std::vector<ops::Region>> *tiles, const LocalTensors *local,
                             const ViewFolds *views)
{
    if (!tiles)
        local = nullptr;
    else
        views = nullptr;
    const Graph &g = s.graph;
    const Node &first = g.node(s.kernelNodes[pos]);
    // An omitted first output (an LSTM's Y) makes the node unchainable (allF32).
    const Shape shape =
        first.outputs.empty() || first.outputs[0] == kInvalidId ? Shape{} : g.tensor(first.outputs[0]).shape;
    if (!chainable(g, s.constants, first, shape) || numElements(shape).value_or(0) == 0 || (tiles && shape.empty()))
        return CpuOpPtr();

    auto op = std::make_unique<JitOp>();
    EwProgram p;
    std::vector<std::size_t> chain;
    std::map<TensorId, int> value; // tensor -> value number (operands and results)
    std::vector<EwInstr> instrs;
    std::vector<std::vector<std::int64_t>> strides;
    // A folded view whose views are not lowered yet: the chain reads its source.
    auto fold = [&](TensorId t) -> const ViewFold * {
        if (!views)
            return nullptr;
        auto it = views->find(t);
        if (it == views->end() || s.done[it->second.positions.back()] || !s.available(it->second.source))
            return nullptr;
        return &it->second;
    };
    std::vector<std::size_t> folded; // kernel positions of the views the chain reads through
    auto operand = [&](TensorId t) {
        if (auto it = value.find(t); it != value.end())
            return it->second;
        op->m_rawOrigins.emplace_back();
        if (const ViewFold *f = fold(t)) {
            strides.push_back(viewStrides(shape, g.tensor(t).shape, f->strides));
            op->m_operands.push_back({f->source, -1, f->base});
            op->reads.push_back(f->source);
            for (std::size_t p : f->positions) {
                s.done[p] = true;
                folded.push_back(p);
            }
            return value[t] = static_cast<int>(strides.size()) - 1;
        }
        strides.push_back(bcastStrides(shape, g.tensor(t).shape));
        if (local)
            if (auto it = local->find(t); it != local->end())
                localStrides(shape, g.tensor(t).shape, it->second, strides.back(), op->m_rawOrigins.back());
        op->m_operands.push_back({t, -1});
        op->reads.push_back(t);
        return value[t] = static_cast<int>(strides.size()) - 1;
    };
    // A chain that declines leaves its nodes and the views it read through to other engines.
    auto decline = [&] {
        for (std::size_t c : chain)
            s.done[c] = false;
        for (std::size_t p : folded)
            s.done[p] = false;
    };
    auto ownedOperand = [&](std::vector<float> data) {
        std::vector<std::int64_t> st(shape.size(), 0);
        st[1] = 1; // per channel (axis 1)
        strides.push_back(st);
        op->m_rawOrigins.emplace_back();
        op->m_owned.push_back(std::move(data));
        op->m_operands.push_back({kInvalidId, static_cast<int>(op->m_owned.size()) - 1});
        return static_cast<int>(strides.size()) - 1;
    };

    // S1: the chain, in kernel order; operands become value numbers.
    std::vector<std::pair<int, EwInstr>> pending; // instructions with operand refs resolved later
    std::size_t at = pos;
    std::map<TensorId, int> result; // chain-internal tensors -> instruction index
    for (;;) {
        const Node &n = g.node(s.kernelNodes[at]);
        // Every input from outside the chain must be available now.
        for (TensorId t : n.inputs)
            if (t != kInvalidId && !result.count(t) && !s.available(t) && !fold(t))
                goto done;
        {
            auto ref = [&](TensorId t) {
                if (auto it = result.find(t); it != result.end())
                    return it->second;
                return operand(t);
            };
            EwInstr in;
            if (n.opType == "Identity") {
                result[n.outputs[0]] = ref(n.inputs[0]);
            } else if (auto u = unaryOp(n.opType)) {
                in.op = *u;
                in.a = ref(n.inputs[0]);
                if (*u == Op::LeakyRelu)
                    in.alpha = static_cast<float>(n.attrFloat("alpha", 0.01));
                if (*u == Op::HardSigmoid) {
                    in.alpha = static_cast<float>(n.attrFloat("alpha", 0.2));
                    in.beta = static_cast<float>(n.attrFloat("beta", 0.5));
                }
                if (*u == Op::Elu || *u == Op::Celu || *u == Op::ThresholdedRelu)
                    in.alpha = static_cast<float>(n.attrFloat("alpha", 1.0));
                if (*u == Op::Selu) { // ONNX's defaults, as float32 constants
                    in.alpha = static_cast<float>(n.attrFloat("alpha", 1.67326319217681884765625));
                    in.beta = static_cast<float>(n.attrFloat("gamma", 1.05070102214813232421875));
                }
                if (*u == Op::Shrink) {
                    in.alpha = static_cast<float>(n.attrFloat("lambd", 0.5));
                    in.beta = static_cast<float>(n.attrFloat("bias", 0.0));
                }
                if (*u == Op::Clip) {
                    in.alpha = n.attr("min") ? static_cast<float>(n.attrFloat("min", 0))
                                             : *constScalar(g, s.constants, n, 1, -INFINITY);
                    in.beta = n.attr("max") ? static_cast<float>(n.attrFloat("max", 0))
                                            : *constScalar(g, s.constants, n, 2, INFINITY);
                }
                instrs.push_back(in);
            } else if (auto b = binaryOp(n.opType)) {
                in.op = *b;
                in.a = ref(n.inputs[0]);
                // x^2 (the variance of an exported LayerNormalization) is
                // x·x: the same correctly rounded value, no pow call.
                if (const auto e = constScalar(g, s.constants, n, 1, 0); *b == Op::Pow && e && *e == 2.0f) {
                    in.op = Op::Mul;
                    in.b = in.a;
                } else {
                    in.b = ref(n.inputs[1]);
                }
                instrs.push_back(in);
            } else if (auto v = variadicOp(n.opType)) {
                in.op = *v;
                in.a = ref(n.inputs[0]);
                for (std::size_t i = 1; i < n.inputs.size(); ++i) {
                    in.b = ref(n.inputs[i]);
                    instrs.push_back(in);
                    in.a = -static_cast<int>(instrs.size()); // the step's result, resolved below
                }
            } else { // BatchNormalization: x * k + (B - mean * k), k = scale / sqrt(var + eps)
                const std::int64_t c = shape[1];
                const float *scale = s.constants.f32(n.inputs[1]), *bias = s.constants.f32(n.inputs[2]),
                            *mean = s.constants.f32(n.inputs[3]), *var = s.constants.f32(n.inputs[4]);
                const double eps = n.attrFloat("epsilon", 1e-5);
                std::vector<float> k(static_cast<std::size_t>(c)), b0(static_cast<std::size_t>(c));
                for (std::int64_t i = 0; i < c; ++i) {
                    const double kk = scale[i] / std::sqrt(static_cast<double>(var[i]) + eps);
                    k[static_cast<std::size_t>(i)] = static_cast<float>(kk);
                    b0[static_cast<std::size_t>(i)] = static_cast<float>(bias[i] - mean[i] * kk);
                }
                in.op = Op::MulAdd;
                in.a = ref(n.inputs[0]);
                in.b = ownedOperand(std::move(k));
                in.c = ownedOperand(std::move(b0));
                op->reads.insert(op->reads.end(), n.inputs.begin() + 1, n.inputs.begin() + 5);
                instrs.push_back(in);
            }
            if (n.opType != "Identity")
                result[n.outputs[0]] = -static_cast<int>(instrs.size()); // resolved below
            chain.push_back(at);
            s.done[at] = true;
        }
        {
            // Continue with the single in-kernel consumer of this output.
            const TensorId t = n.outputs[0];
            const Tensor &tensor = g.tensor(t);
            if (tensor.consumers.size() != 1 || std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end())
                break;
            const int next = s.position(tensor.consumers.front());
            if (next < 0 || s.done[static_cast<std::size_t>(next)] ||
                !chainable(g, s.constants, g.node(tensor.consumers.front()), shape))
                break;
            at = static_cast<std::size_t>(next);
        }
    }
done:
    if (chain.empty())
        return CpuOpPtr();
    {
        const Node &last = g.node(s.kernelNodes[chain.back()]);
        // A chain of only Identity nodes computes nothing: leave it to the reference kernel.
        if (instrs.empty()) {
            decline();
            return CpuOpPtr();
        }
        // Value numbers: operands first, then instructions. Results were recorded
        // as -(instruction index + 1) while operands were still being added.
        const int nOperands = static_cast<int>(strides.size());
        auto fix = [&](int &v) {
            if (v < 0)
                v = nOperands + (-v - 1);
        };
        for (EwInstr &in : instrs) {
            fix(in.a);
            fix(in.b);
            fix(in.c);
        }
        // The stored value must be the last instruction.
        int stored = result[last.outputs[0]];
        fix(stored);
        if (stored != nOperands + static_cast<int>(instrs.size()) - 1) {
            decline();
            return CpuOpPtr();
        }
        op->m_out = last.outputs[0];
        if (local)
            if (auto it = local->find(op->m_out); it != local->end()) {
                std::vector<std::int64_t> extents;
                for (const ops::Interval &i : it->second) {
                    extents.push_back(i.size());
                    op->m_outOrigin.push_back(i.begin);
                }
                op->m_outStrides = rowMajor(extents);
            }
    }

    // S2: merge adjacent dims every operand walks the same way; drop unit dims.
    op->m_shape.assign(shape.begin(), shape.end());
    op->m_rawStrides = strides;
    op->m_instrs = instrs;
    std::vector<std::int64_t> dims(shape.begin(), shape.end());
    collapse(dims, strides);
    p.dims = std::move(dims);
    p.strides = std::move(strides);
    p.instrs = std::move(instrs);

    // S3: compile (or find) the function; a tiled chain one per box of the
    // regions its last node writes (its intermediates stay in registers).
    // An unavailable JIT (its module missing) leaves the chain to the
    // reference kernels; the compile metrics say so ("jit_unavailable").
    Expected<EwFunction> fn = EwFunction(nullptr);
    if (tiles) {
        auto it = tiles->find(s.kernelNodes[chain.back()]);
        Status st = op->tile(it == tiles->end() ? std::vector<ops::Region>{} : it->second, jit);
        if (!st.isOk())
            fn = st;
    } else {
        fn = jit.get(p);
    }
    if (!fn && fn.status().code() == ErrorCode::Unavailable) {
        decline();
        stats.jitUnavailable = fn.status().message();
        return CpuOpPtr();
    }
    if (!fn)
        return fn.status().at({.node = first.name});
    ++stats.jitChains;
    op->m_fn = *fn;
    op->engine = Engine::Jit;
    op->writes = {op->m_out};
    // Its nodes in kernel order, the views it read through included.
    std::vector<std::size_t> taken = chain;
    taken.insert(taken.end(), folded.begin(), folded.end());
    std::sort(taken.begin(), taken.end());
    for (std::size_t c : taken) {
        op->nodes.push_back(s.kernelNodes[c]);
        op->label += (op->label.empty() ? "" : "+") + g.node(s.kernelNodes[c]).opType;
    }
    return CpuOpPtr(std::move(op));
}

namespace {

// --- tasks ----------------------------------------------------------------------

bool whole(const ops::Region &r, const Shape &s)
{
    if (r.size() != s.size())
        return false;
    for (std::size_t d = 0; d < s.size(); ++d)
        if (r[d].begin != 0 || r[d].end != s[d])
            return false;
    return true;
}

bool isTiled(const Graph &g, const TaskRegions &regions)
{
    bool allWhole = regions.exact;
    for (const auto &[tensor, region] : regions.computed)
        allWhole = allWhole && whole(region, g.tensor(tensor).shape);
    return !allWhole;
}

// A task with m > 1 tiles of each node it tiles (the same m for every
// node output) as m tasks, the i-th holding the i-th tile of each; none
// otherwise (one tile each, or uneven counts: the task runs whole, its
// buffers holding the hull of its tiles).
std::vector<Task> tileByTile(const Task &task)
{
    std::map<std::pair<NodeId, int>, std::vector<const NodeTile *>> byOutput;
    for (const NodeTile &t : task.tiles)
        byOutput[{t.node, t.output}].push_back(&t);
    std::size_t m = 0;
    for (const auto &[key, tiles] : byOutput) {
        if (m != 0 && tiles.size() != m)
            return {};
        m = tiles.size();
    }
    if (m < 2)
        return {};
    std::vector<Task> parts(m, task);
    for (std::size_t i = 0; i < m; ++i) {
        parts[i].tiles.clear();
        for (const auto &[key, tiles] : byOutput)
            parts[i].tiles.push_back(*tiles[i]);
    }
    return parts;
}

} // namespace

Expected<bool> taskIsTiled(const Graph &g, const ExecutionPlan &plan, const Task &task)
{
    if (task.kind != TaskKind::Compute)
        return false;
    auto regions = taskRegions(g, plan.kernels[static_cast<std::size_t>(task.kernel)], task.tiles);
    if (!regions)
        return regions.status();
    return isTiled(g, *regions);
}

Expected<std::vector<CpuOpPtr>> lowerTask(const Graph &g, const ExecutionPlan &plan, const Task &task,
                                          const Constants &constants, JitCache *jit, DnnlConstantCache *dnnlCache,
                                          LowerStats &stats, const std::atomic<bool> *cancel, TaskScratch *scratch)
{
    const Kernel &k = plan.kernels[static_cast<std::size_t>(task.kernel)];
    auto regions = taskRegions(g, k, task.tiles);
    if (!regions)
        return regions.status();
    const bool allWhole = !isTiled(g, *regions);
    // TESSERA_CPU_ENGINES=reference (or "onednn", "llvm-jit", "copy", comma-separated)
    // restricts the engines, to bisect a mismatch.
    const char *env = std::getenv("TESSERA_CPU_ENGINES");
    const std::string engines = env ? env : "onednn,llvm-jit,copy";
    const bool useDnnl = engines.find("onednn") != std::string::npos;
    const bool useCopy = engines.find("copy") != std::string::npos;
    if (engines.find("llvm-jit") == std::string::npos)
        jit = nullptr;
    if (scratch)
        *scratch = TaskScratch{};
    if (!allWhole) {
        if (!scratch)
            return lowerTiledTask(g, k, task, *regions, constants, jit, useDnnl, useCopy, stats, cancel, nullptr);
        std::vector<CpuOpPtr> out;
        std::vector<Task> parts = tileByTile(task);
        for (const Task &part : parts.empty() ? std::vector<Task>{task} : parts) {
            auto partRegions = parts.empty() ? regions : taskRegions(g, k, part.tiles);
            if (!partRegions)
                return partRegions.status();
            TaskScratch s;
            s.regions = fusedIntermediates(g, plan, k, *partRegions);
            auto ops = lowerTiledTask(g, k, part, *partRegions, constants, jit, useDnnl, useCopy, stats, cancel, &s);
            if (!ops)
                return ops.status();
            scratch->parts.push_back({out.size(), std::move(s.offset)});
            scratch->bytes = std::max(scratch->bytes, s.bytes);
            for (CpuOpPtr &op : *ops)
                out.push_back(std::move(op));
        }
        return out;
    }
    std::vector<bool> done(k.nodes.size(), false);
    FusionScope scope{g, k.nodes, done, constants, dnnlCache};
    std::vector<CpuOpPtr> out;
    // Views a chain reads through (viewfold.cpp) wait for it: lowered at
    // their own position only when no chain takes them, right before the
    // first op that reads their output (ops run in list order).
    // TESSERA_CPU_FOLD_VIEWS=0 lowers every view where it stands (to bisect,
    // and the benchmark's baseline).
    const char *foldEnv = std::getenv("TESSERA_CPU_FOLD_VIEWS");
    const ViewFolds views =
        jit && !(foldEnv && std::string_view(foldEnv) == "0") ? foldableViews(g, constants, k.nodes) : ViewFolds{};
    std::vector<bool> deferred(k.nodes.size(), false);
    for (const auto &[t, fold] : views)
        for (std::size_t p : fold.positions)
            deferred[p] = true;

    std::function<Status(std::size_t, bool)> lowerAt;
    // The deferred views the inputs of `n` are read through, lowered now.
    auto lowerViewsInto = [&](const Node &n) -> Status {
        for (TensorId t : n.inputs)
            if (auto it = views.find(t); it != views.end())
                for (std::size_t p : it->second.positions)
                    TS_TRY(lowerAt(p, false));
        return Status::ok();
    };
    // Before a oneDNN anchor: the views read by the chain its epilogue may
    // absorb (its binary post-ops take an operand already computed).
    auto lowerViewsIntoEpilogue = [&](const Node &anchor) -> Status {
        TensorId t = anchor.outputs.empty() ? kInvalidId : anchor.outputs[0];
        while (t != kInvalidId && g.tensor(t).consumers.size() == 1) {
            const Node &c = g.node(g.tensor(t).consumers.front());
            const int at = scope.position(g.tensor(t).consumers.front());
            if (at < 0 || done[static_cast<std::size_t>(at)] || !joinsChain(g, constants, c))
                break;
            TS_TRY(lowerViewsInto(c));
            t = c.outputs[0];
        }
        return Status::ok();
    };
    // Node `pos` as the first engine that takes it; `mayDefer` false: a
    // deferred view lowered for its reader.
    lowerAt = [&](std::size_t pos, bool mayDefer) -> Status {
        if (done[pos] || (mayDefer && deferred[pos]))
            return Status::ok();
        if (cancel && cancel->load(std::memory_order_relaxed))
            return Status::error(ErrorCode::Cancelled, "compiling the plan was cancelled");
        const Node &n = g.node(k.nodes[pos]);
        // The op of node `pos`, after the deferred views it reads.
        auto emit = [&](CpuOpPtr op) -> Status {
            done[pos] = true;
            TS_TRY(lowerViewsInto(n));
            out.push_back(std::move(op));
            return Status::ok();
        };
        if (useDnnl && dnnlAnchor(n.opType)) {
            TS_TRY(lowerViewsIntoEpilogue(n));
            if (CpuOpPtr op = makeDnnlOp(scope, pos))
                return emit(std::move(op));
        }
        std::string declined;
        if (jit && rowOpType(n.opType)) {
            auto attempt = makeRowOp(scope, pos, *jit, stats);
            if (!attempt)
                return attempt.status();
            if (attempt->op)
                return emit(std::move(attempt->op));
            declined = std::move(attempt->declined);
        }
        if (dnnlPrimitiveOpType(n.opType)) {
            if (useDnnl) {
                NativeAttempt attempt = makeDnnlPrimitiveOp(scope, pos);
                if (attempt.op)
                    return emit(std::move(attempt.op));
                declined = std::move(attempt.declined);
            } else {
                declined = "oneDNN disabled by TESSERA_CPU_ENGINES";
            }
        }
        if (useCopy && n.opType != "Identity") // an Identity inside a chain costs nothing there
            if (CpuOpPtr op = makeCopyOp(g, k.nodes[pos], constants, jit))
                return emit(std::move(op));
        if (jit) {
            auto op = makeJitOp(scope, pos, *jit, stats, nullptr, nullptr, &views);
            if (!op)
                return op.status();
            if (*op) {
                out.push_back(std::move(*op));
                return Status::ok();
            }
        }
        if (useCopy && n.opType == "Identity")
            if (CpuOpPtr op = makeCopyOp(g, k.nodes[pos], constants, jit))
                return emit(std::move(op));
        auto op = makeReferenceOp(g, k.nodes[pos]);
        if (!op)
            return op.status();
        (*op)->declined = std::move(declined);
        return emit(std::move(*op));
    };
    for (std::size_t pos = 0; pos < k.nodes.size(); ++pos)
        TS_TRY(lowerAt(pos, true));
    // Every deferred view was taken by its chain or lowered for its reader.
    for (std::size_t pos = 0; pos < k.nodes.size(); ++pos)
        if (!done[pos])
            return Status::error(ErrorCode::Internal, "cpu backend: node '" + g.node(k.nodes[pos]).name +
                                                          "' of a fused view was lowered for no reader");
    return out;
}

} // namespace tessera::cpu
