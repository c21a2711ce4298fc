// The shared building blocks of core/ops (see opdef.h): OpContext's value-input
// readers and the exact per-dimension index maps every family composes.
#include "core/ops/opdef.h"

#include "core/support/assert.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>

namespace tessera::ops::detail {

// --- OpContext -----------------------------------------------------------------

OpContext::OpContext(const Graph &graph, const Node &node) : g(graph), n(node)
{
    prefix.reserve(node.opType.size());
    for (char ch : node.opType)
        prefix.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
}

const Tensor &OpContext::in(std::size_t input) const
{
    const Tensor *t = g.input(n, input);
    TS_ASSERT_MSG(t, "family read an omitted input");
    return *t;
}

Status OpContext::fail(const std::string &message) const
{
    return Status::invalid(prefix + ": " + message, {.node = n.name});
}

Status OpContext::failAt(std::size_t input, const std::string &message) const
{
    const Tensor *t = g.input(n, input);
    return Status::invalid(prefix + ": " + message, {.node = n.name, .tensor = t ? t->name : std::string()});
}

Status OpContext::unsupported(const std::string &message) const
{
    return Status::error(ErrorCode::Unsupported, prefix + ": " + message, {.node = n.name});
}

namespace {
Expected<const TensorData *> constData(const OpContext &c, std::size_t input, std::string_view what)
{
    const Tensor *t = c.g.input(c.n, input);
    if (!t)
        return c.fail("input '" + std::string(what) + "' is missing");
    if (!t->isConstant())
        return c.failAt(input, "input '" + std::string(what) +
                                   "' is not a constant tensor; its value is needed at compile time");
    if (t->data->isExternal())
        return c.failAt(input,
                        "input '" + std::string(what) + "' is stored externally; its value is needed at compile time");
    if (!numElements(t->data->shape))
        return c.failAt(input, "input '" + std::string(what) + "' has an invalid shape");
    return t->data.get();
}
} // namespace

Expected<std::vector<std::int64_t>> OpContext::constInts(std::size_t input, std::string_view what) const
{
    auto d = constData(*this, input, what);
    if (!d)
        return d.status();
    if (!isInteger((*d)->dtype))
        return failAt(input, "input '" + std::string(what) + "' has type " + std::string(dtypeName((*d)->dtype)) +
                                 ", expected an integer type");
    const std::int64_t count = *numElements((*d)->shape);
    std::vector<std::int64_t> values;
    for (std::int64_t i = 0; i < count; ++i) {
        auto v = (*d)->intAt(i);
        if (!v)
            return failAt(input, "input '" + std::string(what) + "' holds fewer values than its shape says");
        values.push_back(*v);
    }
    return values;
}

Expected<std::vector<double>> OpContext::constFloats(std::size_t input, std::string_view what) const
{
    auto d = constData(*this, input, what);
    if (!d)
        return d.status();
    const std::int64_t count = *numElements((*d)->shape);
    std::vector<double> values;
    for (std::int64_t i = 0; i < count; ++i) {
        auto v = (*d)->floatAt(i);
        if (!v)
            return failAt(input, "input '" + std::string(what) + "' holds fewer values than its shape says");
        values.push_back(*v);
    }
    return values;
}

Expected<std::optional<std::vector<std::int64_t>>> OpContext::intsFromInputOrAttr(std::size_t input,
                                                                                  std::string_view attr) const
{
    if (has(input)) {
        auto v = constInts(input, attr);
        if (!v)
            return v.status();
        return std::optional<std::vector<std::int64_t>>(std::move(*v));
    }
    if (n.attr(attr))
        return std::optional<std::vector<std::int64_t>>(n.attrInts(attr));
    return std::optional<std::vector<std::int64_t>>();
}

Expected<std::int64_t> OpContext::axis(std::int64_t value, std::int64_t rank, std::string_view what,
                                       std::int64_t extra) const
{
    if (value < -rank || value > rank - 1 + extra)
        return fail(std::string(what) + " " + std::to_string(value) + " is out of range [" + std::to_string(-rank) +
                    ", " + std::to_string(rank - 1 + extra) + "] for rank " + std::to_string(rank));
    return value < 0 ? value + rank : value;
}

Expected<std::vector<std::int64_t>> OpContext::axes(const std::vector<std::int64_t> &values, std::int64_t rank,
                                                    std::string_view what) const
{
    std::vector<std::int64_t> out;
    std::vector<bool> seen(static_cast<std::size_t>(std::max<std::int64_t>(rank, 0)), false);
    for (std::int64_t v : values) {
        auto a = axis(v, rank, what);
        if (!a)
            return a.status();
        if (seen[static_cast<std::size_t>(*a)])
            return fail(std::string(what) + " " + std::to_string(*a) + " is repeated");
        seen[static_cast<std::size_t>(*a)] = true;
        out.push_back(*a);
    }
    return out;
}

// --- arithmetic ------------------------------------------------------------------

std::int64_t floorDiv(std::int64_t a, std::int64_t b)
{
    const std::int64_t q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    const std::int64_t q = a / b;
    return (a % b != 0 && a > 0) ? q + 1 : q;
}

std::optional<std::int64_t> addChecked(std::int64_t a, std::int64_t b)
{
    std::int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

std::optional<std::int64_t> mulChecked(std::int64_t a, std::int64_t b)
{
    std::int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return std::nullopt;
    return r;
}

double elements(const Shape &s)
{
    double e = 1;
    for (auto d : s)
        e *= static_cast<double>(d);
    return e;
}

std::string dimsStr(const std::vector<std::int64_t> &v)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < v.size(); ++i)
        os << (i ? "x" : "") << v[i];
    return v.empty() ? std::string("[]") : os.str();
}

