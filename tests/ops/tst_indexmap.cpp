// Brute-force check of ops::inputRegions() for every op: random shapes and
// attributes (seeded), random output tiles, and a reference written from the
// ONNX definition that lists, for each output element, the input positions its
// value depends on (conv: kernel taps over the group's channels; pools: the
// window; broadcasts: the broadcast index; reshapes: the flat index; ...).
// A tap outside the input is padding. The hull of all taps must equal the
// region, the hull of the taps inside the input the clipped region. Resize's
// map is documented as conservative: it must contain the exact hull and stay
// within two positions of it.
// The same generators feed a mutation fuzzer: valid nodes with a few random
// corruptions (extreme attributes, odd shapes, missing or wrong value inputs)
// must come back as a Status or as well-formed regions, never as a crash,
// an assertion or undefined behaviour (run it under the sanitizer preset).
#include "core/ops/ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <numeric>
#include <ostream>
#include <random>
#include <sstream>

#include "opgraph.h"

namespace tessera::ops {
void PrintTo(const Interval &i, std::ostream *os)
{
    *os << '[' << i.begin << ", " << i.end << ')';
}
} // namespace tessera::ops

namespace {

using namespace tessera;
using namespace tessera::ops;
using namespace tessera::test;
using Idx = std::vector<std::int64_t>;

class Rng
{
public:
    explicit Rng(std::uint64_t seed) : m_e(seed) {}
    std::int64_t operator()(std::int64_t lo, std::int64_t hi)
    {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(m_e);
    }
    bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(m_e); }
    template <typename T> T pick(std::initializer_list<T> v)
    {
        return *(v.begin() + (*this)(0, static_cast<std::int64_t>(v.size()) - 1));
    }
    std::mt19937_64 &engine() { return m_e; }

private:
    std::mt19937_64 m_e;
};

void forEach(const Region &box, const std::function<void(const Idx &)> &fn)
{
    if (std::any_of(box.begin(), box.end(), [](const Interval &i) { return i.empty(); }))
        return;
    Idx i(box.size());
    for (std::size_t d = 0; d < box.size(); ++d)
        i[d] = box[d].begin;
    for (;;) {
        fn(i);
        std::size_t d = box.size();
        while (d > 0 && ++i[d - 1] == box[d - 1].end) {
            i[d - 1] = box[d - 1].begin;
            --d;
        }
        if (d == 0)
            return;
    }
}

std::int64_t ravel(const Idx &o, const Shape &s)
{
    std::int64_t f = 0;
    for (std::size_t d = 0; d < s.size(); ++d)
        f = f * s[d] + o[d];
    return f;
}

Idx unravel(std::int64_t f, const Shape &s)
{
    Idx o(s.size());
    for (std::size_t d = s.size(); d-- > 0;) {
        o[d] = f % s[d];
        f /= s[d];
    }
    return o;
}

Shape npBroadcast(Shape a, Shape b)
{
    if (a.size() < b.size())
        std::swap(a, b);
    const std::size_t lead = a.size() - b.size();
    for (std::size_t d = 0; d < b.size(); ++d)
        if (a[lead + d] == 1)
            a[lead + d] = b[d];
    return a;
}

// Index of a broadcast operand of shape `in` for output index o (right-aligned).
Idx broadcastIndex(const Idx &o, const Shape &in)
{
    Idx i(in.size());
    const std::size_t lead = o.size() - in.size();
    for (std::size_t d = 0; d < in.size(); ++d)
        i[d] = in[d] == 1 ? 0 : o[lead + d];
    return i;
}

// `s` with some dims set to 1 and some leading dims dropped.
Shape broadcastable(const Shape &s, Rng &r, bool allowDrop = true)
{
    const auto drop = allowDrop ? r(0, static_cast<std::int64_t>(s.size())) : 0;
    Shape b(s.begin() + drop, s.end());
    for (auto &d : b)
        if (r.coin(0.3))
            d = 1;
    return b;
}

Shape randomShape(Rng &r, int minRank, int maxRank, std::int64_t maxDim, double zeroP = 0)
{
    Shape s(static_cast<std::size_t>(r(minRank, maxRank)));
    for (auto &d : s)
        d = r.coin(zeroP) ? 0 : r(1, maxDim);
    return s;
}

std::string idxStr(const Idx &v)
{
    std::ostringstream os;
    os << '[';
    for (std::size_t i = 0; i < v.size(); ++i)
        os << (i ? "," : "") << v[i];
    return os.str() + ']';
}

std::string tileStr(const Region &r)
{
    std::string s = "[";
    for (std::size_t i = 0; i < r.size(); ++i)
        s += (i ? ", " : "") + std::to_string(r[i].begin) + ":" + std::to_string(r[i].end);
    return s + "]";
}

std::string describe(const Graph &g, const Node &n)
{
    std::string s = n.opType + " opset " + std::to_string(g.opsetVersion) + " inputs";
    for (TensorId t : n.inputs) {
        if (t == kInvalidId) {
            s += " -";
            continue;
        }
        const Tensor &x = g.tensor(t);
        s += " " + idxStr(x.shape);
        if (x.isConstant()) {
            Idx v;
            for (std::int64_t i = 0; i < *numElements(x.data->shape); ++i)
                v.push_back(x.data->intAt(i).value_or(static_cast<std::int64_t>(x.data->floatAt(i).value_or(-999))));
            s += "=" + idxStr(v);
        }
    }
    for (const auto &[k, a] : n.attrs)
        s += " " + k + "=" + a.str();
    return s;
}

// Hull accumulator.
struct Box {
    bool any = false;
    Idx lo, hi;
    void add(const Idx &p)
    {
        if (!any) {
            lo = hi = p;
            any = true;
            return;
        }
        for (std::size_t d = 0; d < p.size(); ++d) {
            lo[d] = std::min(lo[d], p[d]);
            hi[d] = std::max(hi[d], p[d]);
        }
    }
    Region region(std::size_t rank) const
    {
        Region r(rank);
        if (any)
            for (std::size_t d = 0; d < rank; ++d)
                r[d] = {lo[d], hi[d] + 1};
        return r;
    }
};

// The taps of the reference, per input.
class Deps
{
public:
    explicit Deps(std::vector<Shape> shapes) : m_shapes(std::move(shapes)), pos(m_shapes.size()), read(m_shapes.size())
    {}
    // A tap at p: read if inside the input, padding otherwise.
    void tap(std::size_t in, const Idx &p)
    {
        pos[in].add(p);
        if (inside(in, p))
            read[in].add(p);
    }
    // A tap at p that reads r (edge/reflect padding, clamped resize taps);
    // the region holds both.
    void tap(std::size_t in, const Idx &p, const Idx &r)
    {
        EXPECT_TRUE(inside(in, r)) << "reference reads outside input " << in << ": " << idxStr(r);
        pos[in].add(p);
        pos[in].add(r);
        read[in].add(r);
    }
    bool inside(std::size_t in, const Idx &p) const
    {
        for (std::size_t d = 0; d < p.size(); ++d)
            if (p[d] < 0 || p[d] >= m_shapes[in][d])
                return false;
        return true;
    }

    std::vector<Shape> m_shapes;
    std::vector<Box> pos, read;
};

using RefFn = std::function<void(int output, const Idx &o, Deps &)>;

struct Case {
    OpGraph og;
    NodeId node = 0;
    std::vector<Shape> outShapes;
    std::function<bool(int output, std::size_t input)> used = [](int, std::size_t) { return true; };
    RefFn ref;
    bool conservative = false;   // Resize
    std::vector<bool> exactDims; // conservative maps: dims that must still be exact
};

Case makeCase(OpGraph &&og, const std::string &op, std::vector<TensorId> inputs, AttrMap attrs,
              std::vector<Shape> outShapes, RefFn ref)
{
    Case c{.og = std::move(og)};
    c.node = c.og.node(op, std::move(inputs), std::move(attrs), static_cast<int>(outShapes.size()));
    c.outShapes = std::move(outShapes);
    c.ref = std::move(ref);
    return c;
}

Region randomTile(const Shape &s, Rng &r)
{
    Region t;
    for (std::int64_t d : s) {
        if (d == 0 || r.coin(0.3)) {
            t.push_back({0, d});
            continue;
        }
        const std::int64_t b = r(0, d - 1);
        t.push_back({b, r(b + 1, d)});
    }
    if (!t.empty() && r.coin(0.04)) {
        Interval &i = t[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(t.size()) - 1))];
        i.end = i.begin;
    }
    return t;
}

void check(Case &c, Rng &r, int tiles)
{
    const Graph &g = c.og.g;
    const Node &n = g.node(c.node);
    SCOPED_TRACE(describe(g, n));
    std::vector<TensorType> outs;
    const Status st = inferShapes(g, n, outs);
    ASSERT_TRUE(st.isOk()) << st.str();
    ASSERT_EQ(outs.size(), c.outShapes.size());
    for (std::size_t k = 0; k < outs.size(); ++k)
        ASSERT_EQ(outs[k].shape, c.outShapes[k]) << "output " << k;
    std::vector<Shape> shapes;
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        shapes.push_back(g.input(n, i) ? g.input(n, i)->shape : Shape{});
    for (int k = 0; k < static_cast<int>(outs.size()); ++k) {
        for (int t = 0; t < tiles; ++t) {
            const Region tile = randomTile(outs[static_cast<std::size_t>(k)].shape, r);
            SCOPED_TRACE("output " + std::to_string(k) + " tile " + tileStr(tile));
            auto regs = inputRegions(g, n, k, tile);
            ASSERT_TRUE(regs.isOk()) << regs.status().str();
            ASSERT_EQ(regs->size(), n.inputs.size());
            Deps deps(shapes);
            forEach(tile, [&](const Idx &o) { c.ref(k, o, deps); });
            for (std::size_t i = 0; i < n.inputs.size(); ++i) {
                const InputRegion &got = (*regs)[i];
                if (!g.input(n, i)) {
                    EXPECT_FALSE(got.used);
                    EXPECT_TRUE(got.region.empty() && got.clipped.empty());
                    continue;
                }
                const std::size_t rank = shapes[i].size();
                const bool used = c.used(k, i);
                EXPECT_EQ(got.used, used) << "input " << i;
                if (!used) {
                    EXPECT_FALSE(deps.pos[i].any) << "reference taps unused input " << i;
                    EXPECT_EQ(got.region, Region(rank)) << "input " << i;
                    EXPECT_EQ(got.clipped, Region(rank)) << "input " << i;
                    continue;
                }
                if (rank == 0) {
                    EXPECT_TRUE(got.region.empty() && got.clipped.empty());
                    continue;
                }
                const Region wantRegion = deps.pos[i].region(rank), wantClipped = deps.read[i].region(rank);
                if (!c.conservative) {
                    EXPECT_EQ(got.region, wantRegion) << "input " << i << " region";
                    EXPECT_EQ(got.clipped, wantClipped) << "input " << i << " clipped";
                    continue;
                }
                for (std::size_t d = 0; d < rank && deps.read[i].any; ++d) {
                    const Interval gc = got.clipped[d], wc = wantClipped[d];
                    EXPECT_TRUE(gc.begin <= wc.begin && wc.end <= gc.end) << "dim " << d << " misses reads";
                    EXPECT_TRUE(gc.begin >= wc.begin - 2 && gc.end <= wc.end + 2) << "dim " << d << " too loose";
                    EXPECT_TRUE(got.region[d].begin <= gc.begin && gc.end <= got.region[d].end) << "dim " << d;
                    if (c.exactDims[d]) {
                        EXPECT_EQ(got.region[d], tile[d]) << "identity dim " << d;
                    }
                }
            }
            if (::testing::Test::HasFailure())
                return;
        }
    }
}

