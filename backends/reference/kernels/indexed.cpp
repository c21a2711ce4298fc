// Kernels for the index-mapped ops of core/ops/indexed.cpp: Expand, Tile,
// DepthToSpace (DCR and CRD), SpaceToDepth, Trilu, GatherElements, GatherND
// (batch_dims), ScatterElements / Scatter / ScatterND (reduction none, add,
// mul, max, min), CumSum (exclusive, reverse), OneHot, ConstantOfShape,
// Range, EyeLike, Size, ReverseSequence, Compress, NonZero and the Hann,
// Hamming and Blackman windows, on every numeric element type.
//
// One kernel class: for each output element of the region, a per-op
// function maps the output index to the element's value. Data movement
// copies the element's bytes from the input offset the op's index formula
// gives (bit-exact for every type); generators and CumSum compute in double
// and round once into the output type (CumSum sums in index order along the
// axis). A GatherElements or OneHot index out of range is a run-time error
// naming the node (OneHot: an out-of-range index gives an all-off row, as
// ONNX specifies).
//
// The scatters have their own kernel: a tile copies data's elements, then
// walks every update in row-major order and applies those whose target lies
// in the tile (a later duplicate overwrites, or reduces in double in update
// order), so any tiling gives the same values.
#include "backends/reference/kernel.h"
#include "core/ops/tfidf.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>

namespace tessera::reference {

namespace {

// Writes output element `off` (flat) at index `idx`; returns false on a bad index.
using ElementFn = std::function<bool(const KernelArgs &, std::span<const std::int64_t> idx, std::int64_t off)>;

class IndexedKernel final : public NodeKernel
{
public:
    IndexedKernel(std::string name, Shape out, ElementFn f)
        : m_name(std::move(name)), m_y(stridesOf(out)), m_f(std::move(f))
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        bool ok = true;
        forEachIndex(r, [&](std::span<const std::int64_t> idx) { ok = m_f(a, idx, dot(idx, m_y)) && ok; });
        if (!ok)
            return Status::invalid(m_name + ": an index is out of range");
        return Status::ok();
    }

private:
    std::string m_name;
    std::vector<std::int64_t> m_y;
    ElementFn m_f;
};

// Copies element `from` of input `in` to output element `to`.
inline void copyElement(const KernelArgs &a, std::size_t in, std::int64_t from, std::int64_t to, std::size_t size)
{
    std::memcpy(a.out[0].data + to * static_cast<std::int64_t>(size),
                a.in[in].data + from * static_cast<std::int64_t>(size), size);
}

Expected<KernelPtr> make(const Graph &g, const Node &n, ElementFn f)
{
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        if (hasInput(n, i) && !isNumeric(inTensor(g, n, i).dtype))
            return unsupported(n,
                               "element type " + std::string(dtypeName(inTensor(g, n, i).dtype)) + " is not supported");
    if (!isNumeric(outTensor(g, n, 0).dtype))
        return unsupported(n, "element type " + std::string(dtypeName(outTensor(g, n, 0).dtype)) + " is not supported");
    return KernelPtr(std::make_unique<IndexedKernel>(n.opType, outTensor(g, n, 0).shape, std::move(f)));
}

Expected<KernelPtr> makeExpand(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    const auto st = broadcastStrides(outTensor(g, n, 0).shape, x.shape);
    const std::size_t size = dtypeSize(x.dtype);
    return make(g, n, [st, size](const KernelArgs &a, std::span<const std::int64_t> idx, std::int64_t off) {
        copyElement(a, 0, dot(idx, st), off, size);
        return true;
    });
}

Expected<KernelPtr> makeTile(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    const Shape shape = x.shape;
    const auto st = stridesOf(shape);
    const std::size_t size = dtypeSize(x.dtype);
    return make(g, n, [shape, st, size](const KernelArgs &a, std::span<const std::int64_t> idx, std::int64_t off) {
        std::int64_t from = 0;
        for (std::size_t d = 0; d < idx.size(); ++d)
            from += (idx[d] % shape[d]) * st[d];
        copyElement(a, 0, from, off, size);
        return true;
    });
}

Expected<KernelPtr> makeBlocks(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    const auto st = stridesOf(x.shape);
    const std::int64_t b = n.attrInt("blocksize", 1), c = x.shape[1];
    const std::size_t size = dtypeSize(x.dtype);
    if (n.opType == "SpaceToDepth")
        return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
            const std::int64_t ci = i[1] % c, blk = i[1] / c;
            copyElement(a, 0, i[0] * st[0] + ci * st[1] + (i[2] * b + blk / b) * st[2] + (i[3] * b + blk % b) * st[3],
                        off, size);
            return true;
        });
    const bool crd = n.attrString("mode", "DCR") == "CRD";
    const std::int64_t co = c / (b * b);
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        const std::int64_t bh = i[2] % b, bw = i[3] % b;
        const std::int64_t ci = crd ? i[1] * b * b + bh * b + bw : (bh * b + bw) * co + i[1];
        copyElement(a, 0, i[0] * st[0] + ci * st[1] + (i[2] / b) * st[2] + (i[3] / b) * st[3], off, size);
        return true;
    });
}

