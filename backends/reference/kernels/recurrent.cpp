// RNN, GRU and LSTM on float32 (semantics in core/ops/recurrent.cpp; the
// equations are ONNX's, with its default activations: RNN Tanh, GRU Sigmoid
// and Tanh, LSTM Sigmoid, Tanh, Tanh).
//
// A tile names batch rows (and, within them, steps, directions, hidden
// units): for each batch row and direction it touches, the kernel runs that
// row's whole recurrence in double, from initial_h/initial_c (or zeros),
// over the row's sequence_lens steps (forward, or from the last valid step
// back for "reverse"), and writes the elements of the tile: Y's steps past
// the row's length are 0, Y_h/Y_c hold the state after the last step. The
// gate pre-activations are clipped to [-clip, clip] when `clip` is given.
// Every element's value depends on its batch row only, so any tiling gives
// the whole tensor's values.
#include "backends/reference/kernel.h"

#include <algorithm>
#include <cmath>

namespace tessera::reference {

namespace {

enum class Act {
    Sigmoid,
    Tanh,
    Relu,
    LeakyRelu,
    ThresholdedRelu,
    ScaledTanh,
    HardSigmoid,
    Elu,
    Softsign,
    Softplus,
    Affine
};

struct Activation {
    Act kind = Act::Tanh;
    double alpha = 0, beta = 0;

    double operator()(double x) const
    {
        switch (kind) {
        case Act::Sigmoid: return 1 / (1 + std::exp(-x));
        case Act::Tanh: return std::tanh(x);
        case Act::Relu: return std::max(x, 0.0);
        case Act::LeakyRelu: return x >= 0 ? x : alpha * x;
        case Act::ThresholdedRelu: return x > alpha ? x : 0;
        case Act::ScaledTanh: return alpha * std::tanh(beta * x);
        case Act::HardSigmoid: return std::clamp(alpha * x + beta, 0.0, 1.0);
        case Act::Elu: return x >= 0 ? x : alpha * (std::exp(x) - 1);
        case Act::Softsign: return x / (1 + std::abs(x));
        case Act::Softplus: return std::log1p(std::exp(x));
        case Act::Affine: return alpha * x + beta;
        }
        return x;
    }
};

struct ActName {
    std::string_view name;
    Act kind;
    int params;         // how many of (alpha, beta) it takes from the attribute lists
    double alpha, beta; // ONNX's defaults
};
constexpr ActName kActs[] = {
    {"Sigmoid", Act::Sigmoid, 0, 0, 0},
    {"Tanh", Act::Tanh, 0, 0, 0},
    {"Relu", Act::Relu, 0, 0, 0},
    {"LeakyRelu", Act::LeakyRelu, 1, 0.01, 0},
    {"ThresholdedRelu", Act::ThresholdedRelu, 1, 1.0, 0},
    {"ScaledTanh", Act::ScaledTanh, 2, 1.0, 1.0},
    {"HardSigmoid", Act::HardSigmoid, 2, 0.2, 0.5},
    {"Elu", Act::Elu, 1, 1.0, 0},
    {"Softsign", Act::Softsign, 0, 0, 0},
    {"Softplus", Act::Softplus, 0, 0, 0},
    {"Affine", Act::Affine, 2, 1.0, 0.0},
};

struct Geom {
    std::int64_t gates = 1, dirs = 1, seq = 0, batch = 0, input = 0, hidden = 0;
    bool batchFirst = false, reverse = false, lbr = false, inputForget = false, lstm = false, gru = false;
    double clip = 0; // 0: none
};

class RecurrentKernel final : public NodeKernel
{
public:
    RecurrentKernel(Geom g, std::vector<Activation> acts, DType lenType)
        : m_g(g), m_acts(std::move(acts)), m_lenType(lenType)
    {}

