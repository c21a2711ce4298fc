// ModelData construction (see modeldata.h).
#include "views/models/modeldata.h"

#include "core/support/assert.h"

namespace tessera::views {

Hierarchy flatHierarchy(const Graph &g)
{
    Hierarchy h;
    h.reset(g.nodeCount()); // every node starts in the root
    h.finalize();
    return h;
}

std::shared_ptr<ModelData> makeModelData(std::shared_ptr<const Graph> graph)
{
    TS_ASSERT(graph != nullptr);
    auto data = std::make_shared<ModelData>();
    data->hierarchy = inferHierarchy(*graph);
    if (data->hierarchy.groups().empty())
        data->hierarchy = flatHierarchy(*graph);
    data->metrics = computeMetrics(*graph);
    data->graph = std::move(graph);
    return data;
}

} // namespace tessera::views