void run(Case (*gen)(Rng &), std::uint64_t seed, int cases, int tiles = 5)
{
    Rng r(seed);
    for (int i = 0; i < cases; ++i) {
        Case c = gen(r);
        SCOPED_TRACE("case " + std::to_string(i));
        check(c, r, tiles);
        if (::testing::Test::HasFailure())
            return;
    }
}

// --- convolution and pooling ------------------------------------------------------------

struct SlidingDims {
    Idx in, k, s, d, pb, pe, out;
    std::string autoPad;
};

// Random forward windows (Conv/pool output rule, written from the spec); false if invalid.
bool forwardDims(Rng &r, std::size_t k, bool ceilMode, bool dilate, SlidingDims &w)
{
    w.autoPad = r.pick<std::string>({"NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"});
    for (auto *v : {&w.in, &w.k, &w.s, &w.d, &w.pb, &w.pe, &w.out})
        v->assign(k, 0);
    for (std::size_t i = 0; i < k; ++i) {
        w.in[i] = r(1, k == 3 ? 5 : 8);
        w.k[i] = r(1, 3);
        w.s[i] = r(1, 3);
        w.d[i] = dilate ? r(1, 2) : 1;
        const std::int64_t ext = (w.k[i] - 1) * w.d[i] + 1;
        if (w.autoPad == "NOTSET") {
            w.pb[i] = r(0, 2);
            w.pe[i] = r(0, 2);
            const std::int64_t padded = w.in[i] + w.pb[i] + w.pe[i];
            if (padded < ext)
                return false;
            w.out[i] = (padded - ext + (ceilMode ? w.s[i] - 1 : 0)) / w.s[i] + 1;
            if (ceilMode && (w.out[i] - 1) * w.s[i] >= w.in[i] + w.pb[i])
                --w.out[i]; // the last window would start in the end padding
        } else if (w.autoPad == "VALID") {
            if (w.in[i] < ext)
                return false;
            w.out[i] = (w.in[i] - ext) / w.s[i] + 1;
        } else {
            w.out[i] = (w.in[i] + w.s[i] - 1) / w.s[i];
            const std::int64_t total = std::max<std::int64_t>(0, (w.out[i] - 1) * w.s[i] + ext - w.in[i]);
            w.pb[i] = w.autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
            w.pe[i] = total - w.pb[i];
        }
    }
    return true;
}

void windowAttrs(Rng &r, const SlidingDims &w, AttrMap &a)
{
    const auto ones = [](const Idx &v) { return std::all_of(v.begin(), v.end(), [](auto x) { return x == 1; }); };
    if (!ones(w.s) || r.coin())
        a["strides"] = ints(w.s);
    if (!ones(w.d) || r.coin(0.3))
        a["dilations"] = ints(w.d);
    if (w.autoPad != "NOTSET" || r.coin(0.2))
        a["auto_pad"] = str(w.autoPad);
    Idx pads = w.pb;
    pads.insert(pads.end(), w.pe.begin(), w.pe.end());
    if (w.autoPad == "NOTSET" && (r.coin() || std::any_of(pads.begin(), pads.end(), [](auto p) { return p != 0; })))
        a["pads"] = ints(pads);
}

Case convCase(Rng &r)
{
    for (;;) {
        const std::size_t k = static_cast<std::size_t>(r(1, 3));
        SlidingDims w;
        if (!forwardDims(r, k, false, true, w))
            continue;
        const std::int64_t n = r(1, 2), group = r(1, 3);
        std::int64_t cg = r(1, 2), mg = r(1, 2);
        if (r.coin(0.25))
            cg = mg = 1; // depthwise
        const std::int64_t ci = group * cg, m = group * mg;
        OpGraph og;
        Shape xs{n, ci}, ws{m, cg};
        xs.insert(xs.end(), w.in.begin(), w.in.end());
        ws.insert(ws.end(), w.k.begin(), w.k.end());
        const bool bias = r.coin();
        std::vector<TensorId> in{og.input(xs), og.input(ws)};
        if (bias)
            in.push_back(og.input({m}));
        AttrMap a;
        windowAttrs(r, w, a);
        if (group != 1 || r.coin(0.3))
            a["group"] = i64(group);
        if (r.coin(0.3))
            a["kernel_shape"] = ints(w.k);
        Shape out{n, m};
        out.insert(out.end(), w.out.begin(), w.out.end());
        return makeCase(std::move(og), "Conv", in, a, {out}, [=](int, const Idx &o, Deps &dp) {
            const std::int64_t gi = o[1] / mg;
            forEach(fullRegion(w.k), [&](const Idx &kk) {
                Idx x{o[0], 0}, wt{o[1], 0};
                for (std::size_t i = 0; i < k; ++i)
                    x.push_back(o[2 + i] * w.s[i] + kk[i] * w.d[i] - w.pb[i]);
                wt.insert(wt.end(), kk.begin(), kk.end());
                for (std::int64_t c = gi * cg; c < (gi + 1) * cg; ++c) {
                    x[1] = c;
                    wt[1] = c - gi * cg;
                    dp.tap(0, x);
                    dp.tap(1, wt);
                }
            });
            if (bias)
                dp.tap(2, {o[1]});
        });
    }
}

Case convTransposeCase(Rng &r)
{
    for (;;) {
        const std::size_t k = static_cast<std::size_t>(r(1, 3));
        const std::int64_t n = r(1, 2), group = r(1, 2), cg = r(1, 2), mg = r(1, 2);
        const std::int64_t ci = group * cg, m = group * mg;
        const int mode = static_cast<int>(r(0, 3)); // pads, output_shape, SAME_*, VALID
        const std::string autoPad = mode == 2                  ? r.pick<std::string>({"SAME_UPPER", "SAME_LOWER"})
                                    : mode == 3                ? "VALID"
                                    : mode == 1 && r.coin(0.3) ? "SAME_UPPER"
                                                               : "NOTSET";
        Idx in(k), ks(k), s(k), d(k), op(k), pb(k), pe(k), out(k);
        bool ok = true;
        for (std::size_t i = 0; i < k; ++i) {
            in[i] = r(1, 4);
            ks[i] = r(1, 3);
            s[i] = r(1, 3);
            d[i] = r(1, 2);
            op[i] = r(0, std::max(s[i], d[i]) - 1);
            const std::int64_t full = s[i] * (in[i] - 1) + op[i] + (ks[i] - 1) * d[i] + 1;
            auto split = [&](std::int64_t wanted) {
                const std::int64_t total = full - wanted;
                pb[i] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
                pe[i] = total - pb[i];
                out[i] = wanted;
            };
            if (mode == 0) {
                pb[i] = r(0, 2), pe[i] = r(0, 2);
                out[i] = full - pb[i] - pe[i];
                ok &= out[i] >= 1;
            } else if (mode == 1) {
                split(r(std::max<std::int64_t>(1, full - 3), full + 2));
            } else if (mode == 2) {
                split(in[i] * s[i]);
            } else {
                out[i] = full;
            }
        }
        if (!ok)
            continue;
        OpGraph og;
        Shape xs{n, ci}, ws{ci, mg};
        xs.insert(xs.end(), in.begin(), in.end());
        ws.insert(ws.end(), ks.begin(), ks.end());
        const bool bias = r.coin();
        std::vector<TensorId> inputs{og.input(xs), og.input(ws)};
        if (bias)
            inputs.push_back(og.input({m}));
        AttrMap a{{"strides", ints(s)}, {"dilations", ints(d)}, {"output_padding", ints(op)}};
        if (group != 1)
            a["group"] = i64(group);
        if (autoPad != "NOTSET")
            a["auto_pad"] = str(autoPad);
        if (mode == 0) {
            Idx pads = pb;
            pads.insert(pads.end(), pe.begin(), pe.end());
            a["pads"] = ints(pads);
        }
        if (mode == 1)
            a["output_shape"] = ints(out);
        Shape os{n, m};
        os.insert(os.end(), out.begin(), out.end());
        return makeCase(std::move(og), "ConvTranspose", inputs, a, {os}, [=](int, const Idx &o, Deps &dp) {
            const std::int64_t gi = o[1] / mg;
            forEach(fullRegion(ks), [&](const Idx &kk) {
                Idx x{o[0], 0}, wt{0, o[1] - gi * mg};
                bool hit = true; // every spatial dim has an input position for this tap
                for (std::size_t i = 0; i < k; ++i) {
                    const std::int64_t v = o[2 + i] + pb[i] - kk[i] * d[i];
                    hit &= ((v % s[i]) + s[i]) % s[i] == 0;
                    x.push_back(v / s[i]);
                }
                wt.insert(wt.end(), kk.begin(), kk.end());
                for (std::int64_t c = gi * cg; c < (gi + 1) * cg; ++c) {
                    x[1] = wt[0] = c;
                    if (hit)
                        dp.tap(0, x);
                    dp.tap(1, wt);
                }
            });
            if (bias)
                dp.tap(2, {o[1]});
        });
    }
}

