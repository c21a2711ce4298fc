// Memory allocation and reuse with spilling (graphturbo-osdi23 §4.3, Fig. 12).
//
// Items (instance outputs, instance working sets) are live from the task that
// writes them to the last task that reads them, over task positions in the
// schedule order; space is released after the last use and reused. Every item
// starts in LB; at each position where the live items exceed LB, the one with
// the longest liveness (ties: larger, then later id) is spilled to GB for its
// whole life, and the same is done for GB into DDR. Each spill is recorded.
// Choices: LB holds an item spread over the cores of its task (bytes per
// core); instances start at core 0, so core 0 carries the most and is the one
// checked. An item's minLevel pins it lower (graph outputs live in DDR).
// The sweep itself is general and lives in core (core/sched/levelassign.h),
// shared with the AStitch baseline (plugins/astitch).
#pragma once

#include "core/sched/levelassign.h"

namespace tessera::graphturbo {

using MemItem = tessera::LiveItem;
using Spill = tessera::LevelSpill;
using tessera::assignLevels;
using tessera::LevelAssignment;
using tessera::VictimChooser;

} // namespace tessera::graphturbo
