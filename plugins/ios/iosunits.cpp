// Unit formation for plain graphs (iosunits.h): S1 attach followers to their
// producer's unit, S2 order units topologically, S3 cut blocks at cut points.
#include "plugins/ios/iosunits.h"

#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/support/assert.h"
#include "plugins/ios/iosnetworks.h"

#include <queue>

#include <algorithm>

namespace tessera {

namespace {

bool isFollower(const Node &n)
{
    static constexpr std::string_view kViews[] = {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Dropout"};
    return opClassOf(n.opType) == OpClass::Elementwise ||
           std::find(std::begin(kViews), std::end(kViews), n.opType) != std::end(kViews);
}

} // namespace

Expected<IosUnitSet> formIosUnits(const Graph &g)
{
    auto order = topologicalOrder(g);
    if (!order)
        return order.status();
    const std::size_t n = g.nodeCount();
    const std::vector<std::int32_t> rank = topologicalRanks(*order);

    // Is `to` reachable from `from`? Forward search bounded by rank(to).
    std::vector<std::uint32_t> stamp(n, 0);
    std::uint32_t visit = 0;
    auto reaches = [&](NodeId from, NodeId to) {
        ++visit;
        std::vector<NodeId> stack{from};
        while (!stack.empty()) {
            const NodeId x = stack.back();
            stack.pop_back();
            for (NodeId s : g.successors(x)) {
                if (s == to)
                    return true;
                if (rank[static_cast<std::size_t>(s)] < rank[static_cast<std::size_t>(to)] &&
                    stamp[static_cast<std::size_t>(s)] != visit) {
                    stamp[static_cast<std::size_t>(s)] = visit;
                    stack.push_back(s);
                }
            }
        }
        return false;
    };
    auto onlyReader = [&](NodeId p, NodeId reader) {
        for (TensorId t : g.node(p).outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tt = g.tensor(t);
            if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end())
                return false;
            for (NodeId c : tt.consumers)
                if (c != reader)
                    return false;
        }
        return true;
    };

    // S1: units.
    IosUnitSet set;
    set.source = "structure";
    std::vector<std::int32_t> unitOf(n, -1);
    for (NodeId v : *order) {
        const Node &node = g.node(v);
        std::int32_t join = -1;
        if (isFollower(node)) {
            NodeId best = kInvalidId;
            for (TensorId t : node.inputs) {
                const NodeId p = t == kInvalidId ? kInvalidId : g.tensor(t).producer;
                if (p == kInvalidId)
                    continue;
                const std::int32_t u = unitOf[static_cast<std::size_t>(p)];
                if (set.units[static_cast<std::size_t>(u)].nodes.back() == p && onlyReader(p, v) &&
                    (best == kInvalidId || rank[static_cast<std::size_t>(p)] > rank[static_cast<std::size_t>(best)]))
                    best = p;
            }
            // Other inputs must come from upstream of `best`: then joining adds no
            // dependency between units (and cannot close a cycle).
            bool upstream = best != kInvalidId;
            for (TensorId t : node.inputs) {
                const NodeId q = t == kInvalidId ? kInvalidId : g.tensor(t).producer;
                if (!upstream || q == kInvalidId || q == best ||
                    unitOf[static_cast<std::size_t>(q)] == unitOf[static_cast<std::size_t>(best)])
                    continue;
                upstream = reaches(q, best);
            }
            if (upstream)
                join = unitOf[static_cast<std::size_t>(best)];
        }
        if (join < 0) {
            join = static_cast<std::int32_t>(set.units.size());
            set.units.push_back({node.name, {}});
        }
        set.units[static_cast<std::size_t>(join)].nodes.push_back(v);
        unitOf[static_cast<std::size_t>(v)] = join;
    }

    // S2: units in a topological order (Kahn, ties by the rank of their first node).
    const std::size_t units = set.units.size();
    std::vector<std::vector<std::int32_t>> succ(units);
    std::vector<int> missing(units, 0), missingInitially(units, 0);
    for (std::size_t u = 0; u < units; ++u) {
        std::vector<std::int32_t> preds;
        for (NodeId x : set.units[u].nodes)
            for (NodeId p : g.predecessors(x))
                if (unitOf[static_cast<std::size_t>(p)] != static_cast<std::int32_t>(u))
                    preds.push_back(unitOf[static_cast<std::size_t>(p)]);
        std::sort(preds.begin(), preds.end());
        preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
        missing[u] = static_cast<int>(preds.size());
        missingInitially[u] = missing[u];
        for (std::int32_t p : preds)
            succ[static_cast<std::size_t>(p)].push_back(static_cast<std::int32_t>(u));
    }
    auto later = [&](std::int32_t a, std::int32_t b) {
        return rank[static_cast<std::size_t>(set.units[static_cast<std::size_t>(a)].nodes[0])] >
               rank[static_cast<std::size_t>(set.units[static_cast<std::size_t>(b)].nodes[0])];
    };
    std::priority_queue<std::int32_t, std::vector<std::int32_t>, decltype(later)> ready(later);
    for (std::size_t u = 0; u < units; ++u)
        if (!missing[u])
            ready.push(static_cast<std::int32_t>(u));
    std::vector<std::int32_t> unitOrder, position(units);
    while (!ready.empty()) {
        const std::int32_t u = ready.top();
        ready.pop();
        position[static_cast<std::size_t>(u)] = static_cast<std::int32_t>(unitOrder.size());
        unitOrder.push_back(u);
        for (std::int32_t s : succ[static_cast<std::size_t>(u)])
            if (--missing[static_cast<std::size_t>(s)] == 0)
                ready.push(s);
    }
    TS_ASSERT_MSG(unitOrder.size() == units, "unit formation closed a cycle");

    // S3: a block ends after unit i when everything after it depends on it: no
    // earlier unit is read later, and no later unit reads graph inputs only.
    std::vector<bool> sourceAfter(units + 1, false); // a unit without unit inputs at position > i
    for (std::size_t i = units; i-- > 0;)
        sourceAfter[i] =
            sourceAfter[i + 1] || (i + 1 < units && missingInitially[static_cast<std::size_t>(unitOrder[i + 1])] == 0);
    std::int32_t reach = -1; // furthest position read by a unit before the current one
    IosBlock block;
    for (std::size_t i = 0; i < units; ++i) {
        const std::int32_t u = unitOrder[i];
        block.units.push_back(u);
        if (reach <= static_cast<std::int32_t>(i) && !sourceAfter[i]) {
            block.name = "block" + std::to_string(set.blocks.size());
            set.blocks.push_back(std::move(block));
            block = {};
        }
        for (std::int32_t s : succ[static_cast<std::size_t>(u)])
            reach = std::max(reach, position[static_cast<std::size_t>(s)]);
    }
    TS_TRY(finalizeIosUnits(g, set));
    return set;
}

Expected<IosUnitSet> iosUnitsForGraph(const Graph &g, const std::map<std::string, std::string> &modelProperties)
{
    if (modelProperties.count(kIosUnitsKey))
        return iosUnitsFromMetadata(g, modelProperties);
    auto named = iosUnitsFromNodeNames(g);
    return named ? named : formIosUnits(g); // names that look like the converter's but do not nest: structure
}

} // namespace tessera
