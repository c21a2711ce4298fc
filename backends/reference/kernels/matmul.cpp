// MatMul (numpy semantics: batched, broadcast batch dims, 1-D operands) and
// Gemm (alpha·A'·B' + beta·C, C broadcast) on float32.
//
// Row-oriented: for an output row, float64 accumulators start at zero and
// take A[m, k]·B[k, n..] for k = 0, 1, ... in turn, the inner loop running
// along the row of B; each output is rounded to float32 once (Gemm: after
// alpha and beta·C). Every element sums over k in the same order whatever the
// tile. Float64 sums for the reason conv.cpp gives: the reference is what
// other backends and PyTorch are measured against.
//
// Einsum (ops::einsumSpec resolves the equation) on every numeric type: each
// output element walks the summed labels' ranges in row-major order,
// multiplying the operands' elements in double, and rounds the sum once into
// the output type.
//
// Det (float32/float64): LU factorization with partial pivoting of each
// matrix in double, the determinant the product of the pivots with the
// permutation's sign.
#include "backends/reference/kernel.h"
#include "core/ops/einsum.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tessera::reference {

namespace {

// y[n - lo] += a · b[n·stride] for n in [lo, hi); a float32 product is exact
// in float64.
inline void axpy(double *__restrict y, float a, const float *__restrict b, std::int64_t stride, std::int64_t lo,
                 std::int64_t hi)
{
    const double ad = a;
    y -= lo;
    if (stride == 1)
        for (std::int64_t n = lo; n < hi; ++n)
            y[n] += ad * static_cast<double>(b[n]);
    else
        for (std::int64_t n = lo; n < hi; ++n)
            y[n] += ad * static_cast<double>(b[n * stride]);
}

class MatMulKernel final : public NodeKernel
{
public:
    MatMulKernel(const Shape &a, const Shape &b, const Shape &y) : m_g(a, b, y) {}

    Status compute(const KernelArgs &args, int, const ops::Region &r) const override
    {
        const float *a = args.in[0].as<float>(), *b = args.in[1].as<float>();
        float *y = args.out[0].as<float>();
        const ops::Interval mi = m_g.rows(r), ni = m_g.cols(r);
        const std::int64_t kk = m_g.k, nn = m_g.n;
        std::vector<double> acc(static_cast<std::size_t>(std::max<std::int64_t>(0, ni.end - ni.begin)));
        forEachIndex(m_g.batchTile(r), [&](std::span<const std::int64_t> idx) {
            const float *ab = a + m_g.aOffset(idx);
            const float *bb = b + m_g.bOffset(idx);
            float *yb = y + m_g.yOffset(idx);
            for (std::int64_t m = mi.begin; m < mi.end; ++m) {
                std::fill(acc.begin(), acc.end(), 0.0);
                for (std::int64_t k = 0; k < kk; ++k)
                    axpy(acc.data(), ab[m * kk + k], bb + k * nn, 1, ni.begin, ni.end);
                float *yr = yb + m * nn;
                for (std::int64_t n = ni.begin; n < ni.end; ++n)
                    yr[n] = static_cast<float>(acc[static_cast<std::size_t>(n - ni.begin)]);
            }
        });
        return Status::ok();
    }

private:
    MatMulGeometry m_g;
};

class GemmKernel final : public NodeKernel
{
public:
    GemmKernel(const Node &n, const Shape &a, const Shape &y, const Shape *c)
        : m_transA(n.attrInt("transA", 0) != 0), m_transB(n.attrInt("transB", 0) != 0),
          m_alpha(static_cast<float>(n.attrFloat("alpha", 1.0))), m_beta(static_cast<float>(n.attrFloat("beta", 1.0)))
    {
        m_m = y[0];
        m_n = y[1];
        m_k = m_transA ? a[0] : a[1];
        if (c)
            m_cStrides = broadcastStrides(y, *c);
    }

