// Convolutions and matrix products on oneDNN (Debian libdnnl-dev 2.6) with the
// epilogue the plan fused into their kernel, as oneDNN post-ops.
//
// Starting at an anchor (Conv, MatMul, Gemm) the pass follows the chain of
// its single-consumer outputs inside the kernel and absorbs, in order:
//   - BatchNormalization right after a Conv with constant parameters: folded
//     into the weights and bias at compile time (W·s, (b - mean)·s + B with
//     s = scale / sqrt(var + eps));
//   - Relu, LeakyRelu, Sigmoid, Tanh, Clip (constant bounds): eltwise post-ops;
//   - Add, Mul (either operand order) and Sub (chain value first) with an
//     operand already available when the anchor runs: binary post-ops (a
//     bias), except a full-size Add first in the chain (the residual add of a
//     ResNet block): a sum post-op onto dst, which the op fills with the
//     operand before the primitive runs.
// A chain link stops at a tensor used outside the chain or a graph output.
// If oneDNN rejects the attribute set the pass drops post-ops from the end
// until it accepts (an anchor alone always works or falls back).
// Activations are row-major (plain) tensors; constant weights are reordered
// once into the layout the primitive prefers. Each execution uses its own
// stream and a user scratchpad, so ops run concurrently.
// Assumes float32 tensors with static shapes (anything else falls back).
#include "backends/cpu/cpuop.h"
#include "backends/cpu/dnnlcommon.h"
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dnnl.hpp>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace tessera::cpu {

namespace {

using dnnl::memory;
using Dims = memory::dims;

memory::format_tag plainTag(std::size_t rank)
{
    using F = memory::format_tag;
    static const F tags[] = {F::undef, F::a, F::ab, F::abc, F::abcd, F::abcde, F::abcdef};
    return rank < std::size(tags) ? tags[rank] : F::undef;
}

// TESSERA_CPU_BLOCK: 16, 8 or 1 forces that activation layout (0: oneDNN's).
int forcedBlock()
{
    static const int forced = [] {
        const char *v = std::getenv("TESSERA_CPU_BLOCK");
        const std::string_view s = v ? v : "";
        return s == "16" ? 16 : s == "8" ? 8 : s == "1" ? 1 : 0;
    }();
    return forced;
}

bool isF32(const Graph &g, TensorId t)
{
    return t != kInvalidId && g.tensor(t).dtype == DType::Float32;
}

// One absorbed epilogue step.
struct PostOp {
    enum class Kind : std::uint8_t { Eltwise, Binary, Sum } kind = Kind::Eltwise;
    dnnl::algorithm alg = dnnl::algorithm::undef;
    float alpha = 0, beta = 0;
    TensorId operand = kInvalidId; // Binary, Sum
    NodeId node = kInvalidId;
};

// Constant float inputs (Clip bounds): value or fallback when absent.
std::optional<float> constScalar(const FusionScope &s, const Node &n, std::size_t i, float absent)
{
    if (i >= n.inputs.size() || n.inputs[i] == kInvalidId)
        return absent;
    const float *v = s.constants.f32(n.inputs[i]);
    if (!v || s.graph.tensor(n.inputs[i]).elements() != 1)
        return std::nullopt;
    return *v;
}

std::optional<PostOp> eltwiseOf(const FusionScope &s, const Node &n)
{
    using A = dnnl::algorithm;
    if (n.opType == "Relu")
        return PostOp{PostOp::Kind::Eltwise, A::eltwise_relu, 0.f, 0.f};
    if (n.opType == "LeakyRelu")
        return PostOp{PostOp::Kind::Eltwise, A::eltwise_relu, static_cast<float>(n.attrFloat("alpha", 0.01)), 0.f};
    if (n.opType == "Sigmoid")
        return PostOp{PostOp::Kind::Eltwise, A::eltwise_logistic, 0.f, 0.f};
    if (n.opType == "Tanh")
        return PostOp{PostOp::Kind::Eltwise, A::eltwise_tanh, 0.f, 0.f};
    if (n.opType == "Clip") {
        auto lo = n.attr("min") ? std::optional<float>(static_cast<float>(n.attrFloat("min", -FLT_MAX)))
                                : constScalar(s, n, 1, -FLT_MAX);
        auto hi = n.attr("max") ? std::optional<float>(static_cast<float>(n.attrFloat("max", FLT_MAX)))
                                : constScalar(s, n, 2, FLT_MAX);
        if (!lo || !hi)
            return std::nullopt;
        return PostOp{PostOp::Kind::Eltwise, A::eltwise_clip, *lo, *hi};
    }
    return std::nullopt;
}

// The single in-kernel consumer continuing a chain from tensor t, or -1.
int chainNext(const FusionScope &s, TensorId t)
{
    const Graph &g = s.graph;
    const Tensor &tensor = g.tensor(t);
    if (tensor.consumers.size() != 1 || !isF32(g, t))
        return -1;
    for (TensorId o : g.outputs)
        if (o == t)
            return -1;
    const int pos = s.position(tensor.consumers.front());
    if (pos < 0 || s.done[static_cast<std::size_t>(pos)])
        return -1;
    const Node &c = g.node(tensor.consumers.front());
    if (c.outputs.empty() || !isF32(g, c.outputs.front()) || g.tensor(c.outputs.front()).shape != tensor.shape)
        return -1;
    return pos;
}

// The anchor's geometry and constant operands, ready for a primitive.
struct Anchor {
    memory::desc src, weights, bias, dst;
    memory::desc plainSrc, plainDst;         // conv: the run's tensors (src and dst may be blocked)
    std::vector<float> weightData, biasData; // folded copies when BN is absorbed
    const float *weightPtr = nullptr, *biasPtr = nullptr;
    bool weightsConst = false;
    TensorId srcT = kInvalidId, weightT = kInvalidId, biasT = kInvalidId;
    // Conv geometry.
    Dims strides, dilates, padL, padR;
    bool conv = false;
    std::int64_t outChannels = 0, perChannel = 0; // weight elements per output channel (conv)
    const Node *foldedBn = nullptr;               // BatchNormalization to fold (bindConstants does it)
};

std::optional<Anchor> convAnchor(const FusionScope &s, const Node &n)
{
    const Graph &g = s.graph;
    if (n.inputs.size() < 2 || !isF32(g, n.inputs[0]) || !isF32(g, n.inputs[1]) || n.outputs.empty() ||
        !isF32(g, n.outputs[0]))
        return std::nullopt;
    const Shape &x = g.tensor(n.inputs[0]).shape, &w = g.tensor(n.inputs[1]).shape, &y = g.tensor(n.outputs[0]).shape;
    const std::size_t rank = x.size();
    if (rank < 3 || rank > 5 || w.size() != rank || y.size() != rank)
        return std::nullopt;
    const std::int64_t group = n.attrInt("group", 1);
    if (group < 1 || x[1] % group != 0 || w[0] % group != 0)
        return std::nullopt;
    auto windows = reference::forwardWindows(n, Shape(x.begin() + 2, x.end()), Shape(y.begin() + 2, y.end()),
                                             Shape(w.begin() + 2, w.end()));
    if (!windows)
        return std::nullopt;
    Anchor a;
    a.conv = true;
    a.srcT = n.inputs[0];
    a.weightT = n.inputs[1];
    a.biasT = n.inputs.size() > 2 ? n.inputs[2] : kInvalidId;
    for (const reference::Window &win : *windows) {
        a.strides.push_back(win.stride);
        a.dilates.push_back(win.dilation - 1);
        a.padL.push_back(win.padBegin);
        a.padR.push_back(win.padEnd);
    }
    a.plainSrc = plainDesc(x);
    a.plainDst = plainDesc(y);
    // Activations in the layout the primitive prefers (blocked nChw16c on
    // AVX-512: its direct JIT kernels, with cheap post-ops), reordered from and
    // to the plain tensors around it (DnnlOp::run); plain NCHW would leave
    // oneDNN 2.6 its GEMM-based convolution (im2col for a spatial window, no
    // fast depthwise path).
    // A pointwise (1x1, stride 1, one group) convolution on plain NCHW is a
    // matrix product without im2col: it stays plain and saves the two
    // reorders (a choice; not measured apart, BENCHMARKS.md, 2026-11-27).
    // With the layout pass on (blockedLayoutsEnabled(), the default) a
    // pointwise convolution takes the blocked layout too: between blocked
    // neighbours it then needs no reorder at all (layout.h).
    bool pointwise = group == 1;
    for (std::size_t d = 2; d < rank; ++d)
        pointwise = pointwise && w[d] == 1 && a.strides[d - 2] == 1 && a.padL[d - 2] == 0 && a.padR[d - 2] == 0;
    // TESSERA_CPU_CONV_LAYOUT=plain keeps every convolution plain (to bisect).
    const char *layout = std::getenv("TESSERA_CPU_CONV_LAYOUT");
    const bool plainOnly = layout && std::string_view(layout) == "plain";
    const auto tag = (pointwise && !blockedLayoutsEnabled()) || plainOnly ? plainTag(rank) : memory::format_tag::any;
    a.src = memory::desc(Dims(x.begin(), x.end()), memory::data_type::f32, tag);
    a.dst = memory::desc(Dims(y.begin(), y.end()), memory::data_type::f32, tag);
    // TESSERA_CPU_BLOCK=16|8|1 (forcedBlock()) asks for that layout instead of
    // oneDNN's choice (a source of fewer channels than a block keeps its
    // choice): to test every layout's code path on one host.
    if (const int forced = forcedBlock(); forced > 0 && tag == memory::format_tag::any && rank == 4) {
        a.dst = blockedDesc(y, forced);
        if (x[1] >= forced)
            a.src = blockedDesc(x, forced);
    }
    Dims wd(w.begin(), w.end());
    if (group > 1) {
        wd[0] /= group;
        wd.insert(wd.begin(), group);
    }
    a.weights = memory::desc(wd, memory::data_type::f32, memory::format_tag::any);
    a.weightPtr = s.constants.f32(a.weightT);
    a.weightsConst = a.weightPtr != nullptr;
    if (!a.weightsConst)
        return std::nullopt; // runtime weights: not worth a per-run reorder here
    a.outChannels = w[0];
    a.perChannel = g.tensor(a.weightT).elements() / w[0];
    if (a.biasT != kInvalidId) {
        if (!isF32(g, a.biasT) || !s.constants.f32(a.biasT))
            return std::nullopt;
        a.biasPtr = s.constants.f32(a.biasT);
    }
    a.bias = memory::desc({w[0]}, memory::data_type::f32, memory::format_tag::a);
    return a;
}

// MatMul (rank >= 2 both sides) and Gemm (alpha = beta = 1, no transA, C a row vector).
std::optional<Anchor> matmulAnchor(const FusionScope &s, const Node &n)
{
    const Graph &g = s.graph;
    if (n.inputs.size() < 2 || !isF32(g, n.inputs[0]) || !isF32(g, n.inputs[1]) || n.outputs.empty() ||
        !isF32(g, n.outputs[0]))
        return std::nullopt;
    Shape a = g.tensor(n.inputs[0]).shape, b = g.tensor(n.inputs[1]).shape;
    const Shape &y = g.tensor(n.outputs[0]).shape;
    if (a.size() < 2 || b.size() < 2 || y.size() > 6)
        return std::nullopt;
    Anchor an;
    an.srcT = n.inputs[0];
    an.weightT = n.inputs[1];
    bool transB = false;
    if (n.opType == "Gemm") {
        if (n.attrInt("transA", 0) != 0 || n.attrFloat("alpha", 1.0) != 1.0 || n.attrFloat("beta", 1.0) != 1.0 ||
            a.size() != 2 || b.size() != 2)
            return std::nullopt;
        transB = n.attrInt("transB", 0) != 0;
        if (n.inputs.size() > 2 && n.inputs[2] != kInvalidId) {
            const Shape &c = g.tensor(n.inputs[2]).shape;
            const std::int64_t cols = y[1];
            if (!isF32(g, n.inputs[2]) || !s.constants.f32(n.inputs[2]) || !(c == Shape{cols} || c == Shape{1, cols}))
                return std::nullopt;
            an.biasT = n.inputs[2];
            an.biasPtr = s.constants.f32(an.biasT);
            an.bias = memory::desc({1, cols}, memory::data_type::f32, memory::format_tag::ab);
        }
    }
    const std::size_t rank = y.size();
    while (a.size() < rank)
        a.insert(a.begin(), 1);
    while (b.size() < rank)
        b.insert(b.begin(), 1);
    an.src = plainDesc(a);
    an.dst = plainDesc(y);
    an.weightPtr = s.constants.f32(an.weightT);
    bool batchOne = true;
    for (std::size_t d = 0; d + 2 < rank; ++d)
        batchOne = batchOne && b[d] == 1;
    an.weightsConst = an.weightPtr && batchOne;
    // One matrix B for every batch of A (constant weights, batch dims 1): the
    // batches are rows of one product, [.., M, K] x [K, N] = [rows, K] x [K, N].
    // A batch of single rows (PyTorch's in-projection exports [128, 1, 512] x
    // [512, 1536]) as 128 products of one row each is 10x slower in oneDNN
    // 2.6 than one product of 128 rows.
    if (an.weightsConst && rank > 2 && !transB) {
        const std::int64_t rows = y[rank - 2];
        std::int64_t batches = 1;
        for (std::size_t d = 0; d + 2 < rank; ++d)
            batches *= y[d];
        an.src = plainDesc({batches * rows, a[rank - 1]});
        an.dst = plainDesc({batches * rows, y[rank - 1]});
        b = Shape(b.end() - 2, b.end());
    }
    if (transB) {
        // B is stored [N, K]; describe it as [K, N] with swapped strides.
        std::swap(b[0], b[1]);
        an.weights = memory::desc({b[0], b[1]}, memory::data_type::f32, Dims{1, b[0]});
        if (an.weightsConst)
            an.weights = memory::desc({b[0], b[1]}, memory::data_type::f32, memory::format_tag::any);
    } else {
        an.weights = an.weightsConst
                         ? memory::desc(Dims(b.begin(), b.end()), memory::data_type::f32, memory::format_tag::any)
                         : plainDesc(b);
    }
    return an;
}

class DnnlOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        // A convolution on blocked activations reorders a plain source in and
        // its result out to a plain destination, on this thread's scratch; the
        // residual of a sum post-op is copied (same layout) or reordered into
        // the destination the primitive accumulates onto. Tensors the layout
        // pass made blocked are used as they are.
        try {
            dnnl::stream stream(dnnlEngine());
            std::uint8_t *src = tensors[m_src], *dst = tensors[m_dst];
            if (m_srcIn && !m_srcBlocked) {
                src = threadScratch(1, m_srcMd.get_size());
                memory from(m_plainSrcMd, dnnlEngine(), tensors[m_src]), to(m_srcMd, dnnlEngine(), src);
                m_srcIn->execute(stream, from, to);
            }
            const bool viaScratch = m_dstOut && !m_dstBlocked;
            if (viaScratch)
                dst = threadScratch(2, m_dstMd.get_size());
            if (m_sumFrom != kInvalidId) {
                // The primitive computes in m_dstMd: blocked when m_dstOut exists.
                const bool sameLayout = !m_dstOut || m_sumBlocked;
                if (sameLayout) {
                    if (tensors[m_sumFrom] != dst)
                        std::memcpy(dst, tensors[m_sumFrom], m_dstMd.get_size());
                } else {
                    memory from(m_plainDstMd, dnnlEngine(), tensors[m_sumFrom]), to(m_dstMd, dnnlEngine(), dst);
                    m_sumIn->execute(stream, from, to);
                }
            }
            m_prim.execute(stream, args(tensors, src, dst));
            if (viaScratch) {
                memory from(m_dstMd, dnnlEngine(), dst), to(m_plainDstMd, dnnlEngine(), tensors[m_dst]);
                m_dstOut->execute(stream, from, to);
            }
            stream.wait();
        } catch (const dnnl::error &e) {
            return Status::error(ErrorCode::Internal, "oneDNN failed on '" + label + "': " + e.what());
        }
        return Status::ok();
    }

    // A convolution whose primitive chose the blocked layout for its source
    // (destination) can take that tensor blocked; the residual of a sum
    // post-op onto a blocked destination may be either (copied or reordered).
    std::vector<std::vector<TensorId>> blockedGroups(const Graph &g, int block) const override
    {
        std::vector<std::vector<TensorId>> groups;
        if (!m_conv || block <= 0)
            return groups;
        if (m_srcMd == blockedDesc(g.tensor(m_src).shape, block))
            groups.push_back({m_src});
        if (m_dstMd == blockedDesc(g.tensor(m_dst).shape, block)) {
            groups.push_back({m_dst});
            if (m_sumFrom != kInvalidId)
                groups.push_back({m_sumFrom});
        }
        return groups;
    }

    Status useLayouts(const LayoutContext &ctx) override
    {
        m_srcBlocked = ctx.isBlocked(m_src);
        m_dstBlocked = ctx.isBlocked(m_dst);
        m_sumBlocked = ctx.isBlocked(m_sumFrom);
        return Status::ok();
    }

    int reorders() const override
    {
        int n = m_srcIn && !m_srcBlocked ? 1 : 0;
        n += m_dstOut && !m_dstBlocked ? 1 : 0;
        n += m_sumFrom != kInvalidId && m_dstOut && !m_sumBlocked ? 1 : 0;
        return n;
    }

    // The primitive's arguments with source and destination at `src`, `dst`
    // (the run's tensors, or blocked copies of them).
    std::unordered_map<int, memory> args(std::uint8_t *const *tensors, std::uint8_t *src, std::uint8_t *dst) const
    {
        std::unordered_map<int, memory> args;
        args.emplace(DNNL_ARG_SRC, memory(m_srcMd, dnnlEngine(), src));
        args.emplace(DNNL_ARG_WEIGHTS,
                     m_weightsConst ? m_weights : memory(m_weightsMd, dnnlEngine(), tensors[m_weightT]));
        if (m_bias)
            args.emplace(DNNL_ARG_BIAS, *m_bias);
        args.emplace(DNNL_ARG_DST, memory(m_dstMd, dnnlEngine(), dst));
        for (const auto &[index, t, md] : m_binary)
            args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1, memory(md, dnnlEngine(), tensors[t]));
        args.emplace(DNNL_ARG_SCRATCHPAD, scratchpadMemory(m_scratchMd));
        return args;
    }

    dnnl::primitive m_prim;
    std::string m_impl; // oneDNN's implementation ("gemm:jit", "jit:avx512_core")
    memory::desc m_srcMd, m_weightsMd, m_biasMd, m_dstMd, m_scratchMd;
    memory m_weights;
    std::optional<memory> m_bias;
    bool m_weightsConst = false;
    TensorId m_src = kInvalidId, m_weightT = kInvalidId, m_dst = kInvalidId;
    TensorId m_sumFrom = kInvalidId; // copied into dst before a sum post-op accumulates onto it
    std::vector<std::tuple<int, TensorId, memory::desc>> m_binary;
    std::shared_ptr<const std::vector<float>> m_biasStore;
    // A convolution whose primitive chose blocked activations (nChw16c):
    // reorders from/to the plain tensors the rest of the plan reads.
    memory::desc m_plainSrcMd, m_plainDstMd;
    std::optional<dnnl::reorder> m_srcIn, m_dstOut, m_sumIn;
    bool m_conv = false;
    bool m_srcBlocked = false, m_dstBlocked = false, m_sumBlocked = false; // the layout pass's choice
};

