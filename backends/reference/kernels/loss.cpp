// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (core/ops/loss.cpp)
// on float32/float64/float16 inputs and int32/int64 targets.
//
// The whole loss is computed once per compute() call in double, in row-major
// order of the target (deterministic whatever the tile), then the requested
// region is written: loss[n, d] = -weight[t] * x[n, t, d] with t the target,
// 0 (and weight 0) where t == ignore_index; "mean" divides the sum by the
// total weight of the counted targets. SoftmaxCrossEntropyLoss first takes
// log_softmax over C (max-shifted), which is also its second output.
// A target outside [0, C) that is not ignore_index is a run-time error.
#include "backends/reference/kernel.h"

#include <cmath>
#include <limits>

namespace tessera::reference {

namespace {

class LossKernel final : public NodeKernel
{
public:
    LossKernel(const Node &n, Shape x, bool softmax)
        : m_name(n.opType), m_x(std::move(x)), m_softmax(softmax),
          m_ignore(n.attr("ignore_index") ? n.attrInt("ignore_index", 0) : std::numeric_limits<std::int64_t>::min()),
          m_reduction(n.attrString("reduction", "mean"))
    {}

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const std::int64_t N = m_x[0], C = m_x[1];
        std::int64_t D = 1;
        for (std::size_t d = 2; d < m_x.size(); ++d)
            D *= m_x[d];
        const InView &xv = a.in[0], &tv = a.in[1];
        const bool weighted = a.in.size() > 2 && a.in[2].present();
        std::vector<double> logp(static_cast<std::size_t>(N * C * D));
        for (std::int64_t i = 0; i < N * C * D; ++i)
            logp[static_cast<std::size_t>(i)] = loadNumber(xv.dtype, xv.data, i);
        if (m_softmax)
            for (std::int64_t n = 0; n < N; ++n)
                for (std::int64_t d = 0; d < D; ++d) {
                    double mx = -std::numeric_limits<double>::infinity(), sum = 0;
                    for (std::int64_t c = 0; c < C; ++c)
                        mx = std::max(mx, logp[static_cast<std::size_t>((n * C + c) * D + d)]);
                    for (std::int64_t c = 0; c < C; ++c)
                        sum += std::exp(logp[static_cast<std::size_t>((n * C + c) * D + d)] - mx);
                    const double ls = std::log(sum) + mx;
                    for (std::int64_t c = 0; c < C; ++c)
                        logp[static_cast<std::size_t>((n * C + c) * D + d)] -= ls;
                }
        const auto &out = a.out[static_cast<std::size_t>(output)];
        const auto yStrides = stridesOf(*out.shape);
        if (output == 1) {
            forEachIndex(r, [&](std::span<const std::int64_t> idx) {
                const std::int64_t off = dot(idx, yStrides);
                storeNumber(out.dtype, out.data, off, logp[static_cast<std::size_t>(off)]);
            });
            return Status::ok();
        }
        std::vector<double> loss(static_cast<std::size_t>(N * D));
        double sum = 0, weights = 0;
        for (std::int64_t n = 0; n < N; ++n)
            for (std::int64_t d = 0; d < D; ++d) {
                const auto t = static_cast<std::int64_t>(loadNumber(tv.dtype, tv.data, n * D + d));
                if (t == m_ignore)
                    continue;
                if (t < 0 || t >= C)
                    return Status::invalid(m_name + ": target " + std::to_string(t) + " is outside [0, " +
                                           std::to_string(C) + ")");
                const double w = weighted ? loadNumber(a.in[2].dtype, a.in[2].data, t) : 1.0;
                const double l = -w * logp[static_cast<std::size_t>((n * C + t) * D + d)];
                loss[static_cast<std::size_t>(n * D + d)] = l;
                sum += l;
                weights += w;
            }
        if (m_reduction == "none") {
            forEachIndex(r, [&](std::span<const std::int64_t> idx) {
                const std::int64_t off = dot(idx, yStrides);
                storeNumber(out.dtype, out.data, off, loss[static_cast<std::size_t>(off)]);
            });
            return Status::ok();
        }
        storeNumber(out.dtype, out.data, 0, m_reduction == "sum" ? sum : sum / weights);
        return Status::ok();
    }

private:
    std::string m_name;
    Shape m_x;
    bool m_softmax;
    std::int64_t m_ignore;
    std::string m_reduction;
};

Expected<KernelPtr> makeLoss(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32, DType::Float64, DType::Float16}));
    TS_TRY(expectType(g, n, 1, {DType::Int32, DType::Int64}));
    TS_TRY(expectType(g, n, 2, {DType::Float32, DType::Float64, DType::Float16}));
    return KernelPtr(std::make_unique<LossKernel>(n, inTensor(g, n, 0).shape, n.opType == "SoftmaxCrossEntropyLoss"));
}

constexpr KernelEntry kKernels[] = {
    {"NegativeLogLikelihoodLoss", makeLoss},
    {"SoftmaxCrossEntropyLoss", makeLoss},
};

} // namespace

std::span<const KernelEntry> lossKernels()
{
    return kKernels;
}

} // namespace tessera::reference