    Status compute(const KernelArgs &a, int output, const ops::Region &r) const override
    {
        const Geom &g = m_g;
        const std::size_t batchDim = output == 0 ? (g.batchFirst ? 0 : 2) : (g.batchFirst ? 0 : 1);
        for (std::int64_t b = r[batchDim].begin; b < r[batchDim].end; ++b)
            for (std::int64_t d = 0; d < g.dirs; ++d)
                TS_TRY(run(a, output, r, b, d));
        return Status::ok();
    }

private:
    double clipped(double v) const { return m_g.clip > 0 ? std::clamp(v, -m_g.clip, m_g.clip) : v; }
    const Activation &act(std::int64_t d, int k) const
    {
        const std::size_t per = m_acts.size() / static_cast<std::size_t>(m_g.dirs);
        return m_acts[static_cast<std::size_t>(d) * per + static_cast<std::size_t>(k)];
    }
    static bool inside(const ops::Region &r, std::initializer_list<std::int64_t> idx)
    {
        std::size_t k = 0;
        for (std::int64_t v : idx) {
            if (v < r[k].begin || v >= r[k].end)
                return false;
            ++k;
        }
        return true;
    }

    // Runs batch row b in direction d; writes the tile's elements of `output`.
    Status run(const KernelArgs &a, int output, const ops::Region &r, std::int64_t b, std::int64_t d) const
    {
        const Geom &g = m_g;
        const std::int64_t H = g.hidden, I = g.input, GH = g.gates * H;
        const float *x = a.in[0].as<float>(), *w = a.in[1].as<float>() + d * GH * I,
                    *rw = a.in[2].as<float>() + d * GH * H;
        auto optional = [&](std::size_t i) {
            return i < a.in.size() && a.in[i].present() ? a.in[i].as<float>() : nullptr;
        };
        const float *bias = optional(3), *h0 = optional(5), *c0 = g.lstm ? optional(6) : nullptr,
                    *peep = g.lstm ? optional(7) : nullptr;
        std::int64_t len = g.seq;
        if (a.in.size() > 4 && a.in[4].present()) {
            len = static_cast<std::int64_t>(loadNumber(m_lenType, a.in[4].data, b));
            if (len < 0 || len > g.seq)
                return Status::invalid("sequence_lens[" + std::to_string(b) + "] = " + std::to_string(len) +
                                       " is not in [0, " + std::to_string(g.seq) + "]");
        }
        const std::int64_t stateOff = g.batchFirst ? (b * g.dirs + d) * H : (d * g.batch + b) * H;
        std::vector<double> h(static_cast<std::size_t>(H), 0.0), c(static_cast<std::size_t>(H), 0.0);
        for (std::int64_t k = 0; k < H; ++k) {
            if (h0)
                h[static_cast<std::size_t>(k)] = h0[stateOff + k];
            if (c0)
                c[static_cast<std::size_t>(k)] = c0[stateOff + k];
        }
        const float *wb = bias ? bias + d * 2 * GH : nullptr, *rb = bias ? bias + d * 2 * GH + GH : nullptr;
        const float *pi = peep ? peep + d * 3 * H : nullptr;
        std::vector<double> xg(static_cast<std::size_t>(GH)), hg(static_cast<std::size_t>(GH)),
            hn(static_cast<std::size_t>(H));
        float *y = output == 0 ? a.out[0].as<float>() : nullptr;
        const bool reverse = g.reverse || d == 1;
        for (std::int64_t s = 0; s < g.seq; ++s) {
            const std::int64_t t = reverse ? len - 1 - s : s;
            if (s >= len)
                break;
            const float *xt = x + (g.batchFirst ? (b * g.seq + t) * I : (t * g.batch + b) * I);
            for (std::int64_t j = 0; j < GH; ++j) {
                double sx = wb ? wb[j] : 0.0, sh = rb ? rb[j] : 0.0;
                for (std::int64_t i = 0; i < I; ++i)
                    sx += static_cast<double>(w[j * I + i]) * xt[i];
                for (std::int64_t k = 0; k < H; ++k)
                    sh += static_cast<double>(rw[j * H + k]) * h[static_cast<std::size_t>(k)];
                xg[static_cast<std::size_t>(j)] = sx;
                hg[static_cast<std::size_t>(j)] = sh;
            }
            step(d, xg, hg, rw, rb, pi, h, c, hn);
            if (y)
                for (std::int64_t k = 0; k < H; ++k)
                    if (g.batchFirst ? inside(r, {b, t, d, k}) : inside(r, {t, d, b, k}))
                        y[g.batchFirst ? ((b * g.seq + t) * g.dirs + d) * H + k
                                       : ((t * g.dirs + d) * g.batch + b) * H + k] =
                            static_cast<float>(h[static_cast<std::size_t>(k)]);
        }
        if (y) // steps past the row's length
            for (std::int64_t t = len; t < g.seq; ++t)
                for (std::int64_t k = 0; k < H; ++k)
                    if (g.batchFirst ? inside(r, {b, t, d, k}) : inside(r, {t, d, b, k}))
                        y[g.batchFirst ? ((b * g.seq + t) * g.dirs + d) * H + k
                                       : ((t * g.dirs + d) * g.batch + b) * H + k] = 0;
        if (output > 0) {
            const std::vector<double> &state = output == 1 ? h : c;
            float *out = a.out[static_cast<std::size_t>(output)].as<float>();
            for (std::int64_t k = 0; k < H; ++k)
                if (g.batchFirst ? inside(r, {b, d, k}) : inside(r, {d, b, k}))
                    out[stateOff + k] = static_cast<float>(state[static_cast<std::size_t>(k)]);
        }
        return Status::ok();
    }