// Binary post-op operand descriptor: the operand right-aligned to dst's rank.
// A matrix product whose leading dims were folded into its rows (see
// matmulAnchor) has a rank-2 destination: an operand of higher rank is then
// either the whole destination or a row vector (every dim but the last 1);
// anything else is refused like any post-op oneDNN rejects.
memory::desc operandDesc(const Shape &operand, const memory::dims &dst)
{
    const std::size_t rank = dst.size();
    Shape s = operand;
    if (s.size() > rank) {
        std::int64_t elements = 1, dstElements = 1, leading = 1;
        for (std::size_t d = 0; d < s.size(); ++d) {
            elements *= s[d];
            leading *= d + 1 < s.size() ? s[d] : 1;
        }
        for (memory::dim d : dst)
            dstElements *= d;
        if (elements == dstElements)
            s.assign(dst.begin(), dst.end());
        else if (leading == 1)
            s = Shape(rank, 1), s.back() = operand.back();
        else
            throw dnnl::error(dnnl_invalid_arguments, "a post-op operand that does not fold with the rows");
    }
    while (s.size() < rank)
        s.insert(s.begin(), 1);
    return plainDesc(s);
}

// Creates the primitive for `anchor` with `posts`; throws dnnl::error when rejected.
void build(DnnlOp &op, Anchor &a, const std::vector<PostOp> &posts, const Graph &g)
{
    dnnl::post_ops po;
    op.m_binary.clear();
    op.m_sumFrom = kInvalidId;
    for (std::size_t i = 0; i < posts.size(); ++i) {
        const PostOp &p = posts[i];
        if (p.kind == PostOp::Kind::Eltwise) {
            po.append_eltwise(1.0f, p.alg, p.alpha, p.beta);
        } else if (p.kind == PostOp::Kind::Sum) {
            po.append_sum(1.0f);
            op.m_sumFrom = p.operand;
        } else {
            const memory::desc md = operandDesc(g.tensor(p.operand).shape, a.dst.dims());
            po.append_binary(p.alg, md);
            op.m_binary.emplace_back(static_cast<int>(i), p.operand, md);
        }
    }
    dnnl::primitive_attr attr = userScratchpad();
    attr.set_post_ops(po);
    const bool hasBias = a.biasPtr || !a.biasData.empty() || a.foldedBn;
    if (a.conv) {
        auto d = hasBias ? dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                           dnnl::algorithm::convolution_direct, a.src, a.weights,
                                                           a.bias, a.dst, a.strides, a.dilates, a.padL, a.padR)
                         : dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference,
                                                           dnnl::algorithm::convolution_direct, a.src, a.weights, a.dst,
                                                           a.strides, a.dilates, a.padL, a.padR);
        dnnl::convolution_forward::primitive_desc pd(d, attr, dnnlEngine());
        op.m_srcMd = pd.src_desc();
        op.m_weightsMd = pd.weights_desc();
        op.m_biasMd = pd.bias_desc();
        op.m_dstMd = pd.dst_desc();
        op.m_scratchMd = pd.scratchpad_desc();
        op.m_impl = pd.impl_info_str();
        op.m_prim = dnnl::convolution_forward(pd);
        op.m_conv = true;
        op.m_plainSrcMd = a.plainSrc;
        op.m_plainDstMd = a.plainDst;
        op.m_srcIn.reset();
        op.m_dstOut.reset();
        op.m_sumIn.reset();
        if (op.m_srcMd != a.plainSrc)
            op.m_srcIn =
                dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), a.plainSrc, dnnlEngine(), op.m_srcMd));
        if (op.m_dstMd != a.plainDst) {
            op.m_dstOut =
                dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), op.m_dstMd, dnnlEngine(), a.plainDst));
            if (op.m_sumFrom != kInvalidId)
                op.m_sumIn =
                    dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), a.plainDst, dnnlEngine(), op.m_dstMd));
        }
    } else {
        auto d =
            hasBias ? dnnl::matmul::desc(a.src, a.weights, a.bias, a.dst) : dnnl::matmul::desc(a.src, a.weights, a.dst);
        dnnl::matmul::primitive_desc pd(d, attr, dnnlEngine());
        op.m_srcMd = pd.src_desc();
        op.m_weightsMd = pd.weights_desc();
        op.m_biasMd = pd.bias_desc();
        op.m_dstMd = pd.dst_desc();
        op.m_scratchMd = pd.scratchpad_desc();
        op.m_impl = pd.impl_info_str();
        op.m_prim = dnnl::matmul(pd);
    }
}

