// The plan on the graph: every node's kernel, stage, stream, binding or the
// memory level of its output, as categories the graph view colours with a
// legend. It reads only the ExecutionPlan, so it works for every scheduler's
// plan alike (no per-algorithm code).
//
// Rules:
// - A node belongs to the first kernel that lists it; nodes in no kernel (a
//   plan that leaves them out) have no category (-1) and are drawn grey.
// - Stage, stream and binding come from the compute tasks of the node's
//   kernel. When those tasks disagree (a kernel split into instances on four
//   cores), the node's category names the set: "cores 0–3", "stages 2, 5".
// - Memory level: the levels of the buffers that hold the node's first output,
//   fastest-first as the plan lists them ("LB", "DDR"); "" in a plan means the
//   device's slowest level and is shown as "default".
// - Categories are numbered in the order they first appear along the graph's
//   node order, so neighbouring kernels get neighbouring palette colours.
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace tessera::views {

enum class PlanFacet : std::uint8_t { Kernel, Stage, Stream, Binding, MemoryLevel };
inline constexpr PlanFacet kAllPlanFacets[] = {PlanFacet::Kernel, PlanFacet::Stage, PlanFacet::Stream,
                                               PlanFacet::Binding, PlanFacet::MemoryLevel};
QString planFacetName(PlanFacet facet); // "kernel", "stage", "stream", "binding", "memory level"

struct NodeCategories {
    std::vector<int> perNode;   // one per graph node: index into names, -1 = none
    std::vector<QString> names; // category labels
    // Nodes of category c (for highlighting a kernel's or stage's nodes).
    std::vector<NodeId> nodesOf(int category) const;
};

NodeCategories planCategories(const Graph &graph, const ExecutionPlan &plan, PlanFacet facet);

} // namespace tessera::views
