// Normalizations on float32: BatchNormalization (inference form, and the
// training form of opset >= 14: batch statistics, population variance, over
// every dim but the channel, in double; running mean/var = input·momentum +
// batch statistic·(1 - momentum), as ONNX's reference computes them),
// LayerNormalization (with its optional Mean and InvStdDev outputs),
// InstanceNormalization (statistics per (n, c) plane, scale/B per channel) and
// Softmax, LogSoftmax (x - max - log Σexp) and Hardmax (1 at the first
// maximum) (opset < 13: over the dims [axis, rank) flattened; opset >= 13:
// along the one axis).
//
// BatchNormalization: y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + B[c],
// the parameters read at run time. LayerNormalization and Softmax see the
// input as [outer, L, inner] with L the normalized extent; for every
// (outer, inner) pair the tile touches, the statistics of its whole row are
// computed first (sums in double), then the row's elements inside the tile
// are written. A row's statistics do not depend on the tile, so tiled and
// whole results agree bit for bit.
//
// LRN and MeanVarianceNormalization compute each output element on its own:
// LRN sums the squares of its channel window in double; MVN takes the
// moments E[x], E[x²] of its reduced box (in double, row-major order) and
// divides by sqrt(E[x²] - E[x]²) + 1e-9 as ONNX's function body does.
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::reference {

namespace {

// --- BatchNormalization ---------------------------------------------------------

class BatchNormKernel final : public NodeKernel
{
public:
    BatchNormKernel(Shape x, float eps) : m_x(std::move(x)), m_eps(eps), m_strides(stridesOf(m_x)) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *scale = a.in[1].as<float>(), *bias = a.in[2].as<float>();
        const float *mean = a.in[3].as<float>(), *var = a.in[4].as<float>();
        float *y = a.out[0].as<float>();
        const ops::Interval in = innerOf(r);
        auto sd = [&](std::int64_t c) { return std::sqrt(var[c] + m_eps); };
        auto norm = [&](std::int64_t c, float s, float v) { return (v - mean[c]) / s * scale[c] + bias[c]; };
        // The channel is dim 1: fixed along a row for rank >= 3, the row itself for rank 2, 0 for rank 1.
        forEachRow(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t off = dot(idx, m_strides);
            if (m_x.size() >= 3) {
                const std::int64_t c = idx[1];
                const float s = sd(c);
                for (std::int64_t i = 0; i < in.size(); ++i)
                    y[off + i] = norm(c, s, x[off + i]);
            } else {
                for (std::int64_t i = 0; i < in.size(); ++i) {
                    const std::int64_t c = m_x.size() == 2 ? in.begin + i : 0;
                    y[off + i] = norm(c, sd(c), x[off + i]);
                }
            }
        });
        return Status::ok();
    }

private:
    Shape m_x;
    float m_eps;
    std::vector<std::int64_t> m_strides;
};