// 64-bit content hash of `bytes` bytes (8-byte words mixed multiplicatively,
// the tail byte-wise): the key of prepared constants.
std::uint64_t contentHash(const void *data, std::size_t bytes, std::uint64_t h = 0x9e3779b97f4a7c15ull)
{
    const auto *p = static_cast<const std::uint8_t *>(data);
    std::size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        std::uint64_t w;
        std::memcpy(&w, p + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < bytes; ++i)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h ^ bytes;
}

std::uint64_t tensorHash(const FusionScope &s, TensorId t, std::uint64_t h)
{
    const auto &d = s.constants.data[static_cast<std::size_t>(t)];
    return d ? contentHash(d->view().data(), d->view().size(), h) : h;
}

// The key of an anchor's prepared constants: the content of the weights, the
// bias and the folded BatchNormalization's parameters (and its epsilon), plus
// the layout the primitive asked for.
std::string constantsKey(const FusionScope &s, const Anchor &a, const memory::desc &want, bool transB)
{
    std::uint64_t h = tensorHash(s, a.weightT, 1);
    if (a.biasT != kInvalidId)
        h = tensorHash(s, a.biasT, h ^ 2);
    if (a.foldedBn) {
        for (std::size_t i = 1; i < 5; ++i)
            h = tensorHash(s, a.foldedBn->inputs[i], h ^ (i + 16));
        const double eps = a.foldedBn->attrFloat("epsilon", 1e-5);
        h = contentHash(&eps, sizeof eps, h);
    }
    // The layout: its size and strides/blocking are in the C descriptor.
    h = contentHash(&want.data, sizeof want.data, h);
    return std::to_string(h) + (transB ? "t:" : "n:") + std::to_string(want.get_size());
}

