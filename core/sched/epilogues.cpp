#include "core/sched/epilogues.h"

#include "core/hw/device.h"
#include "core/ir/analysis.h"
#include "core/support/assert.h"

#include <set>

namespace tessera {

std::vector<std::vector<NodeId>> operatorsWithEpilogues(const Graph &g)
{
    auto order = topologicalOrder(g);
    TS_ASSERT_MSG(order.isOk(), "operatorsWithEpilogues needs an acyclic graph");
    const std::vector<std::int32_t> rank = topologicalRanks(*order);
    std::vector<std::vector<NodeId>> groups;
    std::vector<std::int32_t> groupOf(g.nodeCount(), -1);
    for (NodeId id : *order) {
        const Node &n = g.node(id);
        NodeId join = kInvalidId;
        if (opClassOf(n.opType) == OpClass::Elementwise)
            for (TensorId t : n.inputs) {
                if (t == kInvalidId)
                    continue;
                const NodeId p = g.tensor(t).producer;
                if (p == kInvalidId)
                    continue;
                const auto &pg = groups[static_cast<std::size_t>(groupOf[static_cast<std::size_t>(p)])];
                bool soleReader = pg.back() == p;
                for (TensorId o : g.node(p).outputs)
                    if (o != kInvalidId)
                        for (NodeId c : g.tensor(o).consumers)
                            soleReader = soleReader && c == id;
                if (soleReader &&
                    (join == kInvalidId || rank[static_cast<std::size_t>(p)] > rank[static_cast<std::size_t>(join)]))
                    join = p;
            }
        if (join == kInvalidId) {
            groupOf[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(groups.size());
            groups.push_back({id});
        } else {
            const std::int32_t gi = groupOf[static_cast<std::size_t>(join)];
            groupOf[static_cast<std::size_t>(id)] = gi;
            groups[static_cast<std::size_t>(gi)].push_back(id);
        }
    }
    return groups;
}

OperatorDag operatorDag(const Graph &g, bool withEpilogues)
{
    OperatorDag dag;
    if (withEpilogues) {
        dag.ops = operatorsWithEpilogues(g);
    } else {
        auto order = topologicalOrder(g);
        TS_ASSERT_MSG(order.isOk(), "operatorDag needs an acyclic graph");
        for (NodeId n : *order)
            dag.ops.push_back({n});
    }
    std::vector<std::int32_t> opOf(g.nodeCount());
    for (std::size_t o = 0; o < dag.ops.size(); ++o)
        for (NodeId n : dag.ops[o])
            opOf[static_cast<std::size_t>(n)] = static_cast<std::int32_t>(o);
    dag.readers.resize(dag.ops.size());
    dag.inDegree.resize(dag.ops.size());
    for (std::size_t o = 0; o < dag.ops.size(); ++o) {
        std::set<std::int32_t> from;
        for (NodeId n : dag.ops[o])
            for (NodeId p : g.predecessors(n))
                if (opOf[static_cast<std::size_t>(p)] != static_cast<std::int32_t>(o))
                    from.insert(opOf[static_cast<std::size_t>(p)]);
        dag.inDegree[o] = static_cast<int>(from.size());
        for (std::int32_t f : from)
            dag.readers[static_cast<std::size_t>(f)].push_back(static_cast<std::int32_t>(o));
    }
    return dag;
}

std::string describeOperator(const Graph &g, const std::vector<NodeId> &op)
{
    std::string text = g.node(op.front()).opType + " " + g.node(op.front()).name;
    for (std::size_t i = 1; i < op.size(); ++i)
        text += " + " + g.node(op[i]).opType;
    return text;
}

} // namespace tessera
