#include "plugins/graphturbo/grouping.h"

#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/graphturbo/splitinfo.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tessera::graphturbo {

namespace {

std::string factorStr(std::int64_t f)
{
    return f == kNoFit ? std::string("none") : std::to_string(f);
}

// Trace numbers: -1 stands for "no factor fits LB".
double factorNum(std::int64_t f)
{
    return f == kNoFit ? -1.0 : double(f);
}

class Grouper
{
public:
    explicit Grouper(Context &ctx) : m_ctx(ctx), m_g(ctx.graph) {}

    Expected<Grouping> run()
    {
        auto order = topologicalOrder(m_g);
        if (!order)
            return order.status();
        // S1 (lines 1-4): one sub-graph per node.
        m_ofNode.assign(m_g.nodeCount(), -1);
        for (NodeId n : *order) {
            SubGraph sg;
            sg.nodes = {n};
            sg.exit = n;
            analyseSubGraph(m_ctx, sg);
            m_ofNode[static_cast<std::size_t>(n)] = static_cast<int>(m_sgs.size());
            m_sgs.push_back(std::move(sg));
        }
        m_ctx.trace.add("S2: group sub-graphs (Algo. 2)", std::to_string(m_sgs.size()) + " initial sub-graphs",
                        "one per node, SplitInfo and BestSplit computed", "Algo. 2 lines 1-4");
        // S2 (lines 5-15): straight, diamond, branch until nothing merges.
        Grouping out;
        for (;;) {
            ++out.rounds;
            const int s = straightPass();
            const int d = diamondPass();
            const int b = branchPass();
            auto &step = m_ctx.trace.add("S2: group sub-graphs (Algo. 2)", "round " + std::to_string(out.rounds),
                                         std::to_string(aliveCount()) + " sub-graphs",
                                         s + d + b ? "merged; repeat" : "no count decreased: fixed point");
            step.numbers = {{"straight", s}, {"diamond", d}, {"branch", b}};
            out.merges += s + d + b;
            if (s + d + b == 0)
                break;
            if (m_ctx.cancelled && m_ctx.cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
        }
        // Compact: alive sub-graphs in topological order of their exits.
        std::vector<int> alive = aliveInOrder();
        std::vector<int> remap(m_sgs.size(), -1);
        for (int id : alive) {
            remap[static_cast<std::size_t>(id)] = static_cast<int>(out.subgraphs.size());
            out.subgraphs.push_back(m_sgs[static_cast<std::size_t>(id)]);
        }
        out.ofNode.resize(m_ofNode.size());
        for (std::size_t n = 0; n < m_ofNode.size(); ++n)
            out.ofNode[n] = remap[static_cast<std::size_t>(m_ofNode[n])];
        return out;
    }

private:
    int aliveCount() const
    {
        return static_cast<int>(std::count_if(m_sgs.begin(), m_sgs.end(), [](const SubGraph &s) { return s.alive; }));
    }

    std::vector<int> aliveInOrder() const
    {
        std::vector<int> ids;
        for (std::size_t i = 0; i < m_sgs.size(); ++i)
            if (m_sgs[i].alive)
                ids.push_back(static_cast<int>(i));
        std::sort(ids.begin(), ids.end(), [&](int a, int b) {
            return m_ctx.rank[static_cast<std::size_t>(m_sgs[static_cast<std::size_t>(a)].exit)] <
                   m_ctx.rank[static_cast<std::size_t>(m_sgs[static_cast<std::size_t>(b)].exit)];
        });
        return ids;
    }

    const SubGraph &sg(int id) const { return m_sgs[static_cast<std::size_t>(id)]; }
    std::vector<int> producers(int id) const { return producersOf(m_g, m_sgs, m_ofNode, id); }
    std::vector<int> consumers(int id) const { return consumersOf(m_g, m_sgs, m_ofNode, id); }

    // May this sub-graph disappear into a downstream one (its output becomes internal)?
    bool absorbable(int id) const
    {
        const SubGraph &s = sg(id);
        if (s.opaque)
            return false;
        for (NodeId n : s.nodes)
            for (TensorId t : m_g.node(n).outputs)
                if (t != kInvalidId && std::find(m_g.outputs.begin(), m_g.outputs.end(), t) != m_g.outputs.end())
                    return false;
        return true;
    }

    // Every node of the sub-graph is elementwise (BN, activations, residual adds: what a layer's
    // loop nest takes in after its anchor op, §4.1).
    bool elementwiseOnly(int id) const
    {
        const SubGraph &s = sg(id);
        return std::all_of(s.nodes.begin(), s.nodes.end(), [&](NodeId n) {
            return !m_g.node(n).opaque && opClassOf(m_g.node(n).opType) == OpClass::Elementwise;
        });
    }

    enum class Pattern { Straight, Diamond, Branch };

    // Asks and, when chosen, applies the merge of `upstream` into `exitSg`.
    bool tryMerge(Pattern pattern, const std::vector<int> &upstream, int exitSg, int entry)
    {
        SubGraph merged;
        std::set<NodeId> nodes;
        for (int id : upstream)
            nodes.insert(sg(id).nodes.begin(), sg(id).nodes.end());
        nodes.insert(sg(exitSg).nodes.begin(), sg(exitSg).nodes.end());
        merged.nodes.assign(nodes.begin(), nodes.end());
        std::sort(merged.nodes.begin(), merged.nodes.end(), [&](NodeId a, NodeId b) {
            return m_ctx.rank[static_cast<std::size_t>(a)] < m_ctx.rank[static_cast<std::size_t>(b)];
        });
        merged.exit = sg(exitSg).exit;
        const std::string key = decisionKey("graphturbo.merge", nodeNames(m_g, merged.nodes));
        if (!m_asked.insert(key).second)
            return false;
        analyseSubGraph(m_ctx, merged);

        std::int64_t stitched = 0;
        for (int id : upstream)
            stitched += m_g.tensor(outputOf(m_g, sg(id))).bytes();
        std::vector<const SubGraph *> parts;
        for (int id : upstream)
            parts.push_back(&sg(id));
        parts.push_back(&sg(exitSg));
        const RecomputeVerdict rc = recomputeCheck(m_ctx, merged, parts, stitched);

        const std::int64_t fSg = merged.best.factor;
        const std::int64_t fDown = sg(exitSg).best.factor;
        std::int64_t fUp = 0;
        for (int id : upstream)
            fUp = std::max(fUp, sg(id).best.factor);
        const bool withinLayer = pattern != Pattern::Diamond && fSg == kNoFit && fUp == kNoFit &&
                                 upstream.size() == 1 && elementwiseOnly(exitSg);
        bool rule = false;
        std::string ruleText;
        const char *name = pattern == Pattern::Straight  ? "straight"
                           : pattern == Pattern::Diamond ? "diamond"
                                                         : "branch";
        if (pattern == Pattern::Diamond) {
            const std::int64_t fMax = std::max(fUp, fDown);
            rule = fSg != kNoFit && fSg <= fMax;
            ruleText = "rule (ii): f(SG)=" + factorStr(fSg) + (rule ? " <= " : " > ") + "max f=" + factorStr(fMax);
        } else if (withinLayer) {
            // §4.1: the producer fits LB with no factor, so its whole output leaves LB anyway; the
            // kernel generator fuses an elementwise follower into its producer's loop nest (TVM's
            // fusion within a layer, the baseline being "a special case of our work", §5.1) rather
            // than store and reload that output.
            rule = true;
            ruleText = "f(up)=none, f(SG)=none: an elementwise follower fused within its layer (§4.1)";
        } else {
            const bool first = fDown >= fUp;
            const bool second = fSg != kNoFit && fSg <= fDown;
            rule = first && second;
            ruleText = std::string("rule (i): ") + (first ? "f(down)=" : "f(down)=") + factorStr(fDown) +
                       (first ? " >= " : " < ") + "f(up)=" + factorStr(fUp) + ", f(SG)=" + factorStr(fSg) +
                       (second ? " <= " : " > ") + "f(down)";
        }
        std::string why = ruleText;
        const bool rcOk = rc.ok || !m_ctx.recomputeCheck;
        if (rule && !rcOk)
            why += "; recomputation " + std::to_string(std::lround(rc.recomputeNs)) + " ns + weight reloads " +
                   std::to_string(std::lround(rc.reloadNs)) + " ns > saved " + std::to_string(std::lround(rc.savedNs)) +
                   " ns";
        const bool preferMerge = rule && rcOk;
        const std::string detail = "peak " + std::to_string(merged.peakBytes) + " B, LB " +
                                   std::to_string(m_ctx.lbBytes) + " B, f(SG)=" + factorStr(fSg) + ", recompute " +
                                   std::to_string(std::lround(rc.recomputeNs)) + " ns + weight reloads " +
                                   std::to_string(std::lround(rc.reloadNs)) + " ns vs saved " +
                                   std::to_string(std::lround(rc.savedNs)) + " ns";
        std::vector<DecisionOption> options{
            {"merge", std::string("merge (") + name + ")", rc.extraNs - rc.savedNs, detail,
             fSg == kNoFit && !withinLayer ? "merged peak " + std::to_string(merged.peakBytes) + " B exceeds LB " +
                                                 std::to_string(m_ctx.lbBytes) + " B with every splitting factor"
                                           : std::string()},
            {"keep", "keep apart", 0.0, ruleText, {}}};
        const std::int32_t pick = m_ctx.decisions.decide(key, "graphturbo.merge", options, preferMerge ? 0 : 1);
        auto &step = m_ctx.trace.add("S2: group sub-graphs (Algo. 2)",
                                     std::string(name) + " pattern at " + subgraphLabel(m_g, sg(exitSg)),
                                     pick == 0 ? "merged into " + subgraphLabel(m_g, merged) : "kept apart", why);
        step.numbers = {{"f_up", factorNum(fUp)},         {"f_down", factorNum(fDown)},
                        {"f_merged", factorNum(fSg)},     {"peak_bytes", double(merged.peakBytes)},
                        {"recompute_ns", rc.recomputeNs}, {"reload_ns", rc.reloadNs},
                        {"saved_ns", rc.savedNs}};
        step.touched = merged.nodes;
        if (entry >= 0)
            step.touched.push_back(sg(entry).exit);
        m_ctx.trace.linkLastDecision(m_ctx.decisions);
        if (pick != 0)
            return false;
        step.delta = {"sub-graph {" + subgraphLabel(m_g, merged) + "} of " + std::to_string(merged.nodes.size()) +
                      " nodes, f=" + factorStr(fSg)};
        const int id = static_cast<int>(m_sgs.size());
        for (int u : upstream)
            m_sgs[static_cast<std::size_t>(u)].alive = false;
        m_sgs[static_cast<std::size_t>(exitSg)].alive = false;
        for (NodeId n : merged.nodes)
            m_ofNode[static_cast<std::size_t>(n)] = id;
        m_sgs.push_back(std::move(merged));
        return true;
    }

    int straightPass()
    {
        int merges = 0;
        for (int id : aliveInOrder()) {
            if (!sg(id).alive || !absorbable(id))
                continue;
            const auto cons = consumers(id);
            if (cons.size() != 1 || sg(cons[0]).opaque || producers(cons[0]) != std::vector<int>{id})
                continue;
            merges += tryMerge(Pattern::Straight, {id}, cons[0], -1);
        }
        return merges;
    }

    int diamondPass()
    {
        int merges = 0;
        for (int entry : aliveInOrder()) {
            if (!sg(entry).alive)
                continue;
            const auto cons = consumers(entry);
            if (cons.size() < 2)
                continue;
            // Middles grouped by their one consumer.
            std::map<int, std::vector<int>> middles;
            for (int c : cons) {
                if (!absorbable(c) || producers(c) != std::vector<int>{entry})
                    continue;
                const auto next = consumers(c);
                if (next.size() == 1)
                    middles[next[0]].push_back(c);
            }
            for (const auto &[exitSg, mids] : middles) {
                if (!sg(exitSg).alive || sg(exitSg).opaque ||
                    std::any_of(mids.begin(), mids.end(), [&](int m) { return !sg(m).alive; }))
                    continue;
                std::set<int> allowed(mids.begin(), mids.end());
                allowed.insert(entry);
                const auto prods = producers(exitSg);
                if (!std::all_of(prods.begin(), prods.end(), [&](int p) { return allowed.count(p) > 0; }))
                    continue;
                const bool direct = std::find(prods.begin(), prods.end(), entry) != prods.end();
                if (mids.size() + (direct ? 1 : 0) < 2)
                    continue;
                merges += tryMerge(Pattern::Diamond, mids, exitSg, entry);
            }
        }
        return merges;
    }

    int branchPass()
    {
        int merges = 0;
        for (int id : aliveInOrder()) {
            if (!sg(id).alive || sg(id).opaque)
                continue;
            const auto prods = producers(id);
            if (prods.size() < 2)
                continue;
            for (int p : prods)
                if (absorbable(p) && consumers(p) == std::vector<int>{id} && tryMerge(Pattern::Branch, {p}, id, -1)) {
                    ++merges;
                    break; // `id` is gone; the merged sub-graph is seen next round
                }
        }
        return merges;
    }

    Context &m_ctx;
    const Graph &m_g;
    std::vector<SubGraph> m_sgs;
    std::vector<int> m_ofNode;
    std::set<std::string> m_asked;
};

} // namespace

Expected<Grouping> groupSubGraphs(Context &ctx)
{
    return Grouper(ctx).run();
}

} // namespace tessera::graphturbo
