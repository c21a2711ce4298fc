// Recurrent layers (ONNX RNN-14, GRU-14, LSTM-14; opset 7's forms are the
// same without `layout`): one op each, the time loop inside.
//
// Inputs: X [T, B, I] (layout 0) or [B, T, I] (layout 1); W [D, G·H, I];
// R [D, G·H, H]; optional B [D, 2·G·H] (Wb then Rb), sequence_lens [B]
// (int32), initial_h [D, B, H] ([B, D, H] in layout 1); LSTM also
// initial_c like initial_h and P [D, 3·H] (peepholes i, o, f). G is 1 (RNN),
// 3 (GRU: z, r, h) or 4 (LSTM: i, o, f, c); D is 2 for direction
// "bidirectional", else 1; H is hidden_size (checked against W).
// Outputs (each optional): Y [T, D, B, H] ([B, T, D, H] in layout 1), Y_h
// [D, B, H] ([B, D, H]); LSTM's Y_c like Y_h.
// Index map: a batch row's recurrence reads only its own rows of X,
// initial_h/c and sequence_lens, but every hidden unit of step t-1 feeds
// every unit of step t: an output element reads X's whole time and feature
// extent for its batch rows, and W, R, B, P whole. Tiles split the batch
// one to one; a tile over time, direction or hidden units reads the same
// inputs as the whole batch row (the kernel reruns the row's recurrence).
// FLOPs per step, batch row and direction: 2·G·H·(I + H) for the two
// products, plus per hidden unit the gates' bias adds and activations (RNN
// 3, GRU 12, LSTM 15; peepholes 6 more).
#include "core/ops/opdef.h"

namespace tessera::ops::detail {

namespace {

struct RnnGeom {
    std::int64_t gates = 1, dirs = 1, seq = 0, batch = 0, input = 0, hidden = 0;
    bool batchFirst = false; // layout 1
};

std::int64_t gateCount(std::string_view op)
{
    return op == "LSTM" ? 4 : op == "GRU" ? 3 : 1;
}

Expected<RnnGeom> geometry(const OpContext &c)
{
    RnnGeom g;
    g.gates = gateCount(c.n.opType);
    const std::string dir = c.n.attrString("direction", "forward");
    if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
        return c.fail("direction '" + dir + "' is not forward, reverse or bidirectional");
    g.dirs = dir == "bidirectional" ? 2 : 1;
    const std::int64_t layout = c.n.attrInt("layout", 0);
    if (layout != 0 && layout != 1)
        return c.fail("layout " + std::to_string(layout) + " is neither 0 nor 1");
    g.batchFirst = layout == 1;
    const Shape &x = c.shape(0), &w = c.shape(1), &r = c.shape(2);
    if (x.size() != 3)
        return c.failAt(0, "X has shape " + dimsStr(x) + ", expected rank 3");
    g.seq = g.batchFirst ? x[1] : x[0];
    g.batch = g.batchFirst ? x[0] : x[1];
    g.input = x[2];
    g.hidden = c.n.attrInt("hidden_size", w.size() == 3 ? w[1] / g.gates : 0);
    if (g.hidden < 1 || g.hidden > kMaxExtent / 4)
        return c.fail("hidden_size " + std::to_string(g.hidden) + " must be positive");
    const std::int64_t gh = g.gates * g.hidden;
    if (w != Shape{g.dirs, gh, g.input})
        return c.failAt(1, "W has shape " + dimsStr(w) + ", expected " + dimsStr({g.dirs, gh, g.input}));
    if (r != Shape{g.dirs, gh, g.hidden})
        return c.failAt(2, "R has shape " + dimsStr(r) + ", expected " + dimsStr({g.dirs, gh, g.hidden}));
    if (c.has(3) && c.shape(3) != Shape{g.dirs, 2 * gh})
        return c.failAt(3, "B has shape " + dimsStr(c.shape(3)) + ", expected " + dimsStr({g.dirs, 2 * gh}));
    if (c.has(4)) {
        if (c.shape(4) != Shape{g.batch})
            return c.failAt(4,
                            "sequence_lens has shape " + dimsStr(c.shape(4)) + ", expected " + std::to_string(g.batch));
        if (c.in(4).dtype != DType::Int32 && c.in(4).dtype != DType::Int64)
            return c.failAt(4, "sequence_lens must be int32");
    }
    const Shape state = g.batchFirst ? Shape{g.batch, g.dirs, g.hidden} : Shape{g.dirs, g.batch, g.hidden};
    for (std::size_t i : {std::size_t{5}, std::size_t{6}})
        if (c.has(i) && (i == 5 || c.n.opType == "LSTM") && c.shape(i) != state)
            return c.failAt(i, std::string(i == 5 ? "initial_h" : "initial_c") + " has shape " + dimsStr(c.shape(i)) +
                                   ", expected " + dimsStr(state));
    if (c.n.opType == "LSTM" && c.has(7) && c.shape(7) != Shape{g.dirs, 3 * g.hidden})
        return c.failAt(7, "P has shape " + dimsStr(c.shape(7)) + ", expected " + dimsStr({g.dirs, 3 * g.hidden}));
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i) && i != 4 && c.in(i).dtype != c.in(0).dtype)
            return c.failAt(i, "input " + std::to_string(i) + " is " + std::string(dtypeName(c.in(i).dtype)) +
                                   ", X is " + std::string(dtypeName(c.in(0).dtype)));
    if (c.n.attr("activations")) {
        const auto &acts = std::get<std::vector<std::string>>(c.n.attr("activations")->value);
        const std::size_t want = static_cast<std::size_t>(g.dirs) * (c.n.opType == "LSTM"  ? 3
                                                                     : c.n.opType == "GRU" ? 2
                                                                                           : 1);
        if (acts.size() != want)
            return c.fail(std::to_string(acts.size()) + " activations given, expected " + std::to_string(want));
    }
    return g;
}

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    auto g = geometry(c);
    if (!g)
        return g.status();
    const DType t = c.in(0).dtype;
    const Shape y =
        g->batchFirst ? Shape{g->batch, g->seq, g->dirs, g->hidden} : Shape{g->seq, g->dirs, g->batch, g->hidden};
    const Shape state = g->batchFirst ? Shape{g->batch, g->dirs, g->hidden} : Shape{g->dirs, g->batch, g->hidden};
    outs = {{t, y}, {t, state}};
    if (c.n.opType == "LSTM")
        outs.push_back({t, state});
    outs.resize(c.n.outputs.size());
    return Status::ok();
}

