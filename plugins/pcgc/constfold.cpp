#include "plugins/pcgc/constfold.h"

#include <algorithm>
#include <string_view>

namespace tessera::pcgc {

namespace {

bool deterministic(const Node &node)
{
    if (node.opaque)
        return false;
    for (std::string_view random :
         {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli"})
        if (node.opType == random)
            return false;
    return true;
}

} // namespace

bool foldConstant(RewriteState &state, NodeId n)
{
    const Graph &g = state.g;
    const Node &node = g.node(n);
    if (!deterministic(node))
        return false;
    std::int32_t constants = 0;
    for (TensorId t : node.inputs) {
        if (t == kInvalidId)
            continue;
        const Tensor &in = g.tensor(t);
        const bool folded = in.producer != kInvalidId && state.foldedGroup != RewriteState::kNone &&
                            state.groupOf[static_cast<std::size_t>(in.producer)] == state.foldedGroup;
        if (!in.isConstant() && !folded)
            return false;
        ++constants;
    }

    const double keepNs = state.timeNs({n});
    std::vector<DecisionOption> options{
        {"fold",
         "fold: compute once when the plan is loaded",
         0.0,
         std::to_string(constants) + " constant input(s), no varying one",
         {}},
        {"keep", "keep: compute every inference", keepNs, "the node's kernel time alone", {}}};
    const std::int32_t pick =
        state.decisions.decide(decisionKey("pcgc.fold", {node.name}), "pcgc.fold", std::move(options), 0);
    auto &step = state.trace.add("cross-boundary", "constant folding: " + node.name + " (" + node.opType + ")",
                                 pick == 0 ? "folded: computed once, when the plan is loaded" : "kept (override)",
                                 "§3.4 2): every input is a constant, so the result is calculated before the run");
    step.touched = {n};
    step.numbers = {{"constant_inputs", double(constants)}, {"saved_ns", keepNs}};
    state.trace.linkLastDecision(state.decisions);
    if (pick != 0)
        return false;

    if (state.foldedGroup == RewriteState::kNone) {
        FusedGroup folded;
        folded.category = OpCategory::Infusible;
        folded.folded = true;
        state.partition.groups.push_back(std::move(folded));
        state.foldedGroup = state.partition.groups.size() - 1;
    }
    const std::size_t from = state.groupOf[static_cast<std::size_t>(n)];
    state.moveNode(n, state.foldedGroup);
    step.delta = {node.name + " leaves " +
                      (state.partition.groups[from].nodes.empty()
                           ? std::string("its sub-graph (now empty)")
                           : "sub-graph " + groupLabel(g, state.partition.groups[from].nodes)),
                  "folded constants: " + groupLabel(g, state.partition.groups[state.foldedGroup].nodes)};
    ++state.result.folded;
    return true;
}

} // namespace tessera::pcgc