    // One step: xg = W x + Wb, hg = R h + Rb (per gate row); updates h (and c).
    void step(std::int64_t d, const std::vector<double> &xg, const std::vector<double> &hg, const float *rw,
              const float *rb, const float *peep, std::vector<double> &h, std::vector<double> &c,
              std::vector<double> &hn) const
    {
        const std::int64_t H = m_g.hidden;
        auto at = [](const std::vector<double> &v, std::int64_t i) { return v[static_cast<std::size_t>(i)]; };
        if (!m_g.gru && !m_g.lstm) { // RNN
            for (std::int64_t k = 0; k < H; ++k)
                h[static_cast<std::size_t>(k)] = act(d, 0)(clipped(at(xg, k) + at(hg, k)));
            return;
        }
        if (m_g.gru) { // gates z, r, h
            std::vector<double> reset(static_cast<std::size_t>(H));
            for (std::int64_t k = 0; k < H; ++k)
                reset[static_cast<std::size_t>(k)] = act(d, 0)(clipped(at(xg, H + k) + at(hg, H + k)));
            for (std::int64_t k = 0; k < H; ++k) {
                const double z = act(d, 0)(clipped(at(xg, k) + at(hg, k)));
                const double rg = at(reset, k);
                double pre;
                if (m_g.lbr) {
                    pre = at(xg, 2 * H + k) + rg * at(hg, 2 * H + k);
                } else { // (r ⊙ h) Rhᵀ + Rbh
                    double s = rb ? rb[2 * H + k] : 0.0;
                    for (std::int64_t j = 0; j < H; ++j)
                        s += static_cast<double>(rw[(2 * H + k) * H + j]) *
                             (at(reset, j) * h[static_cast<std::size_t>(j)]);
                    pre = at(xg, 2 * H + k) + s;
                }
                const double cand = act(d, 1)(clipped(pre));
                hn[static_cast<std::size_t>(k)] = (1 - z) * cand + z * h[static_cast<std::size_t>(k)];
            }
            h = hn;
            return;
        }
        // LSTM: gates i, o, f, c; peepholes i, o, f.
        for (std::int64_t k = 0; k < H; ++k) {
            const double cPrev = c[static_cast<std::size_t>(k)];
            const double i = act(d, 0)(clipped(at(xg, k) + at(hg, k) + (peep ? peep[k] * cPrev : 0.0)));
            const double f = m_g.inputForget ? 1 - i
                                             : act(d, 0)(clipped(at(xg, 2 * H + k) + at(hg, 2 * H + k) +
                                                                 (peep ? peep[2 * H + k] * cPrev : 0.0)));
            const double cand = act(d, 1)(clipped(at(xg, 3 * H + k) + at(hg, 3 * H + k)));
            const double cNew = f * cPrev + i * cand;
            const double o = act(d, 0)(clipped(at(xg, H + k) + at(hg, H + k) + (peep ? peep[H + k] * cNew : 0.0)));
            c[static_cast<std::size_t>(k)] = cNew;
            hn[static_cast<std::size_t>(k)] = o * act(d, 2)(cNew);
        }
        h = hn;
    }

