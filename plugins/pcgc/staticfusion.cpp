#include "plugins/pcgc/staticfusion.h"

#include "core/support/assert.h"
#include "plugins/pcgc/fusionrules.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace tessera::pcgc {

std::int64_t onChipBudget(const Device &device)
{
    std::int64_t budget = 0;
    for (std::size_t i = 0; i + 1 < device.levels.size(); ++i)
        budget = std::max(budget, device.totalCapacity(device.levels[i]));
    return budget;
}

namespace {

class StaticFusion
{
public:
    StaticFusion(const Graph &g, const Device &device, DecisionContext &decisions, Trace &trace)
        : m_g(g), m_budget(onChipBudget(device)), m_decisions(decisions), m_trace(trace), m_rank(nodeRanks(g))
    {
        m_groupOf.resize(g.nodeCount());
        for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n) {
            m_groupOf[static_cast<std::size_t>(n)] = static_cast<std::size_t>(n);
            m_groups.push_back({{n}, categoryOf(g, g.node(n)), true});
        }
    }

    Partition run()
    {
        std::vector<NodeId> reverse(m_g.nodeCount());
        for (NodeId n = 0; n < static_cast<NodeId>(m_g.nodeCount()); ++n)
            reverse[static_cast<std::size_t>(m_rank[static_cast<std::size_t>(n)])] = n;
        std::reverse(reverse.begin(), reverse.end());

        Partition out;
        // Levels (fusionrules.h): the rules of level L join at level L, so
        // epilogues form before prologues and both before the greedy
        // cost-evaluated fusions can take their operators elsewhere.
        for (const int level : {1, 2, 3}) {
            const std::string levelName = "level " + std::to_string(level);
            for (;;) {
                ++out.passes;
                TS_ASSERT(static_cast<std::size_t>(out.passes) <= 2 * m_g.nodeCount() + 2); // passes but the last fuse
                std::size_t fused = 0;
                for (NodeId n : reverse)
                    for (TensorId t : m_g.node(n).inputs) {
                        if (t == kInvalidId || m_g.tensor(t).producer == kInvalidId)
                            continue;
                        if (tryFuse(m_g.tensor(t).producer, n, out.passes, level))
                            ++fused;
                    }
                auto &s = m_trace.add("static fusion", "pass " + std::to_string(out.passes) + " (" + levelName + ")",
                                      fused ? std::to_string(fused) + " fusions" : "fixed point: nothing fuses",
                                      "reverse traversal from the outputs (§3.3)");
                s.numbers = {{"fusions", double(fused)}, {"groups", double(liveGroups())}, {"level", double(level)}};
                if (!fused)
                    break;
            }
        }
        for (const Group &grp : m_groups)
            if (grp.alive)
                out.groups.push_back({grp.nodes, grp.category});
        std::sort(out.groups.begin(), out.groups.end(), [&](const FusedGroup &a, const FusedGroup &b) {
            return m_rank[static_cast<std::size_t>(a.nodes.front())] <
                   m_rank[static_cast<std::size_t>(b.nodes.front())];
        });
        out.records = std::move(m_records);
        return out;
    }

private:
    struct Group {
        std::vector<NodeId> nodes;
        OpCategory category;
        bool alive = true;
    };

    std::size_t liveGroups() const
    {
        return static_cast<std::size_t>(
            std::count_if(m_groups.begin(), m_groups.end(), [](const Group &grp) { return grp.alive; }));
    }

    // B2: a path from group p to group c through other groups (a cycle once
    // fused). Paths run between groups, not nodes: a group is one kernel, so
    // p → {a1, a2} → c is a cycle even when a1 does not reach a2.
    bool createsCycle(std::size_t p, std::size_t c) const
    {
        std::vector<char> seen(m_groups.size(), 0);
        std::vector<std::size_t> stack{p};
        seen[p] = 1;
        while (!stack.empty()) {
            const std::size_t grp = stack.back();
            stack.pop_back();
            for (NodeId n : m_groups[grp].nodes)
                for (NodeId s : m_g.successors(n)) {
                    const std::size_t gs = m_groupOf[static_cast<std::size_t>(s)];
                    if (gs == c) {
                        if (grp != p)
                            return true;
                        continue; // the direct edges p → c
                    }
                    if (!seen[gs]) {
                        seen[gs] = 1;
                        stack.push_back(gs);
                    }
                }
        }
        return false;
    }

    // B3: bytes of the tensors the fused group would keep on chip.
    std::int64_t intermediateBytes(const std::vector<NodeId> &nodes) const
    {
        const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
        const std::unordered_set<TensorId> outputs(m_g.outputs.begin(), m_g.outputs.end());
        std::int64_t bytes = 0;
        for (NodeId n : nodes)
            for (TensorId t : m_g.node(n).outputs) {
                if (t == kInvalidId || outputs.count(t))
                    continue;
                const Tensor &tt = m_g.tensor(t);
                if (tt.consumers.empty() ||
                    !std::all_of(tt.consumers.begin(), tt.consumers.end(), [&](NodeId c) { return inside.count(c); }))
                    continue;
                // Element-wise consumers take the values tile by tile as they are
                // produced; any other consumer needs the whole tensor on chip.
                if (std::any_of(tt.consumers.begin(), tt.consumers.end(), [&](NodeId c) {
                        const OpCategory k = categoryOf(m_g, m_g.node(c));
                        return k != OpCategory::Algebraic && k != OpCategory::Broadcast;
                    }))
                    bytes += tt.bytes();
            }
        return bytes;
    }