// Folds BatchNormalization node `bn` into the conv anchor's weights and bias
// (copies in a.weightData / a.biasData).
void foldInto(const FusionScope &s, const Node &bn, Anchor &a)
{
    const float *scale = s.constants.f32(bn.inputs[1]), *shift = s.constants.f32(bn.inputs[2]),
                *mean = s.constants.f32(bn.inputs[3]), *var = s.constants.f32(bn.inputs[4]);
    const double eps = bn.attrFloat("epsilon", 1e-5);
    if (a.weightData.empty())
        a.weightData.assign(a.weightPtr, a.weightPtr + a.outChannels * a.perChannel);
    std::vector<float> bias(static_cast<std::size_t>(a.outChannels), 0.f);
    if (!a.biasData.empty())
        bias = a.biasData;
    else if (a.biasPtr)
        bias.assign(a.biasPtr, a.biasPtr + a.outChannels);
    for (std::int64_t o = 0; o < a.outChannels; ++o) {
        const double k = scale[o] / std::sqrt(static_cast<double>(var[o]) + eps);
        for (std::int64_t i = 0; i < a.perChannel; ++i)
            a.weightData[static_cast<std::size_t>(o * a.perChannel + i)] =
                static_cast<float>(a.weightData[static_cast<std::size_t>(o * a.perChannel + i)] * k);
        bias[static_cast<std::size_t>(o)] =
            static_cast<float>((bias[static_cast<std::size_t>(o)] - mean[o]) * k + shift[o]);
    }
    a.biasData = std::move(bias);
}

} // namespace