// Training mode (opset >= 14): Y from the batch statistics, outputs 1 and 2
// the updated running mean and variance. Each output element computes the
// statistics of its channel.
class BatchNormTrainingKernel final : public NodeKernel
{
public:
    BatchNormTrainingKernel(Shape x, double eps, double momentum)
        : m_x(std::move(x)), m_eps(eps), m_momentum(momentum), m_strides(stridesOf(m_x))
    {
        ops::Region box;
        for (std::size_t d = 0; d < m_x.size(); ++d)
            box.push_back(d == 1 ? ops::Interval{0, 1} : ops::Interval{0, m_x[d]});
        forEachIndex(box, [&](std::span<const std::int64_t> i) { m_box.push_back(dot(i, m_strides)); });
    }

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        const std::int64_t cs = m_x.size() >= 2 ? m_strides[1] : 0;
        auto stats = [&](std::int64_t c) {
            double sum = 0, sq = 0;
            for (std::int64_t o : m_box)
                sum += x[o + c * cs];
            const double mean = sum / static_cast<double>(m_box.size());
            for (std::int64_t o : m_box)
                sq += (x[o + c * cs] - mean) * (x[o + c * cs] - mean);
            return std::pair<double, double>{mean, sq / static_cast<double>(m_box.size())};
        };
        if (output > 0) { // running mean (1) or variance (2), per channel
            const float *running = a.in[static_cast<std::size_t>(output) + 2].as<float>();
            float *y = a.out[static_cast<std::size_t>(output)].as<float>();
            for (std::int64_t c = r[0].begin; c < r[0].end; ++c) {
                const auto [mean, var] = stats(c);
                y[c] = static_cast<float>(running[c] * m_momentum + (output == 1 ? mean : var) * (1 - m_momentum));
            }
            return Status::ok();
        }
        const float *scale = a.in[1].as<float>(), *bias = a.in[2].as<float>();
        float *y = a.out[0].as<float>();
        forEachIndex(r, [&](std::span<const std::int64_t> i) {
            const std::int64_t c = m_x.size() >= 2 ? i[1] : 0, off = dot(i, m_strides);
            const auto [mean, var] = stats(c);
            y[off] = static_cast<float>((x[off] - mean) / std::sqrt(var + m_eps) * scale[c] + bias[c]);
        });
        return Status::ok();
    }

private:
    Shape m_x;
    double m_eps, m_momentum;
    std::vector<std::int64_t> m_strides, m_box;
};

Expected<KernelPtr> makeBatchNorm(const Graph &g, const Node &n)
{
    for (std::size_t i = 0; i < 5; ++i)
        TS_TRY(expectType(g, n, i, {DType::Float32}));
    const bool training = g.opsetVersion >= 14 ? n.attrInt("training_mode", 0) != 0 : n.outputs.size() > 1;
    if (training && g.opsetVersion < 14)
        return unsupported(n, "training mode before opset 14 (saved_mean/saved_var outputs) is not supported");
    if (training)
        return KernelPtr(std::make_unique<BatchNormTrainingKernel>(
            inTensor(g, n, 0).shape, n.attrFloat("epsilon", 1e-5), n.attrFloat("momentum", 0.9)));
    return KernelPtr(
        std::make_unique<BatchNormKernel>(inTensor(g, n, 0).shape, static_cast<float>(n.attrFloat("epsilon", 1e-5))));
}

// --- rows: [outer, L, inner] -------------------------------------------------------

// Dims [first, last) of `shape` form the normalized row.
struct RowView {
    Shape shape;
    std::size_t first = 0, last = 0;
    std::int64_t L = 1, inner = 1;

    RowView(Shape s, std::size_t f, std::size_t l) : shape(std::move(s)), first(f), last(l)
    {
        for (std::size_t d = first; d < last; ++d)
            L *= shape[d];
        for (std::size_t d = last; d < shape.size(); ++d)
            inner *= shape[d];
    }
    ops::Region part(const ops::Region &r, std::size_t from, std::size_t to) const
    {
        return ops::Region(r.begin() + static_cast<std::ptrdiff_t>(from), r.begin() + static_cast<std::ptrdiff_t>(to));
    }
    Shape dims(std::size_t from, std::size_t to) const
    {
        return Shape(shape.begin() + static_cast<std::ptrdiff_t>(from),
                     shape.begin() + static_cast<std::ptrdiff_t>(to));
    }
    // Flat outer, row and inner offsets of the tile's elements.
    std::vector<std::int64_t> outer(const ops::Region &r) const
    {
        return boxOffsets(part(r, 0, first), dims(0, first));
    }
    std::vector<std::int64_t> row(const ops::Region &r) const
    {
        return boxOffsets(part(r, first, last), dims(first, last));
    }
    std::vector<std::int64_t> inners(const ops::Region &r) const
    {
        return boxOffsets(part(r, last, shape.size()), dims(last, shape.size()));
    }
};