Expected<KernelPtr> makeTrilu(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    std::int64_t k = 0;
    if (hasInput(n, 1)) {
        auto v = constInts(g, n, 1);
        if (!v)
            return v.status();
        k = v->empty() ? 0 : (*v)[0];
    }
    const bool upper = n.attrInt("upper", 1) != 0;
    const std::size_t size = dtypeSize(x.dtype);
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        const std::int64_t row = i[i.size() - 2], col = i[i.size() - 1];
        if (upper ? col - row >= k : col - row <= k)
            copyElement(a, 0, off, off, size);
        else
            std::memset(a.out[0].data + off * static_cast<std::int64_t>(size), 0, size);
        return true;
    });
}

Expected<KernelPtr> makeGatherElements(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0), &ind = inTensor(g, n, 1);
    auto axis = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.shape.size()));
    if (!axis)
        return axis.status();
    const auto st = stridesOf(x.shape), ist = stridesOf(ind.shape);
    const auto ax = static_cast<std::size_t>(*axis);
    const std::int64_t extent = x.shape[ax];
    const std::size_t size = dtypeSize(x.dtype);
    const DType it = ind.dtype;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        auto v = static_cast<std::int64_t>(loadNumber(it, a.in[1].data, dot(i, ist)));
        if (v < 0)
            v += extent;
        if (v < 0 || v >= extent)
            return false;
        copyElement(a, 0, dot(i, st) + (v - i[ax]) * st[ax], off, size);
        return true;
    });
}

// GatherND: output [i (indices.shape[:-1]), s (data.shape[b+k:])] reads
// data[i[:b], indices[i, 0..k), s].
Expected<KernelPtr> makeGatherND(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0), &ind = inTensor(g, n, 1);
    const auto b = static_cast<std::size_t>(n.attrInt("batch_dims", 0));
    const std::size_t q = ind.shape.size(), k = static_cast<std::size_t>(ind.shape.back());
    const auto st = stridesOf(x.shape), ist = stridesOf(ind.shape);
    const std::size_t size = dtypeSize(x.dtype);
    const DType it = ind.dtype;
    const Shape xs = x.shape;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        std::int64_t from = 0, irow = 0;
        for (std::size_t d = 0; d + 1 < q; ++d)
            irow += i[d] * ist[d];
        for (std::size_t d = 0; d < b; ++d)
            from += i[d] * st[d];
        for (std::size_t j = 0; j < k; ++j) {
            auto v = static_cast<std::int64_t>(loadNumber(it, a.in[1].data, irow + static_cast<std::int64_t>(j)));
            const std::int64_t extent = xs[b + j];
            if (v < 0)
                v += extent;
            if (v < 0 || v >= extent)
                return false;
            from += v * st[b + j];
        }
        for (std::size_t d = q - 1; d < i.size(); ++d)
            from += i[d] * st[b + k + d - (q - 1)];
        copyElement(a, 0, from, off, size);
        return true;
    });
}

