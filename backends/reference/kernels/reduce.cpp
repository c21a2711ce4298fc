// Reductions of core/ops/reduce.cpp: ReduceMean, ReduceSum, ReduceMax,
// ReduceMin, ReduceProd, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp,
// ReduceSumSquare (ONNX -13/-18, axes from the constant `axes` input or the
// attribute, keepdims, noop_with_empty_axes) and ArgMax/ArgMin (axis,
// keepdims, select_last_index) on every numeric element type.
//
// Each output element combines its reduced box in row-major order in double
// and rounds once into the output type (ReduceMean divides by the box's
// element count first; ReduceLogSumExp subtracts the box's maximum before
// exponentiating, as numerically stable implementations do). Max/Min
// propagate NaN. ArgMax/ArgMin return the position along the axis of the
// first extreme element, or the last with select_last_index=1.
//
// TopK: each output element ranks its line along the axis (a stable sort of
// the positions by value, descending for largest=1, ascending otherwise, so
// equal values keep their index order) and takes the entry at its own
// position; Values copies that element, Indices stores its position.
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tessera::reference {

namespace {

enum class Kind { Sum, Mean, Max, Min, Prod, L1, L2, LogSum, LogSumExp, SumSquare, ArgMax, ArgMin };

struct KindName {
    std::string_view op;
    Kind kind;
};
constexpr KindName kKinds[] = {
    {"ReduceSum", Kind::Sum},
    {"ReduceMean", Kind::Mean},
    {"ReduceMax", Kind::Max},
    {"ReduceMin", Kind::Min},
    {"ReduceProd", Kind::Prod},
    {"ReduceL1", Kind::L1},
    {"ReduceL2", Kind::L2},
    {"ReduceLogSum", Kind::LogSum},
    {"ReduceLogSumExp", Kind::LogSumExp},
    {"ReduceSumSquare", Kind::SumSquare},
    {"ArgMax", Kind::ArgMax},
    {"ArgMin", Kind::ArgMin},
};

class ReduceKernel final : public NodeKernel
{
public:
    ReduceKernel(const Shape &x, const std::vector<bool> &reduced, bool keepdims, Kind kind, bool last, DType in,
                 DType out)
        : m_kind(kind), m_last(last), m_in(in), m_out(out)
    {
        const auto st = stridesOf(x);
        ops::Region box;
        for (std::size_t d = 0; d < x.size(); ++d) {
            if (reduced[d]) {
                box.push_back({0, x[d]});
                if (keepdims)
                    m_outToIn.push_back(0); // a kept extent-1 dim
            } else {
                box.push_back({0, 1});
                m_outToIn.push_back(st[d]);
            }
        }
        forEachIndex(box, [&](std::span<const std::int64_t> idx) { m_offsets.push_back(dot(idx, st)); });
    }

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const auto yStrides = stridesOf(*a.out[0].shape);
        const std::uint8_t *x = a.in[0].data;
        const bool f32 = m_in == DType::Float32;
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            const std::int64_t base = dot(idx, m_outToIn);
            auto load = [&](std::int64_t off) {
                return f32 ? static_cast<double>(reinterpret_cast<const float *>(x)[base + off])
                           : loadNumber(m_in, x, base + off);
            };
            storeNumber(m_out, a.out[0].data, dot(idx, yStrides), combine(load));
        });
        return Status::ok();
    }

private:
    template <typename Load> double combine(Load &&load) const
    {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        const double count = static_cast<double>(m_offsets.size());
        if (m_kind == Kind::ArgMax || m_kind == Kind::ArgMin) {
            std::int64_t best = 0;
            double bv = m_offsets.empty() ? 0 : load(m_offsets[0]);
            for (std::size_t k = 1; k < m_offsets.size(); ++k) {
                const double v = load(m_offsets[k]);
                const bool better = m_kind == Kind::ArgMax ? (m_last ? v >= bv : v > bv) : (m_last ? v <= bv : v < bv);
                if (better) {
                    bv = v;
                    best = static_cast<std::int64_t>(k);
                }
            }
            return static_cast<double>(best);
        }
        double acc = 0;
        switch (m_kind) {
        case Kind::Max:
        case Kind::Min: {
            acc = m_kind == Kind::Max ? -std::numeric_limits<double>::infinity()
                                      : std::numeric_limits<double>::infinity();
            for (std::int64_t off : m_offsets) {
                const double v = load(off);
                if (std::isnan(v))
                    return nan;
                acc = m_kind == Kind::Max ? std::max(acc, v) : std::min(acc, v);
            }
            return acc;
        }
        case Kind::Prod:
            acc = 1;
            for (std::int64_t off : m_offsets)
                acc *= load(off);
            return acc;
        case Kind::LogSumExp: {
            double m = -std::numeric_limits<double>::infinity();
            for (std::int64_t off : m_offsets)
                m = std::max(m, load(off));
            if (!std::isfinite(m))
                m = 0;
            for (std::int64_t off : m_offsets)
                acc += std::exp(load(off) - m);
            return std::log(acc) + m;
        }
        default: break;
        }
        for (std::int64_t off : m_offsets) {
            const double v = load(off);
            acc += m_kind == Kind::L1 ? std::abs(v) : m_kind == Kind::L2 || m_kind == Kind::SumSquare ? v * v : v;
        }
        switch (m_kind) {
        case Kind::Mean: return acc / count;
        case Kind::L2: return std::sqrt(acc);
        case Kind::LogSum: return std::log(acc);
        default: return acc;
        }
    }

    Kind m_kind;
    bool m_last;
    DType m_in, m_out;
    std::vector<std::int64_t> m_outToIn; // input stride of every output dim
    std::vector<std::int64_t> m_offsets; // the reduced box, relative to its first element
};

