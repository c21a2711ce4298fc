// opCost() on known layers: FLOPs (multiply-add = 2) and bytes moved, with
// negative twins (malformed or unknown nodes cost no FLOPs but still move bytes).
#include "core/ops/ops.h"

#include <gtest/gtest.h>

#include "opgraph.h"

using namespace tessera;
using namespace tessera::ops;
using namespace tessera::test;

namespace {
OpCost costOf(const OpGraph &og, NodeId n)
{
    return opCost(og.g, og.g.node(n));
}
AttrMap resnetConv1()
{
    return {{"strides", ints({2, 2})}, {"pads", ints({3, 3, 3, 3})}};
}
} // namespace

TEST(Cost, ResNet50Conv1)
{
    // 64 x 112 x 112 outputs, each 3 x 7 x 7 = 147 MACs: 118,013,952 MACs.
    OpGraph og;
    const NodeId n = og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7})}, resnetConv1());
    const OpCost c = costOf(og, n);
    EXPECT_DOUBLE_EQ(c.flops, 236027904.0);
    EXPECT_EQ(c.bytesRead, (3 * 224 * 224 + 64 * 3 * 7 * 7) * 4);
    EXPECT_EQ(c.bytesWritten, 64 * 112 * 112 * 4);
    EXPECT_NEAR(c.arithmeticIntensity(), 236027904.0 / (639744 + 3211264), 1e-9);
    // With a bias: one add per output element.
    const NodeId b =
        og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7}), og.input({64})}, resnetConv1());
    EXPECT_DOUBLE_EQ(costOf(og, b).flops, 236027904.0 + 802816.0);
    // Batch 8 scales linearly.
    const NodeId b8 = og.node("Conv", {og.input({8, 3, 224, 224}), og.input({64, 3, 7, 7})}, resnetConv1());
    EXPECT_DOUBLE_EQ(costOf(og, b8).flops, 8 * 236027904.0);
}

TEST(Cost, MalformedNodesCostNoFlops)
{
    OpGraph og;
    AttrMap bad = resnetConv1();
    bad["group"] = i64(2); // 3 channels do not split into 2 groups
    const NodeId n = og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7})}, bad);
    const OpCost c = costOf(og, n);
    EXPECT_EQ(c.flops, 0.0);
    EXPECT_EQ(c.bytesRead, (3 * 224 * 224 + 64 * 3 * 7 * 7) * 4);
    const NodeId u = og.node("Frobnicate", {og.input({4})});
    EXPECT_EQ(costOf(og, u).flops, 0.0);
    EXPECT_EQ(costOf(og, u).bytesRead, 16);
}

TEST(Cost, GroupedDepthwiseAndTransposed)
{
    OpGraph og;
    // MobileNet depthwise 3x3 on 32 x 112 x 112: 9 MACs per output.
    const NodeId dw = og.node("Conv", {og.input({1, 32, 112, 112}), og.input({32, 1, 3, 3})},
                              {{"group", i64(32)}, {"pads", ints({1, 1, 1, 1})}});
    EXPECT_DOUBLE_EQ(costOf(og, dw).flops, 2.0 * 32 * 112 * 112 * 9);
    // ResNeXt-style grouped 3x3: 32 groups of 4 channels, 128 -> 128 on 56 x 56.
    const NodeId gr = og.node("Conv", {og.input({1, 128, 56, 56}), og.input({128, 4, 3, 3})},
                              {{"group", i64(32)}, {"pads", ints({1, 1, 1, 1})}});
    EXPECT_DOUBLE_EQ(costOf(og, gr).flops, 2.0 * 128 * 56 * 56 * 4 * 9);
    // Transposed: every input element scatters into 8 x 4 x 4 outputs.
    const NodeId tr = og.node("ConvTranspose", {og.input({1, 16, 14, 14}), og.input({16, 8, 4, 4})},
                              {{"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}});
    EXPECT_DOUBLE_EQ(costOf(og, tr).flops, 2.0 * 16 * 14 * 14 * 8 * 16);
}

TEST(Cost, MatrixProducts)
{
    OpGraph og;
    // ResNet-50 fc: 2048 -> 1000 with bias.
    const NodeId fc =
        og.node("Gemm", {og.input({1, 2048}), og.input({1000, 2048}), og.input({1000})}, {{"transB", i64(1)}});
    EXPECT_DOUBLE_EQ(costOf(og, fc).flops, 2.0 * 2048 * 1000 + 1000);
    EXPECT_EQ(costOf(og, fc).bytesRead, (2048 + 1000 * 2048 + 1000) * 4);
    // BERT-base attention scores: 12 heads x 128 x 128 x 64.
    const NodeId qk = og.node("MatMul", {og.input({1, 12, 128, 64}), og.input({1, 12, 64, 128})});
    EXPECT_DOUBLE_EQ(costOf(og, qk).flops, 2.0 * 12 * 128 * 128 * 64);
    const NodeId bc = og.node("MatMul", {og.input({8, 64, 32}), og.input({32, 16})});
    EXPECT_DOUBLE_EQ(costOf(og, bc).flops, 524288.0);
    const NodeId dot = og.node("MatMul", {og.input({5}), og.input({5})});
    EXPECT_DOUBLE_EQ(costOf(og, dot).flops, 10.0);
}

TEST(Cost, ElementwisePoolingAndData)
{
    OpGraph og(13);
    const TensorId x = og.input({1, 64, 112, 112});
    const double e = 64.0 * 112 * 112;
    EXPECT_DOUBLE_EQ(costOf(og, og.node("Relu", {x})).flops, e);
    EXPECT_DOUBLE_EQ(costOf(og, og.node("Sigmoid", {x})).flops, 3 * e);
    EXPECT_DOUBLE_EQ(costOf(og, og.node("Add", {x, og.input({64, 1, 1})})).flops, e);
    const NodeId pool = og.node(
        "MaxPool", {x}, {{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}});
    EXPECT_DOUBLE_EQ(costOf(og, pool).flops, 64.0 * 56 * 56 * 9);
    EXPECT_DOUBLE_EQ(costOf(og, og.node("GlobalAveragePool", {x})).flops, e + 64);
    EXPECT_DOUBLE_EQ(costOf(og, og.node("Softmax", {og.input({2, 10})})).flops, 100.0);
    EXPECT_DOUBLE_EQ(costOf(og, og.node("ReduceMean", {og.input({2, 10})}, {{"axes", ints({1})}})).flops, 22.0);
    // Pure data movement: no FLOPs, bytes on both sides.
    const NodeId r = og.node("Reshape", {x, og.constInts({1, -1})});
    EXPECT_EQ(costOf(og, r).flops, 0.0);
    EXPECT_EQ(costOf(og, r).bytesRead, static_cast<std::int64_t>(e) * 4 + 16);
    EXPECT_EQ(costOf(og, r).bytesWritten, static_cast<std::int64_t>(e) * 4);
    // A tensor read twice is read once.
    const TensorId y = og.input({10});
    EXPECT_EQ(costOf(og, og.node("Mul", {y, y})).bytesRead, 40);
    EXPECT_EQ(costOf(og, og.node("Mul", {y, og.input({10})})).bytesRead, 80);
}