    Status compute(const KernelArgs &args, int, const ops::Region &r) const override
    {
        const float *a = args.in[0].as<float>(), *b = args.in[1].as<float>();
        const float *c = args.in.size() > 2 && args.in[2].present() ? args.in[2].as<float>() : nullptr;
        float *y = args.out[0].as<float>();
        const ops::Interval ni = r[1];
        std::vector<double> acc(static_cast<std::size_t>(std::max<std::int64_t>(0, ni.end - ni.begin)));
        const double alpha = m_alpha, beta = m_beta;
        for (std::int64_t m = r[0].begin; m < r[0].end; ++m) {
            std::fill(acc.begin(), acc.end(), 0.0);
            for (std::int64_t k = 0; k < m_k; ++k) {
                const float av = m_transA ? a[k * m_m + m] : a[m * m_k + k];
                if (m_transB)
                    axpy(acc.data(), av, b + k, m_k, ni.begin, ni.end);
                else
                    axpy(acc.data(), av, b + k * m_n, 1, ni.begin, ni.end);
            }
            float *yr = y + m * m_n;
            for (std::int64_t n = ni.begin; n < ni.end; ++n)
                yr[n] = static_cast<float>(
                    alpha * acc[static_cast<std::size_t>(n - ni.begin)] +
                    (c ? beta * static_cast<double>(c[m * m_cStrides[0] + n * m_cStrides[1]]) : 0.0));
        }
        return Status::ok();
    }

private:
    bool m_transA, m_transB;
    float m_alpha, m_beta;
    std::int64_t m_m = 0, m_n = 0, m_k = 0;
    std::vector<std::int64_t> m_cStrides;
};

Expected<KernelPtr> makeMatMul(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    TS_TRY(expectType(g, n, 1, {DType::Float32}));
    return KernelPtr(
        std::make_unique<MatMulKernel>(inTensor(g, n, 0).shape, inTensor(g, n, 1).shape, outTensor(g, n, 0).shape));
}

Expected<KernelPtr> makeGemm(const Graph &g, const Node &n)
{
    for (std::size_t i = 0; i < 3; ++i)
        TS_TRY(expectType(g, n, i, {DType::Float32}));
    return KernelPtr(std::make_unique<GemmKernel>(n, inTensor(g, n, 0).shape, outTensor(g, n, 0).shape,
                                                  hasInput(n, 2) ? &inTensor(g, n, 2).shape : nullptr));
}

class EinsumKernel final : public NodeKernel
{
public:
    EinsumKernel(const Graph &g, const Node &n, ops::EinsumSpec spec) : m_labels(spec.extents.size())
    {
        // Per operand: the stride of each label (0 for broadcast dims and absent labels).
        for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
            const Tensor &t = inTensor(g, n, i);
            const auto st = stridesOf(t.shape);
            std::vector<std::int64_t> byLabel(m_labels, 0);
            for (std::size_t d = 0; d < t.shape.size(); ++d)
                if (!(t.shape[d] == 1 && spec.extents[static_cast<std::size_t>(spec.inputs[i][d])] != 1))
                    byLabel[static_cast<std::size_t>(spec.inputs[i][d])] += st[d];
            m_strides.push_back(std::move(byLabel));
            m_types.push_back(t.dtype);
        }
        m_output = spec.output;
        std::vector<bool> inOutput(m_labels, false);
        for (int l : spec.output)
            inOutput[static_cast<std::size_t>(l)] = true;
        for (const auto &labels : spec.inputs)
            for (int l : labels)
                if (!inOutput[static_cast<std::size_t>(l)] &&
                    std::find(m_summed.begin(), m_summed.end(), l) == m_summed.end()) {
                    m_summed.push_back(l);
                    m_sumBox.push_back({0, spec.extents[static_cast<std::size_t>(l)]});
                }
        m_yType = outTensor(g, n, 0).dtype;
        m_yStrides = stridesOf(outTensor(g, n, 0).shape);
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        forEachIndex(r, [&](std::span<const std::int64_t> o) {
            std::vector<std::int64_t> base(m_strides.size(), 0);
            for (std::size_t i = 0; i < m_strides.size(); ++i)
                for (std::size_t k = 0; k < m_output.size(); ++k)
                    base[i] += o[k] * m_strides[i][static_cast<std::size_t>(m_output[k])];
            double sum = 0;
            forEachIndex(m_sumBox, [&](std::span<const std::int64_t> s) {
                double prod = 1;
                for (std::size_t i = 0; i < m_strides.size(); ++i) {
                    std::int64_t off = base[i];
                    for (std::size_t k = 0; k < m_summed.size(); ++k)
                        off += s[k] * m_strides[i][static_cast<std::size_t>(m_summed[k])];
                    prod *= loadNumber(m_types[i], a.in[i].data, off);
                }
                sum += prod;
            });
            storeNumber(m_yType, a.out[0].data, dot(o, m_yStrides), sum);
        });
        return Status::ok();
    }

private:
    std::size_t m_labels;
    std::vector<std::vector<std::int64_t>> m_strides;
    std::vector<DType> m_types;
    std::vector<int> m_output, m_summed;
    ops::Region m_sumBox;
    DType m_yType = DType::Float32;
    std::vector<std::int64_t> m_yStrides;
};