Case poolCase(Rng &r)
{
    for (;;) {
        const bool maxPool = r.coin();
        const bool ceilMode = r.coin(0.4);
        const std::size_t k = static_cast<std::size_t>(r(1, 3));
        SlidingDims w;
        if (!forwardDims(r, k, ceilMode, maxPool, w))
            continue;
        OpGraph og;
        Shape xs{r(1, 2), r(1, 3)};
        xs.insert(xs.end(), w.in.begin(), w.in.end());
        AttrMap a{{"kernel_shape", ints(w.k)}};
        windowAttrs(r, w, a);
        if (ceilMode || r.coin(0.2))
            a["ceil_mode"] = i64(ceilMode);
        if (!maxPool && r.coin())
            a["count_include_pad"] = i64(r(0, 1));
        Shape out{xs[0], xs[1]};
        out.insert(out.end(), w.out.begin(), w.out.end());
        std::vector<Shape> outs{out};
        if (maxPool && r.coin(0.3))
            outs.push_back(out); // Indices
        return makeCase(std::move(og), maxPool ? "MaxPool" : "AveragePool", {og.input(xs)}, a, outs,
                        [=](int, const Idx &o, Deps &dp) {
                            forEach(fullRegion(w.k), [&](const Idx &kk) {
                                Idx x{o[0], o[1]};
                                for (std::size_t i = 0; i < k; ++i)
                                    x.push_back(o[2 + i] * w.s[i] + kk[i] * w.d[i] - w.pb[i]);
                                dp.tap(0, x);
                            });
                        });
    }
}

Case globalPoolCase(Rng &r)
{
    OpGraph og;
    const Shape xs = randomShape(r, 2, 5, 4);
    Shape out(xs.size(), 1);
    out[0] = xs[0], out[1] = xs[1];
    const std::string op = r.pick<std::string>({"GlobalAveragePool", "GlobalMaxPool"});
    return makeCase(std::move(og), op, {og.input(xs)}, {}, {out}, [=](int, const Idx &o, Deps &dp) {
        Region box = fullRegion(xs);
        box[0] = {o[0], o[0] + 1}, box[1] = {o[1], o[1] + 1};
        forEach(box, [&](const Idx &x) { dp.tap(0, x); });
    });
}

// --- element-wise ----------------------------------------------------------------------

Case unaryCase(Rng &r)
{
    const std::string op = r.pick<std::string>(
        {"Relu",        "LeakyRelu", "Sigmoid",  "Tanh",     "Erf", "HardSwish", "Sqrt", "Cast",
         "Identity",    "Dropout",   "Clip",     "Abs",      "Neg", "Exp",       "Log",  "Round",
         "Sin",         "Acosh",     "Softplus", "Softsign", "Elu", "Selu",      "Celu", "ThresholdedRelu",
         "HardSigmoid", "Shrink",    "IsNaN",    "IsInf",    "Sign"});
    const Shape xs = randomShape(r, 0, 4, 4, 0.05);
    OpGraph og(r.pick<std::int64_t>({11, 13, 17}));
    std::vector<TensorId> in{og.input(xs)};
    AttrMap a;
    std::vector<Shape> outs{xs};
    if (op == "LeakyRelu")
        a["alpha"] = f64(0.2);
    if (op == "Cast")
        a["to"] = i64(7);
    if (op == "Dropout") {
        if (r.coin())
            in.push_back(og.constFloats({0.25f}, Shape{}));
        if (r.coin())
            outs.push_back(xs);
    }
    if (op == "Clip") {
        for (int i = 0; i < 2; ++i)
            in.push_back(r.coin(0.3) ? kInvalidId
                         : r.coin()  ? og.input(r.coin() ? Shape{} : Shape{1})
                                     : og.constFloats({0.5f}, Shape{}));
        while (in.size() > 1 && in.back() == kInvalidId)
            in.pop_back();
    }
    Case c = makeCase(std::move(og), op, in, a, outs, [=](int k, const Idx &o, Deps &dp) {
        if (k == 1)
            return; // Dropout's mask
        dp.tap(0, o);
        if (op == "Clip")
            for (std::size_t i = 1; i < in.size(); ++i)
                if (in[i] != kInvalidId)
                    dp.tap(i, Idx(dp.m_shapes[i].size(), 0));
    });
    c.used = [op](int k, std::size_t i) { return k == 0 && (i == 0 || op == "Clip"); };
    return c;
}

Case binaryCase(Rng &r)
{
    const std::string op = r.pick<std::string>({"Add", "Sub", "Mul", "Div", "Pow", "Sum", "Max", "Min", "Mean", "Mod",
                                                "Equal", "Less", "GreaterOrEqual", "And", "Xor"});
    const Shape target = randomShape(r, 0, 4, 4, 0.05);
    const bool variadic = op == "Sum" || op == "Max" || op == "Min" || op == "Mean";
    const std::size_t n = variadic ? static_cast<std::size_t>(r(1, 4)) : 2;
    std::vector<Shape> shapes;
    OpGraph og;
    std::vector<TensorId> in;
    Shape out;
    for (std::size_t i = 0; i < n; ++i) {
        const Shape s = broadcastable(target, r);
        shapes.push_back(s);
        in.push_back(i > 0 && r.coin(0.2)
                         ? og.constFloats(std::vector<float>(static_cast<std::size_t>(*numElements(s)), 2.f), s)
                         : og.input(s));
        out = i == 0 ? s : npBroadcast(out, s);
    }
    return makeCase(std::move(og), op, in, {}, {out}, [=](int, const Idx &o, Deps &dp) {
        for (std::size_t i = 0; i < shapes.size(); ++i)
            dp.tap(i, broadcastIndex(o, shapes[i]));
    });
}

// --- matrix products --------------------------------------------------------------------

Case matmulCase(Rng &r)
{
    const bool aVec = r.coin(0.2), bVec = r.coin(0.2);
    const Shape batch = randomShape(r, 0, 2, 3);
    const Shape ab = aVec ? Shape{} : broadcastable(batch, r), bb = bVec ? Shape{} : broadcastable(batch, r);
    const std::int64_t m = r(1, 4), kk = r(1, 4), n = r(1, 4);
    Shape as = ab, bs = bb, out = npBroadcast(ab, bb);
    const std::size_t nb = out.size();
    if (aVec)
        as = {kk};
    else
        as.insert(as.end(), {m, kk}), out.push_back(m);
    if (bVec)
        bs = {kk};
    else
        bs.insert(bs.end(), {kk, n}), out.push_back(n);
    OpGraph og;
    return makeCase(std::move(og), "MatMul", {og.input(as), og.input(bs)}, {}, {out}, [=](int, const Idx &o, Deps &dp) {
        const Idx bi(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(nb));
        for (std::int64_t k = 0; k < kk; ++k) {
            Idx a = aVec ? Idx{} : broadcastIndex(bi, ab), b = bVec ? Idx{} : broadcastIndex(bi, bb);
            if (!aVec)
                a.push_back(o[nb]);
            a.push_back(k);
            b.push_back(k);
            if (!bVec)
                b.push_back(o.back());
            dp.tap(0, a);
            dp.tap(1, b);
        }
    });
}

Case gemmCase(Rng &r)
{
    const std::int64_t m = r(1, 5), n = r(1, 5), kk = r(1, 5);
    const bool ta = r.coin(), tb = r.coin();
    const int cKind = static_cast<int>(r(0, 7));
    const Shape cs =
        std::vector<Shape>{{}, {n}, {1, n}, {m, 1}, {m, n}, {1, 1}, {1}, {}}[static_cast<std::size_t>(cKind)];
    const bool hasC = cKind != 7;
    OpGraph og;
    std::vector<TensorId> in{og.input(ta ? Shape{kk, m} : Shape{m, kk}), og.input(tb ? Shape{n, kk} : Shape{kk, n})};
    if (hasC)
        in.push_back(og.input(cs));
    AttrMap a{{"alpha", f64(0.5)}};
    if (ta || r.coin())
        a["transA"] = i64(ta);
    if (tb || r.coin())
        a["transB"] = i64(tb);
    return makeCase(std::move(og), "Gemm", in, a, {{m, n}}, [=](int, const Idx &o, Deps &dp) {
        for (std::int64_t k = 0; k < kk; ++k) {
            dp.tap(0, ta ? Idx{k, o[0]} : Idx{o[0], k});
            dp.tap(1, tb ? Idx{o[1], k} : Idx{k, o[1]});
        }
        if (hasC)
            dp.tap(2, broadcastIndex(o, cs));
    });
}

// --- normalizations ---------------------------------------------------------------------

Case batchNormCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 4, 3);
    const std::int64_t ch = xs.size() >= 2 ? xs[1] : 1;
    const int mode = static_cast<int>(r(0, 2)); // inference, training (opset 15), training (opset 12)
    const bool training = mode != 0;
    OpGraph og(mode == 0 ? r.pick<std::int64_t>({9, 15}) : mode == 1 ? 15 : 12);
    std::vector<TensorId> in{og.input(xs)};
    for (int i = 0; i < 4; ++i)
        in.push_back(og.input({ch}));
    AttrMap a;
    const int outputs = mode == 0 ? 1 : mode == 1 ? static_cast<int>(r(1, 3)) : static_cast<int>(r(2, 5));
    if (mode == 1)
        a["training_mode"] = i64(1);
    std::vector<Shape> outs{xs};
    for (int i = 1; i < outputs; ++i)
        outs.push_back({ch});
    // X positions of one channel (all of X for rank 1).
    auto channel = [xs](std::int64_t c, Deps &dp) {
        Region box = fullRegion(xs);
        if (xs.size() >= 2)
            box[1] = {c, c + 1};
        forEach(box, [&](const Idx &x) { dp.tap(0, x); });
    };
    Case c = makeCase(std::move(og), "BatchNormalization", in, a, outs, [=](int k, const Idx &o, Deps &dp) {
        if (k == 0) {
            const std::int64_t cc = xs.size() >= 2 ? o[1] : 0;
            if (training)
                channel(cc, dp);
            else
                dp.tap(0, o), dp.tap(3, {cc}), dp.tap(4, {cc});
            dp.tap(1, {cc});
            dp.tap(2, {cc});
            return;
        }
        channel(xs.size() >= 2 ? o[0] : 0, dp);
        if (k <= 2)
            dp.tap(static_cast<std::size_t>(k) + 2, {o[0]});
    });
    c.used = [training](int k, std::size_t i) {
        if (k == 0)
            return i <= 2 || !training;
        return i == 0 || (k <= 2 && i == static_cast<std::size_t>(k) + 2);
    };
    return c;
}

