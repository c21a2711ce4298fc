#include "plugins/welder/graphconnecting.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace tessera::welder {

namespace {

std::string fmtNs(double ns)
{
    std::ostringstream s;
    s.precision(4);
    s << ns / 1000.0 << " µs";
    return s.str();
}

} // namespace

Expected<ConnectStats> graphConnecting(TileGraph &tg, KernelCoster &coster, const std::vector<int> &allowed,
                                       DecisionContext &decisions, Trace &trace, const std::atomic<bool> *cancel,
                                       const std::function<void(double)> &progress, ConnectJournal *journal)
{
    const Graph &g = tg.graph();
    const WelderLevels &levels = *coster.context().levels;
    ConnectStats stats;
    stats.edgesAt.assign(static_cast<std::size_t>(levels.top() + 1), 0);
    std::size_t visited = 0;
    // Following the journal while this run's choices are the recorded ones.
    bool following = journal && journal->allowed == allowed;
    std::size_t recorded = 0;
    ConnectJournal now;
    now.allowed = allowed;
    for (NodeId node : tg.topoOrder()) {
        if (progress)
            progress(static_cast<double>(visited++) / static_cast<double>(tg.topoOrder().size()));
        for (int e : tg.outEdges(node)) {
            if (cancel && cancel->load(std::memory_order_relaxed))
                return Status::error(ErrorCode::Cancelled, "cancelled");
            const TileEdge edge = tg.edges()[static_cast<std::size_t>(e)];
            const Node &p = g.node(edge.producer);
            const Node &c = g.node(edge.consumer);
            std::vector<DecisionOption> options;
            std::vector<int> optionLevel;
            std::int32_t preferred = -1;
            double best = std::numeric_limits<double>::infinity(), bestInner = 0;
            auto &step = trace.add("Fig. 7 graph connecting", "SetConnect " + tg.edgeName(e));
            step.touched = {edge.producer, edge.consumer};
            const ConnectJournal::Edge *known = nullptr;
            if (following && recorded < journal->edges.size() && journal->edges[recorded].edge == e)
                known = &journal->edges[recorded++];
            else
                following = false;
            if (known) {
                options = known->options;
                optionLevel = known->optionLevel;
                preferred = known->preferred;
                step.numbers = known->numbers;
                stats.trials += static_cast<int>(allowed.size());
                ++stats.journalled;
            } else {
                // Whichever level above 0 connects the edge, the merged sub-graph (ExtractSubgraph at
                // level 0) is the same, and so is its convexity: found once for the edge's trials.
                std::vector<NodeId> merged;
                std::vector<int> upper;
                NodeId via = kInvalidId;
                for (int level : allowed)
                    if (level > 0)
                        upper.push_back(level);
                if (!upper.empty() && !p.opaque && !c.opaque) {
                    tg.setConnect(e, upper.front());
                    merged = tg.extractSubgraph(edge.producer, 0);
                    tg.setConnect(e, 0);
                    via = tg.wouldCycle(merged);
                    if (via == kInvalidId)
                        stats.concurrentTrials += coster.searchTrials(tg, e, merged, upper);
                }
                for (int level : allowed) {
                    DecisionOption o;
                    o.id = levels.at(level).name;
                    double inner = 0; // level-1 traffic: the tie-break between equal estimates
                    ++stats.trials;
                    if (level == 0) {
                        tg.setConnect(e, 0);
                        const auto a = tg.extractSubgraph(edge.producer, 0);
                        const auto b = tg.extractSubgraph(edge.consumer, 0);
                        o.cost = coster.costNs(a) + (a == b ? 0.0 : coster.costNs(b));
                        o.label = "not connected (through " + o.id + ")";
                        o.detail = std::to_string(a.size()) + " + " + std::to_string(a == b ? 0 : b.size()) +
                                   " nodes in two kernels, " + fmtNs(o.cost);
                        inner = 0;
                    } else if (p.opaque || c.opaque) {
                        o.label = "connect at " + o.id;
                        o.illegalReason = (p.opaque ? p.name : c.name) + " is opaque: no index map to propagate tiles";
                    } else {
                        o.label = "connect at " + o.id;
                        if (via != kInvalidId) {
                            o.illegalReason = "the fused kernel would not be convex: a path leaves it through " +
                                              g.node(via).name + " and re-enters";
                        } else {
                            tg.setConnect(e, level);
                            const Tiling &t = coster.tiling(merged);
                            inner = t.candidates.empty() ? 0.0 : t.candidates.front().innerTraffic;
                            o.cost = coster.costOf(t, merged);
                            tg.setConnect(e, 0);
                            if (t.candidates.empty() || std::isinf(o.cost)) {
                                o.illegalReason = t.failure.empty() ? "no tile found" : t.failure;
                                o.cost = std::nan("");
                            } else {
                                const TileChoice &bestTile = t.candidates.front();
                                o.detail = std::to_string(merged.size()) + " nodes, tile " + bestTile.label() + ", " +
                                           std::to_string(static_cast<std::int64_t>(bestTile.traffic.total)) +
                                           " B at " + levels.at(0).name + ", footprint " +
                                           std::to_string(bestTile.footprint.bytes) + " B, " + fmtNs(o.cost);
                            }
                        }
                    }
                    step.numbers.push_back({o.id + " ns", o.legal() ? o.cost : std::nan("")});
                    if (o.legal() && (o.cost < best || (o.cost == best && preferred >= 0 && inner < bestInner))) {
                        best = o.cost;
                        bestInner = inner;
                        preferred = static_cast<std::int32_t>(options.size());
                    }
                    optionLevel.push_back(level);
                    options.push_back(std::move(o));
                }
            }
            if (preferred < 0)
                preferred = 0; // level 0 is always legal
            const std::int32_t pick =
                decisions.decide(decisionKey("welder.connect", {p.name, c.name}), "welder.connect", options, preferred);
            const int level = optionLevel[static_cast<std::size_t>(pick)];
            if (known && known->level != level)
                following = false; // the edges after this one see other levels: try them again
            if (journal)
                now.edges.push_back({e, options, optionLevel, preferred, step.numbers, level});
            tg.setConnect(e, level);
            ++stats.edgesAt[static_cast<std::size_t>(level)];
            step.conclusion = level == 0 ? "not connected" : "connected at " + levels.at(level).name;
            step.why = pick == preferred ? "lowest estimated time of the trials" : "override";
            if (level > 0) {
                const auto kernel = tg.extractSubgraph(edge.producer, 0);
                std::string members;
                for (NodeId n : kernel)
                    members += (members.empty() ? "" : ", ") + g.node(n).name;
                step.delta.push_back("kernel {" + members + "}");
            }
            trace.linkLastDecision(decisions);
        }
    }
    if (journal)
        *journal = std::move(now);
    return stats;
}

} // namespace tessera::welder