struct DnnlConstantCache::Impl {
    struct Entry {
        memory weights;
        std::shared_ptr<const std::vector<float>> bias;
    };
    std::mutex mutex;
    std::unordered_map<std::string, Entry> entries;
    std::unordered_set<std::string> used; // keys the current compile used
    int prepared = 0, hits = 0;
};

DnnlConstantCache::DnnlConstantCache() : m_impl(std::make_unique<Impl>()) {}
DnnlConstantCache::~DnnlConstantCache() = default;

int DnnlConstantCache::prepared() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->prepared;
}

void DnnlConstantCache::keepOnlyLastCompile()
{
    std::lock_guard lock(m_impl->mutex);
    for (auto it = m_impl->entries.begin(); it != m_impl->entries.end();)
        it = m_impl->used.count(it->first) ? std::next(it) : m_impl->entries.erase(it);
    m_impl->used.clear();
}

int DnnlConstantCache::hits() const
{
    std::lock_guard lock(m_impl->mutex);
    return m_impl->hits;
}

namespace {

// Binds constant weights (BatchNormalization folded, reordered into the
// primitive's layout) and the bias: from `cache` when the same content was
// prepared for the same layout before, else prepared now and cached.
void bindConstants(const FusionScope &s, DnnlOp &op, Anchor &a, bool transB)
{
    const memory::desc want = op.m_weightsMd;
    op.m_weightsConst = a.weightsConst;
    const bool hasBias = a.biasPtr || a.foldedBn;
    DnnlConstantCache::Impl *cache = s.dnnlCache ? s.dnnlCache->m_impl.get() : nullptr;
    std::string key;
    if (cache && a.weightsConst) {
        key = constantsKey(s, a, want, transB);
        std::lock_guard lock(cache->mutex);
        cache->used.insert(key);
        if (auto it = cache->entries.find(key); it != cache->entries.end()) {
            ++cache->hits;
            op.m_weights = it->second.weights;
            if (hasBias) {
                op.m_biasStore = it->second.bias;
                op.m_bias = memory(op.m_biasMd, dnnlEngine(), const_cast<float *>(op.m_biasStore->data()));
            }
            return;
        }
    }
    if (a.foldedBn)
        foldInto(s, *a.foldedBn, a);
    if (a.weightsConst) {
        Dims dims = want.dims();
        memory::desc plain;
        if (transB)
            plain = memory::desc(dims, memory::data_type::f32, Dims{1, dims[0]});
        else
            plain = memory::desc(dims, memory::data_type::f32, plainTag(dims.size()));
        const float *src = a.weightData.empty() ? a.weightPtr : a.weightData.data();
        op.m_weights = memory(want, dnnlEngine());
        if (plain == want) { // the primitive takes the plain layout: a copy, not a reorder
            std::memcpy(op.m_weights.get_data_handle(), src, want.get_size());
        } else {
            dnnl::stream stream(dnnlEngine());
            memory from(plain, dnnlEngine(), const_cast<float *>(src));
            dnnl::reorder(from, op.m_weights).execute(stream, from, op.m_weights);
            stream.wait();
        }
    }
    if (hasBias) {
        if (a.biasData.empty())
            a.biasData.assign(a.biasPtr, a.biasPtr + a.bias.get_size() / sizeof(float));
        op.m_biasStore = std::make_shared<const std::vector<float>>(std::move(a.biasData));
        op.m_bias = memory(op.m_biasMd, dnnlEngine(), const_cast<float *>(op.m_biasStore->data()));
    }
    if (cache && a.weightsConst) {
        std::lock_guard lock(cache->mutex);
        ++cache->prepared;
        cache->entries.emplace(key, DnnlConstantCache::Impl::Entry{op.m_weights, op.m_biasStore});
    }
}

// Whether BatchNormalization node `bn` can be folded into the conv anchor.
bool canFold(const FusionScope &s, const Node &bn, const Anchor &a)
{
    if (bn.inputs.size() < 5)
        return false;
    for (std::size_t i = 1; i < 5; ++i)
        if (!isF32(s.graph, bn.inputs[i]) || s.graph.tensor(bn.inputs[i]).elements() != a.outChannels ||
            !s.constants.f32(bn.inputs[i]))
            return false;
    return true;
}

} // namespace

