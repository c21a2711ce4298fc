// Kernels for DFT, STFT and MelWeightMatrix (semantics and geometry in
// core/ops/spectral.h, shared with core/ops). Each output element is computed
// on its own — the transforms by direct summation in double with the angle
// 2π·(jk mod L)/L, the filter bank from ops::melWeights — and rounded once
// into the output type, so every tiling gives the same bits. Float inputs of
// any width are read through loadNumber.
#include "core/ops/spectral.h"

#include "backends/reference/kernel.h"

#include <array>
#include <cmath>
#include <functional>
#include <numbers>

namespace tessera::reference {

namespace {

using ElementFn = std::function<double(const KernelArgs &, std::span<const std::int64_t> idx)>;

class SpectralKernel final : public NodeKernel
{
public:
    SpectralKernel(DType out, const Shape &shape, ElementFn f) : m_out(out), m_y(stridesOf(shape)), m_f(std::move(f)) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            storeNumber(m_out, a.out[0].data, dot(idx, m_y), m_f(a, idx));
        });
        return Status::ok();
    }

private:
    DType m_out;
    std::vector<std::int64_t> m_y;
    ElementFn m_f;
};

// e^{sign·2πi·jk/L} with jk reduced modulo L, so large indices keep their precision.
inline std::pair<double, double> twiddle(std::int64_t j, std::int64_t k, std::int64_t length, double sign)
{
    const double angle =
        sign * 2 * std::numbers::pi * static_cast<double>((j * k) % length) / static_cast<double>(length);
    return {std::cos(angle), std::sin(angle)};
}

Expected<KernelPtr> makeDft(const Graph &g, const Node &n)
{
    auto spec = ops::dftSpec(g, n);
    if (!spec)
        return spec.status();
    const ops::DftSpec s = *spec;
    const Tensor &x = inTensor(g, n, 0);
    const Tensor &y = outTensor(g, n, 0);
    const auto st = stridesOf(x.shape);
    const auto ax = static_cast<std::size_t>(s.axis);
    const std::int64_t used = std::min(s.length, x.shape[ax]); // zero padding past the input
    const DType xt = x.dtype;
    const double sign = s.inverse ? 1.0 : -1.0, scale = s.inverse ? 1.0 / static_cast<double>(s.length) : 1.0;
    return KernelPtr(
        std::make_unique<SpectralKernel>(y.dtype, y.shape, [=](const KernelArgs &a, std::span<const std::int64_t> idx) {
            std::int64_t base = 0;
            for (std::size_t d = 0; d + 1 < idx.size(); ++d)
                if (d != ax)
                    base += idx[d] * st[d];
            const std::int64_t k = idx[ax];
            double re = 0, im = 0;
            for (std::int64_t j = 0; j < used; ++j) {
                const std::int64_t at = base + j * st[ax];
                const double xr = loadNumber(xt, a.in[0].data, at);
                const double xi = s.complexInput ? loadNumber(xt, a.in[0].data, at + 1) : 0.0;
                const auto [c, sn] = twiddle(j, k, s.length, sign);
                re += xr * c - xi * sn;
                im += xr * sn + xi * c;
            }
            return (idx.back() == 0 ? re : im) * scale;
        }));
}

Expected<KernelPtr> makeStft(const Graph &g, const Node &n)
{
    auto spec = ops::stftSpec(g, n);
    if (!spec)
        return spec.status();
    const ops::StftSpec s = *spec;
    const Tensor &x = inTensor(g, n, 0);
    const Tensor &y = outTensor(g, n, 0);
    const auto st = stridesOf(x.shape);
    const DType xt = x.dtype, wt = s.window ? inTensor(g, n, 2).dtype : DType::Float32;
    return KernelPtr(
        std::make_unique<SpectralKernel>(y.dtype, y.shape, [=](const KernelArgs &a, std::span<const std::int64_t> idx) {
            const std::int64_t b = idx[0], f = idx[1], k = idx[2];
            double re = 0, im = 0;
            for (std::int64_t j = 0; j < s.length; ++j) {
                const std::int64_t at = b * st[0] + (f * s.step + j) * st[1];
                const double w = s.window ? loadNumber(wt, a.in[2].data, j) : 1.0;
                const double xr = w * loadNumber(xt, a.in[0].data, at);
                const double xi = s.complexInput ? w * loadNumber(xt, a.in[0].data, at + 1) : 0.0;
                const auto [c, sn] = twiddle(j, k, s.length, -1.0);
                re += xr * c - xi * sn;
                im += xr * sn + xi * c;
            }
            return idx[3] == 0 ? re : im;
        }));
}

// The filter bank is built once per compute() from the run-time scalars
// (sample rate, edges), then the region's elements are copied out of it.
class MelKernel final : public NodeKernel
{
public:
    MelKernel(DType out, Shape shape, std::int64_t dftLength, std::array<DType, 3> in)
        : m_out(out), m_shape(std::move(shape)), m_dftLength(dftLength), m_in(in)
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const std::int64_t mels = m_shape[1];
        const auto w = ops::melWeights(mels, m_dftLength, loadNumber(m_in[0], a.in[2].data, 0),
                                       loadNumber(m_in[1], a.in[3].data, 0), loadNumber(m_in[2], a.in[4].data, 0));
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t at = idx[0] * mels + idx[1];
            storeNumber(m_out, a.out[0].data, at, w[static_cast<std::size_t>(at)]);
        });
        return Status::ok();
    }

private:
    DType m_out;
    Shape m_shape;
    std::int64_t m_dftLength;
    std::array<DType, 3> m_in; // sample_rate, lower_edge_hertz, upper_edge_hertz
};

Expected<KernelPtr> makeMelWeightMatrix(const Graph &g, const Node &n)
{
    const Tensor &y = outTensor(g, n, 0);
    auto len = constInts(g, n, 1);
    if (!len)
        return len.status();
    return KernelPtr(std::make_unique<MelKernel>(
        y.dtype, y.shape, (*len)[0],
        std::array<DType, 3>{inTensor(g, n, 2).dtype, inTensor(g, n, 3).dtype, inTensor(g, n, 4).dtype}));
}

constexpr KernelEntry kKernels[] = {
    {"DFT", makeDft},
    {"MelWeightMatrix", makeMelWeightMatrix},
    {"STFT", makeStft},
};

} // namespace

std::span<const KernelEntry> spectralKernels()
{
    return kKernels;
}

} // namespace tessera::reference
