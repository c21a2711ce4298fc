// axisMaps(): per-input axis relations (identity, affine windows, broadcast,
// reduced dims, opaque), and inputRegions() usage errors, each with a twin.
#include "core/ops/ops.h"

#include <gtest/gtest.h>

#include "opgraph.h"

using namespace tessera;
using namespace tessera::ops;
using namespace tessera::test;

namespace {

std::vector<InputAxes> axesOf(const OpGraph &og, NodeId n, int output = 0)
{
    return axisMaps(og.g, og.g.node(n), output);
}

void expectMap(const AxisMap &m, int out, int in, AxisMap::Kind kind, std::int64_t stride = 1, std::int64_t offset = 0,
               std::int64_t window = 1)
{
    EXPECT_EQ(m.outputDim, out);
    EXPECT_EQ(m.inputDim, in);
    EXPECT_EQ(m.kind, kind);
    EXPECT_EQ(m.stride, stride);
    EXPECT_EQ(m.offset, offset);
    EXPECT_EQ(m.window, window);
}

using K = AxisMap::Kind;

} // namespace

TEST(Axes, ConvWindowsAndReductions)
{
    OpGraph og;
    const NodeId n = og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7}), og.input({64})},
                             {{"strides", ints({2, 2})}, {"pads", ints({3, 3, 3, 3})}});
    const auto ax = axesOf(og, n);
    ASSERT_EQ(ax.size(), 3u);
    const InputAxes &x = ax[0];
    EXPECT_FALSE(x.opaque);
    ASSERT_EQ(x.maps.size(), 3u);
    expectMap(x.maps[0], 0, 0, K::Identity);
    expectMap(x.maps[1], 2, 2, K::Affine, 2, -3, 7);
    expectMap(x.maps[2], 3, 3, K::Affine, 2, -3, 7);
    EXPECT_EQ(x.reducedDims, (std::vector<int>{1}));
    ASSERT_EQ(ax[1].maps.size(), 1u);
    expectMap(ax[1].maps[0], 1, 0, K::Identity);
    EXPECT_EQ(ax[1].reducedDims, (std::vector<int>{1, 2, 3}));
    expectMap(ax[2].maps.at(0), 1, 0, K::Identity);
}

TEST(Axes, GroupedConvChannelsAreOpaque)
{
    OpGraph og;
    // Depthwise: channel m reads channel m.
    const NodeId dw = og.node("Conv", {og.input({1, 8, 5, 5}), og.input({8, 1, 3, 3})}, {{"group", i64(8)}});
    expectMap(axesOf(og, dw)[0].maps.at(1), 1, 1, K::Identity);
    EXPECT_FALSE(axesOf(og, dw)[0].opaque);
    // Two output channels per group: no per-axis relation for C.
    const NodeId g2 = og.node("Conv", {og.input({1, 8, 5, 5}), og.input({8, 4, 3, 3})}, {{"group", i64(2)}});
    EXPECT_TRUE(axesOf(og, g2)[0].opaque);
    // Invalid node: every input opaque.
    const NodeId bad = og.node("Conv", {og.input({1, 8, 5, 5}), og.input({8, 3, 3, 3})}, {{"group", i64(2)}});
    for (const InputAxes &a : axesOf(og, bad))
        EXPECT_TRUE(a.opaque && a.maps.empty());
}

TEST(Axes, MatMulAndBroadcast)
{
    OpGraph og;
    const NodeId mm = og.node("MatMul", {og.input({2, 3, 4}), og.input({4, 5})});
    const auto ax = axesOf(og, mm);
    ASSERT_EQ(ax[0].maps.size(), 2u);
    expectMap(ax[0].maps[0], 0, 0, K::Identity);
    expectMap(ax[0].maps[1], 1, 1, K::Identity);
    EXPECT_EQ(ax[0].reducedDims, (std::vector<int>{2}));
    ASSERT_EQ(ax[1].maps.size(), 1u);
    expectMap(ax[1].maps[0], 2, 1, K::Identity);
    EXPECT_EQ(ax[1].reducedDims, (std::vector<int>{0}));

    const NodeId add = og.node("Add", {og.input({3, 1}), og.input({4})});
    const auto b = axesOf(og, add);
    expectMap(b[0].maps.at(0), 0, 0, K::Identity);
    expectMap(b[0].maps.at(1), 1, 1, K::Broadcast, 0);
    expectMap(b[1].maps.at(0), 1, 0, K::Identity);
}

TEST(Axes, ReshapeGroupsTransposeSliceGather)
{
    OpGraph og;
    // [2, 3, 4] -> [6, 4]: dims 0 and 1 merge (opaque), dim 2 stays.
    const NodeId merge = og.node("Reshape", {og.input({2, 3, 4}), og.constInts({6, 4})});
    const auto m = axesOf(og, merge);
    EXPECT_TRUE(m[0].opaque);
    ASSERT_EQ(m[0].maps.size(), 1u);
    expectMap(m[0].maps[0], 1, 2, K::Identity);
    // Unsqueeze only inserts extent-1 dims: a pure per-axis relation.
    const NodeId uns = og.node("Unsqueeze", {og.input({3, 4}), og.constInts({0})});
    const auto u = axesOf(og, uns);
    EXPECT_FALSE(u[0].opaque);
    ASSERT_EQ(u[0].maps.size(), 2u);
    expectMap(u[0].maps[1], 2, 1, K::Identity);
    EXPECT_TRUE(u[1].opaque); // the axes input: compile-time value

    const NodeId tr = og.node("Transpose", {og.input({2, 3, 4})}, {{"perm", ints({2, 0, 1})}});
    expectMap(axesOf(og, tr)[0].maps.at(0), 0, 2, K::Identity);

    const NodeId sl = og.node(
        "Slice", {og.input({10}), og.constInts({-1}), og.constInts({-11}), og.constInts({0}), og.constInts({-2})});
    expectMap(axesOf(og, sl)[0].maps.at(0), 0, 0, K::Affine, -2, 9);

    const NodeId ga = og.node("Gather", {og.input({5, 4, 3}), og.input({2, 2}, DType::Int64)}, {{"axis", i64(1)}});
    const auto g = axesOf(og, ga);
    EXPECT_TRUE(g[0].opaque);
    ASSERT_EQ(g[0].maps.size(), 2u);
    expectMap(g[0].maps[1], 3, 2, K::Identity);
    expectMap(g[1].maps.at(1), 2, 1, K::Identity);
}

