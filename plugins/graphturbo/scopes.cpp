#include "plugins/graphturbo/scopes.h"

#include "core/plan/tiles.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/graphturbo/binding.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace tessera::graphturbo {

namespace {

class Inference
{
public:
    Inference(const Graph &g, const std::vector<SubGraph> &sgs, const InstanceGraph &ig) : m_g(g), m_sgs(sgs), m_ig(ig)
    {}

    // infer_binding of consumer instance `c` (bound by `bind`) for producer instance `p`.
    // Empty: nothing propagates; `valid` false: it cannot be used (see the header).
    std::vector<int> infer(int c, const std::vector<int> &bind, int p, bool &valid)
    {
        valid = true;
        const Instance &ci = m_ig.instances[static_cast<std::size_t>(c)];
        const Instance &pi = m_ig.instances[static_cast<std::size_t>(p)];
        const SubGraph &psg = m_sgs[static_cast<std::size_t>(pi.subgraph)];
        const TensorId pt = outputOf(m_g, psg);
        if (pt == kInvalidId || pi.tile.empty())
            return {};
        std::vector<int> out(pi.tile.size(), 1);
        bool any = false;
        for (std::size_t d = 0; d < bind.size(); ++d) {
            if (bind[d] <= 1)
                continue;
            const int e = matchedDim(ci, static_cast<int>(d), bind[d], pt);
            if (e < 0)
                continue;
            any = true;
            if (pi.tile[static_cast<std::size_t>(e)].size() % (out[static_cast<std::size_t>(e)] * bind[d]) != 0)
                valid = false;
            out[static_cast<std::size_t>(e)] *= bind[d];
        }
        if (!any)
            return {};
        if (boundCores(out) > boundCores(psg.binding))
            valid = false;
        return out;
    }

private:
    // The one dim of tensor `t` that a split of instance `ci`'s tile along `d`
    // into `f` narrows (Algo. 1 line 10), -1 if none or several. Instances of a
    // sub-graph are alike: cached per (sub-graph, d, f, t).
    int matchedDim(const Instance &ci, int d, int f, TensorId t)
    {
        const auto key = std::make_tuple(ci.subgraph, d, f, t);
        if (auto it = m_match.find(key); it != m_match.end())
            return it->second;
        int dim = -1;
        const SubGraph &sg = m_sgs[static_cast<std::size_t>(ci.subgraph)];
        Kernel k;
        k.nodes = sg.nodes;
        ops::Region probe = ci.tile;
        const std::int64_t len = probe[static_cast<std::size_t>(d)].size() / f;
        if (len > 0) {
            probe[static_cast<std::size_t>(d)].end = probe[static_cast<std::size_t>(d)].begin + len;
            auto whole = taskRegions(m_g, k, {NodeTile{sg.exit, 0, ci.tile}});
            auto part = taskRegions(m_g, k, {NodeTile{sg.exit, 0, probe}});
            if (whole && part) {
                auto a = whole->read.find(t);
                auto b = part->read.find(t);
                if (a != whole->read.end() && b != part->read.end() && a->second.size() == b->second.size()) {
                    for (std::size_t e = 0; e < a->second.size(); ++e)
                        if (b->second[e].size() < a->second[e].size()) {
                            if (dim >= 0) {
                                dim = -1;
                                break;
                            }
                            dim = static_cast<int>(e);
                        }
                }
            }
        }
        m_match.emplace(key, dim);
        return dim;
    }

    const Graph &m_g;
    const std::vector<SubGraph> &m_sgs;
    const InstanceGraph &m_ig;
    std::map<std::tuple<int, int, int, TensorId>, int> m_match;
};

// Each instance's binding is the decision "graphturbo.instance_bind" keyed by the sub-graph's
// exit node and the instance index: Algo. 4's binding (preferred) or a plain binding over the
// sub-graph's cap of cores, half of it, ... one core. An option whose share of the instance's
// footprint per core exceeds LB per core, where Algo. 4's does not, is illegal with that reason
// (an override asking for it is rejected). Returns the binding to use.
std::vector<int> decideInstanceBinding(Context &ctx, const SubGraph &sg, const Instance &inst,
                                       const std::vector<int> &algo4, int &overridden)
{
    std::vector<std::vector<int>> bindings{algo4};
    for (int c = boundCores(sg.binding); c >= 1; c /= 2) {
        std::vector<int> b = plainBinding(inst.tile, c);
        if (std::find(bindings.begin(), bindings.end(), b) == bindings.end())
            bindings.push_back(std::move(b));
    }
    if (bindings.size() == 1)
        return algo4;
    auto perCore = [&](const std::vector<int> &b) {
        const std::int64_t n = boundCores(b);
        return (inst.footprint + n - 1) / n;
    };
    const std::int64_t preferredPerCore = perCore(algo4);
    std::vector<DecisionOption> options;
    for (std::size_t i = 0; i < bindings.size(); ++i) {
        const std::vector<int> &b = bindings[i];
        DecisionOption o{bindingStr(b),
                         std::to_string(boundCores(b)) + " cores " + bindingStr(b) + (i == 0 ? " (Algo. 4)" : ""),
                         double(-boundCores(b)),
                         std::to_string(perCore(b)) + " B of the instance per core",
                         {}};
        if (i > 0 && perCore(b) > ctx.lbPerCore && perCore(b) > preferredPerCore)
            o.illegalReason = "the instance needs " + std::to_string(perCore(b)) + " B per core on " +
                              std::to_string(boundCores(b)) + " cores, LB holds " + std::to_string(ctx.lbPerCore) +
                              " B per core";
        options.push_back(std::move(o));
    }
    const std::string key =
        decisionKey("graphturbo.instance_bind", {ctx.graph.node(sg.exit).name + "#" + std::to_string(inst.index)});
    const std::int32_t pick = ctx.decisions.decide(key, "graphturbo.instance_bind", options, 0);
    if (pick != 0) {
        ++overridden;
        auto &step =
            ctx.trace.add("S4b: bindings and scopes (Algo. 4)",
                          "binding of sg" + std::to_string(inst.subgraph) + "#" + std::to_string(inst.index),
                          options[static_cast<std::size_t>(pick)].label, "override of Algo. 4's " + bindingStr(algo4));
        step.touched = sg.nodes;
        ctx.trace.linkLastDecision(ctx.decisions);
    }
    return bindings[static_cast<std::size_t>(pick)];
}

} // namespace