// --- LayerNormalization ------------------------------------------------------------

// Mean and sqrt(variance + eps) of one contiguous row (two passes, in double).
struct RowMoments {
    double mean, sd;
};
RowMoments rowMoments(const float *xr, std::int64_t L, double eps)
{
    double sum = 0;
    for (std::int64_t j = 0; j < L; ++j)
        sum += xr[j];
    const double mean = sum / static_cast<double>(L);
    double sq = 0;
    for (std::int64_t j = 0; j < L; ++j)
        sq += (xr[j] - mean) * (xr[j] - mean);
    return {mean, std::sqrt(sq / static_cast<double>(L) + eps)};
}

class LayerNormKernel final : public NodeKernel
{
public:
    LayerNormKernel(RowView v, double eps, const Shape *scale, const Shape *bias) : m_v(std::move(v)), m_eps(eps)
    {
        const Shape norm = m_v.dims(m_v.first, m_v.last);
        m_scale = broadcastStrides(norm, *scale);
        if (bias)
            m_bias = broadcastStrides(norm, *bias);
        m_normStrides = stridesOf(norm);
    }

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *scale = a.in[1].as<float>();
        const float *bias = a.in.size() > 2 && a.in[2].present() ? a.in[2].as<float>() : nullptr;
        const std::int64_t L = m_v.L;
        // The tile's row elements (in output 0) with their Scale/B offsets.
        const ops::Region rowBox =
            output == 0 ? m_v.part(r, m_v.first, m_v.last) : ops::fullRegion(m_v.dims(m_v.first, m_v.last));
        std::vector<std::int64_t> rowOff, scaleOff, biasOff;
        forEachIndex(rowBox, [&](std::span<const std::int64_t> idx) {
            rowOff.push_back(dot(idx, m_normStrides));
            scaleOff.push_back(dot(idx, m_scale));
            biasOff.push_back(bias ? dot(idx, m_bias) : 0);
        });
        for (std::int64_t o : m_v.outer(r)) {
            const float *xr = x + o * L;
            const auto [mean, sd] = rowMoments(xr, L, m_eps);
            if (output == 1) {
                a.out[1].as<float>()[o] = static_cast<float>(mean);
            } else if (output == 2) {
                a.out[2].as<float>()[o] = static_cast<float>(1.0 / sd);
            } else {
                float *yr = a.out[0].as<float>() + o * L;
                for (std::size_t k = 0; k < rowOff.size(); ++k) {
                    const std::int64_t j = rowOff[k];
                    const double v = (xr[j] - mean) / sd * scale[scaleOff[k]] + (bias ? bias[biasOff[k]] : 0.0f);
                    yr[j] = static_cast<float>(v);
                }
            }
        }
        return Status::ok();
    }

private:
    RowView m_v;
    double m_eps;
    std::vector<std::int64_t> m_scale, m_bias, m_normStrides;
};

Expected<KernelPtr> makeLayerNorm(const Graph &g, const Node &n)
{
    for (std::size_t i = 0; i < 3; ++i)
        TS_TRY(expectType(g, n, i, {DType::Float32}));
    for (std::size_t i = 1; i < n.outputs.size(); ++i)
        if (n.outputs[i] != kInvalidId && outTensor(g, n, i).dtype != DType::Float32)
            return unsupported(n, "statistics outputs must be float32 (stash_type 1)");
    const Shape &x = inTensor(g, n, 0).shape;
    auto axis = normAxis(n, n.attrInt("axis", -1), static_cast<std::int64_t>(x.size()), 1);
    if (!axis)
        return axis.status();
    const auto a = static_cast<std::size_t>(*axis);
    return KernelPtr(std::make_unique<LayerNormKernel>(RowView(x, a, x.size()), n.attrFloat("epsilon", 1e-5),
                                                       &inTensor(g, n, 1).shape,
                                                       hasInput(n, 2) ? &inTensor(g, n, 2).shape : nullptr));
}