// --- per-dimension index maps ---------------------------------------------------

namespace {
Interval intersect(Interval a, std::int64_t size)
{
    return {std::max<std::int64_t>(a.begin, 0), std::min(a.end, size)};
}
constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::max();
} // namespace

DimRange identityDim(Interval o, std::int64_t size)
{
    return {o, intersect(o, size)};
}
DimRange fullDim(std::int64_t size)
{
    return {{0, size}, {0, size}};
}
DimRange broadcastDim()
{
    return {{0, 1}, {0, 1}};
}

DimRange offsetDim(Interval o, std::int64_t offset, std::int64_t size)
{
    const Interval r{o.begin + offset, o.end + offset};
    return {r, intersect(r, size)};
}

DimRange windowDim(Interval o, std::int64_t s, std::int64_t d, std::int64_t taps, std::int64_t p, std::int64_t size)
{
    if (o.empty() || taps <= 0)
        return {};
    const Interval region{o.begin * s - p, (o.end - 1) * s + (taps - 1) * d - p + 1};
    DimRange r{region, intersect(region, size)};
    // The taps form one contiguous run when d == 1 and consecutive windows
    // touch (taps >= s) or there is only one window, or when s == 1 and the
    // tile's outputs fill the dilation holes (o.size() >= d): region ∩ bounds
    // is then exact. Otherwise find the extreme in-bounds taps.
    const bool contiguous = (d == 1 && (taps >= s || o.size() == 1)) || (s == 1 && o.size() >= d);
    if (contiguous || r.clipped.empty() || taps > kMaxLoop)
        return r;
    // Lowest tap >= 0 and highest tap <= size - 1, per kernel tap k.
    std::int64_t lo = kNone, hi = -1;
    for (std::int64_t k = 0; k < taps; ++k) {
        const std::int64_t base = k * d - p; // position = o*s + base
        const std::int64_t oLo = std::max(o.begin, ceilDiv(-base, s));
        const std::int64_t oHi = std::min(o.end - 1, floorDiv(size - 1 - base, s));
        if (oLo <= oHi) {
            lo = std::min(lo, oLo * s + base);
            hi = std::max(hi, oHi * s + base);
        }
    }
    r.clipped = lo <= hi ? Interval{lo, hi + 1} : Interval{};
    return r;
}

