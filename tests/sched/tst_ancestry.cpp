// AncestorBits (core/plan/ancestry.h): transitive dependencies as bitsets,
// against a brute-force walk, with the shared-row shortcut for tasks whose
// dependency lists are equal.
#include "core/plan/ancestry.h"

#include <gtest/gtest.h>
#include <random>

using namespace tessera;

namespace {

using Deps = std::vector<std::vector<std::int32_t>>;

AncestorBits bitsOf(const Deps &deps)
{
    return AncestorBits(deps.size(), [&](std::size_t t) { return std::span<const std::int32_t>(deps[t]); });
}

// Whether `a` is reachable from `t` along deps (the definition, walked once per task).
bool reaches(const Deps &deps, std::size_t t, std::size_t a)
{
    std::vector<bool> seen(deps.size(), false);
    std::vector<std::size_t> stack{t};
    while (!stack.empty()) {
        const std::size_t x = stack.back();
        stack.pop_back();
        for (std::int32_t d : deps[x])
            if (!seen[static_cast<std::size_t>(d)]) {
                seen[static_cast<std::size_t>(d)] = true;
                stack.push_back(static_cast<std::size_t>(d));
            }
    }
    return seen[a];
}

TEST(AncestorBits, ADiamondsJoinSeesBothSidesAndTheirRoot)
{
    //   0 -> 1 -> 3,  0 -> 2 -> 3,  4 alone
    const Deps deps = {{}, {0}, {0}, {2, 1}, {}};
    const AncestorBits bits = bitsOf(deps);
    EXPECT_TRUE(bits.isAncestor(0, 3));
    EXPECT_TRUE(bits.isAncestor(1, 3));
    EXPECT_TRUE(bits.isAncestor(2, 3));
    // Twins: siblings are not each other's ancestors, nor is anything its own, nor is 4 related.
    EXPECT_FALSE(bits.isAncestor(1, 2));
    EXPECT_FALSE(bits.isAncestor(2, 1));
    EXPECT_FALSE(bits.isAncestor(3, 3));
    EXPECT_FALSE(bits.isAncestor(4, 3));
    EXPECT_FALSE(bits.isAncestor(0, 4));
}

// Layers of bricks where every brick waits for every brick of the layer
// before (BrickDL's plans on the CPU backend), then a random DAG over 300
// tasks (rows of several words): every bit equals the walked answer.
TEST(AncestorBits, MatchesAWalkOnLayeredAndRandomDags)
{
    Deps layered;
    const int layers = 4, width = 70;
    for (int l = 0; l < layers; ++l)
        for (int b = 0; b < width; ++b) {
            std::vector<std::int32_t> d;
            for (int p = 0; l > 0 && p < width; ++p)
                d.push_back((l - 1) * width + p);
            layered.push_back(d);
        }
    std::mt19937 rng(7);
    Deps random(300);
    for (std::size_t t = 1; t < random.size(); ++t)
        for (int k = 0; k < 3; ++k)
            if (rng() % 3 != 0)
                random[t].push_back(static_cast<std::int32_t>(rng() % t));
    for (const Deps *deps : {&layered, &random}) {
        const AncestorBits bits = bitsOf(*deps);
        for (std::size_t t = 0; t < deps->size(); ++t)
            for (std::size_t a = 0; a < deps->size(); ++a)
                ASSERT_EQ(bits.isAncestor(a, t), a < t && reaches(*deps, t, a)) << "task " << t << ", " << a;
    }
}

} // namespace
