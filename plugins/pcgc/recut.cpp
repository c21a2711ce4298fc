#include "plugins/pcgc/recut.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <set>
#include <unordered_set>

namespace tessera::pcgc {

namespace {

struct Metrics {
    double timeNs = 0;
    double energyJ = 0;
    double get(Objective o) const { return o == Objective::Time ? timeNs : energyJ; }
};

std::string fmt(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

class Recut
{
public:
    Recut(const Graph &g, const CostModel &cost, const RecutOptions &options)
        : m_g(g), m_cost(cost), m_options(options), m_rank(nodeRanks(g))
    {}

    Metrics metrics(const std::vector<NodeId> &nodes)
    {
        auto it = m_cache.find(nodes);
        if (it != m_cache.end())
            return it->second;
        const TaskCost c = m_cost.kernelCost(m_g, nodes, {});
        return m_cache[nodes] = {c.timeNs, c.energyJ};
    }

    RecutResult run(Partition &partition, DecisionContext &decisions, Trace &trace)
    {
        const Objective target = m_options.objective;
        const Objective other = target == Objective::Time ? Objective::Energy : Objective::Time;
        const std::string targetName = target == Objective::Time ? "time" : "energy";
        const std::string otherName = target == Objective::Time ? "energy" : "time";

        std::deque<std::vector<NodeId>> work;  // G (line 2)
        std::vector<std::vector<NodeId>> done; // G'
        Metrics total;
        for (const FusedGroup &grp : partition.groups) {
            work.push_back(grp.nodes);
            const Metrics m = metrics(grp.nodes);
            total.timeNs += m.timeNs;
            total.energyJ += m.energyJ;
        }
        RecutResult result;
        result.timeNsBefore = total.timeNs;
        result.energyJBefore = total.energyJ;
        const double h = m_options.cap > 0 ? m_options.cap * total.get(other) : INFINITY;
        auto &head =
            trace.add("re-cut", "objective " + targetName + ", H on " + otherName,
                      m_options.cap > 0 ? "H = " + fmt(h) + (other == Objective::Time ? " ns" : " J") : "no cap",
                      "H = cap × the static-fusion result's " + otherName + " (Algorithm 2, line 13)");
        head.numbers = {{"time_ns", total.timeNs},
                        {"energy_j", total.energyJ},
                        {"cap", m_options.cap},
                        {"h", h},
                        {"margin", m_options.margin}};

        while (!work.empty()) {
            std::vector<NodeId> grp = std::move(work.front()); // line 3
            work.pop_front();
            const std::unordered_set<NodeId> inside(grp.begin(), grp.end());
            auto within = [&](const std::vector<NodeId> &side) {
                return std::all_of(side.begin(), side.end(), [&](NodeId n) { return inside.count(n) > 0; });
            };
            std::vector<const FusionRecord *> records; // line 4: R_g
            for (const FusionRecord &r : partition.records)
                if (!r.stable && within(r.producerSide) && within(r.consumerSide))
                    records.push_back(&r);
            if (records.empty()) { // lines 5–8
                done.push_back(std::move(grp));
                continue;
            }

            const Metrics whole = metrics(grp); // line 9
            std::vector<DecisionOption> options{
                {"keep",
                 "keep fused",
                 whole.get(target),
                 "time " + fmt(whole.timeNs) + " ns, energy " + fmt(whole.energyJ) + " J",
                 {}}};
            std::vector<std::pair<std::vector<NodeId>, std::vector<NodeId>>> parts{{}};
            std::vector<Metrics> after{whole};
            std::int32_t best = 0;
            double min = whole.get(target);
            const double bar = whole.get(target) * (1.0 - m_options.margin); // a real gain, not model noise
            std::int32_t belowKeep = 0; // the best legal split under keep, margin or not
            double minBelowKeep = whole.get(target);
            std::set<std::string> ids{"keep"};
            for (const FusionRecord *r : records) { // lines 11–17
                const std::unordered_set<NodeId> a(r->producerSide.begin(), r->producerSide.end());
                std::vector<NodeId> sideA, sideB;
                for (NodeId n : grp)
                    (a.count(n) ? sideA : sideB).push_back(n);
                const Metrics ma = metrics(sideA), mb = metrics(sideB);
                const Metrics split{ma.timeNs + mb.timeNs, ma.energyJ + mb.energyJ};
                const double otherTotal = total.get(other) - whole.get(other) + split.get(other);
                std::string id = "split:" + groupLabel(m_g, sideA) + "|" + groupLabel(m_g, sideB);
                while (!ids.insert(id).second)
                    id += "'";
                std::string illegal;
                std::vector<std::vector<NodeId>> all(done.begin(), done.end());
                all.insert(all.end(), work.begin(), work.end());
                all.push_back(sideA);
                all.push_back(sideB);
                if (!groupsAcyclic(m_g, all))
                    illegal = "the parts would form a cycle with other sub-graphs";
                else if (!(otherTotal < h))
                    illegal = "model " + otherName + " " + fmt(otherTotal) + " would exceed H = " + fmt(h);
                options.push_back({id, "split at " + groupLabel(m_g, sideA) + " | " + groupLabel(m_g, sideB),
                                   split.get(target),
                                   "time " + fmt(split.timeNs) + " ns, energy " + fmt(split.energyJ) + " J; model " +
                                       otherName + " " + fmt(otherTotal),
                                   illegal});
                parts.emplace_back(std::move(sideA), std::move(sideB));
                after.push_back(split);
                if (illegal.empty() && split.get(target) < minBelowKeep) {
                    minBelowKeep = split.get(target);
                    belowKeep = static_cast<std::int32_t>(options.size() - 1);
                }
                if (illegal.empty() && split.get(target) < min && split.get(target) < bar) { // line 13
                    min = split.get(target);
                    best = static_cast<std::int32_t>(options.size() - 1);
                }
            }
            const std::int32_t pick =
                decisions.decide(decisionKey("pcgc.split", nodeNames(m_g, grp)), "pcgc.split", options, best);
            const Metrics &m = after[static_cast<std::size_t>(pick)];
            const bool noise = best == 0 && belowKeep != 0;
            if (noise && pick == 0)
                ++result.withinMargin;
            std::string why = pick != 0 ? targetName + " " + fmt(whole.get(target)) + " → " + fmt(m.get(target))
                              : noise
                                  ? "the best split lowers the " + targetName + " by " +
                                        fmt(100 * (1 - minBelowKeep / whole.get(target))) +
                                        " %, within the cost model's margin of " + fmt(100 * m_options.margin) + " %"
                                  : "no admissible split lowers the " + targetName;
            auto &s =
                trace.add("re-cut", groupLabel(m_g, grp) + " (" + std::to_string(records.size()) + " records)",
                          pick == 0 ? "kept fused" : options[static_cast<std::size_t>(pick)].label, std::move(why));
            s.touched = grp;
            s.numbers = {{"time_before_ns", whole.timeNs},
                         {"energy_before_j", whole.energyJ},
                         {"time_after_ns", m.timeNs},
                         {"energy_after_j", m.energyJ}};
            trace.linkLastDecision(decisions);
            if (pick == 0) { // line 19
                done.push_back(std::move(grp));
                continue;
            }
            // Lines 22–23: split and re-queue both parts.
            auto &[sideA, sideB] = parts[static_cast<std::size_t>(pick)];
            s.delta = {"group " + groupLabel(m_g, sideA), "group " + groupLabel(m_g, sideB)};
            total.timeNs += m.timeNs - whole.timeNs;
            total.energyJ += m.energyJ - whole.energyJ;
            ++result.splits;
            work.push_front(std::move(sideB));
            work.push_front(std::move(sideA));
        }

        result.timeNsAfter = total.timeNs;
        result.energyJAfter = total.energyJ;
        result.h = h;
        result.hMet = total.get(other) <= h;
        std::sort(done.begin(), done.end(), [&](const auto &a, const auto &b) {
            return m_rank[static_cast<std::size_t>(a.front())] < m_rank[static_cast<std::size_t>(b.front())];
        });
        partition.groups.clear();
        for (auto &nodes : done) {
            OpCategory c = OpCategory::Algebraic;
            for (NodeId n : nodes)
                c = heavier(c, categoryOf(m_g, m_g.node(n)));
            partition.groups.push_back({std::move(nodes), c});
        }
        auto &end = trace.add("re-cut", std::to_string(result.splits) + " splits",
                              std::to_string(partition.groups.size()) + " sub-graphs",
                              "time " + fmt(result.timeNsBefore) + " → " + fmt(result.timeNsAfter) + " ns, energy " +
                                  fmt(result.energyJBefore) + " → " + fmt(result.energyJAfter) + " J");
        end.numbers = {{"time_ns", result.timeNsAfter}, {"energy_j", result.energyJAfter}};
        return result;
    }

private:
    const Graph &m_g;
    const CostModel &m_cost;
    RecutOptions m_options;
    std::vector<std::int32_t> m_rank;
    std::map<std::vector<NodeId>, Metrics> m_cache;
};

} // namespace

RecutResult recut(const Graph &g, const CostModel &cost, Partition &partition, const RecutOptions &options,
                  DecisionContext &decisions, Trace &trace)
{
    return Recut(g, cost, options).run(partition, decisions, trace);
}

} // namespace tessera::pcgc