double flops(const OpContext &c)
{
    auto g = geometry(c);
    if (!g)
        return 0;
    const std::string_view op = c.n.opType;
    const double perUnit = op == "LSTM" ? (c.has(7) ? 21 : 15) : op == "GRU" ? 12 : 3;
    const double steps = static_cast<double>(g->seq * g->batch * g->dirs);
    const double h = static_cast<double>(g->hidden);
    return steps * (2 * static_cast<double>(g->gates) * h * static_cast<double>(g->input + g->hidden) + perUnit * h);
}

// The batch dim of output `output` and of the state-shaped inputs.
std::size_t outBatchDim(const RnnGeom &g, int output)
{
    if (output == 0)
        return g.batchFirst ? 0 : 2;
    return g.batchFirst ? 0 : 1;
}

Status regions(const OpContext &c, int output, const Region &tile, std::vector<InputRegion> &in)
{
    auto g = geometry(c);
    if (!g)
        return g.status();
    const Interval b = tile[outBatchDim(*g, output)];
    const Shape &x = c.shape(0);
    in[0] = g->batchFirst ? makeRegion({identityDim(b, g->batch), fullDim(x[1]), fullDim(x[2])})
                          : makeRegion({fullDim(x[0]), identityDim(b, g->batch), fullDim(x[2])});
    for (std::size_t i = 1; i < c.n.inputs.size(); ++i) {
        if (!c.has(i))
            continue;
        const Shape &s = c.shape(i);
        if (i == 4)
            in[i] = makeRegion({identityDim(b, g->batch)});
        else if (i == 5 || i == 6)
            in[i] = g->batchFirst ? makeRegion({identityDim(b, g->batch), fullDim(s[1]), fullDim(s[2])})
                                  : makeRegion({fullDim(s[0]), identityDim(b, g->batch), fullDim(s[2])});
        else
            in[i] = wholeRegion(s);
    }
    return Status::ok();
}

void axes(const OpContext &c, int output, std::vector<InputAxes> &in)
{
    auto g = geometry(c);
    if (!g)
        return;
    const int ob = static_cast<int>(outBatchDim(*g, output));
    const int xb = g->batchFirst ? 0 : 1, sb = g->batchFirst ? 0 : 1;
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i) {
        if (!c.has(i))
            continue;
        const int rank = static_cast<int>(c.rank(i));
        const int batchDim = i == 0 ? xb : i == 4 ? 0 : (i == 5 || i == 6) ? sb : -1;
        InputAxes a;
        for (int d = 0; d < rank; ++d)
            if (d == batchDim)
                a.maps.push_back(axisMap(ob, d));
            else
                a.reducedDims.push_back(d);
        in[i] = a;
    }
}

using K = Attribute::Kind;
constexpr AttrSpec kRnnAttrs[] = {
    {"activation_alpha", K::Floats},
    {"activation_beta", K::Floats},
    {"activations", K::Strings},
    {"clip", K::Float},
    {"direction", K::String},
    {"hidden_size", K::Int},
    {"layout", K::Int},
    {"linear_before_reset", K::Int},
    {"input_forget", K::Int},
};
constexpr OpDef kOps[] = {
    {"RNN", 3, 6, 1, 2, kRnnAttrs, infer, flops, regions, axes},
    {"GRU", 3, 6, 1, 2, kRnnAttrs, infer, flops, regions, axes},
    {"LSTM", 3, 8, 1, 3, kRnnAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> recurrentOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
