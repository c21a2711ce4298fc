// Pooling on float32 (MaxPool also on float64, int8 and uint8, ONNX
// MaxPool-12's types, compared exactly in double): MaxPool (with the optional
// int64 Indices output, row- or column-major storage order), AveragePool (ceil_mode through the graph's
// output extents, count_include_pad), GlobalAveragePool and GlobalMaxPool;
// 1-D/2-D/3-D.
//
// Windows are canonical 3-D as in conv.cpp. Taps that fall into the padding
// are skipped. AveragePool divides by the taps inside the input, or with
// count_include_pad by the taps inside the padded input [-padBegin,
// in + padEnd) — a ceil_mode window hanging past the end padding does not
// count its overhang, as onnxruntime does. MaxPool's index is the flat
// position in X (batch and channel included) of the first maximum.
// Global pools accumulate in double and round once.
// MaxUnpool (any numeric type): a tile zero-fills its elements, then walks X
// and I in order and copies each element whose flat position I names lies
// in the tile (a position of the default output shape, placed at the same
// coordinates of an output_shape Y); a position outside Y is a run-time
// error naming the node.
#include "backends/reference/kernel.h"

#include <array>
#include <cstring>
#include <limits>

namespace tessera::reference {

namespace {

constexpr std::size_t kAxes = 3;

class PoolKernel final : public NodeKernel
{
public:
    PoolKernel(bool max, bool includePad, bool columnMajor, std::int64_t channels, const std::vector<Window> &ws,
               DType type)
        : m_max(max), m_includePad(includePad), m_columnMajor(columnMajor), m_channels(channels), m_rank(ws.size()),
          m_type(type)
    {
        for (std::size_t i = 0; i < kAxes; ++i)
            m_w[i] = i < kAxes - ws.size() ? Window{.in = 1, .out = 1} : ws[i - (kAxes - ws.size())];
    }

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        std::array<ops::Interval, kAxes> s{ops::Interval{0, 1}, ops::Interval{0, 1}, ops::Interval{0, 1}};
        for (std::size_t i = 0; i < m_rank; ++i)
            s[kAxes - m_rank + i] = r[2 + i];
        const Window &wd = m_w[0], &wh = m_w[1], &ww = m_w[2];
        const std::int64_t inPlane = wd.in * wh.in * ww.in, outPlane = wd.out * wh.out * ww.out;
        const float *x = a.in[0].as<float>();
        const bool f32 = m_type == DType::Float32;
        for (std::int64_t n = r[0].begin; n < r[0].end; ++n)
            for (std::int64_t c = r[1].begin; c < r[1].end; ++c) {
                const std::int64_t plane = n * m_channels + c;
                const float *xp = x + plane * inPlane;
                auto load = [&](std::int64_t off) {
                    return f32 ? static_cast<double>(xp[off]) : loadNumber(m_type, a.in[0].data, plane * inPlane + off);
                };
                for (std::int64_t od = s[0].begin; od < s[0].end; ++od)
                    for (std::int64_t oh = s[1].begin; oh < s[1].end; ++oh)
                        for (std::int64_t ow = s[2].begin; ow < s[2].end; ++ow) {
                            const std::int64_t o = plane * outPlane + (od * wh.out + oh) * ww.out + ow;
                            double best = -std::numeric_limits<double>::infinity();
                            float sum = 0;
                            std::int64_t arg = -1, inside = 0, padded = 0;
                            for (std::int64_t kd = 0; kd < wd.taps; ++kd) {
                                const std::int64_t id = od * wd.stride + kd * wd.dilation - wd.padBegin;
                                for (std::int64_t kh = 0; kh < wh.taps; ++kh) {
                                    const std::int64_t ih = oh * wh.stride + kh * wh.dilation - wh.padBegin;
                                    for (std::int64_t kw = 0; kw < ww.taps; ++kw) {
                                        const std::int64_t iw = ow * ww.stride + kw * ww.dilation - ww.padBegin;
                                        if (within(wd, id, true) && within(wh, ih, true) && within(ww, iw, true))
                                            ++padded;
                                        if (!within(wd, id, false) || !within(wh, ih, false) || !within(ww, iw, false))
                                            continue;
                                        const std::int64_t off = (id * wh.in + ih) * ww.in + iw;
                                        const double v = load(off);
                                        ++inside;
                                        sum += static_cast<float>(v);
                                        if (v > best || arg < 0) {
                                            best = v;
                                            arg = plane * inPlane +
                                                  (m_columnMajor ? (iw * wh.in + ih) * wd.in + id : off);
                                        }
                                    }
                                }
                            }
                            if (output == 1)
                                a.out[1].as<std::int64_t>()[o] = arg;
                            else if (m_max && f32)
                                a.out[0].as<float>()[o] = static_cast<float>(best);
                            else if (m_max)
                                storeNumber(m_type, a.out[0].data, o, best);
                            else
                                a.out[0].as<float>()[o] =
                                    sum / static_cast<float>(m_includePad ? padded : std::max<std::int64_t>(inside, 1));
                        }
            }
        return Status::ok();
    }

private:
    // Position i of an axis inside the input (or, with `padded`, the padded input).
    static bool within(const Window &w, std::int64_t i, bool padded)
    {
        return padded ? i >= -w.padBegin && i < w.in + w.padEnd : i >= 0 && i < w.in;
    }