    std::vector<NodeId> merged(std::size_t p, std::size_t c) const
    {
        std::vector<NodeId> nodes = m_groups[p].nodes;
        nodes.insert(nodes.end(), m_groups[c].nodes.begin(), m_groups[c].nodes.end());
        std::sort(nodes.begin(), nodes.end(), [&](NodeId a, NodeId b) {
            return m_rank[static_cast<std::size_t>(a)] < m_rank[static_cast<std::size_t>(b)];
        });
        return nodes;
    }

    bool tryFuse(NodeId producer, NodeId consumer, std::int32_t pass, int level)
    {
        const std::size_t p = m_groupOf[static_cast<std::size_t>(producer)];
        const std::size_t c = m_groupOf[static_cast<std::size_t>(consumer)];
        if (p == c)
            return false;
        std::vector<NodeId> nodes = merged(p, c);
        // Judge each pair of groups once (B1 holds: producer → consumer is an edge);
        // the key names the union and which side produces.
        std::vector<std::string> names = nodeNames(m_g, nodes);
        names.push_back(">" + m_g.node(m_groups[p].nodes.front()).name);
        std::string pairKey = decisionKey("pcgc.fuse", names);
        if (m_judged.count(pairKey))
            return false;
        const Group &pg = m_groups[p];
        const Group &cg = m_groups[c];
        const FusionRule &rule = matchRule(pg.category, cg.category);
        if (rule.kind != RuleKind::Prohibited && rule.level > level)
            return false; // judged at its own level
        m_judged.insert(pairKey);
        const std::string title = groupLabel(m_g, pg.nodes) + " → " + groupLabel(m_g, cg.nodes) + " (" +
                                  std::string(categoryName(pg.category)) + " → " +
                                  std::string(categoryName(cg.category)) + ")";
        std::string refusal;
        std::string why;
        std::int64_t bytes = 0;
        if (rule.kind == RuleKind::Prohibited) {
            refusal = "rule " + std::string(rule.id) + " prohibits";
            why = std::string(rule.text);
        } else if (createsCycle(p, c)) {
            refusal = "basic criterion B2 refuses";
            why = "a path leaves " + groupLabel(m_g, pg.nodes) + " and re-enters " + groupLabel(m_g, cg.nodes) +
                  ": fusing would create a cycle between sub-graphs";
        } else if ((bytes = intermediateBytes(nodes)) > m_budget) {
            refusal = "basic criterion B3 refuses";
            why = "intermediates " + std::to_string(bytes) + " B exceed the on-chip " + std::to_string(m_budget) + " B";
        }
        if (!refusal.empty()) {
            auto &s = m_trace.add("static fusion", title, refusal, why);
            s.touched = nodes;
            s.numbers = {{"intermediate_bytes", double(bytes)}, {"on_chip_bytes", double(m_budget)}};
            return false;
        }

        const bool stable = rule.kind == RuleKind::Stable;
        std::vector<DecisionOption> options{
            {"fuse",
             "fuse (" + std::string(rule.id) + ", " + std::string(ruleKindName(rule.kind)) + ")",
             std::nan(""),
             std::string(rule.text),
             {}},
            {"apart", "keep apart", std::nan(""), {}, {}}};
        const std::int32_t pick = m_decisions.decide(std::move(pairKey), "pcgc.fuse", std::move(options), 0);
        auto &s = m_trace.add("static fusion", title,
                              pick == 0 ? "rule " + std::string(rule.id) + " fires: fused (" +
                                              std::string(ruleKindName(rule.kind)) + ")"
                                        : "kept apart (override)",
                              std::string(rule.text));
        s.touched = nodes;
        s.numbers = {{"intermediate_bytes", double(bytes)}, {"on_chip_bytes", double(m_budget)}};
        m_trace.linkLastDecision(m_decisions);
        if (pick != 0)
            return false;

        m_records.push_back({pg.nodes, cg.nodes, std::string(rule.id), stable, pass});
        s.delta = {"group " + groupLabel(m_g, nodes) + " (" + std::to_string(nodes.size()) + " ops)"};
        m_groups[c].nodes = std::move(nodes);
        m_groups[c].category = heavier(pg.category, cg.category);
        for (NodeId n : m_groups[p].nodes)
            m_groupOf[static_cast<std::size_t>(n)] = c;
        m_groups[p].nodes.clear();
        m_groups[p].alive = false;
        return true;
    }

    const Graph &m_g;
    std::int64_t m_budget;
    DecisionContext &m_decisions;
    Trace &m_trace;
    std::vector<std::int32_t> m_rank;
    std::vector<std::size_t> m_groupOf;
    std::vector<Group> m_groups;
    std::vector<FusionRecord> m_records;
    std::set<std::string> m_judged;
};

} // namespace

Partition staticFusion(const Graph &g, const Device &device, DecisionContext &decisions, Trace &trace)
{
    return StaticFusion(g, device, decisions, trace).run();
}

} // namespace tessera::pcgc