// ScatterElements, Scatter and ScatterND (see the header).
class ScatterKernel final : public NodeKernel
{
public:
    enum class Reduce { None, Add, Mul, Max, Min };

    ScatterKernel(std::string name, const Tensor &x, const Tensor &ind, const Tensor &upd, std::int64_t axis, Reduce r)
        : m_name(std::move(name)), m_x(x.shape), m_ind(ind.shape), m_upd(upd.shape), m_axis(axis), m_reduce(r),
          m_type(x.dtype), m_indType(ind.dtype)
    {}

    Status compute(const KernelArgs &a, int, const ops::Region &r) const override
    {
        const std::size_t size = dtypeSize(m_type);
        const auto st = stridesOf(m_x), ist = stridesOf(m_ind), ust = stridesOf(m_upd);
        forEachOffset(r, st, 0, [&](std::int64_t off) {
            std::memcpy(a.out[0].data + off * static_cast<std::int64_t>(size),
                        a.in[0].data + off * static_cast<std::int64_t>(size), size);
        });
        ops::Region all;
        for (std::int64_t d : m_upd)
            all.push_back({0, d});
        std::vector<std::int64_t> target(m_x.size());
        bool ok = true;
        forEachIndex(all, [&](std::span<const std::int64_t> u) {
            if (!ok || !targetOf(a, u, ist, target)) {
                ok = false;
                return;
            }
            for (std::size_t d = 0; d < target.size(); ++d)
                if (target[d] < r[d].begin || target[d] >= r[d].end)
                    return;
            const std::int64_t to = dot(target, st), from = dot(u, ust);
            if (m_reduce == Reduce::None) {
                std::memcpy(a.out[0].data + to * static_cast<std::int64_t>(size),
                            a.in[2].data + from * static_cast<std::int64_t>(size), size);
                return;
            }
            const double old = loadNumber(m_type, a.out[0].data, to), v = loadNumber(m_type, a.in[2].data, from);
            const double res = m_reduce == Reduce::Add   ? old + v
                               : m_reduce == Reduce::Mul ? old * v
                               : m_reduce == Reduce::Max ? std::max(old, v)
                                                         : std::min(old, v);
            storeNumber(m_type, a.out[0].data, to, res);
        });
        if (!ok)
            return Status::invalid(m_name + ": an index is out of range");
        return Status::ok();
    }

private:
    // The data position update u goes to; false when an index is out of range.
    bool targetOf(const KernelArgs &a, std::span<const std::int64_t> u, const std::vector<std::int64_t> &ist,
                  std::vector<std::int64_t> &target) const
    {
        auto index = [&](std::int64_t off, std::int64_t extent, std::int64_t &out) {
            auto v = static_cast<std::int64_t>(loadNumber(m_indType, a.in[1].data, off));
            if (v < 0)
                v += extent;
            out = v;
            return v >= 0 && v < extent;
        };
        if (m_axis >= 0) { // ScatterElements: u with its axis coordinate replaced
            std::copy(u.begin(), u.end(), target.begin());
            const auto ax = static_cast<std::size_t>(m_axis);
            return index(dot(u, ist), m_x[ax], target[ax]);
        }
        const std::size_t q = m_ind.size(), k = static_cast<std::size_t>(m_ind.back());
        std::int64_t row = 0;
        for (std::size_t d = 0; d + 1 < q; ++d)
            row += u[d] * ist[d];
        for (std::size_t j = 0; j < k; ++j)
            if (!index(row + static_cast<std::int64_t>(j), m_x[j], target[j]))
                return false;
        for (std::size_t d = k; d < m_x.size(); ++d)
            target[d] = u[q - 1 + d - k];
        return true;
    }