Expected<KernelPtr> makeReduce(const Graph &g, const Node &n)
{
    const Tensor &in = inTensor(g, n, 0);
    if (!isNumeric(in.dtype))
        return unsupported(n, "element type " + std::string(dtypeName(in.dtype)) + " is not supported");
    Kind kind = Kind::Sum;
    for (const KindName &k : kKinds)
        if (k.op == n.opType)
            kind = k.kind;
    const Shape &x = in.shape;
    const bool arg = kind == Kind::ArgMax || kind == Kind::ArgMin;
    std::vector<std::int64_t> axes = arg ? std::vector<std::int64_t>{n.attrInt("axis", 0)} : n.attrInts("axes");
    if (!arg && hasInput(n, 1)) {
        auto v = constInts(g, n, 1);
        if (!v)
            return v.status();
        axes = std::move(*v);
    }
    const bool noop = n.attrInt("noop_with_empty_axes", 0) != 0;
    std::vector<bool> reduced(x.size(), axes.empty() && !noop);
    for (std::int64_t a : axes) {
        auto d = normAxis(n, a, static_cast<std::int64_t>(x.size()));
        if (!d)
            return d.status();
        reduced[static_cast<std::size_t>(*d)] = true;
    }
    return KernelPtr(std::make_unique<ReduceKernel>(x, reduced, n.attrInt("keepdims", 1) != 0, kind,
                                                    n.attrInt("select_last_index", 0) != 0, in.dtype,
                                                    outTensor(g, n, 0).dtype));
}

class TopKKernel final : public NodeKernel
{
public:
    TopKKernel(const Shape &x, std::size_t axis, bool largest, DType type)
        : m_strides(stridesOf(x)), m_axis(axis), m_extent(x[axis]), m_largest(largest), m_type(type)
    {}

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const auto yStrides = stridesOf(*a.out[static_cast<std::size_t>(output)].shape);
        std::vector<std::int64_t> order(static_cast<std::size_t>(m_extent));
        std::vector<double> line(static_cast<std::size_t>(m_extent));
        // One ranking per line of the tile: rows of the tile along the axis share it.
        ops::Region lines = r;
        if (!lines[m_axis].empty())
            lines[m_axis] = {0, 1};
        forEachIndex(lines, [&](std::span<const std::int64_t> idx) {
            const std::int64_t base = dot(idx, m_strides) - idx[m_axis] * m_strides[m_axis];
            for (std::int64_t j = 0; j < m_extent; ++j)
                line[static_cast<std::size_t>(j)] = loadNumber(m_type, a.in[0].data, base + j * m_strides[m_axis]);
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::int64_t p, std::int64_t q) {
                const double u = line[static_cast<std::size_t>(p)], v = line[static_cast<std::size_t>(q)];
                return m_largest ? u > v : u < v;
            });
            std::vector<std::int64_t> y(idx.begin(), idx.end());
            for (std::int64_t k = r[m_axis].begin; k < r[m_axis].end; ++k) {
                y[m_axis] = k;
                const std::int64_t pos = order[static_cast<std::size_t>(k)], off = dot(y, yStrides);
                if (output == 0)
                    storeNumber(m_type, a.out[0].data, off, line[static_cast<std::size_t>(pos)]);
                else
                    storeNumber(DType::Int64, a.out[1].data, off, static_cast<double>(pos));
            }
        });
        return Status::ok();
    }

private:
    std::vector<std::int64_t> m_strides;
    std::size_t m_axis;
    std::int64_t m_extent;
    bool m_largest;
    DType m_type;
};

Expected<KernelPtr> makeTopK(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    if (!isNumeric(x.dtype) || x.dtype == DType::Int64)
        return unsupported(n, "element type " + std::string(dtypeName(x.dtype)) + " is not supported");
    auto axis = normAxis(n, n.attrInt("axis", -1), static_cast<std::int64_t>(x.shape.size()));
    if (!axis)
        return axis.status();
    return KernelPtr(
        std::make_unique<TopKKernel>(x.shape, static_cast<std::size_t>(*axis), n.attrInt("largest", 1) != 0, x.dtype));
}

constexpr KernelEntry kKernels[] = {
    {"ArgMax", makeReduce},     {"ArgMin", makeReduce},       {"ReduceL1", makeReduce},
    {"ReduceL2", makeReduce},   {"ReduceLogSum", makeReduce}, {"ReduceLogSumExp", makeReduce},
    {"ReduceMax", makeReduce},  {"ReduceMean", makeReduce},   {"ReduceMin", makeReduce},
    {"ReduceProd", makeReduce}, {"ReduceSum", makeReduce},    {"ReduceSumSquare", makeReduce},
    {"TopK", makeTopK},
};

} // namespace

std::span<const KernelEntry> reduceKernels()
{
    return kKernels;
}

} // namespace tessera::reference