Case layerNormCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 4, 3);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const std::int64_t axis = r.coin(0.1) ? rank : r(0, rank - 1);
    const Shape normalized(xs.begin() + axis, xs.end());
    const Shape ss = broadcastable(normalized, r), bs = broadcastable(normalized, r);
    const bool hasB = r.coin();
    OpGraph og;
    std::vector<TensorId> in{og.input(xs), og.input(ss)};
    if (hasB)
        in.push_back(og.input(bs));
    AttrMap a;
    if (axis != rank - 1 || r.coin())
        a["axis"] = i64(axis < rank && r.coin() ? axis - rank : axis);
    Shape stats = xs;
    std::fill(stats.begin() + axis, stats.end(), 1);
    std::vector<Shape> outs{xs};
    for (int i = 1, n = static_cast<int>(r(1, 3)); i < n; ++i)
        outs.push_back(stats);
    Case c = makeCase(std::move(og), "LayerNormalization", in, a, outs, [=](int k, const Idx &o, Deps &dp) {
        Region row = fullRegion(xs);
        for (std::int64_t d = 0; d < axis; ++d)
            row[static_cast<std::size_t>(d)] = {o[static_cast<std::size_t>(d)], o[static_cast<std::size_t>(d)] + 1};
        forEach(row, [&](const Idx &x) { dp.tap(0, x); });
        if (k == 0) {
            dp.tap(1, broadcastIndex(o, ss));
            if (hasB)
                dp.tap(2, broadcastIndex(o, bs));
        }
    });
    c.used = [](int k, std::size_t i) { return i == 0 || k == 0; };
    return c;
}

// InstanceNormalization: Y[n, c, ...] reads the (n, c) plane of X, scale[c], B[c].
Case instanceNormCase(Rng &r)
{
    const Shape xs = randomShape(r, 3, 5, 3);
    OpGraph og;
    std::vector<TensorId> in{og.input(xs), og.input({xs[1]}), og.input({xs[1]})};
    return makeCase(std::move(og), "InstanceNormalization", in, {}, {xs}, [=](int, const Idx &o, Deps &dp) {
        Region plane = fullRegion(xs);
        plane[0] = {o[0], o[0] + 1};
        plane[1] = {o[1], o[1] + 1};
        forEach(plane, [&](const Idx &x) { dp.tap(0, x); });
        dp.tap(1, {o[1]});
        dp.tap(2, {o[1]});
    });
}

// Quantize/DequantizeLinear are element-wise; a per-axis scale and zero
// point read their entry at the output's `axis` index, a scalar one whole.
Case quantizeLinearCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 4, 4);
    const bool quantize = r.coin(), perAxis = r.coin();
    const auto axis = static_cast<std::size_t>(r(0, static_cast<std::int64_t>(xs.size()) - 1));
    const Shape ps = perAxis ? Shape{xs[axis]} : Shape{};
    OpGraph og;
    std::vector<TensorId> in{og.input(xs, quantize ? DType::Float32 : DType::UInt8), og.input(ps),
                             og.input(ps, DType::UInt8)};
    AttrMap attrs{{"axis", i64(static_cast<std::int64_t>(axis))}};
    return makeCase(std::move(og), quantize ? "QuantizeLinear" : "DequantizeLinear", in, attrs, {xs},
                    [=](int, const Idx &o, Deps &dp) {
                        dp.tap(0, o);
                        for (std::size_t i = 1; i < 3; ++i)
                            dp.tap(i, perAxis ? Idx{o[axis]} : Idx{});
                    });
}

// MatMulInteger: MatMul's map for A and B; the zero points are read whole.
Case matmulIntegerCase(Rng &r)
{
    const Shape batch = randomShape(r, 0, 2, 3);
    const std::int64_t m = r(1, 4), kk = r(1, 4), n = r(1, 4);
    Shape as = batch, bs = batch, out = batch;
    as.insert(as.end(), {m, kk});
    bs.insert(bs.end(), {kk, n});
    out.insert(out.end(), {m, n});
    const std::size_t nb = batch.size();
    OpGraph og;
    std::vector<TensorId> in{og.input(as, DType::UInt8), og.input(bs, DType::Int8), og.input({m}, DType::UInt8),
                             og.input({n}, DType::Int8)};
    return makeCase(std::move(og), "MatMulInteger", in, {}, {out}, [=](int, const Idx &o, Deps &dp) {
        for (std::int64_t k = 0; k < kk; ++k) {
            Idx a(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(nb)), b = a;
            a.insert(a.end(), {o[nb], k});
            b.insert(b.end(), {k, o[nb + 1]});
            dp.tap(0, a);
            dp.tap(1, b);
        }
        for (std::int64_t i = 0; i < m; ++i)
            dp.tap(2, {i});
        for (std::int64_t i = 0; i < n; ++i)
            dp.tap(3, {i});
    });
}

// Scatters and GatherND read every input whole (targets depend on index data).
Case scatterGatherCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 3, 4);
    const int kind = static_cast<int>(r(0, 2));
    OpGraph og;
    std::vector<TensorId> in{og.input(xs)};
    Shape out = xs;
    std::string op;
    if (kind == 0) { // ScatterElements with indices of data's shape
        op = "ScatterElements";
        in.push_back(og.input(xs, DType::Int64));
        in.push_back(og.input(xs));
    } else {
        const std::int64_t k = r(1, static_cast<std::int64_t>(xs.size())), rows = r(1, 3);
        in.push_back(og.input({rows, k}, DType::Int64));
        Shape tail{rows};
        tail.insert(tail.end(), xs.begin() + k, xs.end());
        if (kind == 1) {
            op = "ScatterND";
            in.push_back(og.input(tail));
        } else {
            op = "GatherND";
            out = tail;
        }
    }
    std::vector<Shape> shapes;
    for (TensorId t : in)
        shapes.push_back(og.g.tensor(t).shape);
    return makeCase(std::move(og), op, in, {}, {out}, [=](int, const Idx &, Deps &dp) {
        for (std::size_t i = 0; i < shapes.size(); ++i)
            forEach(fullRegion(shapes[i]), [&](const Idx &p) { dp.tap(i, p); });
    });
}

// TopK reads its whole line along the axis; LRN a window of `size`
// channels; MVN its reduced dims whole.
Case topkLrnMvnCase(Rng &r)
{
    const int kind = static_cast<int>(r(0, 2));
    OpGraph og;
    if (kind == 0) {
        const Shape xs = randomShape(r, 1, 3, 5);
        const auto axis = static_cast<std::size_t>(r(0, static_cast<std::int64_t>(xs.size()) - 1));
        const std::int64_t k = r(0, xs[axis]);
        Shape out = xs;
        out[axis] = k;
        std::vector<TensorId> in{og.input(xs), og.constInts({k})};
        Case c = makeCase(std::move(og), "TopK", in, {{"axis", i64(static_cast<std::int64_t>(axis))}}, {out, out},
                          [=](int, const Idx &o, Deps &dp) {
                              Idx p = o;
                              for (std::int64_t j = 0; j < xs[axis]; ++j) {
                                  p[axis] = j;
                                  dp.tap(0, p);
                              }
                          });
        c.used = [](int, std::size_t i) { return i == 0; };
        return c;
    }
    const Shape xs = randomShape(r, 3, 4, 5);
    if (kind == 1) {
        const std::int64_t size = r(1, 5);
        return makeCase(std::move(og), "LRN", {og.input(xs)}, {{"size", i64(size)}}, {xs},
                        [=](int, const Idx &o, Deps &dp) {
                            Idx p = o;
                            for (std::int64_t k = 0; k < size; ++k) {
                                p[1] = o[1] - (size - 1) / 2 + k;
                                dp.tap(0, p);
                            }
                        });
    }
    std::vector<std::int64_t> axes;
    for (std::int64_t d = 0; d < static_cast<std::int64_t>(xs.size()); ++d)
        if (r.coin())
            axes.push_back(d);
    if (axes.empty())
        axes.push_back(0);
    return makeCase(std::move(og), "MeanVarianceNormalization", {og.input(xs)}, {{"axes", ints(axes)}}, {xs},
                    [=](int, const Idx &o, Deps &dp) {
                        Region box;
                        for (std::size_t d = 0; d < xs.size(); ++d)
                            box.push_back(std::find(axes.begin(), axes.end(), static_cast<std::int64_t>(d)) !=
                                                  axes.end()
                                              ? Interval{0, xs[d]}
                                              : Interval{o[d], o[d] + 1});
                        forEach(box, [&](const Idx &p) { dp.tap(0, p); });
                    });
}

// Recurrent layers: an output element reads its batch row of X (every step
// and feature), of initial_h and sequence_lens, and the weights whole.
Case recurrentCase(Rng &r)
{
    const std::string op = r.pick<const char *>({"RNN", "GRU", "LSTM"});
    const std::int64_t gates = op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
    const std::int64_t t = r(1, 3), b = r(1, 4), in = r(1, 3), h = r(1, 3), dirs = r(1, 2);
    const bool batchFirst = r.coin();
    OpGraph og;
    const Shape xs = batchFirst ? Shape{b, t, in} : Shape{t, b, in};
    const Shape state = batchFirst ? Shape{b, dirs, h} : Shape{dirs, b, h};
    std::vector<TensorId> ins{og.input(xs),
                              og.input({dirs, gates * h, in}),
                              og.input({dirs, gates * h, h}),
                              og.input({dirs, 2 * gates * h}),
                              og.input({b}, DType::Int32),
                              og.input(state)};
    std::vector<Shape> shapes;
    for (TensorId id : ins)
        shapes.push_back(og.g.tensor(id).shape);
    const Shape y = batchFirst ? Shape{b, t, dirs, h} : Shape{t, dirs, b, h};
    AttrMap attrs{{"hidden_size", i64(h)}, {"layout", i64(batchFirst ? 1 : 0)}};
    if (dirs == 2)
        attrs["direction"] = str("bidirectional");
    return makeCase(std::move(og), op, ins, attrs, {y, state}, [=](int k, const Idx &o, Deps &dp) {
        const std::int64_t row = k == 0 ? o[batchFirst ? 0 : 2] : o[batchFirst ? 0 : 1];
        for (std::size_t i = 0; i < shapes.size(); ++i) {
            Region box = fullRegion(shapes[i]);
            if (i == 0 || i == 5)
                box[batchFirst ? 0 : 1] = {row, row + 1};
            if (i == 4)
                box[0] = {row, row + 1};
            forEach(box, [&](const Idx &p) { dp.tap(i, p); });
        }
    });
}

