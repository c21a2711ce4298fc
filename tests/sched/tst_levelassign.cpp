// core/sched/levelassign's helpers shared by the GraphTurbo and AStitch schedulers: the cores a
// task spreads over, level 0's capacity per core, and the spill options a victim chooser offers;
// each beside a negative twin.
#include "core/hw/device.h"
#include "core/sched/levelassign.h"

#include <gtest/gtest.h>

using namespace tessera;

namespace {

Device eightCores(MemoryScope lbScope)
{
    Device d;
    d.topology = {4, 8, 3};
    d.levels = {{"L1", lbScope, 64 * 1024}, {"LLB", MemoryScope::PerCluster, 8 << 20}};
    return d;
}

TEST(LevelAssign, ClusterCoresDefaultsToTheWholeClusterAndClamps)
{
    const Device d = eightCores(MemoryScope::PerCore);
    EXPECT_EQ(clusterCores(d, 0), 8);
    EXPECT_EQ(clusterCores(d, -3), 8);
    EXPECT_EQ(clusterCores(d, 4), 4);
    EXPECT_EQ(clusterCores(d, 64), 8);
}

TEST(LevelAssign, PerCoreLevelIsWholePerCoreSharedLevelIsSplit)
{
    EXPECT_EQ(fastestLevelPerCore(eightCores(MemoryScope::PerCore), 4), 64 * 1024);
    // Negative twin: a level shared by the cluster's cores gives each of the 4 a quarter.
    EXPECT_EQ(fastestLevelPerCore(eightCores(MemoryScope::PerCluster), 4), 16 * 1024);
}

// Level 1's space held by something else at some positions (weights kept in GB across a
// sub-graph's instances) is not the items': an item live there is spilled to level 2.
TEST(LevelAssign, ReservedLevelOneSpaceSpillsTheItemsLiveThere)
{
    // Two items pinned to level 1 (minLevel 1), 100 B each, in a 250 B level 1.
    const std::vector<LiveItem> items{{0, 1, 100, 1, 1}, {2, 3, 100, 1, 1}, {2, 3, 100, 1, 1}};
    const std::vector<std::int64_t> reserved{0, 0, 100, 100};
    const LevelAssignment a = assignLevels(items, 4, 1000, 250, {}, &reserved);
    EXPECT_EQ(a.level[0], 1);
    ASSERT_EQ(a.spills.size(), 1u);
    EXPECT_EQ(a.spills[0].at, 2);
    EXPECT_EQ(a.spills[0].toLevel, 2);
    EXPECT_EQ(a.level[1] + a.level[2], 3); // one stays in level 1, one goes to level 2
    // Negative twin: without the reservation (or with it at positions no item is live), all fit.
    EXPECT_TRUE(assignLevels(items, 4, 1000, 250).spills.empty());
    const std::vector<std::int64_t> early{100, 100};
    const std::vector<std::int64_t> *none = nullptr;
    EXPECT_TRUE(assignLevels(items, 4, 1000, 250, {}, none).spills.empty());
    EXPECT_EQ(assignLevels(items, 4, 1000, 250, {}, &early).spills.size(), 0u);
}

TEST(LevelAssign, VictimCandidatesPutThePreferredFirstThenTheLongestLived)
{
    // Items live [start, end]: lifetimes 1, 5, 3, 5.
    const std::vector<LiveItem> items{{0, 1, 10}, {0, 5, 10}, {2, 5, 10}, {1, 6, 10}};
    const std::vector<int> live{0, 1, 2, 3};
    EXPECT_EQ(victimCandidates(items, live, 2), (std::vector<std::size_t>{2, 1, 3, 0}));
    // Negative twin: at most `most` options, the preferred one kept even when it is the shortest-lived.
    EXPECT_EQ(victimCandidates(items, live, 0, 2), (std::vector<std::size_t>{0, 1}));
}

} // namespace
