// Data movement on any element type (elements are moved as bytes): Concat,
// Split, Slice, Gather (int32/int64 indices read at run time, negative ones
// wrapped, out-of-range ones a run-time error), Pad (constant/edge/reflect),
// Transpose, and the row-major family Reshape, Flatten, Squeeze, Unsqueeze
// (output element f is input element f).
//
// Geometry follows core/ops/movement.cpp and shape_ops.cpp: Slice's starts
// and ends are clamped as ONNX says (steps may be negative), Pad's reflect
// mirrors repeatedly like numpy.pad. Every kernel walks the tile row by row
// and copies each row with one memcpy when it is contiguous in the source.
#include "backends/reference/kernel.h"
#include "core/ops/slice.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <numeric>

namespace tessera::reference {

namespace {

// n elements of `size` bytes from src (every `step`-th element) to dst (packed).
void copyRow(std::uint8_t *dst, const std::uint8_t *src, std::int64_t n, std::int64_t step, std::size_t size)
{
    if (step == 1) {
        std::memcpy(dst, src, static_cast<std::size_t>(n) * size);
        return;
    }
    auto typed = [&]<typename T>(T) {
        T *d = reinterpret_cast<T *>(dst);
        const T *s = reinterpret_cast<const T *>(src);
        for (std::int64_t i = 0; i < n; ++i)
            d[i] = s[i * step];
    };
    switch (size) {
    case 1: return typed(std::uint8_t{});
    case 2: return typed(std::uint16_t{});
    case 4: return typed(std::uint32_t{});
    case 8: return typed(std::uint64_t{});
    default:
        for (std::int64_t i = 0; i < n; ++i)
            std::memcpy(dst + static_cast<std::size_t>(i) * size, src + static_cast<std::size_t>(i * step) * size,
                        size);
    }
}

std::size_t elemSize(const Graph &g, const Node &n)
{
    return dtypeSize(inTensor(g, n, 0).dtype);
}

Status expectNumeric(const Graph &g, const Node &n)
{
    const DType t = inTensor(g, n, 0).dtype;
    return isNumeric(t) ? Status::ok()
                        : unsupported(n, "element type " + std::string(dtypeName(t)) + " is not supported");
}

// --- strided views: Concat, Split, Slice, Transpose ---------------------------------

// Output index o reads input element base + Σ o[d]·strides[d] of one source.
// Concat has one source per input, each covering its part of the axis; Split
// has one output per source; Slice and Transpose have one of each.
class StridedCopyKernel final : public NodeKernel
{
public:
    struct Source {
        int input = 0;
        ops::Interval along; // output positions along the axis this source covers
        std::int64_t base = 0;
        std::vector<std::int64_t> strides; // per output dim, in input elements
    };
    struct Output {
        Shape shape;
        std::vector<Source> sources;
    };

    StridedCopyKernel(std::vector<Output> outputs, std::size_t axis, std::size_t size)
        : m_outputs(std::move(outputs)), m_axis(axis), m_size(size)
    {}

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const Output &out = m_outputs[static_cast<std::size_t>(output)];
        const auto yStrides = stridesOf(out.shape);
        std::uint8_t *y = a.out[static_cast<std::size_t>(output)].data;
        for (const Source &s : out.sources) {
            ops::Region part = r;
            if (!r.empty())
                part[m_axis] = {std::max(r[m_axis].begin, s.along.begin), std::min(r[m_axis].end, s.along.end)};
            const std::uint8_t *x = a.in[static_cast<std::size_t>(s.input)].data;
            const std::int64_t step = part.empty() ? 0 : s.strides.back();
            const std::int64_t len = innerOf(part).size();
            forEachRow(part, [&](std::span<const std::int64_t> idx) {
                copyRow(y + static_cast<std::size_t>(dot(idx, yStrides)) * m_size,
                        x + static_cast<std::size_t>(s.base + dot(idx, s.strides)) * m_size, len, step, m_size);
            });
        }
        return Status::ok();
    }

private:
    std::vector<Output> m_outputs;
    std::size_t m_axis;
    std::size_t m_size;
};

constexpr ops::Interval kAll{std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()};

// One output read from input 0 through (base, strides).
Expected<KernelPtr> single(const Graph &g, const Node &n, std::int64_t base, std::vector<std::int64_t> strides)
{
    StridedCopyKernel::Output out{outTensor(g, n, 0).shape, {{0, kAll, base, std::move(strides)}}};
    return KernelPtr(std::make_unique<StridedCopyKernel>(std::vector{std::move(out)}, 0, elemSize(g, n)));
}

Expected<KernelPtr> makeConcat(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    const Shape &y = outTensor(g, n, 0).shape;
    auto axis = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(y.size()));
    if (!axis)
        return axis.status();
    const auto ax = static_cast<std::size_t>(*axis);
    std::vector<StridedCopyKernel::Source> sources;
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        if (!hasInput(n, i))
            return unsupported(n, "omitted inputs are not supported");
        const Shape &x = inTensor(g, n, i).shape;
        const auto st = stridesOf(x);
        sources.push_back({static_cast<int>(i), {offset, offset + x[ax]}, -offset * st[ax], st});
        offset += x[ax];
    }
    return KernelPtr(std::make_unique<StridedCopyKernel>(std::vector{StridedCopyKernel::Output{y, std::move(sources)}},
                                                         ax, elemSize(g, n)));
}