// Einsum: a batched matrix product with a broadcast batch dim, a transpose,
// or a diagonal; the map follows each operand's subscripts.
Case einsumCase(Rng &r)
{
    const int kind = static_cast<int>(r(0, 2));
    const std::int64_t b = r(1, 3), i = r(1, 4), j = r(1, 4), k = r(1, 4);
    OpGraph og;
    if (kind == 0) { // "...ij,...jk->...ik", B's batch dim broadcast
        const bool bcast = r.coin();
        std::vector<TensorId> in{og.input({b, i, j}), og.input({bcast ? 1 : b, j, k})};
        return makeCase(std::move(og), "Einsum", in, {{"equation", str("...ij,...jk->...ik")}}, {{b, i, k}},
                        [=](int, const Idx &o, Deps &dp) {
                            for (std::int64_t q = 0; q < j; ++q) {
                                dp.tap(0, {o[0], o[1], q});
                                dp.tap(1, {bcast ? 0 : o[0], q, o[2]});
                            }
                        });
    }
    if (kind == 1)
        return makeCase(std::move(og), "Einsum", {og.input({i, j})}, {{"equation", str("ij->ji")}}, {{j, i}},
                        [=](int, const Idx &o, Deps &dp) {
                            dp.tap(0, {o[1], o[0]});
                        });
    return makeCase(std::move(og), "Einsum", {og.input({b, i, i})}, {{"equation", str("bii->b")}}, {{b}},
                    [=](int, const Idx &o, Deps &dp) {
                        for (std::int64_t q = 0; q < i; ++q)
                            dp.tap(0, {o[0], q, q});
                    });
}

// GridSample: Y[n, c, h, w] reads the plane X[n, c] whole and grid[n, h, w, :].
Case gridSampleCase(Rng &r)
{
    const std::int64_t n = r(1, 2), c = r(1, 3), h = r(1, 4), w = r(1, 4), ho = r(1, 4), wo = r(1, 4);
    OpGraph og;
    std::vector<TensorId> in{og.input({n, c, h, w}), og.input({n, ho, wo, 2})};
    return makeCase(std::move(og), "GridSample", in, {}, {{n, c, ho, wo}}, [=](int, const Idx &o, Deps &dp) {
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x)
                dp.tap(0, {o[0], o[1], y, x});
        dp.tap(1, {o[0], o[2], o[3], 0});
        dp.tap(1, {o[0], o[2], o[3], 1});
    });
}

Case softmaxCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 4, 3);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const std::int64_t opset = r.pick<std::int64_t>({11, 13});
    const std::int64_t def = opset < 13 ? std::min<std::int64_t>(1, rank - 1) : rank - 1;
    const bool explicitAxis = r.coin(0.7) || def != (opset < 13 ? 1 : rank - 1);
    const std::int64_t axis = explicitAxis ? r(0, rank - 1) : def;
    OpGraph og(opset);
    AttrMap a;
    if (explicitAxis)
        a["axis"] = i64(r.coin() ? axis - rank : axis);
    const std::int64_t last = opset < 13 ? rank : axis + 1;
    return makeCase(std::move(og), "Softmax", {og.input(xs)}, a, {xs}, [=](int, const Idx &o, Deps &dp) {
        Region row;
        for (std::int64_t d = 0; d < rank; ++d) {
            const auto i = static_cast<std::size_t>(d);
            row.push_back(d >= axis && d < last ? Interval{0, xs[i]} : Interval{o[i], o[i] + 1});
        }
        forEach(row, [&](const Idx &x) { dp.tap(0, x); });
    });
}

Case reduceCase(Rng &r)
{
    const bool sum = r.coin();
    const std::int64_t opset = sum ? r.pick<std::int64_t>({11, 13}) : 13;
    const bool axesInput = sum && opset >= 13;
    const Shape xs = randomShape(r, 0, 4, 3, 0.05);
    const auto rank = static_cast<std::int64_t>(xs.size());
    std::vector<std::int64_t> axes;
    for (std::int64_t d = 0; d < rank; ++d)
        if (r.coin(0.4))
            axes.push_back(r.coin() ? d - rank : d);
    std::shuffle(axes.begin(), axes.end(), r.engine());
    const bool keep = r.coin(), noop = axesInput && r.coin(0.3), omitAxes = axes.empty() && r.coin();
    OpGraph og(opset);
    std::vector<TensorId> in{og.input(xs)};
    AttrMap a;
    if (axesInput && !omitAxes)
        in.push_back(og.constInts(axes));
    if (!axesInput && !omitAxes)
        a["axes"] = ints(axes);
    if (!keep || r.coin())
        a["keepdims"] = i64(keep);
    if (noop)
        a["noop_with_empty_axes"] = i64(1);
    std::vector<bool> reduced(xs.size(), axes.empty() && !noop);
    for (auto d : axes)
        reduced[static_cast<std::size_t>(d < 0 ? d + rank : d)] = true;
    Shape out;
    for (std::size_t d = 0; d < xs.size(); ++d)
        if (!reduced[d] || keep)
            out.push_back(reduced[d] ? 1 : xs[d]);
    const std::string op =
        sum ? "ReduceSum"
            : r.pick<std::string>({"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                                   "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"});
    Case c = makeCase(std::move(og), op, in, a, {out}, [=](int, const Idx &o, Deps &dp) {
        Region box;
        std::size_t j = 0;
        for (std::size_t d = 0; d < xs.size(); ++d) {
            box.push_back(reduced[d] ? Interval{0, xs[d]} : Interval{o[j], o[j] + 1});
            j += !reduced[d] || keep;
        }
        forEach(box, [&](const Idx &x) { dp.tap(0, x); });
    });
    c.used = [](int, std::size_t i) { return i == 0; };
    return c;
}

// ArgMax/ArgMin: one axis reduced whole, the rest one to one.
Case argCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 4, 4, 0.05);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const std::int64_t axis = r(-rank, rank - 1);
    const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    const bool keep = r.coin();
    OpGraph og;
    std::vector<TensorId> in{og.input(xs)};
    Shape out;
    for (std::size_t d = 0; d < xs.size(); ++d)
        if (d != ax || keep)
            out.push_back(d == ax ? 1 : xs[d]);
    return makeCase(std::move(og), r.coin() ? "ArgMax" : "ArgMin", in, {{"axis", i64(axis)}, {"keepdims", i64(keep)}},
                    {out}, [=](int, const Idx &o, Deps &dp) {
                        Idx x;
                        for (std::size_t d = 0, j = 0; d < xs.size(); ++d) {
                            x.push_back(d == ax ? 0 : o[j]);
                            j += d != ax || keep;
                        }
                        for (std::int64_t k = 0; k < xs[ax]; ++k) {
                            x[ax] = k;
                            dp.tap(0, x);
                        }
                    });
}

// Expand: X broadcast to the shape input's numpy broadcast with X.
Case expandCase(Rng &r)
{
    const Shape target = randomShape(r, 0, 4, 4, 0.05);
    const Shape xs = broadcastable(target, r), ss = broadcastable(target, r);
    OpGraph og;
    std::vector<TensorId> in{og.input(xs), og.constInts(ss)};
    Case c = makeCase(std::move(og), "Expand", in, {}, {npBroadcast(xs, ss)},
                      [=](int, const Idx &o, Deps &dp) { dp.tap(0, broadcastIndex(o, xs)); });
    c.used = [](int, std::size_t i) { return i == 0; };
    return c;
}

// Trilu and CumSum keep the shape; CumSum reads its whole line along the axis.
Case triluCumSumCase(Rng &r)
{
    const bool cum = r.coin();
    const Shape xs = randomShape(r, cum ? 1 : 2, 4, 4, 0.05);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const std::int64_t axis = r(0, rank - 1);
    OpGraph og;
    std::vector<TensorId> in{og.input(xs)};
    if (cum)
        in.push_back(og.constInts({axis}, Shape{}));
    Case c = makeCase(std::move(og), cum ? "CumSum" : "Trilu", in, {}, {xs}, [=](int, const Idx &o, Deps &dp) {
        if (!cum)
            return dp.tap(0, o);
        Idx x = o;
        for (std::int64_t k = 0; k < xs[static_cast<std::size_t>(axis)]; ++k) {
            x[static_cast<std::size_t>(axis)] = k;
            dp.tap(0, x);
        }
    });
    c.used = [](int, std::size_t i) { return i == 0; };
    return c;
}

// --- data movement ----------------------------------------------------------------------

Case concatCase(Rng &r)
{
    const Shape base = randomShape(r, 1, 3, 3);
    const auto rank = static_cast<std::int64_t>(base.size());
    const auto axis = static_cast<std::size_t>(r(0, rank - 1));
    std::vector<Shape> shapes(static_cast<std::size_t>(r(1, 4)), base);
    Shape out = base;
    out[axis] = 0;
    std::vector<std::int64_t> offsets;
    for (Shape &s : shapes) {
        s[axis] = r(0, 3);
        offsets.push_back(out[axis]);
        out[axis] += s[axis];
    }
    OpGraph og;
    std::vector<TensorId> in;
    for (const Shape &s : shapes)
        in.push_back(og.input(s));
    const auto a = static_cast<std::int64_t>(axis);
    return makeCase(std::move(og), "Concat", in, {{"axis", i64(r.coin() ? a - rank : a)}}, {out},
                    [=](int, const Idx &o, Deps &dp) {
                        for (std::size_t j = 0; j < shapes.size(); ++j)
                            if (o[axis] >= offsets[j] && o[axis] < offsets[j] + shapes[j][axis]) {
                                Idx x = o;
                                x[axis] -= offsets[j];
                                dp.tap(j, x);
                            }
                    });
}

Case splitCase(Rng &r)
{
    Shape xs = randomShape(r, 1, 3, 4);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const auto axis = static_cast<std::size_t>(r(0, rank - 1));
    const auto outputs = static_cast<std::size_t>(r(1, 4));
    const int mode = static_cast<int>(r(0, 2)); // split input, split attribute, equal parts
    std::vector<std::int64_t> sizes(outputs);
    for (auto &s : sizes)
        s = mode == 2 ? 0 : r(0, 3);
    if (mode == 2)
        std::fill(sizes.begin(), sizes.end(), r(1, 3));
    xs[axis] = std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
    OpGraph og(mode == 1 ? 11 : 13);
    std::vector<TensorId> in{og.input(xs)};
    AttrMap a;
    if (axis != 0 || r.coin())
        a["axis"] = i64(static_cast<std::int64_t>(axis) - (r.coin() ? rank : 0));
    if (mode == 0)
        in.push_back(og.constInts(sizes));
    if (mode == 1)
        a["split"] = ints(sizes);
    std::vector<Shape> outs;
    std::vector<std::int64_t> offsets;
    for (std::int64_t s = 0, off = 0; s < static_cast<std::int64_t>(outputs);
         off += sizes[static_cast<std::size_t>(s)], ++s) {
        offsets.push_back(off);
        outs.push_back(xs);
        outs.back()[axis] = sizes[static_cast<std::size_t>(s)];
    }
    Case c = makeCase(std::move(og), "Split", in, a, outs, [=](int k, const Idx &o, Deps &dp) {
        Idx x = o;
        x[axis] += offsets[static_cast<std::size_t>(k)];
        dp.tap(0, x);
    });
    c.used = [](int, std::size_t i) { return i == 0; };
    return c;
}

