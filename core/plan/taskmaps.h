// KernelIndexMaps: what core/plan taskRegions needs of one kernel whatever the task (tiles.h),
// made once for callers that take the regions of every task of a kernel.
#pragma once

#include "core/ops/indexmap.h"
#include "core/plan/tiles.h"

#include <optional>
#include <vector>

namespace tessera {

// What taskRegions needs of one kernel whatever the task: its node set, its output nodes and the
// index map of each node (type inference run once). For callers that take the regions of many
// tasks of one kernel (the verifier, a lowering); refers to g, which must outlive it unchanged.
class KernelIndexMaps
{
public:
    KernelIndexMaps(const Graph &g, const Kernel &kernel);
    const std::vector<NodeId> &outputNodes() const { return m_outputNodes; }

private:
    friend Expected<TaskRegions> taskRegions(const Graph &, const Kernel &, const std::vector<NodeTile> &,
                                             const KernelIndexMaps *);
    std::vector<NodeId> m_nodes; // the kernel's, topological
    std::vector<NodeId> m_outputNodes;
    std::vector<std::optional<ops::NodeIndexMap>> m_maps; // by position in m_nodes; none for opaque nodes
};

// The same result as taskRegions(g, kernel, tiles), with `maps` made for g and this kernel (null:
// none).
Expected<TaskRegions> taskRegions(const Graph &g, const Kernel &kernel, const std::vector<NodeTile> &tiles,
                                  const KernelIndexMaps *maps);

} // namespace tessera
