#include "plugins/brickdl/partition.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tessera::brickdl {

namespace {

std::string mib(std::int64_t bytes)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return buf;
}

} // namespace

std::vector<SubGraph> partitionGraph(const Graph &g, const std::vector<NodeId> &order, const PartitionOptions &options,
                                     DecisionContext &decisions, Trace &trace)
{
    std::vector<SubGraph> reversed;
    SubGraph cur; // nodes in reverse topological order while open
    auto close = [&] {
        if (cur.nodes.empty())
            return;
        std::reverse(cur.nodes.begin(), cur.nodes.end());
        cur.outputs = subGraphOutputs(g, cur.nodes);
        cur.footprintBytes = memoizedFootprint(g, cur.nodes);
        reversed.push_back(std::move(cur));
        cur = SubGraph{};
    };
    // Starts a merged sub-graph with n, or a library segment when n alone overflows.
    auto start = [&](NodeId n) {
        const std::int64_t f = memoizedFootprint(g, {n});
        cur.nodes = {n};
        cur.merged = f <= options.capacityBytes;
        if (!cur.merged) {
            cur.libraryReason =
                "footprint " + mib(f) + " alone exceeds " + options.level + " capacity " + mib(options.capacityBytes);
            auto &s = trace.add("§3.3.1 partition", g.node(n).opType + " " + g.node(n).name, "library kernel",
                                cur.libraryReason);
            s.touched = {n};
            close();
        }
    };

    for (std::size_t i = order.size(); i-- > 0;) {
        const NodeId n = order[i];
        const Node &node = g.node(n);
        const std::string reason = notBrickable(g, n);
        if (!reason.empty()) {
            if (cur.merged)
                close();
            if (cur.nodes.empty())
                cur.libraryReason = reason;
            cur.nodes.push_back(n);
            auto &s = trace.add("§3.3.1 partition", node.opType + " " + node.name, "library kernel", reason);
            s.touched = {n};
            continue;
        }
        if (!cur.merged)
            close();
        if (cur.nodes.empty()) {
            start(n);
            continue;
        }
        std::vector<NodeId> grown = cur.nodes;
        grown.push_back(n);
        const std::int64_t fCur = memoizedFootprint(g, cur.nodes);
        const std::int64_t fNew = memoizedFootprint(g, grown);
        const bool fits = fNew <= options.capacityBytes;
        const bool full = static_cast<double>(fCur) >= options.cutFill * static_cast<double>(options.capacityBytes);
        const bool shrinks = shrinkingReduction(g, n);
        const bool preferCut = !fits || shrinks || (preferredCut(node) && full);
        std::vector<DecisionOption> opts{
            {"merge", "merge into the sub-graph after it", static_cast<double>(fNew),
             "footprint " + mib(fNew) + " of " + mib(options.capacityBytes),
             fits ? std::string{}
                  : "footprint " + mib(fNew) + " exceeds " + options.level + " capacity " + mib(options.capacityBytes)},
            {"cut",
             "end the sub-graph before here",
             static_cast<double>(fCur),
             "sub-graph after it keeps " + mib(fCur) + (preferredCut(node) ? "; cut after a reduction/global op" : ""),
             {}}};
        const std::int32_t pick = decisions.decide(decisionKey("brickdl.cut", {node.name}), "brickdl.cut",
                                                   std::move(opts), preferCut ? 1 : 0);
        auto &s = trace.add(
            "§3.3.1 partition", node.opType + " " + node.name,
            pick == 0 ? "merged (" + std::to_string(grown.size()) + " nodes)" : "cut: ends a sub-graph",
            !fits                         ? "merging would overflow " + options.level
            : pick != (preferCut ? 1 : 0) ? std::string("override")
            : shrinks                     ? std::string("pooling shrinks the map: cut after it")
            : preferCut
                ? "reduction/global op with the sub-graph after it " +
                      std::to_string(std::lround(100.0 * double(fCur) / double(options.capacityBytes))) + " % full"
                : "fits in " + options.level);
        s.numbers = {{"footprint_bytes", double(fNew)}, {"capacity_bytes", double(options.capacityBytes)}};
        s.touched = {n};
        trace.linkLastDecision(decisions);
        if (pick == 0) {
            cur.nodes.push_back(n);
        } else {
            close();
            start(n);
        }
    }
    close();
    std::reverse(reversed.begin(), reversed.end());
    for (std::size_t i = 0; i < reversed.size(); ++i)
        reversed[i].index = static_cast<std::int32_t>(i);
    return reversed;
}

} // namespace tessera::brickdl
