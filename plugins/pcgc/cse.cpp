#include "plugins/pcgc/cse.h"

#include "core/ir/analysis.h"

namespace tessera::pcgc {

namespace {

// The calculation content without the attributes (sameComputation compares those).
std::string signature(const Node &node)
{
    std::string s = node.domain + "::" + node.opType + "(";
    for (TensorId t : node.inputs)
        s += std::to_string(t) + ",";
    return s + ")";
}

std::int64_t outputBytes(const Graph &g, const Node &node)
{
    std::int64_t bytes = 0;
    for (TensorId t : node.outputs)
        if (t != kInvalidId)
            bytes += g.tensor(t).bytes();
    return bytes;
}

} // namespace

bool eliminateCommon(RewriteState &state, NodeId n)
{
    const Graph &g = state.g;
    const Node &node = g.node(n);
    std::vector<NodeId> &same = state.seen[signature(node)];
    NodeId source = kInvalidId;
    for (NodeId m : same)
        if (sameComputation(g, m, n)) {
            source = m;
            break;
        }
    if (source == kInvalidId) {
        same.push_back(n);
        return false;
    }

    const Node &from = g.node(source);
    const std::size_t target = state.groupOf[static_cast<std::size_t>(source)];
    const std::size_t own = state.groupOf[static_cast<std::size_t>(n)];
    const bool acyclic = target == own || state.acyclicWith(n, target);
    const std::int64_t bytes = outputBytes(g, node);
    const double copyNs = state.cost.transferCost(bytes, "", "").timeNs;
    const double computeNs = state.timeNs({n});
    std::vector<DecisionOption> options{{"assign", "assign from " + from.name, copyNs,
                                         "copy " + std::to_string(bytes) + " B of " + from.name + "'s values",
                                         acyclic
                                             ? std::string()
                                             : "moving it into " + groupLabel(g, state.partition.groups[target].nodes) +
                                                   " would close a cycle between sub-graphs"},
                                        {"compute", "compute it again", computeNs, "the node's kernel time alone", {}}};
    const std::int32_t pick = state.decisions.decide(decisionKey("pcgc.cse", {from.name, node.name}), "pcgc.cse",
                                                     std::move(options), acyclic ? 0 : 1);
    auto &step = state.trace.add(
        "cross-boundary", "common subexpression: " + node.name + " = " + from.name + " (" + node.opType + ")",
        pick == 0 ? (target == own ? "assigned within its sub-graph" : "assigned across the fusion boundary")
        : acyclic ? "computed again (override)"
                  : "computed again: the move would close a cycle",
        "§3.4 4): same type, parameters and inputs — one evaluation, the other by assignment");
    step.touched = {source, n};
    step.numbers = {{"bytes", double(bytes)}, {"copy_ns", copyNs}, {"compute_ns", computeNs}};
    state.trace.linkLastDecision(state.decisions);
    if (pick != 0)
        return false;
    if (target != own)
        state.moveNode(n, target);
    state.partition.assigned.push_back({n, source});
    step.delta = {node.name + " := " + from.name + " in " + groupLabel(g, state.partition.groups[target].nodes)};
    ++state.result.assigned;
    return true;
}

} // namespace tessera::pcgc
