#include "plugins/pcgc/inlining.h"

#include <algorithm>
#include <unordered_set>

namespace tessera::pcgc {

bool inlineSmall(RewriteState &state, std::size_t grp)
{
    const Graph &g = state.g;
    FusedGroup &small = state.partition.groups[grp];
    if (small.folded || small.nodes.empty() || small.nodes.size() > kMaxInlineNodes)
        return false;
    for (NodeId n : small.nodes) {
        const OpCategory c = categoryOf(g, g.node(n));
        if (c != OpCategory::Algebraic && c != OpCategory::Broadcast)
            return false;
    }
    const std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());
    std::size_t consumer = RewriteState::kNone;
    for (NodeId n : small.nodes)
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            if (graphOutputs.count(t))
                return false;
            for (NodeId c : g.tensor(t).consumers) {
                const std::size_t cg = state.groupOf[static_cast<std::size_t>(c)];
                if (cg == grp)
                    continue;
                if (consumer != RewriteState::kNone && cg != consumer)
                    return false; // read by several sub-graphs: not duplicated
                consumer = cg;
            }
        }
    if (consumer == RewriteState::kNone)
        return false;
    FusedGroup &into = state.partition.groups[consumer];
    if (into.folded || into.category == OpCategory::Infusible)
        return false;

    std::vector<NodeId> merged = small.nodes;
    merged.insert(merged.end(), into.nodes.begin(), into.nodes.end());
    std::sort(merged.begin(), merged.end(), [&](NodeId a, NodeId b) {
        return state.rank[static_cast<std::size_t>(a)] < state.rank[static_cast<std::size_t>(b)];
    });
    const std::string title = "inline " + groupLabel(g, small.nodes) + " into " + groupLabel(g, into.nodes);
    std::vector<std::vector<NodeId>> groups = state.groupNodes();
    groups[consumer] = merged;
    groups[grp].clear();
    if (!state.acyclic(std::move(groups))) {
        auto &step = state.trace.add("cross-boundary", title, "not inlined: it would close a cycle between sub-graphs",
                                     "§3.3 B2 holds for every rewrite");
        step.touched = merged;
        return false;
    }
    const double apartNs = state.timeNs(small.nodes) + state.timeNs(into.nodes);
    const double mergedNs = state.timeNs(merged);
    const bool prefer = mergedNs <= apartNs;
    std::vector<DecisionOption> options{
        {"inline", "inline into " + groupLabel(g, into.nodes), mergedNs, "one kernel, the values never stored", {}},
        {"keep", "keep apart", apartNs, "two kernels, the values through memory", {}}};
    const std::int32_t pick = state.decisions.decide(decisionKey("pcgc.inline", nodeNames(g, small.nodes)),
                                                     "pcgc.inline", std::move(options), prefer ? 0 : 1);
    auto &step = state.trace.add("cross-boundary", title,
                                 pick == 0 ? std::string("inlined") + (prefer ? "" : " (override)")
                                 : prefer  ? std::string("kept apart (override)")
                                           : std::string("kept apart: the merged kernel is slower"),
                                 "§3.4 3): a small sub-graph of simple calculations expanded into its one consumer");
    step.touched = merged;
    step.numbers = {{"apart_ns", apartNs}, {"merged_ns", mergedNs}, {"nodes", double(small.nodes.size())}};
    state.trace.linkLastDecision(state.decisions);
    if (pick != 0)
        return false;

    state.partition.records.push_back({small.nodes, into.nodes, "inline", false, state.partition.passes + 1});
    into.category = heavier(into.category, small.category);
    for (NodeId n : small.nodes)
        state.groupOf[static_cast<std::size_t>(n)] = consumer;
    into.nodes = std::move(merged);
    small.nodes.clear();
    step.delta = {"sub-graph " + groupLabel(g, into.nodes) + " (" + std::to_string(into.nodes.size()) + " ops)"};
    ++state.result.inlined;
    return true;
}

} // namespace tessera::pcgc