dnnl::engine &dnnlEngine()
{
    static dnnl::engine e(dnnl::engine::kind::cpu, 0);
    return e;
}

memory::desc plainDesc(const std::vector<std::int64_t> &dims)
{
    return memory::desc(Dims(dims.begin(), dims.end()), memory::data_type::f32, plainTag(dims.size()));
}

std::uint8_t *threadScratch(int slot, std::size_t bytes)
{
    thread_local std::vector<std::uint8_t> scratch[4];
    std::vector<std::uint8_t> &s = scratch[slot];
    if (s.size() < bytes)
        s.resize(bytes);
    return s.data();
}

memory::desc blockedDesc(const std::vector<std::int64_t> &dims, int block)
{
    using F = memory::format_tag;
    if (dims.size() != 4 || (block != 1 && block != 8 && block != 16))
        return memory::desc();
    const F tag = block == 16 ? F::aBcd16b : block == 8 ? F::aBcd8b : F::acdb;
    return memory::desc(Dims(dims.begin(), dims.end()), memory::data_type::f32, tag);
}

int dnnlBlockSize()
{
    // The layout oneDNN picks for a 3x3 convolution of 64 channels: its
    // blocked direct kernels' (nChw16c on AVX-512, nChw8c on AVX2), its
    // brgemm kernels' channels-last (nhwc: 1; oneDNN 2.6 on AVX-512 cores
    // with brgemm support), or none.
    static const int block = [] {
        if (forcedBlock() > 0)
            return forcedBlock();
        try {
            const memory::desc any({1, 64, 14, 14}, memory::data_type::f32, memory::format_tag::any);
            const memory::desc w({64, 64, 3, 3}, memory::data_type::f32, memory::format_tag::any);
            dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                              any, w, any, {1, 1}, {1, 1}, {1, 1});
            dnnl::convolution_forward::primitive_desc pd(d, dnnlEngine());
            for (int b : {16, 8, 1})
                if (pd.src_desc() == blockedDesc({1, 64, 14, 14}, b) &&
                    pd.dst_desc() == blockedDesc({1, 64, 14, 14}, b))
                    return b;
        } catch (const dnnl::error &) {
        }
        return 0;
    }();
    return block;
}