    Geom m_g;
    std::vector<Activation> m_acts; // per direction: f (RNN); f, g (GRU); f, g, h (LSTM)
    DType m_lenType;
};

Expected<KernelPtr> makeRecurrent(const Graph &g, const Node &n)
{
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5},
                          std::size_t{6}, std::size_t{7}})
        if (i < n.inputs.size())
            TS_TRY(expectType(g, n, i, {DType::Float32}));
    Geom geo;
    geo.lstm = n.opType == "LSTM";
    geo.gru = n.opType == "GRU";
    geo.gates = geo.lstm ? 4 : geo.gru ? 3 : 1;
    const std::string dir = n.attrString("direction", "forward");
    geo.dirs = dir == "bidirectional" ? 2 : 1;
    geo.reverse = dir == "reverse";
    geo.batchFirst = n.attrInt("layout", 0) == 1;
    geo.lbr = n.attrInt("linear_before_reset", 0) != 0;
    geo.inputForget = n.attrInt("input_forget", 0) != 0;
    geo.clip = n.attrFloat("clip", 0.0);
    const Shape &x = inTensor(g, n, 0).shape;
    geo.seq = geo.batchFirst ? x[1] : x[0];
    geo.batch = geo.batchFirst ? x[0] : x[1];
    geo.input = x[2];
    geo.hidden = inTensor(g, n, 2).shape[2];
    // Activations: the attribute, or ONNX's defaults for each direction.
    std::vector<std::string> names;
    if (const Attribute *at = n.attr("activations"))
        names = std::get<std::vector<std::string>>(at->value);
    else {
        const std::vector<const char *> defaults = geo.lstm  ? std::vector<const char *>{"Sigmoid", "Tanh", "Tanh"}
                                                   : geo.gru ? std::vector<const char *>{"Sigmoid", "Tanh"}
                                                             : std::vector<const char *>{"Tanh"};
        for (std::int64_t d = 0; d < geo.dirs; ++d)
            for (const char *s : defaults)
                names.emplace_back(s);
    }
    std::vector<double> alphas, betas;
    if (const Attribute *at = n.attr("activation_alpha"))
        alphas = std::get<std::vector<double>>(at->value);
    if (const Attribute *at = n.attr("activation_beta"))
        betas = std::get<std::vector<double>>(at->value);
    std::size_t ai = 0, bi = 0;
    std::vector<Activation> acts;
    for (const std::string &name : names) {
        const auto it =
            std::find_if(std::begin(kActs), std::end(kActs), [&](const ActName &k) { return k.name == name; });
        if (it == std::end(kActs))
            return unsupported(n, "activation '" + name + "' is not supported");
        Activation f{it->kind, it->alpha, it->beta};
        if (it->params >= 1 && ai < alphas.size())
            f.alpha = alphas[ai++];
        if (it->params >= 2 && bi < betas.size())
            f.beta = betas[bi++];
        acts.push_back(f);
    }
    const DType lenType = hasInput(n, 4) ? inTensor(g, n, 4).dtype : DType::Int32;
    return KernelPtr(std::make_unique<RecurrentKernel>(geo, std::move(acts), lenType));
}

constexpr KernelEntry kKernels[] = {
    {"GRU", makeRecurrent},
    {"LSTM", makeRecurrent},
    {"RNN", makeRecurrent},
};

} // namespace

std::span<const KernelEntry> recurrentKernels()
{
    return kKernels;
}

} // namespace tessera::reference