Expected<KernelPtr> makeSplit(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    const Shape &x = inTensor(g, n, 0).shape;
    auto axis = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.size()));
    if (!axis)
        return axis.status();
    const auto ax = static_cast<std::size_t>(*axis);
    const auto st = stridesOf(x);
    std::vector<StridedCopyKernel::Output> outs;
    std::int64_t offset = 0;
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
        if (n.outputs[k] == kInvalidId)
            return unsupported(n, "omitted outputs are not supported");
        const Shape &y = outTensor(g, n, k).shape;
        outs.push_back({y, {{0, kAll, offset * st[ax], st}}});
        offset += y[ax];
    }
    return KernelPtr(std::make_unique<StridedCopyKernel>(std::move(outs), ax, elemSize(g, n)));
}

Expected<KernelPtr> makeTranspose(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    const Shape &x = inTensor(g, n, 0).shape;
    std::vector<std::int64_t> perm = n.attrInts("perm");
    if (!n.attr("perm")) {
        perm.resize(x.size());
        std::iota(perm.rbegin(), perm.rend(), std::int64_t{0});
    }
    const auto st = stridesOf(x);
    std::vector<std::int64_t> strides(perm.size());
    for (std::size_t d = 0; d < perm.size(); ++d)
        strides[d] = st[static_cast<std::size_t>(perm[d])];
    return single(g, n, 0, std::move(strides));
}

// Slice geometry as core/ops/movement.cpp computes it: start and step per dim.
Expected<KernelPtr> makeSlice(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    const Shape &x = inTensor(g, n, 0).shape;
    std::vector<std::int64_t> starts, ends, axes, steps;
    if (n.inputs.size() > 1) {
        for (auto [i, v] : {std::pair{std::size_t{1}, &starts},
                            {std::size_t{2}, &ends},
                            {std::size_t{3}, &axes},
                            {std::size_t{4}, &steps}}) {
            if (!hasInput(n, i))
                continue;
            auto c = constInts(g, n, i);
            if (!c)
                return c.status();
            *v = std::move(*c);
        }
    } else {
        starts = n.attrInts("starts"), ends = n.attrInts("ends"), axes = n.attrInts("axes");
    }
    if (axes.empty()) {
        axes.resize(starts.size());
        std::iota(axes.begin(), axes.end(), std::int64_t{0});
    }
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        return Status::invalid("slice: starts, ends, axes and steps have different lengths", {.node = n.name});
    std::vector<std::int64_t> start(x.size(), 0), step(x.size(), 1);
    for (std::size_t i = 0; i < starts.size(); ++i) {
        auto ax = normAxis(n, axes[i], static_cast<std::int64_t>(x.size()));
        if (!ax)
            return ax.status();
        const auto d = static_cast<std::size_t>(*ax);
        const std::int64_t dim = x[d];
        if (steps[i] == 0)
            return Status::invalid("slice: step is 0", {.node = n.name});
        const ops::SliceAxis a = ops::sliceAxis(starts[i], ends[i], steps[i], dim);
        start[d] = a.start;
        step[d] = a.step;
    }
    const auto st = stridesOf(x);
    std::vector<std::int64_t> strides(x.size());
    std::int64_t base = 0;
    for (std::size_t d = 0; d < x.size(); ++d) {
        strides[d] = st[d] * step[d];
        base += start[d] * st[d];
    }
    return single(g, n, base, std::move(strides));
}

// --- row-major re-indexing: Reshape, Flatten, Squeeze, Unsqueeze ----------------------