// The positions ONNX Slice selects, as its spec words it: negative starts and
// ends add the dim, then clamp to [0, dim] (step > 0) or start to [0, dim-1]
// and end to [-1, dim-1] (step < 0). (Unlike numpy, a start before the
// beginning with a negative step still selects element 0.)
std::vector<std::int64_t> specSlice(std::int64_t start, std::int64_t stop, std::int64_t step, std::int64_t dim)
{
    std::int64_t s = start < 0 ? start + dim : start, e = stop < 0 ? stop + dim : stop;
    if (step > 0)
        s = std::clamp<std::int64_t>(s, 0, dim), e = std::clamp<std::int64_t>(e, 0, dim);
    else
        s = std::clamp<std::int64_t>(s, 0, dim - 1), e = std::clamp<std::int64_t>(e, -1, dim - 1);
    std::vector<std::int64_t> out;
    for (std::int64_t i = s; step > 0 ? i < e : i > e; i += step)
        out.push_back(i);
    return out;
}

Case sliceCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 3, 6);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const bool inputs = r.coin(0.7);
    std::vector<std::int64_t> axes(static_cast<std::size_t>(rank));
    std::iota(axes.begin(), axes.end(), 0);
    std::shuffle(axes.begin(), axes.end(), r.engine());
    axes.resize(static_cast<std::size_t>(r(1, rank)));
    const bool omitAxes = r.coin(0.2);
    if (omitAxes)
        std::iota(axes.begin(), axes.end(), 0); // omitted axes are 0 .. len-1
    const bool withSteps = inputs && r.coin(0.7);
    auto bound = [&r]() {
        return r.coin(0.1) ? r.pick<std::int64_t>(
                                 {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})
                           : r(-8, 8);
    };
    std::vector<std::int64_t> starts, ends, steps, signedAxes;
    std::vector<std::vector<std::int64_t>> picked(xs.size());
    for (std::size_t d = 0; d < xs.size(); ++d) {
        picked[d].resize(static_cast<std::size_t>(xs[d]));
        std::iota(picked[d].begin(), picked[d].end(), 0);
    }
    for (auto axis : axes) {
        starts.push_back(bound());
        ends.push_back(bound());
        steps.push_back(withSteps ? r.pick<std::int64_t>({1, 2, 3, -1, -2, -3}) : 1);
        signedAxes.push_back(r.coin() ? axis - rank : axis);
        picked[static_cast<std::size_t>(axis)] =
            specSlice(starts.back(), ends.back(), steps.back(), xs[static_cast<std::size_t>(axis)]);
    }
    OpGraph og(inputs ? 13 : 9);
    std::vector<TensorId> in{og.input(xs)};
    AttrMap a;
    if (inputs) {
        in.push_back(og.constInts(starts));
        in.push_back(og.constInts(ends));
        if (!omitAxes || withSteps)
            in.push_back(omitAxes ? kInvalidId : og.constInts(signedAxes));
        if (withSteps)
            in.push_back(og.constInts(steps));
    } else {
        a["starts"] = ints(starts);
        a["ends"] = ints(ends);
        if (!omitAxes)
            a["axes"] = ints(signedAxes);
    }
    Shape out;
    for (const auto &p : picked)
        out.push_back(static_cast<std::int64_t>(p.size()));
    Case c = makeCase(std::move(og), "Slice", in, a, {out}, [=](int, const Idx &o, Deps &dp) {
        Idx x(o.size());
        for (std::size_t d = 0; d < o.size(); ++d)
            x[d] = picked[d][static_cast<std::size_t>(o[d])];
        dp.tap(0, x);
    });
    c.used = [](int, std::size_t i) { return i == 0; };
    return c;
}

Case gatherCase(Rng &r)
{
    const Shape xs = randomShape(r, 1, 3, 4);
    const auto rank = static_cast<std::int64_t>(xs.size());
    const auto axis = static_cast<std::size_t>(r(0, rank - 1));
    const Shape is = randomShape(r, 0, 2, 3);
    const std::int64_t dim = xs[axis];
    std::vector<std::int64_t> values(static_cast<std::size_t>(*numElements(is)));
    for (auto &v : values)
        v = r(-dim, dim - 1);
    const bool constant = r.coin();
    OpGraph og;
    std::vector<TensorId> in{og.input(xs), constant ? og.constInts(values, is) : og.input(is, DType::Int64)};
    Shape out(xs.begin(), xs.begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), is.begin(), is.end());
    out.insert(out.end(), xs.begin() + static_cast<std::ptrdiff_t>(axis) + 1, xs.end());
    const std::size_t q = is.size();
    AttrMap a;
    if (axis != 0 || r.coin())
        a["axis"] = i64(static_cast<std::int64_t>(axis) - (r.coin() ? rank : 0));
    return makeCase(std::move(og), "Gather", in, a, {out}, [=](int, const Idx &o, Deps &dp) {
        const Idx ii(o.begin() + static_cast<std::ptrdiff_t>(axis), o.begin() + static_cast<std::ptrdiff_t>(axis + q));
        dp.tap(1, ii);
        Idx x(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(axis));
        x.push_back(0);
        x.insert(x.end(), o.begin() + static_cast<std::ptrdiff_t>(axis + q), o.end());
        if (constant) {
            const std::int64_t v = values[static_cast<std::size_t>(ravel(ii, is))];
            x[axis] = v < 0 ? v + dim : v;
            dp.tap(0, x);
        } else {
            for (x[axis] = 0; x[axis] < dim; ++x[axis])
                dp.tap(0, x);
        }
    });
}

std::int64_t numpyReflect(std::int64_t i, std::int64_t n)
{
    if (n == 1)
        return 0;
    while (i < 0 || i >= n)
        i = i < 0 ? -i : 2 * (n - 1) - i;
    return i;
}

Case padCase(Rng &r)
{
    for (;;) {
        const Shape xs = randomShape(r, 1, 3, 4);
        const std::string mode = r.pick<std::string>({"constant", "constant", "reflect", "edge"});
        std::vector<std::int64_t> pads(2 * xs.size());
        Shape out = xs;
        for (std::size_t i = 0; i < pads.size(); ++i) {
            pads[i] = mode == "constant" ? r(-1, 3) : r(0, 5);
            out[i % xs.size()] += pads[i];
        }
        if (std::any_of(out.begin(), out.end(), [](auto d) { return d < 0; }))
            continue;
        const bool inputs = r.coin(0.7);
        OpGraph og(inputs ? 13 : 2);
        std::vector<TensorId> in{og.input(xs)};
        AttrMap a;
        if (mode != "constant" || r.coin())
            a["mode"] = str(mode);
        bool value = false;
        if (inputs) {
            in.push_back(og.constInts(pads));
            if (r.coin())
                in.push_back(r.coin() ? og.constFloats({1.f}, Shape{}) : og.input(Shape{})), value = true;
        } else {
            a["pads"] = ints(pads);
            a["value"] = f64(1.0);
        }
        const std::size_t rank = xs.size();
        Case c = makeCase(std::move(og), "Pad", in, a, {out}, [=](int, const Idx &o, Deps &dp) {
            Idx p(rank), q(rank);
            for (std::size_t d = 0; d < rank; ++d) {
                p[d] = o[d] - pads[d];
                q[d] = mode == "edge" ? std::clamp<std::int64_t>(p[d], 0, xs[d] - 1) : numpyReflect(p[d], xs[d]);
            }
            if (mode == "constant")
                dp.tap(0, p);
            else
                dp.tap(0, p, q);
            if (value && mode == "constant")
                dp.tap(2, {});
        });
        c.used = [mode](int, std::size_t i) { return i == 0 || (i == 2 && mode == "constant"); };
        return c;
    }
}

// --- shape manipulation -------------------------------------------------------------------