    std::string m_name;
    Shape m_x, m_ind, m_upd;
    std::int64_t m_axis; // -1: ScatterND
    Reduce m_reduce;
    DType m_type, m_indType;
};

Expected<KernelPtr> makeScatter(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0), &ind = inTensor(g, n, 1), &upd = inTensor(g, n, 2);
    if (!isNumeric(x.dtype) || x.dtype == DType::Bool)
        return unsupported(n, "element type " + std::string(dtypeName(x.dtype)) + " is not supported");
    const std::string red = n.attrString("reduction", "none");
    using R = ScatterKernel::Reduce;
    const R reduce = red == "add"   ? R::Add
                     : red == "mul" ? R::Mul
                     : red == "max" ? R::Max
                     : red == "min" ? R::Min
                                    : R::None;
    if (reduce == R::None && red != "none")
        return unsupported(n, "reduction '" + red + "' is not supported");
    std::int64_t axis = -1;
    if (n.opType != "ScatterND") {
        auto a = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.shape.size()));
        if (!a)
            return a.status();
        axis = *a;
    }
    return KernelPtr(std::make_unique<ScatterKernel>(n.opType, x, ind, upd, axis, reduce));
}

// ReverseSequence: along time_axis, the first sequence_lens[b] elements of
// batch entry b are reversed, the rest copied.
Expected<KernelPtr> makeReverseSequence(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    const auto b = static_cast<std::size_t>(n.attrInt("batch_axis", 1)),
               t = static_cast<std::size_t>(n.attrInt("time_axis", 0));
    const auto st = stridesOf(x.shape);
    const std::int64_t steps = x.shape[t];
    const std::size_t size = dtypeSize(x.dtype);
    const DType lt = inTensor(g, n, 1).dtype;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        const auto len = static_cast<std::int64_t>(loadNumber(lt, a.in[1].data, i[b]));
        if (len < 0 || len > steps)
            return false;
        const std::int64_t from = i[t] < len ? len - 1 - i[t] : i[t];
        copyElement(a, 0, dot(i, st) + (from - i[t]) * st[t], off, size);
        return true;
    });
}

// Compress: the positions the constant condition keeps, along `axis` or of
// the flattened input.
Expected<KernelPtr> makeCompress(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    auto cond = constFloats(g, n, 1);
    if (!cond)
        return cond.status();
    std::vector<std::int64_t> kept;
    for (std::size_t j = 0; j < cond->size(); ++j)
        if ((*cond)[j] != 0)
            kept.push_back(static_cast<std::int64_t>(j));
    const std::size_t size = dtypeSize(x.dtype);
    if (!n.attr("axis"))
        return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
            copyElement(a, 0, kept[static_cast<std::size_t>(i[0])], off, size);
            return true;
        });
    auto axis = normAxis(n, n.attrInt("axis", 0), static_cast<std::int64_t>(x.shape.size()));
    if (!axis)
        return axis.status();
    const auto ax = static_cast<std::size_t>(*axis);
    const auto st = stridesOf(x.shape);
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        copyElement(a, 0, dot(i, st) + (kept[static_cast<std::size_t>(i[ax])] - i[ax]) * st[ax], off, size);
        return true;
    });
}

// NonZero: output [rank, count], column j the coordinates of the j-th
// non-zero element in row-major order (of the constant input).
Expected<KernelPtr> makeNonZero(const Graph &g, const Node &n)
{
    auto x = constFloats(g, n, 0);
    if (!x)
        return x.status();
    const Shape shape = inTensor(g, n, 0).shape;
    const auto st = stridesOf(shape);
    std::vector<std::int64_t> flat;
    for (std::size_t j = 0; j < x->size(); ++j)
        if ((*x)[j] != 0)
            flat.push_back(static_cast<std::int64_t>(j));
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        const auto d = static_cast<std::size_t>(i[0]);
        const std::int64_t coord = flat[static_cast<std::size_t>(i[1])] / st[d] % shape[d];
        storeNumber(DType::Int64, a.out[0].data, off, static_cast<double>(coord));
        return true;
    });
}

