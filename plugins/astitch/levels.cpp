#include "plugins/astitch/levels.h"

#include "core/plan/tiles.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"

#include <algorithm>
#include <set>

namespace tessera::astitch {

namespace {

bool overlaps(const ops::Region &a, const ops::Region &b)
{
    return a.size() == b.size() && !regionEmpty(regionIntersect(a, b));
}

} // namespace

Levels assignKernelLevels(Context &ctx, const Stitching &st)
{
    const Graph &g = ctx.graph;
    const std::vector<StitchKernel> &ks = st.kernels;
    const int last = static_cast<int>(ks.size()) - 1;
    Levels out;
    // Tensors another cluster reads: a consumer part overlapping a producer part of another cluster.
    std::set<TensorId> shared;
    for (const StitchKernel &k : ks)
        for (const Part &part : k.parts)
            for (const auto &[t, r] : part.read) {
                const NodeId p = g.tensor(t).producer;
                if (p == kInvalidId || shared.count(t))
                    continue;
                const StitchKernel &pk = ks[static_cast<std::size_t>(st.kernelOf[static_cast<std::size_t>(p)])];
                for (const Part &q : pk.parts) {
                    auto w = q.computed.find(t);
                    if (q.cluster != part.cluster && w != q.computed.end() && overlaps(w->second, r))
                        shared.insert(t);
                }
            }
    out.crossCluster = static_cast<int>(shared.size());
    for (std::size_t i = 0; i < ks.size(); ++i) {
        const StitchKernel &k = ks[i];
        const int at = static_cast<int>(i);
        const auto parts = static_cast<std::int64_t>(k.parts.size());
        std::int64_t work = 0;
        for (NodeId n : k.nodes)
            for (TensorId t : g.node(n).outputs)
                if (t != kInvalidId && std::find(k.outputs.begin(), k.outputs.end(), t) == k.outputs.end())
                    work += g.tensor(t).bytes();
        out.workItem.push_back(static_cast<int>(out.items.size()));
        out.items.push_back({at, at, (work + parts - 1) / parts, ctx.cores, 0});
        for (TensorId t : k.outputs) {
            const Tensor &tt = g.tensor(t);
            const bool graphOutput = std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
            int end = at;
            for (NodeId c : tt.consumers)
                end = std::max(end, st.kernelOf[static_cast<std::size_t>(c)]);
            out.itemOfOutput[t] = static_cast<int>(out.items.size());
            out.items.push_back({at, graphOutput ? last : end, (tt.bytes() + parts - 1) / parts, ctx.cores,
                                 graphOutput || shared.count(t) ? 2 : 0});
        }
    }
    std::vector<std::string> itemName(out.items.size());
    for (std::size_t i = 0; i < ks.size(); ++i) {
        itemName[static_cast<std::size_t>(out.workItem[i])] = kernelLabel(g, ks[i]) + ":work";
        for (TensorId t : ks[i].outputs)
            itemName[static_cast<std::size_t>(out.itemOfOutput[t])] = g.tensor(t).name;
    }
    std::map<int, int> asked; // (position · 4 + level) -> spills asked there
    out.assignment = assignLevels(
        out.items, static_cast<int>(ks.size()), ctx.lbPerCore, ctx.gbBytes,
        [&](const std::vector<int> &live, std::size_t preferred, int at, int level) {
            const std::vector<std::size_t> idx = victimCandidates(out.items, live, preferred);
            std::vector<DecisionOption> options;
            for (std::size_t i : idx) {
                const LiveItem &m = out.items[static_cast<std::size_t>(live[i])];
                const std::string &name = itemName[static_cast<std::size_t>(live[i])];
                options.push_back(
                    {name,
                     name + " (" + std::to_string(m.bytes) + " B)",
                     double(-(m.end - m.start)),
                     "lives " + std::to_string(m.end - m.start) + " kernels, " + std::to_string(m.bytes) + " B",
                     {}});
            }
            const StitchKernel &running = ks[static_cast<std::size_t>(at)];
            const std::string key =
                decisionKey("astitch.spill", {g.node(running.nodes.front()).name + "/" + levelName(ctx.device, level) +
                                              "/" + std::to_string(asked[at * 4 + level]++)});
            const std::int32_t pick = ctx.decisions.decide(key, "astitch.spill", options, 0);
            const std::size_t chosen = idx[static_cast<std::size_t>(pick)];
            const LiveItem &m = out.items[static_cast<std::size_t>(live[chosen])];
            auto &step = ctx.trace.add(
                "A3: memory levels (§4.3, §5.2)", levelName(ctx.device, level) + " full at " + kernelLabel(g, running),
                itemName[static_cast<std::size_t>(live[chosen])] + " spilled to " + levelName(ctx.device, level + 1),
                "the tensor with the longest liveness goes first (" + std::to_string(m.end - m.start) + " kernels)");
            step.numbers = {{"bytes", double(m.bytes)}, {"liveness", double(m.end - m.start)}};
            step.touched = running.nodes;
            ctx.trace.linkLastDecision(ctx.decisions);
            return chosen;
        });
    int counts[3] = {0, 0, 0};
    for (const auto &[t, item] : out.itemOfOutput)
        ++counts[out.assignment.level[static_cast<std::size_t>(item)]];
    auto &step = ctx.trace.add("A3: memory levels (§4.3, §5.2)", std::to_string(out.itemOfOutput.size()) + " tensors",
                               std::to_string(counts[0]) + " in " + levelName(ctx.device, 0) + ", " +
                                   std::to_string(counts[1]) + " in " + levelName(ctx.device, 1) + ", " +
                                   std::to_string(counts[2]) + " in " + levelName(ctx.device, 2),
                               "kept in the local buffer as far as it holds them; " + std::to_string(out.crossCluster) +
                                   " read across clusters live in DDR");
    step.numbers = {{"spills", double(out.assignment.spills.size())},
                    {"lb_share", out.assignment.lbShare()},
                    {"cross_cluster", double(out.crossCluster)}};
    return out;
}

} // namespace tessera::astitch