Expected<KernelPtr> makeEinsum(const Graph &g, const Node &n)
{
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        if (!isNumeric(inTensor(g, n, i).dtype) || inTensor(g, n, i).dtype == DType::Bool)
            return unsupported(n,
                               "element type " + std::string(dtypeName(inTensor(g, n, i).dtype)) + " is not supported");
    auto spec = ops::einsumSpec(g, n);
    if (!spec)
        return spec.status();
    return KernelPtr(std::make_unique<EinsumKernel>(g, n, std::move(*spec)));
}

class DetKernel final : public NodeKernel
{
public:
    DetKernel(std::int64_t m, DType type) : m_m(m), m_type(type) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const auto ys = stridesOf(*a.out[0].shape);
        forEachIndex(r, [&](std::span<const std::int64_t> b) {
            const std::int64_t matrix = dot(b, ys), mm = m_m * m_m;
            std::vector<double> lu(static_cast<std::size_t>(mm));
            for (std::int64_t i = 0; i < mm; ++i)
                lu[static_cast<std::size_t>(i)] = loadNumber(m_type, a.in[0].data, matrix * mm + i);
            auto at = [&](std::int64_t i, std::int64_t j) -> double & {
                return lu[static_cast<std::size_t>(i * m_m + j)];
            };
            double det = 1;
            for (std::int64_t k = 0; k < m_m && det != 0; ++k) {
                std::int64_t p = k;
                for (std::int64_t i = k + 1; i < m_m; ++i)
                    if (std::abs(at(i, k)) > std::abs(at(p, k)))
                        p = i;
                if (at(p, k) == 0) {
                    det = 0;
                    break;
                }
                if (p != k) {
                    for (std::int64_t j = 0; j < m_m; ++j)
                        std::swap(at(p, j), at(k, j));
                    det = -det;
                }
                det *= at(k, k);
                for (std::int64_t i = k + 1; i < m_m; ++i) {
                    const double f = at(i, k) / at(k, k);
                    for (std::int64_t j = k; j < m_m; ++j)
                        at(i, j) -= f * at(k, j);
                }
            }
            storeNumber(m_type, a.out[0].data, matrix, det);
        });
        return Status::ok();
    }

private:
    std::int64_t m_m;
    DType m_type;
};

Expected<KernelPtr> makeDet(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32, DType::Float64}));
    return KernelPtr(std::make_unique<DetKernel>(inTensor(g, n, 0).shape.back(), inTensor(g, n, 0).dtype));
}

constexpr KernelEntry kKernels[] = {
    {"Det", makeDet},
    {"Einsum", makeEinsum},
    {"Gemm", makeGemm},
    {"MatMul", makeMatMul},
};

} // namespace

std::span<const KernelEntry> matmulKernels()
{
    return kKernels;
}

} // namespace tessera::reference