// TfIdfVectorizer (ops::tfIdfRow counts, core/ops/tfidf.cpp): output element
// (b, j) recounts its row b and takes entry j.
Expected<KernelPtr> makeTfIdf(const Graph &g, const Node &n)
{
    auto spec = ops::tfIdfSpec(n);
    if (!spec)
        return spec.status();
    const Tensor &x = inTensor(g, n, 0);
    const std::int64_t rowLen = x.shape.back();
    const bool batched = x.shape.size() == 2;
    const DType xt = x.dtype;
    return make(
        g, n,
        [spec = *spec, rowLen, batched, xt](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
            const std::int64_t b = batched ? i[0] : 0, j = i[i.size() - 1];
            std::vector<std::int64_t> row(static_cast<std::size_t>(rowLen));
            for (std::int64_t k = 0; k < rowLen; ++k)
                row[static_cast<std::size_t>(k)] =
                    static_cast<std::int64_t>(loadNumber(xt, a.in[0].data, b * rowLen + k));
            storeNumber(DType::Float32, a.out[0].data, off, ops::tfIdfRow(spec, row)[static_cast<std::size_t>(j)]);
            return true;
        });
}

// Hann, Hamming and Blackman windows: w[i] = a0 - a1 cos(2πi/N) + a2 cos(4πi/N),
// N = size (periodic, the default) or size - 1 (symmetric).
Expected<KernelPtr> makeWindow(const Graph &g, const Node &n)
{
    const std::int64_t size = outTensor(g, n, 0).shape[0];
    const double N = static_cast<double>(n.attrInt("periodic", 1) != 0 ? size : size - 1);
    double a0 = 0.5, a1 = 0.5, a2 = 0;
    if (n.opType == "HammingWindow") {
        a0 = 25.0 / 46.0;
        a1 = 21.0 / 46.0;
    } else if (n.opType == "BlackmanWindow") {
        a0 = 0.42;
        a2 = 0.08;
    }
    const DType yt = outTensor(g, n, 0).dtype;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        const double x = 2 * std::numbers::pi * static_cast<double>(i[0]) / N;
        storeNumber(yt, a.out[0].data, off, a0 - a1 * std::cos(x) + a2 * std::cos(2 * x));
        return true;
    });
}

Expected<KernelPtr> makeCumSum(const Graph &g, const Node &n)
{
    const Tensor &x = inTensor(g, n, 0);
    auto av = constInts(g, n, 1);
    if (!av)
        return av.status();
    auto axis = normAxis(n, av->empty() ? 0 : (*av)[0], static_cast<std::int64_t>(x.shape.size()));
    if (!axis)
        return axis.status();
    const auto st = stridesOf(x.shape);
    const auto ax = static_cast<std::size_t>(*axis);
    const std::int64_t extent = x.shape[ax];
    const bool exclusive = n.attrInt("exclusive", 0) != 0, reverse = n.attrInt("reverse", 0) != 0;
    const DType xt = x.dtype, yt = outTensor(g, n, 0).dtype;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        const std::int64_t base = dot(i, st) - i[ax] * st[ax];
        double sum = 0;
        const std::int64_t from = reverse ? i[ax] + (exclusive ? 1 : 0) : 0;
        const std::int64_t to = reverse ? extent : i[ax] + (exclusive ? 0 : 1);
        for (std::int64_t j = from; j < to; ++j)
            sum += loadNumber(xt, a.in[0].data, base + j * st[ax]);
        storeNumber(yt, a.out[0].data, off, sum);
        return true;
    });
}