bool blockedLayoutsEnabled()
{
    // TESSERA_CPU_BLOCKED=0 turns the layout pass off (every convolution
    // reorders around itself, pointwise ones stay plain): to bisect, and the
    // before/after comparison in BENCHMARKS.md.
    static const bool enabled = [] {
        const char *v = std::getenv("TESSERA_CPU_BLOCKED");
        return !(v && std::string_view(v) == "0");
    }();
    return enabled && dnnlBlockSize() > 0;
}

namespace {

class PlainViewOp final : public CpuOp
{
public:
    Status run(std::uint8_t *const *tensors) const override
    {
        thread_local std::vector<std::uint8_t *> table;
        thread_local std::vector<std::vector<std::uint8_t>> copies;
        table.assign(tensors, tensors + m_tensorCount);
        if (copies.size() < m_views.size())
            copies.resize(m_views.size());
        try {
            dnnl::stream stream(dnnlEngine());
            for (std::size_t i = 0; i < m_views.size(); ++i) {
                const View &v = m_views[i];
                std::vector<std::uint8_t> &copy = copies[i];
                if (copy.size() < v.plain.get_size())
                    copy.resize(v.plain.get_size());
                memory from(v.blocked, dnnlEngine(), tensors[v.tensor]), to(v.plain, dnnlEngine(), copy.data());
                v.reorder.execute(stream, from, to);
                table[static_cast<std::size_t>(v.tensor)] = copy.data();
            }
            stream.wait();
        } catch (const dnnl::error &e) {
            return Status::error(ErrorCode::Internal, "oneDNN failed on a plain copy for '" + label + "': " + e.what());
        }
        return m_inner->run(table.data());
    }

    int reorders() const override { return m_inner->reorders() + static_cast<int>(m_views.size()); }

    struct View {
        TensorId tensor;
        memory::desc blocked, plain;
        dnnl::reorder reorder;
    };
    CpuOpPtr m_inner;
    std::vector<View> m_views;
    std::size_t m_tensorCount = 0;
};

} // namespace

CpuOpPtr withPlainViews(CpuOpPtr inner, const Graph &g, std::vector<TensorId> views, int block)
{
    if (views.empty())
        return inner;
    auto op = std::make_unique<PlainViewOp>();
    op->m_tensorCount = g.tensorCount();
    for (TensorId t : views) {
        const Shape &shape = g.tensor(t).shape;
        const memory::desc blocked = blockedDesc(shape, block), plain = plainDesc(shape);
        op->m_views.push_back(
            {t, blocked, plain,
             dnnl::reorder(dnnl::reorder::primitive_desc(dnnlEngine(), blocked, dnnlEngine(), plain))});
    }
    op->engine = inner->engine;
    op->nodes = inner->nodes;
    op->reads = inner->reads;
    op->writes = inner->writes;
    op->label = inner->label;
    op->impl = inner->impl;
    op->declined = inner->declined;
    op->m_inner = std::move(inner);
    return op;
}

bool dnnlAnchor(std::string_view opType)
{
    return opType == "Conv" || opType == "MatMul" || opType == "Gemm";
}

