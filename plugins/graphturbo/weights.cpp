#include "plugins/graphturbo/weights.h"

#include <algorithm>

namespace tessera::graphturbo {

namespace {

std::vector<TensorId> weightsOf(const Graph &g, const SubGraph &sg)
{
    std::vector<TensorId> out;
    std::set<TensorId> seen;
    for (NodeId n : sg.nodes)
        for (TensorId t : g.node(n).inputs)
            if (t != kInvalidId && g.tensor(t).isConstant() && seen.insert(t).second)
                out.push_back(t);
    // The larger first (stable: graph order among equals).
    std::stable_sort(out.begin(), out.end(),
                     [&](TensorId a, TensorId b) { return g.tensor(a).bytes() > g.tensor(b).bytes(); });
    return out;
}

// Keeps the weights of `s` that fit `capacity` beside `used` over its interval; adds them to `used`.
void keep(const Context &ctx, const SubGraph &sg, std::size_t s, std::int64_t capacity, std::vector<std::int64_t> &used,
          std::vector<std::int64_t> *reserved, WeightPlan &plan)
{
    for (TensorId t : weightsOf(ctx.graph, sg)) {
        const std::int64_t w = ctx.graph.tensor(t).bytes();
        bool fits = w <= capacity;
        for (int p = plan.first[s]; fits && p <= plan.last[s]; ++p)
            fits = used[static_cast<std::size_t>(p)] + w <= capacity;
        if (!fits)
            continue;
        plan.resident[s].insert(t);
        plan.bytes[s] += w;
        for (int p = plan.first[s]; p <= plan.last[s]; ++p) {
            used[static_cast<std::size_t>(p)] += w;
            if (reserved)
                (*reserved)[static_cast<std::size_t>(p)] += w;
        }
    }
}

std::int64_t wholeBytes(const Graph &g, const SubGraph &sg)
{
    std::int64_t b = 0;
    for (TensorId t : weightsOf(g, sg))
        b += g.tensor(t).bytes();
    return b;
}

} // namespace

WeightPlan keepWeights(const Context &ctx, const std::vector<SubGraph> &subgraphs, const InstanceGraph &ig,
                       const std::vector<int> &order)
{
    const std::size_t n = subgraphs.size();
    WeightPlan plan;
    plan.resident.assign(n, {});
    plan.bytes.assign(n, 0);
    plan.reserved.assign(order.size(), 0);
    plan.first.assign(n, -1);
    plan.last.assign(n, -1);
    plan.count.assign(n, 0);
    plan.next.assign(n, -1);
    for (std::size_t p = 0; p < order.size(); ++p) {
        const auto s = static_cast<std::size_t>(ig.instances[static_cast<std::size_t>(order[p])].subgraph);
        if (plan.first[s] < 0)
            plan.first[s] = static_cast<int>(p);
        plan.last[s] = static_cast<int>(p);
        ++plan.count[s];
    }
    plan.firstInstance = plan.first;
    std::vector<std::size_t> byFirst;
    for (std::size_t s = 0; s < n; ++s)
        if (plan.first[s] >= 0)
            byFirst.push_back(s);
    std::sort(byFirst.begin(), byFirst.end(),
              [&](std::size_t a, std::size_t b) { return plan.first[a] < plan.first[b]; });
    for (std::size_t i = 0; i + 1 < byFirst.size(); ++i)
        plan.next[byFirst[i]] = static_cast<int>(byFirst[i + 1]);
    // Full variant: a promotion issued when the sub-graph before starts holds its GB from there.
    if (ctx.overlap())
        for (std::size_t i = byFirst.size(); i-- > 1;)
            plan.first[byFirst[i]] = plan.firstInstance[byFirst[i - 1]];
    if (ctx.weightBudget <= 0)
        return plan;
    // W1: sub-graphs of several instances, the largest saving first.
    std::vector<std::pair<double, std::size_t>> byGain;
    for (std::size_t s : byFirst)
        if (plan.count[s] > 1)
            if (const std::int64_t w = wholeBytes(ctx.graph, subgraphs[s]); w > 0)
                byGain.push_back({double(w) * double(plan.count[s] - 1), s});
    std::stable_sort(byGain.begin(), byGain.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<std::int64_t> used(order.size(), 0);
    for (const auto &[gain, s] : byGain)
        keep(ctx, subgraphs[s], s, ctx.weightBudget, used, &plan.reserved, plan);
    return plan;
}

void addWeightsInFreeSpace(const Context &ctx, const std::vector<SubGraph> &subgraphs,
                           const std::vector<MemItem> &items, const LevelAssignment &levels, WeightPlan &plan)
{
    if (ctx.weightBudget <= 0)
        return;
    const std::size_t positions = plan.reserved.size();
    // GB bytes held at each position: the activations §4.3 put there and W1's weights.
    std::vector<std::int64_t> used(positions + 1, 0);
    for (std::size_t i = 0; i < items.size(); ++i)
        if (levels.level[i] == 1 && items[i].start >= 0 && static_cast<std::size_t>(items[i].start) < positions) {
            used[static_cast<std::size_t>(items[i].start)] += items[i].bytes;
            used[std::min<std::size_t>(static_cast<std::size_t>(items[i].end) + 1, positions)] -= items[i].bytes;
        }
    for (std::size_t p = 1; p < used.size(); ++p)
        used[p] += used[p - 1];
    for (std::size_t p = 0; p < positions; ++p)
        used[p] += plan.reserved[p];
    // W2: sub-graphs of one instance, in order.
    std::vector<std::size_t> byFirst;
    for (std::size_t s = 0; s < subgraphs.size(); ++s)
        if (plan.first[s] >= 0 && plan.count[s] == 1)
            byFirst.push_back(s);
    std::sort(byFirst.begin(), byFirst.end(),
              [&](std::size_t a, std::size_t b) { return plan.first[a] < plan.first[b]; });
    for (std::size_t s : byFirst)
        keep(ctx, subgraphs[s], s, std::min(ctx.weightBudget, ctx.gbBytes), used, nullptr, plan);
}

} // namespace tessera::graphturbo