Expected<KernelPtr> makeOneHot(const Graph &g, const Node &n)
{
    const Tensor &ind = inTensor(g, n, 0);
    const Shape &y = outTensor(g, n, 0).shape;
    auto axis = normAxis(n, n.attrInt("axis", -1), static_cast<std::int64_t>(y.size()));
    if (!axis)
        return axis.status();
    const auto ax = static_cast<std::size_t>(*axis);
    const auto ist = stridesOf(ind.shape);
    const std::int64_t depth = y[ax];
    const DType it = ind.dtype, vt = inTensor(g, n, 2).dtype;
    const std::size_t size = dtypeSize(vt);
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        std::int64_t src = 0;
        for (std::size_t d = 0, k = 0; d < i.size(); ++d)
            if (d != ax)
                src += i[d] * ist[k++];
        auto v = static_cast<std::int64_t>(loadNumber(it, a.in[0].data, src));
        if (v < 0)
            v += depth;
        copyElement(a, 2, v == i[ax] ? 1 : 0, off, size);
        return true;
    });
}

Expected<KernelPtr> makeConstantOfShape(const Graph &g, const Node &n)
{
    const Tensor &y = outTensor(g, n, 0);
    std::vector<std::uint8_t> value(dtypeSize(y.dtype), 0);
    if (const Attribute *v = n.attr("value")) {
        const auto &data = std::get<std::shared_ptr<const TensorData>>(v->value);
        if (!data || data->view().size() != value.size())
            return unsupported(n, "attribute 'value' has no inline element of the output's type");
        value.assign(data->view().begin(), data->view().end());
    }
    return make(g, n, [value](const KernelArgs &a, std::span<const std::int64_t>, std::int64_t off) {
        std::memcpy(a.out[0].data + off * static_cast<std::int64_t>(value.size()), value.data(), value.size());
        return true;
    });
}

Expected<KernelPtr> makeRange(const Graph &g, const Node &n)
{
    auto start = constFloats(g, n, 0), delta = constFloats(g, n, 2);
    if (!start)
        return start.status();
    if (!delta)
        return delta.status();
    const double s = start->at(0), d = delta->at(0);
    const DType yt = outTensor(g, n, 0).dtype;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        storeNumber(yt, a.out[0].data, off, s + static_cast<double>(i[0]) * d);
        return true;
    });
}

Expected<KernelPtr> makeEyeLike(const Graph &g, const Node &n)
{
    const std::int64_t k = n.attrInt("k", 0);
    const DType yt = outTensor(g, n, 0).dtype;
    return make(g, n, [=](const KernelArgs &a, std::span<const std::int64_t> i, std::int64_t off) {
        storeNumber(yt, a.out[0].data, off, i[1] - i[0] == k ? 1.0 : 0.0);
        return true;
    });
}

Expected<KernelPtr> makeSize(const Graph &g, const Node &n)
{
    const std::int64_t count = inTensor(g, n, 0).elements();
    return make(g, n, [count](const KernelArgs &a, std::span<const std::int64_t>, std::int64_t off) {
        std::memcpy(a.out[0].data + off * 8, &count, 8);
        return true;
    });
}

constexpr KernelEntry kKernels[] = {
    {"BlackmanWindow", makeWindow},
    {"Compress", makeCompress},
    {"ConstantOfShape", makeConstantOfShape},
    {"CumSum", makeCumSum},
    {"DepthToSpace", makeBlocks},
    {"Expand", makeExpand},
    {"EyeLike", makeEyeLike},
    {"GatherElements", makeGatherElements},
    {"GatherND", makeGatherND},
    {"HammingWindow", makeWindow},
    {"HannWindow", makeWindow},
    {"NonZero", makeNonZero},
    {"OneHot", makeOneHot},
    {"Range", makeRange},
    {"ReverseSequence", makeReverseSequence},
    {"Scatter", makeScatter},
    {"ScatterElements", makeScatter},
    {"ScatterND", makeScatter},
    {"Size", makeSize},
    {"TfIdfVectorizer", makeTfIdf},
    {"SpaceToDepth", makeBlocks},
    {"Tile", makeTile},
    {"Trilu", makeTrilu},
};

} // namespace

std::span<const KernelEntry> indexedKernels()
{
    return kKernels;
}

} // namespace tessera::reference