    bool m_max, m_includePad, m_columnMajor;
    std::int64_t m_channels;
    std::size_t m_rank;
    DType m_type; // MaxPool: any of its types; AveragePool: float32
    std::array<Window, kAxes> m_w;
};

Expected<KernelPtr> makePool(const Graph &g, const Node &n)
{
    const bool max = n.opType == "MaxPool";
    if (max)
        TS_TRY(expectType(g, n, 0, {DType::Float32, DType::Float64, DType::Int8, DType::UInt8}));
    else
        TS_TRY(expectType(g, n, 0, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape, &y = outTensor(g, n, 0).shape;
    if (x.size() < 3 || x.size() > 2 + kAxes)
        return unsupported(n, "only 1-D, 2-D and 3-D pooling is supported, input has rank " + std::to_string(x.size()));
    const Shape kernel = n.attrInts("kernel_shape");
    if (kernel.size() != x.size() - 2)
        return Status::invalid("pool: kernel_shape does not match the input rank", {.node = n.name});
    auto ws = forwardWindows(n, Shape(x.begin() + 2, x.end()), Shape(y.begin() + 2, y.end()), kernel);
    if (!ws)
        return ws.status();
    return KernelPtr(std::make_unique<PoolKernel>(max, n.attrInt("count_include_pad", 0) != 0,
                                                  n.attrInt("storage_order", 0) != 0, x[1], *ws,
                                                  inTensor(g, n, 0).dtype));
}

class GlobalPoolKernel final : public NodeKernel
{
public:
    GlobalPoolKernel(bool max, const Shape &x) : m_max(max), m_channels(x[1])
    {
        m_plane = 1;
        for (std::size_t d = 2; d < x.size(); ++d)
            m_plane *= x[d];
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const float *x = a.in[0].as<float>();
        float *y = a.out[0].as<float>();
        for (std::int64_t n = r[0].begin; n < r[0].end; ++n)
            for (std::int64_t c = r[1].begin; c < r[1].end; ++c) {
                const float *xp = x + (n * m_channels + c) * m_plane;
                if (m_max) {
                    float best = -std::numeric_limits<float>::infinity();
                    for (std::int64_t i = 0; i < m_plane; ++i)
                        best = xp[i] > best ? xp[i] : best;
                    y[n * m_channels + c] = best;
                } else {
                    double sum = 0;
                    for (std::int64_t i = 0; i < m_plane; ++i)
                        sum += xp[i];
                    y[n * m_channels + c] = static_cast<float>(sum / static_cast<double>(m_plane));
                }
            }
        return Status::ok();
    }

private:
    bool m_max;
    std::int64_t m_channels, m_plane;
};

Expected<KernelPtr> makeGlobalPool(const Graph &g, const Node &n)
{
    TS_TRY(expectType(g, n, 0, {DType::Float32}));
    const Shape &x = inTensor(g, n, 0).shape;
    if (x.size() < 2)
        return Status::invalid("globalpool: input must have rank >= 2", {.node = n.name});
    return KernelPtr(std::make_unique<GlobalPoolKernel>(n.opType == "GlobalMaxPool", x));
}

class UnpoolKernel final : public NodeKernel
{
public:
    UnpoolKernel(std::string name, const Shape &x, const Shape &y, Shape base, DType type)
        : m_name(std::move(name)), m_count(numElements(x).value_or(0)), m_y(y), m_base(std::move(base)),
          m_size(dtypeSize(type))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const auto ys = stridesOf(m_y), bs = stridesOf(m_base);
        const std::int64_t total = numElements(m_base).value_or(0), sz = static_cast<std::int64_t>(m_size);
        forEachOffset(r, ys, 0, [&](std::int64_t off) { std::memset(a.out[0].data + off * sz, 0, m_size); });
        const auto *idx = a.in[1].as<std::int64_t>();
        for (std::int64_t i = 0; i < m_count; ++i) {
            const std::int64_t to = idx[i];
            if (to < 0 || to >= total)
                return Status::invalid("maxunpool: index " + std::to_string(to) + " is outside the output's " +
                                           std::to_string(total) + " elements",
                                       {.node = m_name});
            bool inside = true;
            std::int64_t off = 0;
            for (std::size_t d = 0; d < m_y.size(); ++d) {
                const std::int64_t p = to / bs[d] % m_base[d];
                if (p >= m_y[d])
                    return Status::invalid("maxunpool: index " + std::to_string(to) + " lies outside the output",
                                           {.node = m_name});
                inside = inside && p >= r[d].begin && p < r[d].end;
                off += p * ys[d];
            }
            if (inside)
                std::memcpy(a.out[0].data + off * sz, a.in[0].data + i * sz, m_size);
        }
        return Status::ok();
    }

private:
    std::string m_name;
    std::int64_t m_count;
    Shape m_y, m_base; // the output, and the default shape I's flat positions refer to
    std::size_t m_size;
};

Expected<KernelPtr> makeUnpool(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    if (!isNumeric(x.dtype))
        return unsupported(n, "element type " + std::string(dtypeName(x.dtype)) + " is not supported");
    TS_TRY(expectType(g, n, 1, {DType::Int64}));
    const Shape &y = outTensor(g, n, 0).shape;
    Shape base = y; // the default shape from kernel_shape, strides and pads
    const std::size_t k = x.shape.size() - 2;
    const auto kernel = n.attrInts("kernel_shape");
    const auto strides = n.attrInts("strides", std::vector<std::int64_t>(k, 1));
    const auto pads = n.attrInts("pads", std::vector<std::int64_t>(2 * k, 0));
    if (kernel.size() == k && strides.size() == k && pads.size() == 2 * k)
        for (std::size_t i = 0; i < k; ++i)
            base[2 + i] = (x.shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[k + i];
    return KernelPtr(std::make_unique<UnpoolKernel>(n.name, x.shape, y, std::move(base), x.dtype));
}

constexpr KernelEntry kKernels[] = {
    {"AveragePool", makePool},         {"GlobalAveragePool", makeGlobalPool},
    {"GlobalMaxPool", makeGlobalPool}, {"MaxPool", makePool},
    {"MaxUnpool", makeUnpool},
};

} // namespace

std::span<const KernelEntry> poolKernels()
{
    return kKernels;
}

} // namespace tessera::reference
