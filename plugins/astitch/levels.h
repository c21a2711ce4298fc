// A3: memory levels (graphturbo-osdi23 §5.2: AStitch "maximally preserving
// tensors in L1"; the allocation with reuse and longest-liveness spilling of
// §4.3, core/sched/levelassign.h).
//
// Items over kernel positions (issue order): each kernel's working set (its
// tensors produced and consumed inside, all live at once: no tile of a kernel
// is smaller than the kernel, "no instance split") at its own position, and
// each escaping output from its kernel to its last consumer kernel. Sizes are
// one cluster part's (cluster 0 carries the most). Every item starts in LB;
// graph outputs live in DDR, and so does a tensor a part on another cluster
// reads (clusters do not share LB or GB). Each spill victim is the decision
// "astitch.spill" keyed by the running kernel, the level and the count: the
// longest-lived live item (preferred) or one of the next longest.
#pragma once

#include "core/sched/levelassign.h"
#include "plugins/astitch/stitching.h"

namespace tessera::astitch {

struct Levels {
    std::vector<LiveItem> items;
    LevelAssignment assignment;
    std::vector<int> workItem;            // per kernel
    std::map<TensorId, int> itemOfOutput; // escaping tensor -> item
    int crossCluster = 0;                 // tensors pinned to DDR because another cluster reads them
    int levelOf(TensorId t) const { return assignment.level[static_cast<std::size_t>(itemOfOutput.at(t))]; }
    int workLevel(int k) const
    {
        return assignment.level[static_cast<std::size_t>(workItem[static_cast<std::size_t>(k)])];
    }
};

Levels assignKernelLevels(Context &ctx, const Stitching &st);

} // namespace tessera::astitch