Case rowMajorCase(Rng &r)
{
    const std::string op = r.pick<std::string>({"Reshape", "Reshape", "Flatten", "Squeeze", "Unsqueeze"});
    Shape xs = randomShape(r, 0, 4, 4, op == "Reshape" ? 0.05 : 0.0);
    Shape out;
    OpGraph og(r.pick<std::int64_t>({11, 13, 14}));
    std::vector<TensorId> in{og.input(xs)};
    AttrMap a;
    const auto rank = static_cast<std::int64_t>(xs.size());
    if (op == "Reshape") {
        const std::int64_t total = *numElements(xs);
        out.assign(static_cast<std::size_t>(r(0, 4)), 1);
        if (total == 0) {
            if (out.empty())
                out.push_back(0);
            out[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(out.size()) - 1))] = 0;
        } else {
            std::int64_t left = total;
            for (std::int64_t p = 2; left > 1; ++p)
                while (left % p == 0) {
                    left /= p;
                    if (out.empty())
                        out.push_back(1);
                    out[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(out.size()) - 1))] *= p;
                }
        }
        std::vector<std::int64_t> spec = out;
        const bool allowZero = total == 0 || r.coin(0.2);
        if (!allowZero)
            for (std::size_t i = 0; i < spec.size() && i < xs.size(); ++i)
                if (spec[i] == xs[i] && r.coin())
                    spec[i] = 0;
        if (total > 0 && !spec.empty() && r.coin(0.6))
            spec[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(spec.size()) - 1))] = -1;
        if (allowZero)
            a["allowzero"] = i64(1);
        in.push_back(og.constInts(spec));
    } else if (op == "Flatten") {
        const std::int64_t axis = r(0, rank);
        out = {1, 1};
        for (std::int64_t d = 0; d < rank; ++d)
            out[d < axis ? 0 : 1] *= xs[static_cast<std::size_t>(d)];
        if (axis != 1 || r.coin())
            a["axis"] = i64(axis < rank && r.coin() ? axis - rank : axis);
    } else if (op == "Squeeze") {
        for (std::size_t i = 0, n = static_cast<std::size_t>(r(1, 2)); i < n; ++i)
            xs.insert(xs.begin() + r(0, static_cast<std::int64_t>(xs.size())), 1);
        og.g.tensor(in[0]).shape = xs;
        const auto rk = static_cast<std::int64_t>(xs.size());
        std::vector<std::int64_t> axes;
        for (std::int64_t d = 0; d < rk; ++d)
            if (xs[static_cast<std::size_t>(d)] == 1 && r.coin(0.7))
                axes.push_back(r.coin() ? d - rk : d);
        const bool all = r.coin(0.3);
        for (std::int64_t d = 0; d < rk; ++d)
            if (xs[static_cast<std::size_t>(d)] != 1 || (!all && std::find_if(axes.begin(), axes.end(), [&](auto x) {
                                                                     return (x < 0 ? x + rk : x) == d;
                                                                 }) == axes.end()))
                out.push_back(xs[static_cast<std::size_t>(d)]);
        if (!all && og.g.opsetVersion >= 13)
            in.push_back(og.constInts(axes));
        else if (!all)
            a["axes"] = ints(axes);
    } else {
        const auto q = r(1, 2), rk = rank + q;
        std::vector<std::int64_t> positions(static_cast<std::size_t>(rk));
        std::iota(positions.begin(), positions.end(), 0);
        std::shuffle(positions.begin(), positions.end(), r.engine());
        positions.resize(static_cast<std::size_t>(q));
        out.assign(static_cast<std::size_t>(rk), 1);
        for (std::int64_t d = 0, i = 0; d < rk; ++d)
            if (std::find(positions.begin(), positions.end(), d) == positions.end())
                out[static_cast<std::size_t>(d)] = xs[static_cast<std::size_t>(i++)];
        for (auto &p : positions)
            p = r.coin() ? p - rk : p;
        if (og.g.opsetVersion >= 13)
            in.push_back(og.constInts(positions));
        else
            a["axes"] = ints(positions);
    }
    Case c = makeCase(std::move(og), op, in, a, {out},
                      [=](int, const Idx &o, Deps &dp) { dp.tap(0, unravel(ravel(o, out), xs)); });
    c.used = [](int, std::size_t i) { return i == 0; };
    return c;
}

Case transposeCase(Rng &r)
{
    const Shape xs = randomShape(r, 0, 4, 4);
    std::vector<std::int64_t> perm(xs.size());
    std::iota(perm.begin(), perm.end(), 0);
    const bool given = r.coin(0.8);
    if (given)
        std::shuffle(perm.begin(), perm.end(), r.engine());
    else
        std::reverse(perm.begin(), perm.end());
    Shape out;
    for (auto p : perm)
        out.push_back(xs[static_cast<std::size_t>(p)]);
    OpGraph og;
    AttrMap a;
    if (given)
        a["perm"] = ints(perm);
    return makeCase(std::move(og), "Transpose", {og.input(xs)}, a, {out}, [=](int, const Idx &o, Deps &dp) {
        Idx x(o.size());
        for (std::size_t d = 0; d < o.size(); ++d)
            x[static_cast<std::size_t>(perm[d])] = o[d];
        dp.tap(0, x);
    });
}

Case shapeAndConstantCase(Rng &r)
{
    OpGraph og(r.pick<std::int64_t>({13, 15}));
    if (r.coin()) {
        const std::vector<std::int64_t> v{1, 2, 3};
        return makeCase(std::move(og), "Constant", {}, {{"value_ints", ints(v)}}, {{3}},
                        [](int, const Idx &, Deps &) {});
    }
    const Shape xs = randomShape(r, 0, 4, 3);
    const auto rank = static_cast<std::int64_t>(xs.size());
    AttrMap a;
    std::int64_t start = 0, end = rank;
    if (og.g.opsetVersion >= 15 && r.coin()) {
        const std::int64_t s = r(-5, 5), e = r(-5, 5);
        a["start"] = i64(s), a["end"] = i64(e);
        start = std::clamp<std::int64_t>(s < 0 ? s + rank : s, 0, rank);
        end = std::clamp<std::int64_t>(e < 0 ? e + rank : e, 0, rank);
    }
    Case c = makeCase(std::move(og), "Shape", {og.input(xs)}, a, {{std::max<std::int64_t>(0, end - start)}},
                      [](int, const Idx &, Deps &) {});
    c.used = [](int, std::size_t) { return false; };
    return c;
}

// --- Resize ---------------------------------------------------------------------------------

Case resizeCase(Rng &r)
{
    const std::int64_t opset = r.pick<std::int64_t>({10, 11, 13});
    const Shape xs = randomShape(r, 1, 4, 5);
    const std::size_t rank = xs.size();
    const std::string mode =
        opset == 10 ? r.pick<std::string>({"nearest", "linear"}) : r.pick<std::string>({"nearest", "linear", "cubic"});
    const std::string coord = opset == 10
                                  ? "asymmetric"
                                  : r.pick<std::string>({"half_pixel", "pytorch_half_pixel", "align_corners",
                                                         "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"});
    const std::string nearest = r.pick<std::string>({"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
    const bool useSizes = opset > 10 && r.coin();
    std::vector<float> scales(rank, 1.f), roi(2 * rank);
    std::vector<std::int64_t> sizes = xs;
    Shape out = xs;
    std::vector<bool> exact(rank);
    for (std::size_t d = 0; d < rank; ++d) {
        const bool resized = rank < 3 || d >= 2 ? r.coin(0.8) : r.coin(0.1);
        if (resized) {
            if (useSizes)
                sizes[d] = r(1, 2 * xs[d] + 1);
            else
                scales[d] = r.pick<float>({0.5f, 0.75f, 1.5f, 2.f, 3.f, 1.f});
        }
        out[d] = useSizes ? sizes[d] : static_cast<std::int64_t>(std::floor(static_cast<float>(xs[d]) * scales[d]));
        exact[d] = out[d] == xs[d] && (useSizes || scales[d] == 1.f) && coord != "tf_crop_and_resize" &&
                   coord != "tf_half_pixel_for_nn";
        roi[d] = static_cast<float>(r(0, 4)) / 10.f;
        roi[rank + d] = static_cast<float>(r(6, 10)) / 10.f;
    }
    OpGraph og(opset);
    std::vector<TensorId> in{og.input(xs)};
    AttrMap a{{"mode", str(mode)}};
    if (opset == 10) {
        in.push_back(og.constFloats(scales));
    } else {
        a["coordinate_transformation_mode"] = str(coord);
        a["nearest_mode"] = str(nearest);
        const bool roiNeeded = coord == "tf_crop_and_resize";
        in.push_back(roiNeeded ? og.constFloats(roi) : opset == 11 ? og.constFloats({}) : kInvalidId);
        in.push_back(useSizes ? (opset == 11 ? og.constFloats({}) : kInvalidId) : og.constFloats(scales));
        if (useSizes)
            in.push_back(og.constInts(sizes));
    }
    // Taps of one axis for output index o: (position, clamped position); none when extrapolated.
    auto taps = [=](std::size_t d, std::int64_t o) {
        const double in = static_cast<double>(xs[d]), on = static_cast<double>(out[d]), x = static_cast<double>(o);
        const double scale = useSizes ? on / in : scales[d];
        double src = 0;
        if (coord == "half_pixel")
            src = (x + 0.5) / scale - 0.5;
        else if (coord == "pytorch_half_pixel")
            src = out[d] > 1 ? (x + 0.5) / scale - 0.5 : 0;
        else if (coord == "align_corners")
            src = out[d] > 1 ? x * (in - 1) / (on - 1) : 0;
        else if (coord == "asymmetric")
            src = x / scale;
        else if (coord == "tf_half_pixel_for_nn")
            src = (x + 0.5) / scale;
        else
            src = out[d] > 1 ? roi[d] * (in - 1) + x * (roi[rank + d] - roi[d]) * (in - 1) / (on - 1)
                             : 0.5 * (roi[d] + roi[rank + d]) * (in - 1);
        std::vector<std::int64_t> pos;
        if (coord == "tf_crop_and_resize" && (src < 0 || src > in - 1))
            return std::vector<std::pair<std::int64_t, std::int64_t>>{};
        const auto fl = static_cast<std::int64_t>(std::floor(src));
        const bool integral = src == std::floor(src);
        if (mode == "nearest") {
            if (opset == 10)
                pos = {fl, static_cast<std::int64_t>(std::ceil(src))};
            else if (nearest == "floor")
                pos = {fl};
            else if (nearest == "ceil")
                pos = {static_cast<std::int64_t>(std::ceil(src))};
            else if (nearest == "round_prefer_floor")
                pos = {src - static_cast<double>(fl) <= 0.5 ? fl : fl + 1};
            else
                pos = {src - static_cast<double>(fl) < 0.5 ? fl : fl + 1};
        } else if (integral) {
            pos = {fl};
        } else if (mode == "linear") {
            pos = {fl, fl + 1};
        } else {
            pos = {fl - 1, fl, fl + 1, fl + 2};
        }
        std::vector<std::pair<std::int64_t, std::int64_t>> t;
        for (auto p : pos)
            t.push_back({p, std::clamp<std::int64_t>(p, 0, xs[d] - 1)});
        return t;
    };
    Case c = makeCase(std::move(og), "Resize", in, a, {out}, [=](int, const Idx &o, Deps &dp) {
        std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> per(rank);
        Region box;
        for (std::size_t d = 0; d < rank; ++d) {
            per[d] = taps(d, o[d]);
            box.push_back({0, static_cast<std::int64_t>(per[d].size())});
        }
        forEach(box, [&](const Idx &j) {
            Idx p(rank), q(rank);
            for (std::size_t d = 0; d < rank; ++d)
                std::tie(p[d], q[d]) = per[d][static_cast<std::size_t>(j[d])];
            dp.tap(0, p, q);
        });
    });
    c.used = [](int, std::size_t i) { return i == 0; };
    c.conservative = true;
    c.exactDims = exact;
    return c;
}

// --- mutation fuzzing -------------------------------------------------------------------------

std::int64_t extreme(Rng &r)
{
    return r.pick<std::int64_t>({0, 1, -1, 2, -2, 5, std::int64_t{1} << 40, -(std::int64_t{1} << 40),
                                 std::int64_t{1} << 53, std::numeric_limits<std::int64_t>::max(),
                                 std::numeric_limits<std::int64_t>::min()});
}

void mutate(Case &c, Rng &r)
{
    Graph &g = c.og.g;
    Node &n = g.node(c.node);
    static const char *kNames[] = {"axis",
                                   "axes",
                                   "perm",
                                   "kernel_shape",
                                   "strides",
                                   "pads",
                                   "dilations",
                                   "group",
                                   "auto_pad",
                                   "ceil_mode",
                                   "output_padding",
                                   "output_shape",
                                   "split",
                                   "keepdims",
                                   "starts",
                                   "ends",
                                   "transA",
                                   "transB",
                                   "to",
                                   "mode",
                                   "allowzero",
                                   "start",
                                   "end",
                                   "training_mode",
                                   "num_outputs",
                                   "noop_with_empty_axes",
                                   "stash_type",
                                   "coordinate_transformation_mode",
                                   "nearest_mode",
                                   "value_ints"};
    switch (r(0, 6)) {
    case 0: { // an attribute gets an extreme value, a wrong kind or a bogus string
        const std::string name =
            !n.attrs.empty() && r.coin(0.7)
                ? std::next(n.attrs.begin(), r(0, static_cast<std::int64_t>(n.attrs.size()) - 1))->first
                : kNames[r(0, std::size(kNames) - 1)];
        const auto kind = r(0, 4);
        if (kind == 0)
            n.attrs[name] = i64(extreme(r));
        else if (kind == 1)
            n.attrs[name] = str("bogus");
        else if (kind == 2)
            n.attrs[name] = f64(r.coin() ? 1e300 : -0.5);
        else {
            std::vector<std::int64_t> v(static_cast<std::size_t>(r(0, 7)));
            for (auto &x : v)
                x = r.coin() ? extreme(r) : r(-3, 4);
            n.attrs[name] = ints(v);
        }
        break;
    }
    case 1: // an input dim becomes odd
    case 2: {
        if (n.inputs.empty() || n.inputs[0] == kInvalidId)
            break;
        const TensorId t = n.inputs[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(n.inputs.size()) - 1))];
        if (t == kInvalidId || g.tensor(t).isConstant())
            break;
        Shape &s = g.tensor(t).shape;
        if (!s.empty() && r.coin(0.7))
            s[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(s.size()) - 1))] =
                r.coin(0.5) ? r(0, 7) : extreme(r);
        else if (r.coin() && !s.empty())
            s.pop_back();
        else
            s.push_back(r(0, 3));
        break;
    }
    case 3: // an input goes missing
        if (!n.inputs.empty())
            n.inputs[static_cast<std::size_t>(r(0, static_cast<std::int64_t>(n.inputs.size()) - 1))] = kInvalidId;
        break;
    case 4: { // a constant value input gets extreme values, or stops being constant
        for (TensorId t : n.inputs)
            if (t != kInvalidId && g.tensor(t).isConstant()) {
                if (r.coin(0.3)) {
                    g.tensor(t).data = nullptr;
                    break;
                }
                auto d = std::make_shared<TensorData>(*g.tensor(t).data);
                const auto size = dtypeSize(d->dtype);
                for (std::size_t i = 0; size == 8 && i + 8 <= d->bytes.size(); i += 8)
                    if (r.coin(0.5)) {
                        const std::int64_t v = extreme(r);
                        std::memcpy(d->bytes.data() + i, &v, 8);
                    }
                if (r.coin(0.2) && !d->bytes.empty())
                    d->bytes.resize(d->bytes.size() - 1);
                g.tensor(t).data = d;
                break;
            }
        break;
    }
    case 5: // an extra input or output
        if (r.coin())
            n.inputs.push_back(g.addTensor(
                {.name = "extra" + std::to_string(g.tensorCount()), .shape = {2}, .kind = Tensor::Kind::Input}));
        else
            n.outputs.push_back(g.addTensor({.name = "extra" + std::to_string(g.tensorCount())}));
        break;
    default: g.opsetVersion = r.pick<std::int64_t>({7, 9, 10, 11, 12, 13, 14, 18});
    }
}