CpuOpPtr makeDnnlOp(FusionScope &s, std::size_t pos)
{
    const Graph &g = s.graph;
    const NodeId anchorId = s.kernelNodes[pos];
    const Node &n = g.node(anchorId);
    try {
        std::optional<Anchor> a = n.opType == "Conv" ? convAnchor(s, n) : matmulAnchor(s, n);
        if (!a)
            return nullptr;
        const bool transB = n.opType == "Gemm" && n.attrInt("transB", 0) != 0;

        // S1: follow the chain and collect absorbable epilogue steps.
        std::vector<PostOp> posts;
        std::vector<int> chainPos; // kernel positions absorbed, in order
        std::vector<TensorId> chainOut{n.outputs[0]};
        bool folded = false;
        for (TensorId t = n.outputs[0];;) {
            const int next = chainNext(s, t);
            if (next < 0)
                break;
            const Node &c = g.node(s.kernelNodes[static_cast<std::size_t>(next)]);
            if (c.opType == "BatchNormalization" && a->conv && posts.empty() && !folded) {
                if (!canFold(s, c, *a))
                    break;
                a->foldedBn = &c;
                folded = true;
            } else if (auto e = eltwiseOf(s, c)) {
                e->node = s.kernelNodes[static_cast<std::size_t>(next)];
                posts.push_back(*e);
            } else if ((c.opType == "Add" || c.opType == "Mul" || c.opType == "Sub") && c.inputs.size() == 2) {
                const bool first = c.inputs[0] == t;
                const TensorId other = first ? c.inputs[1] : c.inputs[0];
                if (other == t || !isF32(g, other) || !s.available(other) || (c.opType == "Sub" && !first))
                    break;
                const dnnl::algorithm alg = c.opType == "Add"   ? dnnl::algorithm::binary_add
                                            : c.opType == "Mul" ? dnnl::algorithm::binary_mul
                                                                : dnnl::algorithm::binary_sub;
                // A full-size residual Add right after the anchor: the operand is
                // copied into dst and the primitive accumulates onto it (sum
                // post-op, beta = 1 in the GEMM). A binary post-op over a whole
                // tensor makes oneDNN 2.6's gemm convolution several times slower
                // (BENCHMARKS.md, 2026-11-25).
                if (c.opType == "Add" && posts.empty() && g.tensor(other).shape == g.tensor(t).shape)
                    posts.push_back({PostOp::Kind::Sum, dnnl::algorithm::undef, 0.f, 0.f, other,
                                     s.kernelNodes[static_cast<std::size_t>(next)]});
                else
                    posts.push_back(
                        {PostOp::Kind::Binary, alg, 0.f, 0.f, other, s.kernelNodes[static_cast<std::size_t>(next)]});
            } else {
                break;
            }
            chainPos.push_back(next);
            t = c.outputs[0];
            chainOut.push_back(t);
        }

        // S2: the primitive, dropping post-ops from the end until oneDNN
        // accepts them with a JIT kernel: post-ops it has only its reference
        // code for (a per-head scale over a batched product: Swin-V2's
        // attention scores) cost far more than the LLVM chain they become.
        auto op = std::make_unique<DnnlOp>();
        for (;;) {
            bool accepted = true;
            try {
                build(*op, *a, posts, g);
            } catch (const dnnl::error &) {
                accepted = false;
            }
            if (!accepted || (isReferenceImpl(op->m_impl) && !posts.empty())) {
                if (posts.empty())
                    return nullptr;
                posts.pop_back();
                chainPos.pop_back();
                chainOut.pop_back();
                continue;
            }
            // A GEMM-based convolution (plain NCHW activations) applies eltwise
            // post-ops in a slow scalar pass: 1.5x the convolution alone with a
            // Relu, 6x after a sum (BENCHMARKS.md, 2026-11-26). The activation
            // and what follows it are left to the caller (one LLVM chain over
            // the primitive's output); bias and sum stay in the GEMM.
            const auto firstEltwise = std::find_if(posts.begin(), posts.end(),
                                                   [](const PostOp &p) { return p.kind == PostOp::Kind::Eltwise; });
            if (!a->conv || firstEltwise == posts.end() || op->m_impl.find("gemm") == std::string::npos)
                break;
            const auto keep = static_cast<std::size_t>(firstEltwise - posts.begin());
            const std::size_t fold = folded ? 1 : 0; // a folded BatchNormalization leads the chain, not a post-op
            posts.resize(keep);
            chainPos.resize(keep + fold);
            chainOut.resize(keep + fold + 1);
        }
        bindConstants(s, *op, *a, transB);

        // S3: what it computes.
        op->engine = Engine::OneDnn;
        op->impl = op->m_impl;
        op->nodes = {anchorId};
        op->label = n.opType;
        op->m_src = a->srcT;
        op->m_weightT = a->weightT;
        op->m_dst = chainOut.back();
        op->reads = {a->srcT};
        if (!a->weightsConst)
            op->reads.push_back(a->weightT);
        for (std::size_t i = 0; i < chainPos.size(); ++i) {
            const NodeId id = s.kernelNodes[static_cast<std::size_t>(chainPos[i])];
            op->nodes.push_back(id);
            op->label += "+" + g.node(id).opType;
        }
        for (const PostOp &p : posts)
            if (p.kind != PostOp::Kind::Eltwise)
                op->reads.push_back(p.operand);
        op->writes = {op->m_dst};
        s.done[pos] = true;
        for (int p : chainPos)
            s.done[static_cast<std::size_t>(p)] = true;
        return op;
    } catch (const dnnl::error &) {
        return nullptr;
    }
}

} // namespace tessera::cpu