class ReindexKernel final : public NodeKernel
{
public:
    ReindexKernel(Shape out, std::size_t size) : m_out(std::move(out)), m_size(size) {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        for (const Run &run : contiguousRuns(r, m_out))
            std::memcpy(a.out[0].data + static_cast<std::size_t>(run.offset) * m_size,
                        a.in[0].data + static_cast<std::size_t>(run.offset) * m_size,
                        static_cast<std::size_t>(run.length) * m_size);
        return Status::ok();
    }

private:
    Shape m_out;
    std::size_t m_size;
};

Expected<KernelPtr> makeReindex(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    return KernelPtr(std::make_unique<ReindexKernel>(outTensor(g, n, 0).shape, elemSize(g, n)));
}

// --- Gather -------------------------------------------------------------------------

class GatherKernel final : public NodeKernel
{
public:
    GatherKernel(const Shape &data, const Shape &indices, const Shape &out, std::size_t axis, std::size_t size,
                 DType indexType)
        : m_axis(axis), m_q(indices.size()), m_extent(data[axis]), m_size(size), m_indexType(indexType),
          m_dataStrides(stridesOf(data)), m_indexStrides(stridesOf(indices)), m_outStrides(stridesOf(out))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const std::size_t rank = r.size();
        const bool suffixLast = m_axis + m_q < rank; // the last output dim is a data dim after the axis
        const std::int64_t len = innerOf(r).size();
        Status status;
        forEachRow(r, [&](std::span<const std::int64_t> row) {
            if (!status.isOk())
                return;
            std::vector<std::int64_t> idx(row.begin(), row.end());
            const std::int64_t count = suffixLast ? 1 : len;
            for (std::int64_t k = 0; k < count; ++k) {
                if (!suffixLast && rank > 0)
                    idx.back() = row.back() + k;
                std::int64_t src = 0;
                auto index = indexAt(a.in[1], std::span<const std::int64_t>(idx).subspan(m_axis, m_q));
                if (!index) {
                    status = index.status();
                    return;
                }
                for (std::size_t d = 0; d < m_axis; ++d)
                    src += idx[d] * m_dataStrides[d];
                src += *index * m_dataStrides[m_axis];
                for (std::size_t d = m_axis + m_q; d < rank; ++d)
                    src += idx[d] * m_dataStrides[d - m_q + 1];
                const std::int64_t dst = dot(idx, m_outStrides);
                std::memcpy(a.out[0].data + static_cast<std::size_t>(dst) * m_size,
                            a.in[0].data + static_cast<std::size_t>(src) * m_size,
                            static_cast<std::size_t>(suffixLast ? len : 1) * m_size);
            }
        });
        return status;
    }

private:
    Expected<std::int64_t> indexAt(const InView &indices, std::span<const std::int64_t> pos) const
    {
        const std::int64_t flat = dot(pos, m_indexStrides);
        std::int64_t v =
            m_indexType == DType::Int64 ? indices.as<std::int64_t>()[flat] : indices.as<std::int32_t>()[flat];
        if (v < -m_extent || v >= m_extent)
            return Status::invalid("gather: index " + std::to_string(v) + " is out of range for an axis of extent " +
                                   std::to_string(m_extent));
        return v < 0 ? v + m_extent : v;
    }

    std::size_t m_axis, m_q;
    std::int64_t m_extent;
    std::size_t m_size;
    DType m_indexType;
    std::vector<std::int64_t> m_dataStrides, m_indexStrides, m_outStrides;
};

Expected<KernelPtr> makeGather(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    TS_TRY(expectType(g, n, 1, {DType::Int64, DType::Int32}));
    const Shape &x = inTensor(g, n, 0).shape;
    auto axis = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.size()));
    if (!axis)
        return axis.status();
    return KernelPtr(std::make_unique<GatherKernel>(x, inTensor(g, n, 1).shape, outTensor(g, n, 0).shape,
                                                    static_cast<std::size_t>(*axis), elemSize(g, n),
                                                    inTensor(g, n, 1).dtype));
}

// --- Pad ----------------------------------------------------------------------------

enum class PadMode : std::uint8_t { Constant, Reflect, Edge };