// Everything the public API offers on a possibly malformed node: a Status, or
// well-formed answers. Returns whether shape inference succeeded.
bool probe(const Graph &g, const Node &n, Rng &r)
{
    std::vector<TensorType> out;
    const Status st = inferShapes(g, n, out);
    const OpCost cost = opCost(g, n);
    EXPECT_EQ(axisMaps(g, n, 0).size(), n.inputs.size());
    if (!st.isOk()) {
        EXPECT_FALSE(st.message().empty());
        EXPECT_EQ(st.location().node, n.name) << st.str();
        EXPECT_EQ(cost.flops, 0.0);
        return false;
    }
    EXPECT_GE(cost.flops, 0.0);
    for (int k = 0; k < static_cast<int>(out.size()); ++k) {
        const Shape &os = out[static_cast<std::size_t>(k)].shape;
        Region tile = fullRegion(os);
        if (!tile.empty() && r.coin())
            tile = randomTile(os, r);
        auto regs = inputRegions(g, n, k, tile);
        EXPECT_TRUE(regs.isOk()) << regs.status().str();
        if (!regs.isOk())
            continue;
        for (std::size_t i = 0; i < regs->size(); ++i) {
            const InputRegion &reg = (*regs)[i];
            const Tensor *t = g.input(n, i);
            EXPECT_EQ(reg.region.size(), t ? t->shape.size() : 0u);
            EXPECT_EQ(reg.clipped.size(), reg.region.size());
            for (std::size_t d = 0; d < reg.clipped.size() && d < reg.region.size(); ++d) {
                const Interval cl = reg.clipped[d];
                EXPECT_TRUE(cl.empty() || (cl.begin >= 0 && cl.end <= t->shape[d] && reg.region[d].begin <= cl.begin &&
                                           cl.end <= reg.region[d].end))
                    << "input " << i << " dim " << d;
            }
        }
    }
    return true;
}

void fuzz(Case (*gen)(Rng &), std::uint64_t seed, int cases)
{
    Rng r(seed);
    int ok = 0, failed = 0;
    for (int i = 0; i < cases && !::testing::Test::HasFailure(); ++i) {
        Case c = gen(r);
        for (std::int64_t m = 0, count = r(1, 3); m < count; ++m)
            mutate(c, r);
        SCOPED_TRACE("case " + std::to_string(i) + ": " + describe(c.og.g, c.og.g.node(c.node)));
        (probe(c.og.g, c.og.g.node(c.node), r) ? ok : failed)++;
    }
    // Not vacuous: mutations must both break nodes and leave some valid.
    EXPECT_GT(ok, cases / 20);
    EXPECT_GT(failed, cases / 20);
}

} // namespace

TEST(IndexMap, Conv)
{
    run(convCase, 1, 250, 4);
}
TEST(IndexMap, ConvTranspose)
{
    run(convTransposeCase, 2, 250, 4);
}
TEST(IndexMap, Pool)
{
    run(poolCase, 3, 300);
}
TEST(IndexMap, GlobalAveragePool)
{
    run(globalPoolCase, 4, 60);
}
TEST(IndexMap, Unary)
{
    run(unaryCase, 5, 300);
}
TEST(IndexMap, Binary)
{
    run(binaryCase, 6, 300);
}
TEST(IndexMap, MatMul)
{
    run(matmulCase, 7, 250);
}
TEST(IndexMap, Gemm)
{
    run(gemmCase, 8, 150);
}
TEST(IndexMap, BatchNormalization)
{
    run(batchNormCase, 9, 200);
}
TEST(IndexMap, LayerNormalization)
{
    run(layerNormCase, 10, 200);
}
TEST(IndexMap, InstanceNormalization)
{
    run(instanceNormCase, 60, 150);
}
TEST(IndexMap, QuantizeAndDequantizeLinear)
{
    run(quantizeLinearCase, 61, 150);
}
TEST(IndexMap, MatMulInteger)
{
    run(matmulIntegerCase, 62, 150);
}
TEST(IndexMap, ScattersAndGatherND)
{
    run(scatterGatherCase, 63, 150);
}
TEST(IndexMap, TopKLRNAndMeanVarianceNormalization)
{
    run(topkLrnMvnCase, 64, 200);
}
TEST(IndexMap, RecurrentLayers)
{
    run(recurrentCase, 65, 200);
}
TEST(IndexMap, Einsum)
{
    run(einsumCase, 66, 200);
}
TEST(IndexMap, GridSample)
{
    run(gridSampleCase, 67, 150);
}
TEST(IndexMap, Softmax)
{
    run(softmaxCase, 11, 150);
}
TEST(IndexMap, Reduce)
{
    run(reduceCase, 12, 250);
}
TEST(IndexMap, ArgMaxArgMin)
{
    run(argCase, 41, 200);
}
TEST(IndexMap, Expand)
{
    run(expandCase, 42, 200);
}
TEST(IndexMap, TriluAndCumSum)
{
    run(triluCumSumCase, 43, 200);
}
TEST(IndexMap, Concat)
{
    run(concatCase, 13, 200);
}
TEST(IndexMap, Split)
{
    run(splitCase, 14, 200);
}
TEST(IndexMap, Slice)
{
    run(sliceCase, 15, 400);
}
TEST(IndexMap, Gather)
{
    run(gatherCase, 16, 250);
}
TEST(IndexMap, Pad)
{
    run(padCase, 17, 300);
}
TEST(IndexMap, ReshapeFlattenSqueezeUnsqueeze)
{
    run(rowMajorCase, 18, 500);
}
TEST(IndexMap, Transpose)
{
    run(transposeCase, 19, 150);
}
TEST(IndexMap, ShapeAndConstant)
{
    run(shapeAndConstantCase, 20, 60);
}
TEST(IndexMap, Resize)
{
    run(resizeCase, 21, 400);
}

TEST(Robustness, MutatedNodesNeverCrash)
{
    Case (*const gens[])(Rng &) = {
        convCase,  convTransposeCase, poolCase,      globalPoolCase, unaryCase,     binaryCase,           matmulCase,
        gemmCase,  batchNormCase,     layerNormCase, softmaxCase,    reduceCase,    concatCase,           splitCase,
        sliceCase, gatherCase,        padCase,       rowMajorCase,   transposeCase, shapeAndConstantCase, resizeCase};
    for (std::size_t i = 0; i < std::size(gens); ++i) {
        SCOPED_TRACE("generator " + std::to_string(i));
        fuzz(gens[i], 100 + i, 300);
    }
}
