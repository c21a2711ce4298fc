// The brick map and brick liveness of a BrickDL plan, as data for the views
// (brickdl-icpp24 Fig. 3 and Fig. 5: bricks of each layer by state over
// time; which bricks are resident in the on-chip level when).
// Read back from the ExecutionPlan alone, so any plan with brick tasks shows:
//   - a layer per node computed by tiled tasks, its grid over the node's
//     output with the brick size of its sub-graph (task.stage): the largest
//     extent of the sub-graph's non-recompute tiles along the blocked dims;
//   - a brick is in progress during a task whose tile overlaps it, complete
//     after its last such task, not started before (padded chains touch
//     halo bricks several times: their tiles are the padded regions);
//   - residency: buffers at the on-chip level live from the first to the
//     last task touching them (the verifier's rule), summed per task.
// Time is the issue order (task index).
#pragma once

#include "core/hw/device.h"
#include "core/plan/plan.h"
#include "plugins/brickdl/bricklayout.h"
#include "plugins/brickdl/memoized.h"

#include <string>
#include <vector>

namespace tessera::brickdl {

struct BrickTimeline {
    struct Touch {
        TaskId task = 0;
        bool recompute = false;
        ops::Region region; // the task's tile: brick, or padded brick with its halo
    };
    struct Layer {
        NodeId node = kInvalidId;
        std::int32_t subgraph = -1;
        std::string strategy; // the kernel's strategy tag
        BrickGrid grid;
        std::vector<Touch> touches;                      // ascending task
        std::vector<std::vector<std::int32_t>> byBrick;  // per brick: indices into touches
        std::vector<std::pair<TaskId, TaskId>> resident; // on-chip buffers' live ranges
        std::vector<std::int64_t> residentBytes;         // their sizes
    };
    std::vector<Layer> layers;
    std::size_t taskCount = 0;
    std::string level;                   // the on-chip level of the buffers ("" if none)
    std::int64_t capacityBytes = 0;      // of that level (0 without a device)
    std::vector<std::int64_t> liveBytes; // per task: on-chip bytes live while it runs

    BrickState stateAt(const Layer &layer, std::int64_t brick, TaskId task) const;
    // Touches of `layer` running at `task` (at most one per task).
    const Touch *touchAt(const Layer &layer, TaskId task) const;
    std::int64_t residentAt(const Layer &layer, TaskId task) const; // bytes
};

BrickTimeline brickTimeline(const Graph &g, const ExecutionPlan &plan, const Device *device);

} // namespace tessera::brickdl