DimRange transposedWindowDim(Interval o, std::int64_t s, std::int64_t d, std::int64_t taps, std::int64_t p,
                             std::int64_t size)
{
    if (o.empty() || taps <= 0)
        return {};
    // i*s = o + p - k*d: for tap k, i ranges over the multiples of s in
    // [o.begin + p - k*d, o.end - 1 + p - k*d].
    if (taps > kMaxLoop || d == 1) {
        // With d == 1 the values o - k fill one contiguous range, so the
        // multiples of s in it are contiguous in i: exact. Past kMaxLoop this
        // hull is conservative.
        const Interval region{ceilDiv(o.begin + p - (taps - 1) * d, s), floorDiv(o.end - 1 + p, s) + 1};
        if (region.empty())
            return {};
        return {region, intersect(region, size)};
    }
    std::int64_t rLo = kNone, rHi = std::numeric_limits<std::int64_t>::min();
    std::int64_t lo = kNone, hi = -1;
    for (std::int64_t k = 0; k < taps; ++k) {
        const std::int64_t iLo = ceilDiv(o.begin + p - k * d, s);
        const std::int64_t iHi = floorDiv(o.end - 1 + p - k * d, s);
        if (iLo > iHi)
            continue;
        rLo = std::min(rLo, iLo);
        rHi = std::max(rHi, iHi);
        const std::int64_t cLo = std::max<std::int64_t>(iLo, 0), cHi = std::min(iHi, size - 1);
        if (cLo <= cHi) {
            lo = std::min(lo, cLo);
            hi = std::max(hi, cHi);
        }
    }
    if (rLo > rHi)
        return {};
    return {{rLo, rHi + 1}, lo <= hi ? Interval{lo, hi + 1} : Interval{}};
}

DimRange stridedDim(Interval o, std::int64_t start, std::int64_t step)
{
    if (o.empty())
        return {};
    const std::int64_t a = start + o.begin * step, b = start + (o.end - 1) * step;
    const Interval r{std::min(a, b), std::max(a, b) + 1};
    return {r, r};
}

void canonicalize(InputRegion &r)
{
    auto blank = [](Region &reg) {
        if (std::any_of(reg.begin(), reg.end(), [](const Interval &i) { return i.empty(); }))
            std::fill(reg.begin(), reg.end(), Interval{});
    };
    blank(r.region);
    blank(r.clipped);
}

InputRegion makeRegion(const std::vector<DimRange> &dims)
{
    InputRegion r;
    for (const DimRange &d : dims) {
        r.region.push_back(d.region);
        r.clipped.push_back(d.clipped);
    }
    canonicalize(r);
    return r;
}

InputRegion wholeRegion(const Shape &s)
{
    std::vector<DimRange> dims;
    for (std::int64_t d : s)
        dims.push_back(fullDim(d));
    return makeRegion(dims);
}

InputAxes wholeAxes(const Shape &s)
{
    InputAxes ax;
    for (std::size_t d = 0; d < s.size(); ++d)
        ax.reducedDims.push_back(static_cast<int>(d));
    return ax;
}

InputRegion broadcastRegion(const Region &tile, const Shape &out, const Shape &in)
{
    TS_ASSERT_MSG(in.size() <= out.size(), "broadcast operand has a higher rank than the result");
    std::vector<DimRange> dims;
    const std::size_t lead = out.size() - in.size();
    for (std::size_t d = 0; d < in.size(); ++d)
        dims.push_back(in[d] == 1 && out[lead + d] != 1 ? broadcastDim() : identityDim(tile[lead + d], in[d]));
    return makeRegion(dims);
}

InputAxes broadcastAxes(const Shape &out, const Shape &in)
{
    TS_ASSERT_MSG(in.size() <= out.size(), "broadcast operand has a higher rank than the result");
    InputAxes ax;
    const std::size_t lead = out.size() - in.size();
    for (std::size_t d = 0; d < in.size(); ++d) {
        AxisMap m = axisMap(static_cast<int>(lead + d), static_cast<int>(d));
        if (in[d] == 1 && out[lead + d] != 1) {
            m.kind = AxisMap::Kind::Broadcast;
            m.stride = 0;
        }
        ax.maps.push_back(m);
    }
    return ax;
}

