// Unique (ONNX Unique-11): X, optional `axis` and `sorted` (default 1);
// outputs Y (the unique elements, or slices along axis), indices (first
// occurrences), inverse_indices and counts, the last three int64 and each
// optional. Their extents depend on X's values: X must be a constant (a
// run-time X is refused naming the node); shape inference computes the
// selection (uniqueOf) and the kernel recomputes it from the same data.
// NaN compares unequal to everything (each NaN is its own value).
// Index map: every output reads X whole. FLOPs: none counted (a sort of
// comparisons, no arithmetic).
#include "core/ops/unique.h"

#include "core/ops/opdef.h"

#include <algorithm>
#include <cmath>

namespace tessera::ops {

UniqueResult uniqueOf(std::span<const double> x, const Shape &shape, std::optional<std::int64_t> axis, bool sorted)
{
    // Slices as rows: [outer, n, inner] with n the axis extent (flat: n = size).
    std::int64_t outer = 1, n = static_cast<std::int64_t>(x.size()), inner = 1;
    if (axis) {
        const auto a = static_cast<std::size_t>(*axis);
        for (std::size_t d = 0; d < shape.size(); ++d)
            if (d < a)
                outer *= shape[d];
            else if (d > a)
                inner *= shape[d];
        n = shape[a];
    }
    auto slice = [&](std::int64_t i) {
        std::vector<double> s;
        for (std::int64_t o = 0; o < outer; ++o)
            for (std::int64_t k = 0; k < inner; ++k)
                s.push_back(x[static_cast<std::size_t>((o * n + i) * inner + k)]);
        return s;
    };
    UniqueResult r;
    std::vector<std::vector<double>> keys;
    r.inverse.resize(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const auto s = slice(i);
        const auto it = std::find(keys.begin(), keys.end(), s);
        if (it != keys.end()) {
            const auto k = static_cast<std::size_t>(it - keys.begin());
            r.inverse[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(k);
            ++r.counts[k];
            continue;
        }
        r.inverse[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(keys.size());
        keys.push_back(s);
        r.first.push_back(i);
        r.counts.push_back(1);
    }
    if (!sorted)
        return r;
    std::vector<std::size_t> order(keys.size());
    for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = k;
    // Lexicographic, NaN after every number (a strict weak order even with NaN).
    auto less = [](double u, double v) { return std::isnan(u) ? false : std::isnan(v) || u < v; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return std::lexicographical_compare(keys[a].begin(), keys[a].end(), keys[b].begin(), keys[b].end(), less);
    });
    std::vector<std::int64_t> rank(order.size());
    UniqueResult s;
    for (std::size_t k = 0; k < order.size(); ++k) {
        rank[order[k]] = static_cast<std::int64_t>(k);
        s.first.push_back(r.first[order[k]]);
        s.counts.push_back(r.counts[order[k]]);
    }
    for (std::int64_t v : r.inverse)
        s.inverse.push_back(rank[static_cast<std::size_t>(v)]);
    return s;
}

namespace detail {
namespace {

Expected<UniqueResult> select(const OpContext &c, std::optional<std::int64_t> &axis)
{
    if (c.n.attr("axis")) {
        auto a = c.axis(c.n.attrInt("axis", 0), c.rank(0), "axis");
        if (!a)
            return a.status();
        axis = *a;
    }
    auto x = c.constFloats(0, "X (Unique's output shape depends on its values)");
    if (!x)
        return x.status();
    return uniqueOf(*x, c.shape(0), axis, c.n.attrInt("sorted", 1) != 0);
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    std::optional<std::int64_t> axis;
    auto u = select(c, axis);
    if (!u)
        return u.status();
    const auto k = static_cast<std::int64_t>(u->first.size());
    Shape y{k};
    if (axis) {
        y = c.shape(0);
        y[static_cast<std::size_t>(*axis)] = k;
    }
    outs = {{c.in(0).dtype, y},
            {DType::Int64, {k}},
            {DType::Int64, {static_cast<std::int64_t>(u->inverse.size())}},
            {DType::Int64, {k}}};
    outs.resize(c.n.outputs.size());
    return Status::ok();
}

double flops(const OpContext &)
{
    return 0;
}

Status regions(const OpContext &c, int, const Region &, std::vector<InputRegion> &in)
{
    in[0] = wholeRegion(c.shape(0));
    return Status::ok();
}

void axes(const OpContext &, int, std::vector<InputAxes> &in)
{
    in[0].opaque = true;
}

constexpr AttrSpec kAttrs[] = {{"axis", Attribute::Kind::Int}, {"sorted", Attribute::Kind::Int}};
constexpr OpDef kOps[] = {
    {"Unique", 1, 1, 1, 4, kAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> uniqueOps()
{
    return kOps;
}

} // namespace detail

} // namespace tessera::ops
