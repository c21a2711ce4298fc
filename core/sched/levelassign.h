// Memory-level assignment over a schedule with reuse and longest-liveness
// spilling, for any scheduler that keeps tensors in a device's fastest level
// "as far as possible" (GraphTurbo graphturbo-osdi23 §4.3 and Fig. 12; the
// AStitch baseline of its §5.2).
//
// Items (tensors, working sets) are live from the schedule position that
// writes them to the last position that reads them; space is released after
// the last use and reused. Every item starts at its minLevel (0 = the fastest
// level, 1 = the next, 2 = the slowest). At each position where the live items
// of level 0 exceed its capacity, the one with the longest liveness (ties:
// larger, then later id) is spilled to level 1 for its whole life, and the
// same is done for level 1 into level 2. Each spill is recorded.
// Level 0 is per core: an item is spread over the cores [0, cores) of its task
// (bytes per core), tasks start at core 0, so core 0 carries the most and is
// the one checked. Level 1 is one pool (a cluster's shared buffer).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace tessera {

struct Device;

// The cores of one cluster a kernel or instance spreads over: `requested` (0 or less: all of
// them), clamped to [1, coresPerCluster].
int clusterCores(const Device &d, std::int64_t requested);
// Level 0's capacity per core for a task spread over `cores` cores: a per-core (or per-unit)
// level's whole instance, else an equal share of it.
std::int64_t fastestLevelPerCore(const Device &d, int cores);

struct LiveItem {
    int start = 0;          // first position using it
    int end = 0;            // last position using it
    std::int64_t bytes = 0; // total
    int cores = 1;          // spread over cores [0, cores) when in level 0
    int minLevel = 0;       // 0 fastest, 1 next, 2 slowest
    std::int64_t perCore() const { return (bytes + cores - 1) / cores; }
};

struct LevelSpill {
    int item = 0;
    int at = 0;                 // position where the level overflowed
    int toLevel = 1;            // 1 or 2
    std::int64_t liveBytes = 0; // the level's live bytes before the spill
};

struct LevelAssignment {
    std::vector<int> level; // per item: 0, 1 or 2
    std::vector<LevelSpill> spills;
    std::int64_t lbBytesKept = 0; // bytes of items that stayed in level 0
    std::int64_t totalBytes = 0;
    double lbShare() const { return totalBytes ? double(lbBytesKept) / double(totalBytes) : 1.0; }
};

// Picks the victim among `live` (item ids) when `level` overflows at position
// `at`; `preferred` is the index in `live` of the longest-lived one. Returns an
// index into `live` (out of range: the preferred one).
using VictimChooser =
    std::function<std::size_t(const std::vector<int> &live, std::size_t preferred, int at, int level)>;

// The spill options a VictimChooser offers: indexes into `live`, the preferred one first, then
// the longest-lived others (stable among equals), at most `most` in all.
std::vector<std::size_t> victimCandidates(const std::vector<LiveItem> &items, const std::vector<int> &live,
                                          std::size_t preferred, std::size_t most = 8);

// lbPerCore: level 0's capacity per core; gbBytes: level 1's capacity. Without
// a chooser the longest-lived item is spilled. `gbReserved`, if given (one entry
// per position; missing entries 0), is level 1's space something else holds at
// each position (weights kept there across a sub-graph's instances): the items
// get gbBytes less it there.
LevelAssignment assignLevels(const std::vector<LiveItem> &items, int positions, std::int64_t lbPerCore,
                             std::int64_t gbBytes, const VictimChooser &choose = {},
                             const std::vector<std::int64_t> *gbReserved = nullptr);

} // namespace tessera