Expected<Shape> broadcastShapes(const OpContext &c, const std::vector<std::size_t> &inputs)
{
    Shape out;
    for (std::size_t i : inputs) {
        if (!c.has(i))
            continue;
        const Shape &s = c.shape(i);
        if (s.size() > out.size())
            out.insert(out.begin(), s.size() - out.size(), 1);
        const std::size_t lead = out.size() - s.size();
        for (std::size_t d = 0; d < s.size(); ++d) {
            std::int64_t &o = out[lead + d];
            if (o == s[d] || s[d] == 1)
                continue;
            if (o != 1)
                return c.failAt(i, "shapes " + dimsStr(out) + " and " + dimsStr(s) + " are not broadcastable");
            o = s[d];
        }
    }
    return out;
}

namespace {
Shape stridesOf(const Shape &s)
{
    Shape st(s.size(), 1);
    for (std::size_t d = s.size(); d-- > 1;)
        st[d - 1] = st[d] * s[d];
    return st;
}
} // namespace

InputRegion reindexRegion(const Region &tile, const Shape &out, const Shape &in)
{
    const std::size_t ro = out.size(), ri = in.size();
    if (std::any_of(tile.begin(), tile.end(), [](const Interval &i) { return i.empty(); }))
        return makeRegion(std::vector<DimRange>(ri));
    const Shape so = stridesOf(out), si = stridesOf(in);
    // The tile is a union of contiguous flat runs: dims after `k` are whole.
    std::size_t k = ro;
    while (k > 0 && tile[k - 1] == Interval{0, out[k - 1]})
        --k;
    if (k > 0)
        --k; // dims k+1.. are whole, dim k partial (or the outermost)
    const std::int64_t runLength = ro == 0 ? 1 : tile[k].size() * so[k];

    std::vector<std::int64_t> lo(ri, kNone), hi(ri, -1);
    std::int64_t runCount = 1;
    for (std::size_t d = 0; d < k && runCount <= kMaxLoop * 16; ++d)
        runCount *= tile[d].size();
    const bool inside = std::all_of(tile.begin(), tile.end(), [](const Interval &i) { return i.begin >= 0; });
    if (runCount <= kMaxLoop * 16 && inside) {
        // Every run is visited (the else branch may stop early only once every dim is whole, or
        // past the cap), so each input dim's hull is the hull over all runs of that dim
        // alone. A run's contribution to dim d depends only on its start modulo si[d] * in[d]:
        // run dims whose stride is a multiple of that stay at their first index, and a sweep of
        // the innermost remaining one that stays within one block of si[d] elements adds one point.
        std::int64_t first = ro == 0 ? 0 : tile[k].begin * so[k];
        for (std::size_t d = 0; d < k; ++d)
            first += tile[d].begin * so[d];
        for (std::size_t d = 0; d < ri; ++d) {
            const std::int64_t block = si[d], period = si[d] * in[d];
            auto add = [&](std::int64_t f0) { // run [f0, f0 + runLength - 1]; true once d is whole
                const std::int64_t q0 = f0 / block, q1 = (f0 + runLength - 1) / block;
                std::int64_t a = q0 % in[d], b = q1 % in[d];
                if (q1 - q0 + 1 >= in[d] || a > b)
                    a = 0, b = in[d] - 1;
                lo[d] = std::min(lo[d], a);
                hi[d] = std::max(hi[d], b);
                return lo[d] == 0 && hi[d] == in[d] - 1;
            };
            std::vector<std::size_t> vary; // run dims that move dim d
            for (std::size_t j = 0; j < k; ++j)
                if (so[j] % period != 0)
                    vary.push_back(j);
            if (vary.empty()) {
                add(first);
                continue;
            }
            const std::size_t inner = vary.back();
            vary.pop_back();
            const std::int64_t sweep = (tile[inner].size() - 1) * so[inner];
            std::vector<std::int64_t> idx(vary.size());
            for (std::size_t v = 0; v < vary.size(); ++v)
                idx[v] = tile[vary[v]].begin;
            for (bool whole = false; !whole;) {
                std::int64_t f0 = first;
                for (std::size_t v = 0; v < vary.size(); ++v)
                    f0 += (idx[v] - tile[vary[v]].begin) * so[vary[v]];
                if (f0 / block == (f0 + sweep + runLength - 1) / block) {
                    whole = add(f0);
                } else {
                    for (std::int64_t i = 0; i < tile[inner].size() && !whole; ++i)
                        whole = add(f0 + i * so[inner]);
                }
                std::size_t v = vary.size();
                while (v > 0 && ++idx[v - 1] == tile[vary[v - 1]].end) {
                    idx[v - 1] = tile[vary[v - 1]].begin;
                    --v;
                }
                if (v == 0)
                    break;
            }
        }
    } else {
        std::size_t wholeDims = 0;
        auto addRun = [&](std::int64_t f0, std::int64_t f1) { // flat [f0, f1]
            for (std::size_t d = 0; d < ri; ++d) {
                if (lo[d] == 0 && hi[d] == in[d] - 1)
                    continue;
                const std::int64_t q0 = f0 / si[d], q1 = f1 / si[d];
                std::int64_t a = q0 % in[d], b = q1 % in[d];
                if (q1 - q0 + 1 >= in[d] || a > b)
                    a = 0, b = in[d] - 1;
                lo[d] = std::min(lo[d], a);
                hi[d] = std::max(hi[d], b);
                if (lo[d] == 0 && hi[d] == in[d] - 1)
                    ++wholeDims;
            }
        };
        // Odometer over the run starts (dims 0..k-1).
        std::vector<std::int64_t> idx(k);
        for (std::size_t d = 0; d < k; ++d)
            idx[d] = tile[d].begin;
        std::int64_t runs = 0;
        for (;;) {
            std::int64_t f0 = ro == 0 ? 0 : tile[k].begin * so[k];
            for (std::size_t d = 0; d < k; ++d)
                f0 += idx[d] * so[d];
            if (++runs > kMaxLoop * 16) {
                // Conservative: one run from here to the tile's last element.
                std::int64_t last = 0;
                for (std::size_t d = 0; d < ro; ++d)
                    last += (tile[d].end - 1) * so[d];
                addRun(f0, last);
                break;
            }
            addRun(f0, f0 + runLength - 1);
            if (wholeDims == ri)
                break;
            std::size_t d = k;
            while (d > 0 && ++idx[d - 1] == tile[d - 1].end) {
                idx[d - 1] = tile[d - 1].begin;
                --d;
            }
            if (d == 0)
                break;
        }
    }
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < ri; ++d)
        dims.push_back({{lo[d], hi[d] + 1}, {lo[d], hi[d] + 1}});
    return makeRegion(dims);
}