class PadKernel final : public NodeKernel
{
public:
    PadKernel(PadMode mode, Shape x, Shape y, std::vector<std::int64_t> begin, std::vector<std::uint8_t> value)
        : m_mode(mode), m_x(std::move(x)), m_y(std::move(y)), m_begin(std::move(begin)), m_value(std::move(value)),
          m_xStrides(stridesOf(m_x)), m_yStrides(stridesOf(m_y))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const std::size_t size = m_value.size();
        // A run-time constant_value input overrides the attribute.
        const std::uint8_t *value = a.in.size() > 2 && a.in[2].present() && m_mode == PadMode::Constant &&
                                            numElements(*a.in[2].shape).value_or(0) > 0
                                        ? a.in[2].data
                                        : m_value.data();
        forEachIndex(r, [&](std::span<const std::int64_t> idx) {
            std::int64_t src = 0;
            bool inside = true;
            for (std::size_t d = 0; d < idx.size(); ++d) {
                const std::int64_t i = source(idx[d] - m_begin[d], m_x[d]);
                inside = inside && i >= 0 && i < m_x[d];
                src += i * m_xStrides[d];
            }
            std::uint8_t *dst = a.out[0].data + static_cast<std::size_t>(dot(idx, m_yStrides)) * size;
            std::memcpy(dst, inside ? a.in[0].data + static_cast<std::size_t>(src) * size : value, size);
        });
        return Status::ok();
    }

private:
    std::int64_t source(std::int64_t i, std::int64_t n) const
    {
        if (i >= 0 && i < n)
            return i;
        switch (m_mode) {
        case PadMode::Constant: return -1;
        case PadMode::Edge: return std::clamp<std::int64_t>(i, 0, n - 1);
        case PadMode::Reflect: {
            if (n == 1)
                return 0;
            const std::int64_t period = 2 * (n - 1), m = ((i % period) + period) % period;
            return m < n ? m : period - m;
        }
        }
        return -1;
    }

    PadMode m_mode;
    Shape m_x, m_y;
    std::vector<std::int64_t> m_begin;
    std::vector<std::uint8_t> m_value; // the attribute's constant, one element of the data type
    std::vector<std::int64_t> m_xStrides, m_yStrides;
};

Expected<KernelPtr> makePad(const Graph &g, const Node &n)
{
    TS_TRY(expectNumeric(g, n));
    const Tensor &x = inTensor(g, n, 0);
    const std::string mode = n.attrString("mode", "constant");
    const PadMode m = mode == "reflect" ? PadMode::Reflect : mode == "edge" ? PadMode::Edge : PadMode::Constant;
    std::vector<std::int64_t> pads = n.attrInts("pads");
    if (hasInput(n, 1)) {
        auto p = constInts(g, n, 1);
        if (!p)
            return p.status();
        pads = std::move(*p);
    }
    std::vector<std::int64_t> axes(x.shape.size());
    std::iota(axes.begin(), axes.end(), std::int64_t{0});
    if (hasInput(n, 3)) {
        auto a = constInts(g, n, 3);
        if (!a)
            return a.status();
        axes.clear();
        for (std::int64_t v : *a) {
            auto d = normAxis(n, v, static_cast<std::int64_t>(x.shape.size()));
            if (!d)
                return d.status();
            axes.push_back(*d);
        }
    }
    if (pads.size() != 2 * axes.size())
        return Status::invalid("pad: pads has " + std::to_string(pads.size()) + " entries, expected " +
                                   std::to_string(2 * axes.size()),
                               {.node = n.name});
    std::vector<std::int64_t> begin(x.shape.size(), 0);
    for (std::size_t i = 0; i < axes.size(); ++i)
        begin[static_cast<std::size_t>(axes[i])] = pads[i];
    if (hasInput(n, 2))
        TS_TRY(expectType(g, n, 2, {x.dtype}));
    std::vector<std::uint8_t> value(dtypeSize(x.dtype));
    storeNumber(x.dtype, value.data(), 0, n.attrFloat("value", 0.0));
    return KernelPtr(
        std::make_unique<PadKernel>(m, x.shape, outTensor(g, n, 0).shape, std::move(begin), std::move(value)));
}

constexpr KernelEntry kKernels[] = {
    {"Concat", makeConcat},       {"Flatten", makeReindex},   {"Gather", makeGather}, {"Pad", makePad},
    {"Reshape", makeReindex},     {"Slice", makeSlice},       {"Split", makeSplit},   {"Squeeze", makeReindex},
    {"Transpose", makeTranspose}, {"Unsqueeze", makeReindex},
};

} // namespace

std::span<const KernelEntry> movementKernels()
{
    return kKernels;
}

} // namespace tessera::reference
