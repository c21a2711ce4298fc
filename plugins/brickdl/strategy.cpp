#include "plugins/brickdl/strategy.h"

#include <cmath>
#include <cstdio>

namespace tessera::brickdl {

namespace {

std::string fmt(const char *f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::vector<std::string> names(const Graph &g, const std::vector<NodeId> &nodes)
{
    std::vector<std::string> out;
    for (NodeId n : nodes)
        out.push_back(g.node(n).name);
    return out;
}

} // namespace

Strategy chooseStrategy(const Graph &g, SubGraph &sub, const PaddedBricks &padded, const MemoizedBricks &memo,
                        const StrategyEstimates &estimates, const StrategyOptions &options, DecisionContext &decisions,
                        Trace &trace)
{
    std::int64_t outputBytes = 0;
    for (NodeId n : sub.nodes)
        outputBytes += g.tensor(g.node(n).outputs[0]).bytes();
    sub.delta = padded.delta();
    sub.paddedFootprintBytes = sub.footprintBytes - outputBytes + padded.paddedBytes;
    sub.compulsoryAtomics = memo.compulsoryAtomics;
    sub.conflictAtomics = memo.conflictAtomics;
    const std::int64_t memoFootprint = sub.footprintBytes - outputBytes + memo.brickBytes + memo.tagBytes;
    auto overflow = [&](std::int64_t bytes) {
        return bytes <= options.capacityBytes
                   ? std::string{}
                   : "footprint " + fmt("%.2f MiB", double(bytes) / 1048576.0) + " exceeds " + options.level +
                         " capacity " + fmt("%.2f MiB", double(options.capacityBytes) / 1048576.0);
    };
    std::vector<DecisionOption> opts{
        {"padded", "padded bricks (recompute halos)", estimates.paddedNs,
         "Δ = " + fmt("%.1f %%", 100.0 * sub.delta) + ", " + std::to_string(padded.chains.size()) + " chains",
         overflow(sub.paddedFootprintBytes)},
        {"memoized", "memoized bricks (atomics on brick tags)", estimates.memoizedNs,
         std::to_string(memo.compulsoryAtomics) + " compulsory + " + std::to_string(memo.conflictAtomics) +
             " conflicting atomics",
         overflow(memoFootprint)},
        {"library", "library kernels (no merged execution)", std::nan(""), "whole-tensor kernels", {}}};
    std::int32_t preferred = 0;
    std::string why;
    if (options.byCost) {
        preferred = estimates.memoizedNs < estimates.paddedNs ? 1 : 0;
        why = "cheaper estimate";
    } else {
        preferred = sub.delta > options.deltaThreshold ? 1 : 0;
        why = "Δ " + std::string(preferred ? "> " : "≤ ") + fmt("%.0f %%", 100.0 * options.deltaThreshold);
    }
    if (!opts[static_cast<std::size_t>(preferred)].legal()) {
        why += "; " + opts[static_cast<std::size_t>(preferred)].id + " overflows";
        preferred = 1 - preferred;
        if (!opts[static_cast<std::size_t>(preferred)].legal())
            preferred = 2;
    }
    const std::int32_t pick = decisions.decide(decisionKey("brickdl.strategy", names(g, sub.nodes)), "brickdl.strategy",
                                               std::move(opts), preferred);
    const Strategy s = pick == 0 ? Strategy::Padded : pick == 1 ? Strategy::Memoized : Strategy::Library;
    auto &step = trace.add("§3.3.2 padded or memoized",
                           "sub-graph " + std::to_string(sub.index) + " (" + std::to_string(sub.nodes.size()) +
                               " nodes, brick " + std::to_string(sub.brick) + ")",
                           std::string(strategyName(s)), pick == preferred ? why : "override");
    step.numbers = {{"delta", sub.delta},
                    {"padded_ns", estimates.paddedNs},
                    {"memoized_ns", estimates.memoizedNs},
                    {"compulsory_atomics", double(memo.compulsoryAtomics)},
                    {"conflict_atomics", double(memo.conflictAtomics)}};
    step.touched = sub.nodes;
    trace.linkLastDecision(decisions);
    return s;
}

} // namespace tessera::brickdl