InputAxes reindexAxes(const Shape &out, const Shape &in)
{
    // Pair up groups of dims with equal products, skipping extent-1 dims;
    // one-to-one groups of equal extent are identities, others opaque.
    InputAxes ax;
    if (numElements(in).value_or(0) == 0) {
        ax.opaque = in != out;
        if (!ax.opaque)
            for (std::size_t d = 0; d < in.size(); ++d)
                ax.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d)));
        return ax;
    }
    std::size_t i = 0, o = 0;
    auto skipOnes = [](const Shape &s, std::size_t &p) {
        while (p < s.size() && s[p] == 1)
            ++p;
    };
    for (;;) {
        skipOnes(in, i);
        skipOnes(out, o);
        if (i == in.size() || o == out.size())
            break;
        const std::size_t i0 = i, o0 = o;
        std::int64_t pi = in[i++], po = out[o++];
        while (pi != po) {
            if (pi < po)
                pi *= in[i++];
            else
                po *= out[o++];
        }
        if (i - i0 == 1 && o - o0 == 1)
            ax.maps.push_back(axisMap(static_cast<int>(o0), static_cast<int>(i0)));
        else
            ax.opaque = true;
    }
    return ax;
}

AxisMap axisMap(int outputDim, int inputDim, std::int64_t stride, std::int64_t offset, std::int64_t window)
{
    AxisMap m;
    m.outputDim = outputDim;
    m.inputDim = inputDim;
    m.stride = stride;
    m.offset = offset;
    m.window = window;
    m.kind = stride == 1 && offset == 0 && window == 1 ? AxisMap::Kind::Identity : AxisMap::Kind::Affine;
    return m;
}

} // namespace tessera::ops::detail
