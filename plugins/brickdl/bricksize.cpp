#include "plugins/brickdl/bricksize.h"

#include "plugins/brickdl/bricklayout.h"

#include <cmath>
#include <cstdio>

namespace tessera::brickdl {

BrickSizeModel brickSizeModel(const Shape &shape, std::int64_t window, double tau)
{
    BrickSizeModel m;
    double volume = 1;
    for (int d : activationDims(shape)) {
        const auto extent = shape[static_cast<std::size_t>(d)];
        if (extent > 1) {
            volume *= static_cast<double>(extent);
            ++m.n;
        }
    }
    std::int32_t best = -1, largest = -1, smallest = -1;
    for (std::int64_t b : {4, 8, 16, 32}) {
        BrickSizeChoice c;
        c.brick = b;
        c.rho = volume / std::pow(static_cast<double>(b), m.n);
        if (b <= window)
            c.illegalReason =
                "brick " + std::to_string(b) + " is not larger than the " + std::to_string(window) + "-wide window";
        const auto idx = static_cast<std::int32_t>(m.choices.size());
        if (c.illegalReason.empty()) {
            largest = idx;
            if (smallest < 0)
                smallest = idx;
            if (c.rho <= tau && (best < 0 || c.rho > m.choices[static_cast<std::size_t>(best)].rho))
                best = idx;
        }
        m.choices.push_back(std::move(c));
    }
    m.choices.push_back({0, 0, {}});
    const auto library = static_cast<std::int32_t>(m.choices.size() - 1);
    if (best < 0)
        best = largest;
    if (best < 0 || m.n == 0) {
        m.preferred = library;
        return m;
    }
    // The fallback test ρ < B^n, with the smallest legal brick (see the header).
    const auto &s = m.choices[static_cast<std::size_t>(smallest)];
    m.preferred = s.rho < std::pow(static_cast<double>(s.brick), m.n) ? library : best;
    return m;
}

void chooseBrickSize(const Graph &g, SubGraph &sub, double tau, std::int64_t forced, DecisionContext &decisions,
                     Trace &trace)
{
    NodeId largest = sub.nodes.front();
    std::vector<std::string> names;
    for (NodeId n : sub.nodes) {
        names.push_back(g.node(n).name);
        if (g.tensor(g.node(n).outputs[0]).elements() > g.tensor(g.node(largest).outputs[0]).elements())
            largest = n;
    }
    const Shape &shape = g.tensor(g.node(largest).outputs[0]).shape;
    const std::int64_t window = largestWindow(g, sub.nodes);
    const BrickSizeModel model = brickSizeModel(shape, window, tau);
    // Why the library option is the model's choice, in words (bad input: a clear message).
    std::string libraryWhy = "layer too small for bricks";
    if (model.n == 0) {
        libraryWhy = "no batch or spatial dim to block";
    } else {
        const BrickSizeChoice *smallest = nullptr;
        for (const BrickSizeChoice &c : model.choices)
            if (c.brick > 0 && c.illegalReason.empty() && !smallest)
                smallest = &c;
        if (!smallest) {
            libraryWhy = "no brick size (4-32) is larger than the " + std::to_string(window) + "-wide window";
        } else {
            const std::string bn = std::to_string(smallest->brick) + "^" + std::to_string(model.n);
            bool smaller = true;
            for (std::size_t d = 0; d < shape.size(); ++d)
                if (d != 1 && shape[d] > 1 && shape[d] >= smallest->brick)
                    smaller = false;
            char rho[96];
            std::snprintf(rho, sizeof rho, "rho = %.2f < %s", smallest->rho, bn.c_str());
            libraryWhy = smaller ? "feature map " + shapeStr(shape) + " is smaller than one " + bn + " brick"
                                 : "too little parallelism for bricks (" + std::string(rho) + ")";
        }
    }
    std::vector<DecisionOption> opts;
    std::int32_t preferred = model.preferred;
    for (std::size_t i = 0; i < model.choices.size(); ++i) {
        const BrickSizeChoice &c = model.choices[i];
        char rho[64];
        std::snprintf(rho, sizeof rho, "%.1f", c.rho);
        if (c.brick == 0) {
            opts.push_back({"library", "library kernels", std::nan(""), libraryWhy, {}});
            continue;
        }
        const double bn = std::pow(double(c.brick), model.n);
        opts.push_back(
            {std::to_string(c.brick), "bricks of " + std::to_string(c.brick) + "^" + std::to_string(model.n),
             std::nan(""),
             std::string("rho = ") + rho + (c.rho > tau ? " > tau" : " <= tau") + (c.rho < bn ? ", below B^n" : ""),
             c.illegalReason});
        if (forced == c.brick && c.illegalReason.empty())
            preferred = static_cast<std::int32_t>(i);
    }
    const std::int32_t pick =
        decisions.decide(decisionKey("brickdl.brick", names), "brickdl.brick", std::move(opts), preferred);
    const BrickSizeChoice &c = model.choices[static_cast<std::size_t>(pick)];
    sub.blockedRank = model.n;
    if (c.brick == 0) {
        sub.merged = false;
        sub.libraryReason = pick == model.preferred ? libraryWhy : "library kernels by override";
    } else {
        sub.brick = c.brick;
        sub.rho = c.rho;
    }
    auto &s =
        trace.add("§3.3.3 brick size",
                  "sub-graph " + std::to_string(sub.index) + " on " + g.node(largest).name + " " + shapeStr(shape),
                  c.brick ? "brick " + std::to_string(c.brick) : "library kernels",
                  pick != model.preferred && forced == c.brick ? "option brick"
                  : pick != model.preferred                    ? "override"
                  : c.brick                                    ? "largest rho <= tau"
                                                               : libraryWhy);
    s.numbers = {{"rho", c.rho}, {"n", double(model.n)}, {"tau", tau}};
    s.touched = sub.nodes;
    trace.linkLastDecision(decisions);
}

} // namespace tessera::brickdl
