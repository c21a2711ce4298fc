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
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace tessera::graphturbo {

struct MemItem {
    int start = 0;          // first task position using it
    int end = 0;            // last task position using it
    std::int64_t bytes = 0; // total
    int cores = 1;          // spread over cores [0, cores) when in LB
    int minLevel = 0;       // 0 LB, 1 GB, 2 DDR
    std::int64_t perCore() const { return (bytes + cores - 1) / cores; }
};

struct Spill {
    int item = 0;
    int at = 0;                 // position where the level overflowed
    int toLevel = 1;            // 1 GB, 2 DDR
    std::int64_t liveBytes = 0; // the level's live bytes before the spill
};

struct LevelAssignment {
    std::vector<int> level; // per item: 0 LB, 1 GB, 2 DDR
    std::vector<Spill> spills;
    std::int64_t lbBytesKept = 0; // bytes of items that stayed in LB
    std::int64_t totalBytes = 0;
    double lbShare() const { return totalBytes ? double(lbBytesKept) / double(totalBytes) : 1.0; }
};

// Picks the victim among `live` (item ids) when `level` overflows at position
// `at`; `preferred` is the index in `live` of the longest-lived one. Returns an
// index into `live`.
using VictimChooser =
    std::function<std::size_t(const std::vector<int> &live, std::size_t preferred, int at, int level)>;

// lbPerCore: LB capacity of one core; gbBytes: GB of the cluster. Without a
// chooser the longest-lived item is spilled.
LevelAssignment assignLevels(const std::vector<MemItem> &items, int positions, std::int64_t lbPerCore,
                             std::int64_t gbBytes, const VictimChooser &choose = {});

} // namespace tessera::graphturbo