// --- InstanceNormalization ---------------------------------------------------------

// X [N, C, D...] as rows [N·C, L = ΠD]: row o is channel o % C.
class InstanceNormKernel final : public NodeKernel
{
public:
    InstanceNormKernel(RowView v, double eps) : m_v(std::move(v)), m_eps(eps) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>(), *scale = a.in[1].as<float>(), *bias = a.in[2].as<float>();
        const std::int64_t L = m_v.L, C = m_v.shape[1];
        const std::vector<std::int64_t> rowOff = m_v.row(r);
        for (std::int64_t o : m_v.outer(r)) {
            const float *xr = x + o * L;
            const auto [mean, sd] = rowMoments(xr, L, m_eps);
            const std::int64_t c = o % C;
            float *yr = a.out[0].as<float>() + o * L;
            for (std::int64_t j : rowOff)
                yr[j] = static_cast<float>((xr[j] - mean) / sd * scale[c] + bias[c]);
        }
        return Status::ok();
    }

private:
    RowView m_v;
    double m_eps;
};

Expected<KernelPtr> makeInstanceNorm(const Graph &g, const Node &n)
{
    for (std::size_t i = 0; i < 3; ++i)
        TS_TRY(expectType(g, n, i, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape;
    return KernelPtr(std::make_unique<InstanceNormKernel>(RowView(x, 2, x.size()), n.attrFloat("epsilon", 1e-5)));
}

// --- Softmax -----------------------------------------------------------------------

class SoftmaxKernel final : public NodeKernel
{
public:
    enum class Mode { Softmax, LogSoftmax, Hardmax };
    SoftmaxKernel(RowView v, Mode mode) : m_v(std::move(v)), m_mode(mode) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        const std::int64_t L = m_v.L, I = m_v.inner;
        const auto rows = m_v.row(r), inners = m_v.inners(r);
        for (std::int64_t o : m_v.outer(r))
            for (std::int64_t i : inners) {
                const float *xr = x + o * L * I + i;
                float mx = -std::numeric_limits<float>::infinity();
                std::int64_t arg = 0; // Hardmax: the first maximum
                for (std::int64_t j = 0; j < L; ++j)
                    if (xr[j * I] > mx || j == 0) {
                        mx = xr[j * I];
                        arg = j;
                    }
                float *yr = y + o * L * I + i;
                if (m_mode == Mode::Hardmax) {
                    for (std::int64_t j : rows)
                        yr[j * I] = j == arg ? 1.0f : 0.0f;
                    continue;
                }
                double sum = 0;
                for (std::int64_t j = 0; j < L; ++j)
                    sum += std::exp(xr[j * I] - mx);
                if (m_mode == Mode::LogSoftmax) {
                    const double logSum = std::log(sum);
                    for (std::int64_t j : rows)
                        yr[j * I] = static_cast<float>(static_cast<double>(xr[j * I] - mx) - logSum);
                    continue;
                }
                const auto s = static_cast<float>(sum);
                for (std::int64_t j : rows)
                    yr[j * I] = std::exp(xr[j * I] - mx) / s;
            }
        return Status::ok();
    }

private:
    RowView m_v;
    Mode m_mode;
};

Expected<KernelPtr> makeSoftmax(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape;
    const auto rank = static_cast<std::int64_t>(x.size());
    const bool coerce2d = g.opsetVersion < 13;
    auto axis = normAxis(n, n.attrInt("axis", coerce2d ? 1 : -1), rank);
    if (!axis)
        return axis.status();
    const auto a = static_cast<std::size_t>(*axis);
    const auto mode = n.opType == "LogSoftmax" ? SoftmaxKernel::Mode::LogSoftmax
                      : n.opType == "Hardmax"  ? SoftmaxKernel::Mode::Hardmax
                                               : SoftmaxKernel::Mode::Softmax;
    return KernelPtr(std::make_unique<SoftmaxKernel>(RowView(x, a, coerce2d ? x.size() : a + 1), mode));
}

// --- LRN, MeanVarianceNormalization ----------------------------------------------------

class LRNKernel final : public NodeKernel
{
public:
    LRNKernel(const Shape &x, std::int64_t size, double alpha, double beta, double bias)
        : m_strides(stridesOf(x)), m_channels(x[1]), m_size(size), m_alpha(alpha), m_beta(beta), m_bias(bias)
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        const std::int64_t before = (m_size - 1) / 2, after = m_size - 1 - before, cs = m_strides[1];
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t off = dot(idx, m_strides), c = idx[1];
            double sum = 0;
            for (std::int64_t k = std::max<std::int64_t>(0, c - before); k <= std::min(m_channels - 1, c + after);
                 ++k) {
                const double v = x[off + (k - c) * cs];
                sum += v * v;
            }
            y[off] =
                static_cast<float>(x[off] / std::pow(m_bias + m_alpha / static_cast<double>(m_size) * sum, m_beta));
        });
        return Status::ok();
    }

