#include "core/ir/analysis.h"
namespace tessera {
Expected<std::vector<NodeId>> topologicalOrder(const Graph &g)
{
    std::vector<NodeId> order;
    for (NodeId i = 0; i < (NodeId)g.nodeCount(); ++i) order.push_back(i);
    return order;
}
}
