#include "plugins/graphturbo/ordering.h"

#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/graphturbo/binding.h"

#include <algorithm>
#include <deque>

namespace tessera::graphturbo {

std::vector<int> bfsOrder(const InstanceGraph &ig)
{
    const std::size_t n = ig.instances.size();
    std::vector<int> indeg(n);
    std::deque<int> queue;
    for (std::size_t i = 0; i < n; ++i) {
        indeg[i] = static_cast<int>(ig.instances[i].producers.size());
        if (!indeg[i])
            queue.push_back(static_cast<int>(i));
    }
    std::vector<int> order;
    while (!queue.empty()) {
        const int i = queue.front();
        queue.pop_front();
        order.push_back(i);
        for (int c : ig.instances[static_cast<std::size_t>(i)].consumers)
            if (--indeg[static_cast<std::size_t>(c)] == 0)
                queue.push_back(c);
    }
    return order;
}

std::vector<int> dfsOrder(const InstanceGraph &ig, const std::vector<int> &visitOrder)
{
    const std::size_t n = ig.instances.size();
    std::vector<int> indeg(n);
    for (std::size_t i = 0; i < n; ++i)
        indeg[i] = static_cast<int>(ig.instances[i].producers.size());
    std::vector<int> visit = visitOrder; // L1
    std::vector<int> ready, order;
    std::vector<char> inReady(n, 0);
    while (!visit.empty() || !ready.empty()) {
        // L3-4: instances of visit with no in-degree move to ready, in order.
        for (auto it = visit.begin(); it != visit.end();)
            if (indeg[static_cast<std::size_t>(*it)] == 0) {
                ready.push_back(*it);
                inReady[static_cast<std::size_t>(*it)] = 1;
                it = visit.erase(it);
            } else {
                ++it;
            }
        // L5-14.
        for (;;) {
            int p = static_cast<int>(ready.size()) - 1; // L6
            while (p >= 0 && indeg[static_cast<std::size_t>(ready[static_cast<std::size_t>(p)])] != 0)
                --p; // L7-8
            if (p < 0)
                break;
            const int sgi = ready[static_cast<std::size_t>(p)];
            order.push_back(sgi); // L9
            ready.erase(ready.begin() + p);
            inReady[static_cast<std::size_t>(sgi)] = 0;
            for (int c : ig.instances[static_cast<std::size_t>(sgi)].consumers) { // L10-14
                --indeg[static_cast<std::size_t>(c)];
                if (!inReady[static_cast<std::size_t>(c)]) {
                    auto it = std::find(visit.begin(), visit.end(), c);
                    if (it != visit.end())
                        visit.erase(it);
                    ready.push_back(c);
                    inReady[static_cast<std::size_t>(c)] = 1;
                }
            }
        }
        if (ready.empty() && visit.empty())
            break;
        if (std::none_of(visit.begin(), visit.end(), [&](int i) { return indeg[static_cast<std::size_t>(i)] == 0; }) &&
            std::none_of(ready.begin(), ready.end(), [&](int i) { return indeg[static_cast<std::size_t>(i)] == 0; }))
            break; // a cycle: cannot happen on a DAG
    }
    return order;
}

std::vector<MemItem> orderMemItems(const Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                                   const std::vector<int> &order, const std::vector<int> *outputLevel,
                                   std::vector<int> *itemOfOutput)
{
    const Graph &g = ctx.graph;
    std::vector<int> pos(ig.instances.size(), -1);
    for (std::size_t p = 0; p < order.size(); ++p)
        pos[static_cast<std::size_t>(order[p])] = static_cast<int>(p);
    std::vector<MemItem> items;
    if (itemOfOutput)
        itemOfOutput->assign(ig.instances.size(), -1);
    const int last = static_cast<int>(order.size()) - 1;
    for (std::size_t p = 0; p < order.size(); ++p) {
        const Instance &inst = ig.instances[static_cast<std::size_t>(order[p])];
        const SubGraph &sg = subgraphs[static_cast<std::size_t>(inst.subgraph)];
        const int cores = instanceCores(sg, inst);
        const int at = static_cast<int>(p);
        std::int64_t inLb = 0;
        bool loads = false; // slices copied or redistributed into the working set
        for (std::size_t k = 0; k < inst.producers.size(); ++k) {
            const int pi = inst.producers[k];
            const bool redistributed = k < inst.redistribute.size() && inst.redistribute[k];
            const bool inGb = ig.instances[static_cast<std::size_t>(pi)].scopeGB;
            if (!redistributed && !inGb && (!outputLevel || (*outputLevel)[static_cast<std::size_t>(pi)] == 0))
                inLb += inst.producerBytes[k];
            else
                loads = true;
        }
        if (static_cast<std::size_t>(order[p]) < ig.reads.size())
            for (const auto &[t, region] : ig.reads[static_cast<std::size_t>(order[p])])
                loads = loads || g.tensor(t).kind == Tensor::Kind::Input;
        // §4.4 (full variant): a working set with loads is loaded while the previous instance
        // computes (double-buffered LB), so it is live from the position before.
        const int loadFrom = ctx.overlap() && loads && at > 0 ? at - 1 : at;
        items.push_back({loadFrom, at, std::max<std::int64_t>(0, inst.footprint - inst.outputBytes - inLb), cores,
                         inst.footprint > ctx.lbBytes ? 1 : 0});
        const TensorId out = outputOf(g, sg);
        const bool graphOutput =
            out != kInvalidId && std::find(g.outputs.begin(), g.outputs.end(), out) != g.outputs.end();
        int end = at;
        for (int c : inst.consumers)
            end = std::max(end, pos[static_cast<std::size_t>(c)]);
        if (itemOfOutput)
            (*itemOfOutput)[static_cast<std::size_t>(order[p])] = static_cast<int>(items.size());
        // Algo. 4's GB scope and the LLB-only variant (§5.3) keep the output out of LB.
        const int minLevel = graphOutput ? 2 : (inst.scopeGB || ctx.variant == Variant::Llb ? 1 : 0);
        items.push_back({at, graphOutput ? last : end, inst.outputBytes, cores, minLevel});
    }
    // §4.4: an instance overlapping the next one keeps what it ends with until the next one ends.
    const std::vector<char> overlap = overlapWithNext(ctx, subgraphs, ig.instances, order);
    for (MemItem &m : items)
        if (m.end < last && overlap[static_cast<std::size_t>(m.end)])
            ++m.end;
    return items;
}

OrderMemory evaluateOrder(const Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                          const std::vector<int> &order)
{
    const int positions = static_cast<int>(order.size());
    OrderMemory m;
    m.weights = keepWeights(ctx, subgraphs, ig, order);
    const std::vector<std::int64_t> *reserved = &m.weights.reserved;
    std::vector<int> levels; // per instance output, from the previous round
    for (int round = 0; round < 4; ++round) {
        m.items = orderMemItems(ctx, subgraphs, ig, order, round ? &levels : nullptr, &m.itemOfOutput);
        m.levels = assignLevels(m.items, positions, ctx.lbPerCore, ctx.gbBytes, {}, reserved);
        std::vector<int> now(ig.instances.size(), 0);
        for (std::size_t i = 0; i < now.size(); ++i)
            now[i] = m.levels.level[static_cast<std::size_t>(m.itemOfOutput[i])];
        if (round && now == levels)
            return m;
        levels = std::move(now);
    }
    // Not settled: every producer slice counted in LB-less working sets.
    const std::vector<int> allSpilled(ig.instances.size(), 1);
    m.items = orderMemItems(ctx, subgraphs, ig, order, &allSpilled, &m.itemOfOutput);
    m.levels = assignLevels(m.items, positions, ctx.lbPerCore, ctx.gbBytes, {}, reserved);
    return m;
}

Ordering orderInstances(Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig)
{
    Ordering o;
    const std::vector<int> bfs = bfsOrder(ig);
    const std::vector<int> dfs = dfsOrder(ig, bfs);
    const LevelAssignment bfsMem = evaluateOrder(ctx, subgraphs, ig, bfs).levels;
    const LevelAssignment dfsMem = evaluateOrder(ctx, subgraphs, ig, dfs).levels;
    o.bfsLbShare = bfsMem.lbShare();
    o.dfsLbShare = dfsMem.lbShare();
    auto detail = [](const LevelAssignment &a) {
        return std::to_string(a.lbBytesKept) + " of " + std::to_string(a.totalBytes) + " B kept in LB, " +
               std::to_string(a.spills.size()) + " spills";
    };
    std::vector<DecisionOption> options{{"bfs", "breadth-first (Fig. 7a)", -o.bfsLbShare, detail(bfsMem), {}},
                                        {"dfs", "depth-first, Algo. 3 (Fig. 7f)", -o.dfsLbShare, detail(dfsMem), {}}};
    const std::int32_t preferred = o.dfsLbShare >= o.bfsLbShare ? 1 : 0;
    const std::int32_t pick =
        ctx.decisions.decide(decisionKey("graphturbo.order", {ctx.graph.name}), "graphturbo.order", options, preferred);
    o.dfs = pick == 1;
    o.order = o.dfs ? dfs : bfs;
    auto &step = ctx.trace.add("S4: order instances (Algo. 3)", std::to_string(o.order.size()) + " instances",
                               o.dfs ? "depth-first order" : "breadth-first order",
                               "LB share: BFS " + std::to_string(o.bfsLbShare) + ", DFS " +
                                   std::to_string(o.dfsLbShare) + " (ties: DFS)");
    step.numbers = {{"bfs_lb_share", o.bfsLbShare},
                    {"dfs_lb_share", o.dfsLbShare},
                    {"bfs_spills", double(bfsMem.spills.size())},
                    {"dfs_spills", double(dfsMem.spills.size())}};
    ctx.trace.linkLastDecision(ctx.decisions);
    return o;
}

} // namespace tessera::graphturbo