private:
    std::vector<std::int64_t> m_strides;
    std::int64_t m_channels, m_size;
    double m_alpha, m_beta, m_bias;
};

Expected<KernelPtr> makeLRN(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    return KernelPtr(std::make_unique<LRNKernel>(inTensor(g, n, 0).shape, n.attrInt("size", 1),
                                                 n.attrFloat("alpha", 1e-4), n.attrFloat("beta", 0.75),
                                                 n.attrFloat("bias", 1.0)));
}

class MVNKernel final : public NodeKernel
{
public:
    MVNKernel(const Shape &x, const std::vector<bool> &reduced) : m_strides(stridesOf(x))
    {
        ops::Region box;
        for (std::size_t d = 0; d < x.size(); ++d) {
            box.push_back(reduced[d] ? ops::Interval{0, x[d]} : ops::Interval{0, 1});
            m_keep.push_back(reduced[d] ? 0 : m_strides[d]);
        }
        forEachIndex(box, [&](std::span<const std::int64_t> i) { m_box.push_back(dot(i, m_strides)); });
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        const double count = static_cast<double>(m_box.size());
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t base = dot(idx, m_keep);
            double sum = 0, sq = 0;
            for (std::int64_t o : m_box) {
                const double v = x[base + o];
                sum += v;
                sq += v * v;
            }
            const double mean = sum / count, var = sq / count - mean * mean;
            const std::int64_t off = dot(idx, m_strides);
            y[off] = static_cast<float>((x[off] - mean) / (std::sqrt(std::max(var, 0.0)) + 1e-9));
        });
        return Status::ok();
    }

private:
    std::vector<std::int64_t> m_strides, m_keep, m_box;
};

Expected<KernelPtr> makeMVN(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape;
    std::vector<bool> reduced(x.size(), false);
    for (std::int64_t a : n.attrInts("axes", {0, 2, 3})) {
        auto d = normAxis(n, a, static_cast<std::int64_t>(x.size()));
        if (!d)
            return d.status();
        reduced[static_cast<std::size_t>(*d)] = true;
    }
    return KernelPtr(std::make_unique<MVNKernel>(x, reduced));
}

constexpr KernelEntry kKernels[] = {
    {"BatchNormalization", makeBatchNorm},
    {"Hardmax", makeSoftmax},
    {"InstanceNormalization", makeInstanceNorm},
    {"LayerNormalization", makeLayerNorm},
    {"LogSoftmax", makeSoftmax},
    {"Softmax", makeSoftmax},
    {"LRN", makeLRN},
    {"MeanVarianceNormalization", makeMVN},
};

} // namespace

std::span<const KernelEntry> normKernels()
{
    return kKernels;
}

} // namespace tessera::reference
