// RegionIndex (core/plan/regionindex.h): every region overlapping a query,
// each once, against testing them all — bricks with halos on the indexed
// grid, a few regions (scanned), regions and queries spanning many cells,
// and rank-0 tensors; with the negative twin of a query that touches none.
#include "core/plan/regionindex.h"

#include <gtest/gtest.h>
#include <random>
#include <set>

using namespace tessera;

namespace {

bool touch(const ops::Region &a, const ops::Region &b)
{
    for (std::size_t d = 0; d < a.size(); ++d)
        if (a[d].begin >= b[d].end || b[d].begin >= a[d].end)
            return false;
    return true;
}

// The index's answer, checked to name each region once.
std::set<std::size_t> found(const RegionIndex &index, const ops::Region &q)
{
    std::set<std::size_t> out;
    index.forOverlapping(q, [&](std::size_t i) { EXPECT_TRUE(out.insert(i).second) << "region " << i << " twice"; });
    return out;
}

std::set<std::size_t> expected(const std::vector<ops::Region> &regions, const ops::Region &q)
{
    std::set<std::size_t> out;
    for (std::size_t i = 0; i < regions.size(); ++i)
        if (touch(regions[i], q))
            out.insert(i);
    return out;
}

std::vector<const ops::Region *> pointers(const std::vector<ops::Region> &regions)
{
    std::vector<const ops::Region *> out;
    for (const ops::Region &r : regions)
        out.push_back(&r);
    return out;
}

// 8x8 bricks of 7x7 of a [1, 16, 56, 56] tensor, each with a one-element
// halo (a 3x3 convolution's), plus two regions of the whole tensor.
std::vector<ops::Region> bricksWithHalos()
{
    std::vector<ops::Region> out;
    for (std::int64_t y = 0; y < 8; ++y)
        for (std::int64_t x = 0; x < 8; ++x)
            out.push_back({{0, 1},
                           {0, 16},
                           {std::max<std::int64_t>(7 * y - 1, 0), std::min<std::int64_t>(7 * y + 8, 56)},
                           {std::max<std::int64_t>(7 * x - 1, 0), std::min<std::int64_t>(7 * x + 8, 56)}});
    out.push_back({{0, 1}, {0, 16}, {0, 56}, {0, 56}});
    out.push_back({{0, 1}, {0, 16}, {0, 56}, {0, 56}});
    return out;
}

TEST(RegionIndex, EveryOverlappingBrickOnceAsScanningAllFinds)
{
    const std::vector<ops::Region> regions = bricksWithHalos();
    const std::vector<const ops::Region *> items = pointers(regions);
    const RegionIndex index(items);
    std::mt19937 rng(5);
    for (int q = 0; q < 500; ++q) {
        ops::Region query{{0, 1}, {0, 16}, {0, 0}, {0, 0}};
        for (std::size_t d = 2; d < 4; ++d) {
            const std::int64_t a = std::uniform_int_distribution<std::int64_t>(0, 55)(rng);
            const std::int64_t len = std::uniform_int_distribution<std::int64_t>(1, q % 10 == 0 ? 56 : 9)(rng);
            query[d] = {a, std::min<std::int64_t>(a + len, 56)};
        }
        EXPECT_EQ(found(index, query), expected(regions, query)) << q;
    }
    // A brick's own rows and columns meet its 8 neighbours' halos and the two whole regions.
    const ops::Region inner{{0, 1}, {0, 16}, {14, 21}, {14, 21}};
    EXPECT_EQ(found(index, inner).size(), 9u + 2u);
    // The whole tensor meets every region.
    EXPECT_EQ(found(index, {{0, 1}, {0, 16}, {0, 56}, {0, 56}}).size(), regions.size());
}

// Negative twin: a query past the bricks, or of another batch, meets none.
TEST(RegionIndex, AQueryOutsideEveryRegionMeetsNone)
{
    const std::vector<ops::Region> regions = bricksWithHalos();
    const std::vector<const ops::Region *> items = pointers(regions);
    const RegionIndex index(items);
    EXPECT_TRUE(found(index, {{1, 2}, {0, 16}, {0, 56}, {0, 56}}).empty());
    EXPECT_TRUE(found(index, {{0, 1}, {0, 16}, {56, 60}, {0, 56}}).empty());
}

// Few regions (no grid: scanned) and rank-0 tensors answer the same way.
TEST(RegionIndex, FewRegionsAndScalarsAreScanned)
{
    const std::vector<ops::Region> few = {{{0, 4}}, {{4, 8}}, {{2, 6}}};
    const std::vector<const ops::Region *> items = pointers(few);
    const RegionIndex index(items);
    EXPECT_EQ(found(index, {{3, 4}}), (std::set<std::size_t>{0, 2}));
    EXPECT_TRUE(found(index, {{8, 9}}).empty());

    const std::vector<ops::Region> scalars(40, ops::Region{});
    const std::vector<const ops::Region *> scalarItems = pointers(scalars);
    const RegionIndex scalarIndex(scalarItems);
    EXPECT_EQ(found(scalarIndex, {}).size(), scalars.size());
}

} // namespace