ScopeStats inferBindingsAndScopes(Context &ctx, const std::vector<SubGraph> &subgraphs, InstanceGraph &ig,
                                  const std::vector<int> &order)
{
    const std::size_t n = ig.instances.size();
    Inference inference(ctx.graph, subgraphs, ig);
    ScopeStats stats;
    // L1-2.
    const std::vector<int> visit(order.rbegin(), order.rend());
    std::vector<std::vector<int>> bind(n);
    std::vector<char> gb(n, 0), wasInferred(n, 0);
    // What each consumer inferred for each of its producers: (consumer, producer index) -> binding.
    std::map<std::pair<int, std::size_t>, std::vector<int>> expected;
    auto plain = [&](int i) {
        const Instance &inst = ig.instances[static_cast<std::size_t>(i)];
        const SubGraph &sg = subgraphs[static_cast<std::size_t>(inst.subgraph)];
        return plainBinding(inst.tile, boundCores(sg.binding));
    };
    for (int i : visit) { // L3
        const Instance &inst = ig.instances[static_cast<std::size_t>(i)];
        if (bind[static_cast<std::size_t>(i)].empty() || gb[static_cast<std::size_t>(i)]) { // L4
            bind[static_cast<std::size_t>(i)] = plain(i);                                   // L5
            bind[static_cast<std::size_t>(i)] =
                decideInstanceBinding(ctx, subgraphs[static_cast<std::size_t>(inst.subgraph)], inst,
                                      bind[static_cast<std::size_t>(i)], stats.overridden);
            for (std::size_t k = 0; k < inst.producers.size(); ++k) { // L8
                const int j = inst.producers[k];
                bool valid = true;
                std::vector<int> inf = inference.infer(i, bind[static_cast<std::size_t>(i)], j, valid);
                if (inf.empty() || !valid) // L6-7
                    continue;
                expected[{i, k}] = inf;
                auto &bj = bind[static_cast<std::size_t>(j)];
                if (bj.empty()) { // L9-10
                    bj = inf;
                    wasInferred[static_cast<std::size_t>(j)] = 1;
                    ++stats.inferred;
                } else if (bj != inf && !gb[static_cast<std::size_t>(j)]) { // L11-12
                    gb[static_cast<std::size_t>(j)] = 1;
                    ++stats.gbScopes;
                    const Instance &pj = ig.instances[static_cast<std::size_t>(j)];
                    const SubGraph &psg = subgraphs[static_cast<std::size_t>(pj.subgraph)];
                    auto &step =
                        ctx.trace.add("S4b: bindings and scopes (Algo. 4)",
                                      "sg" + std::to_string(pj.subgraph) + "#" + std::to_string(pj.index) + " output",
                                      "declared in GB",
                                      "its consumers infer different bindings " + bindingStr(bj) + " and " +
                                          bindingStr(inf) + " (line 12): a communication, so its output leaves LB");
                    step.touched = psg.nodes;
                }
            }
        } else { // L15-16
            const std::vector<int> p = plain(i);
            if (boundCores(bind[static_cast<std::size_t>(i)]) <= boundCores(p)) {
                if (bind[static_cast<std::size_t>(i)] != p)
                    ++stats.replacedByPlain;
                bind[static_cast<std::size_t>(i)] = p;
            }
            bind[static_cast<std::size_t>(i)] =
                decideInstanceBinding(ctx, subgraphs[static_cast<std::size_t>(inst.subgraph)], inst,
                                      bind[static_cast<std::size_t>(i)], stats.overridden);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        Instance &inst = ig.instances[i];
        inst.binding = bind[i];
        inst.scopeGB = gb[i];
        inst.redistribute.assign(inst.producers.size(), 0);
    }
    for (const auto &[key, inf] : expected) {
        const int j = ig.instances[static_cast<std::size_t>(key.first)].producers[key.second];
        if (!gb[static_cast<std::size_t>(j)] && bind[static_cast<std::size_t>(j)] != inf) {
            ig.instances[static_cast<std::size_t>(key.first)].redistribute[key.second] = 1;
            ++stats.redistributes;
        }
    }
    auto &step =
        ctx.trace.add("S4b: bindings and scopes (Algo. 4)", std::to_string(n) + " instances",
                      std::to_string(stats.inferred) + " bindings inferred, " + std::to_string(stats.gbScopes) +
                          " outputs in GB, " + std::to_string(stats.redistributes) + " redistributions",
                      "reverse schedule order; producers take their consumer's binding, a mismatch puts the "
                      "output in GB (Fig. 9 left), a binding replaced by a plain one is redistributed "
                      "(Fig. 9 right)");
    step.numbers = {{"inferred", double(stats.inferred)},
                    {"gb_scopes", double(stats.gbScopes)},
                    {"redistributions", double(stats.redistributes)},
                    {"replaced_by_plain", double(stats.replacedByPlain)}};
    return stats;
}

} // namespace tessera::graphturbo