TEST(Axes, ConcatSplitOffsets)
{
    OpGraph og(13);
    const NodeId cat = og.node("Concat", {og.input({2, 3}), og.input({2, 5})}, {{"axis", i64(1)}});
    expectMap(axesOf(og, cat)[1].maps.at(1), 1, 1, K::Affine, 1, -3);
    const NodeId sp = og.node("Split", {og.input({2, 8}), og.constInts({3, 5})}, {{"axis", i64(1)}}, 2);
    expectMap(axesOf(og, sp, 1)[0].maps.at(1), 1, 1, K::Affine, 1, 3);
    EXPECT_TRUE(axesOf(og, sp, 2)[0].opaque); // no such output
}

TEST(Regions, TileChecks)
{
    OpGraph og;
    const NodeId n = og.node("Relu", {og.input({4, 5})});
    const Node &node = og.g.node(n);
    auto ok = inputRegions(og.g, node, 0, {{1, 3}, {0, 5}});
    ASSERT_TRUE(ok.isOk());
    EXPECT_EQ((*ok)[0].region, (Region{{1, 3}, {0, 5}}));
    EXPECT_EQ(regionElements((*ok)[0].clipped), 10);
    EXPECT_EQ(fullRegion({4, 5}), (Region{{0, 4}, {0, 5}}));
}

TEST(Regions, TileChecksInvalid)
{
    OpGraph og;
    const NodeId n = og.node("Relu", {og.input({4, 5})});
    const Node &node = og.g.node(n);
    auto rank = inputRegions(og.g, node, 0, {{0, 4}});
    ASSERT_FALSE(rank.isOk());
    EXPECT_EQ(rank.status().code(), ErrorCode::Usage);
    EXPECT_NE(rank.status().message().find("relu: output tile [0:4] does not fit output shape 4x5"), std::string::npos);
    EXPECT_FALSE(inputRegions(og.g, node, 0, {{0, 5}, {0, 5}}).isOk());
    EXPECT_FALSE(inputRegions(og.g, node, 0, {{3, 2}, {0, 5}}).isOk());
    auto out = inputRegions(og.g, node, 1, {{0, 4}, {0, 5}});
    ASSERT_FALSE(out.isOk());
    EXPECT_NE(out.status().message().find("output index 1 is out of range"), std::string::npos);
    // A model problem surfaces as such, not as a usage error.
    const NodeId bad = og.node("Reshape", {og.input({4}), og.input({1}, DType::Int64)});
    auto r = inputRegions(og.g, og.g.node(bad), 0, {});
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
}

TEST(Regions, PaddingHalosAndConstantGather)
{
    OpGraph og;
    // BrickDL's padded brick: a 4x4 output brick of a 3x3 pad-1 conv needs a 6x6 input
    // brick; at the top-left corner 1 row/column of it is padding.
    const NodeId conv =
        og.node("Conv", {og.input({1, 8, 16, 16}), og.input({8, 8, 3, 3})}, {{"pads", ints({1, 1, 1, 1})}});
    auto r = inputRegions(og.g, og.g.node(conv), 0, {{0, 1}, {0, 8}, {0, 4}, {0, 4}});
    ASSERT_TRUE(r.isOk());
    EXPECT_EQ((*r)[0].region, (Region{{0, 1}, {0, 8}, {-1, 5}, {-1, 5}}));
    EXPECT_EQ((*r)[0].clipped, (Region{{0, 1}, {0, 8}, {0, 5}, {0, 5}}));
    // Dilated taps that skip the last row: taps at 0, 2, 4 of a 4-row input read rows 0 and 2.
    const NodeId dil = og.node("Conv", {og.input({1, 1, 4, 4}), og.input({1, 1, 3, 1})},
                               {{"dilations", ints({2, 1})}, {"pads", ints({0, 0, 2, 0})}});
    auto d = inputRegions(og.g, og.g.node(dil), 0, {{0, 1}, {0, 1}, {0, 1}, {0, 1}});
    ASSERT_TRUE(d.isOk());
    EXPECT_EQ((*d)[0].region[2], (Interval{0, 5}));
    EXPECT_EQ((*d)[0].clipped[2], (Interval{0, 3}));
    // Embedding lookup with constant ids reads only the rows they name.
    const NodeId emb = og.node("Gather", {og.input({1000, 64}), og.constInts({7, 3, -1, 12}, Shape{2, 2})});
    auto e = inputRegions(og.g, og.g.node(emb), 0, {{0, 1}, {0, 2}, {0, 64}});
    ASSERT_TRUE(e.isOk());
    EXPECT_EQ((*e)[0].region, (Region{{3, 8}, {0, 64}}));
    auto e2 = inputRegions(og.g, og.g.node(emb), 0, {{1, 2}, {0, 1}, {0, 64}});
    ASSERT_TRUE(e2.isOk());
    EXPECT_EQ((*e2)[0].region, (Region{{999, 1000}, {0, 64}}));
}
