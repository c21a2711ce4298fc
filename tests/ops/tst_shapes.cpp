// Shape inference against hand-computed layers (ResNet, Inception, FCN-style
// decoders, transformer reshapes), each next to its negative twin: the error a
// malformed variant must produce, with the node it names.
#include "core/ops/ops.h"
#include "core/ops/slice.h"

#include <gtest/gtest.h>
#include <limits>

#include "opgraph.h"

using namespace tessera;
using namespace tessera::ops;
using namespace tessera::test;

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The status of inferring node `id`; must fail with `fragment` in the message, located at the node.
void expectError(const OpGraph &og, NodeId id, const std::string &fragment, ErrorCode code = ErrorCode::InvalidInput)
{
    std::vector<TensorType> out;
    const Status st = og.infer(id, out);
    ASSERT_FALSE(st.isOk()) << "expected an error containing '" << fragment << "'";
    EXPECT_EQ(st.code(), code) << st.str();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.str();
    EXPECT_EQ(st.location().node, og.g.node(id).name) << st.str();
}

AttrMap convAttrs(std::vector<std::int64_t> strides, std::vector<std::int64_t> pads)
{
    return {{"strides", ints(std::move(strides))}, {"pads", ints(std::move(pads))}};
}

} // namespace

// --- convolution ------------------------------------------------------------------------------

TEST(Shapes, ResNetConv1)
{
    OpGraph og;
    const NodeId n =
        og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7})}, convAttrs({2, 2}, {3, 3, 3, 3}));
    EXPECT_EQ(og.shapeOf(n), (Shape{1, 64, 112, 112}));
}

TEST(Shapes, ResNetConv1BadKernelShape)
{
    OpGraph og;
    AttrMap a = convAttrs({2, 2}, {3, 3, 3, 3});
    a["kernel_shape"] = ints({7, 7, 7});
    const NodeId n = og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7})}, a);
    expectError(og, n, "conv: kernel_shape has 3 entries, expected 2");
    a["kernel_shape"] = ints({5, 5});
    expectError(og, og.node("Conv", {og.input({1, 3, 224, 224}), og.input({64, 3, 7, 7})}, a),
                "does not match the weight");
}

TEST(Shapes, InceptionAsymmetricKernels)
{
    OpGraph og;
    const TensorId x = og.input({1, 768, 17, 17});
    EXPECT_EQ(og.shapeOf(og.node("Conv", {x, og.input({192, 768, 1, 7})}, convAttrs({1, 1}, {0, 3, 0, 3}))),
              (Shape{1, 192, 17, 17}));
    EXPECT_EQ(og.shapeOf(og.node("Conv", {x, og.input({192, 768, 7, 1})}, convAttrs({1, 1}, {3, 0, 3, 0}))),
              (Shape{1, 192, 17, 17}));
    // Stem: 3x3 stride 2 without padding, 299 -> 149.
    EXPECT_EQ(
        og.shapeOf(og.node("Conv", {og.input({1, 3, 299, 299}), og.input({32, 3, 3, 3})}, {{"strides", ints({2, 2})}})),
        (Shape{1, 32, 149, 149}));
}

TEST(Shapes, InceptionAsymmetricKernelsBadPads)
{
    OpGraph og;
    const NodeId n =
        og.node("Conv", {og.input({1, 768, 17, 17}), og.input({192, 768, 1, 7})}, convAttrs({1, 1}, {0, 3}));
    expectError(og, n, "pads has 2 entries, expected 4");
    const NodeId m =
        og.node("Conv", {og.input({1, 768, 17, 17}), og.input({192, 768, 1, 7})}, convAttrs({0, 1}, {0, 3, 0, 3}));
    expectError(og, m, "strides value 0 is out of range [1, ");
}

TEST(Shapes, GroupedAndDepthwiseConv)
{
    OpGraph og;
    AttrMap a = convAttrs({1, 1}, {1, 1, 1, 1});
    a["group"] = i64(32);
    EXPECT_EQ(og.shapeOf(og.node("Conv", {og.input({1, 32, 112, 112}), og.input({32, 1, 3, 3})}, a)),
              (Shape{1, 32, 112, 112}));
    a["group"] = i64(4);
    EXPECT_EQ(og.shapeOf(og.node("Conv", {og.input({2, 8, 9, 9}), og.input({12, 2, 3, 3})}, a)), (Shape{2, 12, 9, 9}));
}

TEST(Shapes, GroupMismatch)
{
    OpGraph og;
    AttrMap a{{"group", i64(32)}};
    expectError(og, og.node("Conv", {og.input({1, 32, 112, 112}), og.input({32, 2, 3, 3})}, a),
                "weight has 2 input channels per group, expected 32 channels / 32 groups");
    a["group"] = i64(4);
    expectError(og, og.node("Conv", {og.input({1, 8, 9, 9}), og.input({10, 2, 3, 3})}, a),
                "10 output channels are not divisible by 4 groups");
    a["group"] = i64(0);
    expectError(og, og.node("Conv", {og.input({1, 8, 9, 9}), og.input({10, 2, 3, 3})}, a), "group 0 is not positive");
    expectError(og, og.node("Conv", {og.input({1, 8, 9, 9}), og.input({8, 8, 3, 3}), og.input({9})}),
                "bias has shape 9, expected 8");
}

TEST(Shapes, ConvAutoPadAndRanks)
{
    OpGraph og;
    // SAME_UPPER, stride 2 on 7: out ceil(7/2) = 4.
    EXPECT_EQ(og.shapeOf(og.node("Conv", {og.input({1, 1, 7, 7}), og.input({1, 1, 3, 3})},
                                 {{"strides", ints({2, 2})}, {"auto_pad", str("SAME_UPPER")}})),
              (Shape{1, 1, 4, 4}));
    // VALID 1-D with dilation 2: 10 - (3-1)*2 = 6.
    EXPECT_EQ(og.shapeOf(og.node("Conv", {og.input({2, 4, 10}), og.input({8, 4, 3})},
                                 {{"dilations", ints({2})}, {"auto_pad", str("VALID")}})),
              (Shape{2, 8, 6}));
    // 3-D, stride 2, pad 1: (8 + 2 - 3) / 2 + 1 = 4.
    EXPECT_EQ(og.shapeOf(og.node("Conv", {og.input({1, 2, 8, 8, 8}), og.input({4, 2, 3, 3, 3})},
                                 convAttrs({2, 2, 2}, {1, 1, 1, 1, 1, 1}))),
              (Shape{1, 4, 4, 4, 4}));
}

TEST(Shapes, ConvAutoPadAndRanksInvalid)
{
    OpGraph og;
    expectError(og, og.node("Conv", {og.input({1, 1, 7, 7}), og.input({1, 1, 3, 3})}, {{"auto_pad", str("SAME")}}),
                "auto_pad 'SAME' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    expectError(og, og.node("Conv", {og.input({1, 1, 2}), og.input({1, 1, 3})}, {{"auto_pad", str("VALID")}}),
                "kernel extent 3 exceeds input 2");
    expectError(og, og.node("Conv", {og.input({1, 4}), og.input({1, 4})}), "input X has rank 2, expected at least 3");
    expectError(og, og.node("Conv", {og.input({1, 1, 5, 5}), og.input({1, 1, 3})}), "weight has rank 3, expected 4");
}

TEST(Shapes, ConvTranspose)
{
    OpGraph og;
    // FCN/DCGAN-style 2x upsampling: 2*(14-1) + 4 - 2 = 28.
    EXPECT_EQ(og.shapeOf(og.node("ConvTranspose", {og.input({1, 16, 14, 14}), og.input({16, 8, 4, 4})},
                                 convAttrs({2, 2}, {1, 1, 1, 1}))),
              (Shape{1, 8, 28, 28}));
    // output_padding: 2*(7-1) + 1 + 3 - 2 = 14.
    AttrMap a = convAttrs({2, 2}, {1, 1, 1, 1});
    a["output_padding"] = ints({1, 1});
    EXPECT_EQ(og.shapeOf(og.node("ConvTranspose", {og.input({1, 16, 7, 7}), og.input({16, 8, 3, 3})}, a)),
              (Shape{1, 8, 14, 14}));
    // output_shape decides, pads follow.
    EXPECT_EQ(og.shapeOf(og.node("ConvTranspose", {og.input({1, 16, 7, 7}), og.input({16, 8, 3, 3})},
                                 {{"strides", ints({2, 2})}, {"output_shape", ints({14, 13})}})),
              (Shape{1, 8, 14, 13}));
    // SAME_UPPER: in * stride; groups multiply W's output channels.
    EXPECT_EQ(og.shapeOf(og.node("ConvTranspose", {og.input({1, 4, 5}), og.input({4, 3, 3})},
                                 {{"strides", ints({2})}, {"auto_pad", str("SAME_UPPER")}, {"group", i64(2)}})),
              (Shape{1, 6, 10}));
}

TEST(Shapes, ConvTransposeInvalid)
{
    OpGraph og;
    AttrMap a{{"strides", ints({2, 2})}, {"output_padding", ints({2, 0})}};
    expectError(og, og.node("ConvTranspose", {og.input({1, 16, 7, 7}), og.input({16, 8, 3, 3})}, a),
                "output_padding 2 must be non-negative and smaller than stride 2 or dilation 1");
    expectError(og, og.node("ConvTranspose", {og.input({1, 16, 7, 7}), og.input({8, 8, 3, 3})}),
                "weight has 8 input channels, expected 16");
    expectError(
        og,
        og.node("ConvTranspose", {og.input({1, 16, 1, 1}), og.input({16, 8, 3, 3})}, {{"pads", ints({2, 2, 2, 2})}}),
        "exceed the output extent 3");
    expectError(
        og,
        og.node("ConvTranspose", {og.input({1, 16, 7, 7}), og.input({16, 8, 3, 3})}, {{"output_shape", ints({14})}}),
        "output_shape has 1 entries, expected 2");
}

// --- pooling -------------------------------------------------------------------------------------

TEST(Shapes, Pooling)
{
    OpGraph og;
    AttrMap a{{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}, {"pads", ints({1, 1, 1, 1})}};
    EXPECT_EQ(og.shapeOf(og.node("MaxPool", {og.input({1, 64, 112, 112})}, a)), (Shape{1, 64, 56, 56}));
    AttrMap b{{"kernel_shape", ints({3, 3})}, {"strides", ints({2, 2})}};
    EXPECT_EQ(og.shapeOf(og.node("MaxPool", {og.input({1, 1, 6, 6})}, b)), (Shape{1, 1, 2, 2}));
    b["ceil_mode"] = i64(1);
    EXPECT_EQ(og.shapeOf(og.node("MaxPool", {og.input({1, 1, 6, 6})}, b)), (Shape{1, 1, 3, 3}));
    // ceil_mode drops a last window that would start in the end padding: 4 + 0 + 1 pad, k2 s2.
    AttrMap c{{"kernel_shape", ints({2})}, {"strides", ints({2})}, {"pads", ints({0, 1})}, {"ceil_mode", i64(1)}};
    EXPECT_EQ(og.shapeOf(og.node("AveragePool", {og.input({1, 1, 4})}, c)), (Shape{1, 1, 2}));
    const NodeId idx = og.node("MaxPool", {og.input({1, 2, 4, 4})}, {{"kernel_shape", ints({2, 2})}}, 2);
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(idx, out).isOk());
    EXPECT_EQ(out[1], (TensorType{DType::Int64, {1, 2, 3, 3}}));
    EXPECT_EQ(og.shapeOf(og.node("GlobalAveragePool", {og.input({1, 2048, 7, 7})})), (Shape{1, 2048, 1, 1}));
}

TEST(Shapes, PoolingInvalid)
{
    OpGraph og;
    expectError(og, og.node("MaxPool", {og.input({1, 64, 112, 112})}), "maxpool: kernel_shape is missing");
    expectError(
        og, og.node("AveragePool", {og.input({1, 1, 4, 4})}, {{"kernel_shape", ints({2, 2})}, {"ceil_mode", i64(2)}}),
        "ceil_mode 2 is not 0 or 1");
    expectError(og, og.node("GlobalAveragePool", {og.input({5})}), "expected at least 2");
    expectError(og, og.node("Relu", {og.input({2})}, {}, 2), "relu: has 2 outputs, expected 1");
}

// --- matrix products -------------------------------------------------------------------------------

TEST(Shapes, MatMulAndGemm)
{
    OpGraph og;
    EXPECT_EQ(og.shapeOf(og.node("MatMul", {og.input({2, 1, 3, 4}), og.input({5, 4, 6})})), (Shape{2, 5, 3, 6}));
    EXPECT_EQ(og.shapeOf(og.node("MatMul", {og.input({4}), og.input({4})})), (Shape{}));
    EXPECT_EQ(og.shapeOf(og.node("MatMul", {og.input({4}), og.input({2, 4, 3})})), (Shape{2, 3}));
    EXPECT_EQ(og.shapeOf(og.node("MatMul", {og.input({2, 3, 4}), og.input({4})})), (Shape{2, 3}));
    EXPECT_EQ(og.shapeOf(og.node("Gemm", {og.input({3, 5}), og.input({4, 5}), og.input({4})}, {{"transB", i64(1)}})),
              (Shape{3, 4}));
    EXPECT_EQ(og.shapeOf(og.node("Gemm", {og.input({5, 3}), og.input({5, 4})}, {{"transA", i64(1)}})), (Shape{3, 4}));
}

TEST(Shapes, MatMulAndGemmInvalid)
{
    OpGraph og;
    expectError(og, og.node("MatMul", {og.input({2, 3, 4}), og.input({5, 6})}), "inner dimensions 4 and 5");
    expectError(og, og.node("MatMul", {og.input({2, 3, 4}), og.input({3, 4, 6})}), "not broadcastable");
    expectError(og, og.node("Gemm", {og.input({3, 5}), og.input({4, 5}), og.input({3})}, {{"transB", i64(1)}}),
                "C has shape 3, not broadcastable to 3x4");
    expectError(og, og.node("Gemm", {og.input({3, 5, 1}), og.input({5, 4})}), "operands must be matrices");
}

// --- element-wise and normalizations --------------------------------------------------------------------

TEST(Shapes, ElementwiseAndNorms)
{
    OpGraph og(15);
    EXPECT_EQ(og.shapeOf(og.node("Add", {og.input({8, 1, 6, 1}), og.input({7, 1, 5})})), (Shape{8, 7, 6, 5}));
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(og.node("Cast", {og.input({2, 3})}, {{"to", i64(7)}}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {2, 3}}));
    ASSERT_TRUE(og.infer(og.node("Dropout", {og.input({2, 3})}, {}, 2), out).isOk());
    EXPECT_EQ(out[1], (TensorType{DType::Bool, {2, 3}}));
    const TensorId c = og.input({4});
    ASSERT_TRUE(
        og.infer(og.node("BatchNormalization", {og.input({2, 4, 3, 3}), c, c, c, c}, {{"training_mode", i64(1)}}, 3),
                 out)
            .isOk());
    EXPECT_EQ(out.size(), 3u);
    EXPECT_EQ(out[2].shape, (Shape{4}));
    ASSERT_TRUE(og.infer(og.node("LayerNormalization", {og.input({2, 5, 8}), og.input({8})}, {}, 3), out).isOk());
    EXPECT_EQ(out[1], (TensorType{DType::Float32, {2, 5, 1}}));
    EXPECT_EQ(og.shapeOf(og.node("Clip", {og.input({3}), og.constFloats({0.f}, Shape{}), kInvalidId})), (Shape{3}));
    EXPECT_EQ(og.shapeOf(og.node("InstanceNormalization", {og.input({2, 4, 3, 5}), c, c})), (Shape{2, 4, 3, 5}));
}

TEST(Shapes, ElementwiseAndNormsInvalid)
{
    OpGraph og(15);
    expectError(og, og.node("Add", {og.input({2, 3}), og.input({4})}), "shapes 2x3 and 4 are not broadcastable");
    expectError(og, og.node("Cast", {og.input({2})}, {{"to", i64(99)}}), "'to' 99 is not a known element type");
    expectError(og, og.node("Clip", {og.input({3}), og.input({2})}), "min has shape 2, expected a scalar");
    const TensorId c = og.input({4});
    expectError(og, og.node("BatchNormalization", {og.input({2, 4, 3, 3}), c, c, c, c}, {}, 3),
                "at most 1 outside training mode");
    expectError(og, og.node("BatchNormalization", {og.input({2, 5, 3}), c, c, c, c}), "scale has shape 4, expected 5");
    expectError(og, og.node("LayerNormalization", {og.input({2, 5, 8}), og.input({5})}),
                "Scale has shape 5, not broadcastable");
    expectError(og, og.node("InstanceNormalization", {og.input({2, 5, 3}), c, c}), "scale has shape 4, expected 5");
    expectError(og, og.node("InstanceNormalization", {og.input({2, 4}), c, c}), "needs rank >= 3");
}

TEST(Shapes, SoftmaxOpsetSemantics)
{
    // Shapes do not change, but the default axis does: 1 before opset 13, -1 since.
    OpGraph o11(11), o13(13);
    EXPECT_EQ(o11.shapeOf(o11.node("Softmax", {o11.input({2, 3, 4})})), (Shape{2, 3, 4}));
    EXPECT_EQ(o13.shapeOf(o13.node("Softmax", {o13.input({2, 3, 4})})), (Shape{2, 3, 4}));
    const OpGraph *gs[] = {&o11, &o13};
    for (const OpGraph *g : gs) {
        const Node &n = g->g.node(0);
        auto r = inputRegions(g->g, n, 0, {{0, 1}, {0, 1}, {0, 1}});
        ASSERT_TRUE(r.isOk());
        const Region want = g->g.opsetVersion < 13 ? Region{{0, 1}, {0, 3}, {0, 4}} : Region{{0, 1}, {0, 1}, {0, 4}};
        EXPECT_EQ((*r)[0].region, want) << "opset " << g->g.opsetVersion;
    }
}

TEST(Shapes, AxisOutOfRange)
{
    OpGraph og;
    expectError(og, og.node("Softmax", {og.input({2, 3, 4})}, {{"axis", i64(3)}}),
                "axis 3 is out of range [-3, 2] for rank 3");
    expectError(og, og.node("Concat", {og.input({2, 3}), og.input({2, 3})}, {{"axis", i64(-3)}}),
                "axis -3 is out of range");
    expectError(og, og.node("Gather", {og.input({2, 3}), og.input({4}, DType::Int64)}, {{"axis", i64(2)}}),
                "axis 2 is out of range");
    expectError(og, og.node("ReduceMean", {og.input({2, 3})}, {{"axes", ints({1, -1})}}), "axis 1 is repeated");
    expectError(og, og.node("Flatten", {og.input({2, 3})}, {{"axis", i64(3)}}), "axis 3 is out of range [-2, 2]");
    expectError(og, og.node("Transpose", {og.input({2, 3})}, {{"perm", ints({0, 0})}}),
                "perm 0x0 is not a permutation");
    expectError(og, og.node("Concat", {og.input({2, 3})}), "attribute 'axis' is missing");
}

// --- shape manipulation and data movement --------------------------------------------------------------------

TEST(Shapes, SliceNegativesAndClamping)
{
    OpGraph og;
    const TensorId x = og.input({4, 10});
    auto slice = [&](std::vector<std::int64_t> s, std::vector<std::int64_t> e, std::vector<std::int64_t> ax,
                     std::vector<std::int64_t> st) {
        return og.shapeOf(og.node("Slice", {x, og.constInts(s), og.constInts(e), og.constInts(ax), og.constInts(st)}));
    };
    EXPECT_EQ(slice({-3}, {-1}, {1}, {1}), (Shape{4, 2}));
    EXPECT_EQ(slice({-1}, {kMin}, {1}, {-1}), (Shape{4, 10})); // full reverse
    EXPECT_EQ(slice({0}, {kMax}, {-1}, {3}), (Shape{4, 4}));   // 0, 3, 6, 9
    EXPECT_EQ(slice({20}, {30}, {1}, {1}), (Shape{4, 0}));     // clamped past the end
    EXPECT_EQ(slice({-100, 1}, {100, 3}, {1, 0}, {1, 1}), (Shape{2, 10}));
    OpGraph o9(9);
    EXPECT_EQ(o9.shapeOf(o9.node("Slice", {o9.input({4, 10})},
                                 {{"starts", ints({1})}, {"ends", ints({1000})}, {"axes", ints({0})}})),
              (Shape{3, 10}));
}

// The one normalisation of a Slice axis that shape inference, the reference
// kernel and the CPU backend share (core/ops/slice.h), on ONNX's own cases.
TEST(Shapes, SliceAxisNormalisesAsOnnxDefines)
{
    const auto expect = [](SliceAxis a, std::int64_t start, std::int64_t step, std::int64_t out) {
        EXPECT_EQ(a.start, start);
        EXPECT_EQ(a.step, step);
        EXPECT_EQ(a.out, out);
    };
    expect(sliceAxis(1, 1000, 1, 10), 1, 1, 9);         // end clamped to the axis
    expect(sliceAxis(-1, -1000, -1, 10), 9, -1, 10);    // the whole axis reversed
    expect(sliceAxis(0, -1, 1, 10), 0, 1, 9);           // negative end counts from the end
    expect(sliceAxis(-1000, 1000, 1000, 10), 0, 11, 1); // huge step: the first element only
    expect(sliceAxis(std::numeric_limits<std::int64_t>::min(), 3, 2, 10), 0, 2, 2);
    expect(sliceAxis(20, 1000, 1, 10), 10, 1, 0); // start past the end: empty
    expect(sliceAxis(0, 5, 1, 0), 0, 1, 0);       // an empty axis
}

// Negative twin: the same bounds on a shorter axis select other elements.
TEST(Shapes, SliceAxisDependsOnTheAxisLength)
{
    EXPECT_NE(sliceAxis(-1, -1000, -1, 10).start, sliceAxis(-1, -1000, -1, 4).start);
    EXPECT_NE(sliceAxis(0, -1, 1, 10).out, sliceAxis(0, -1, 1, 4).out);
}

TEST(Shapes, SliceInvalid)
{
    OpGraph og;
    const TensorId x = og.input({4, 10});
    expectError(og, og.node("Slice", {x, og.constInts({0}), og.constInts({5}), og.constInts({1}), og.constInts({0})}),
                "step of axis 1 is 0");
    const NodeId n = og.node("Slice", {x, og.input({1}, DType::Int64), og.constInts({5})});
    expectError(og, n, "slice: input 'starts' is not a constant tensor");
    std::vector<TensorType> out;
    EXPECT_EQ(og.infer(n, out).location().tensor, og.g.tensor(og.g.node(n).inputs[1]).name);
    expectError(og, og.node("Slice", {x, og.constInts({0, 0}), og.constInts({5})}), "starts has 2 entries, ends 1");
}

TEST(Shapes, ReshapeMinusOneAndZero)
{
    OpGraph og(14);
    const TensorId x = og.input({2, 3, 4});
    EXPECT_EQ(og.shapeOf(og.node("Reshape", {x, og.constInts({0, -1})})), (Shape{2, 12}));
    EXPECT_EQ(og.shapeOf(og.node("Reshape", {x, og.constInts({-1})})), (Shape{24}));
    EXPECT_EQ(og.shapeOf(og.node("Reshape", {x, og.constInts({4, 0, 2})})), (Shape{4, 3, 2}));
    EXPECT_EQ(og.shapeOf(og.node("Reshape", {x, og.constInts({1, -1, 0})})), (Shape{1, 6, 4}));
    const TensorId e = og.input({2, 0});
    EXPECT_EQ(og.shapeOf(og.node("Reshape", {e, og.constInts({0, 5})}, {{"allowzero", i64(1)}})), (Shape{0, 5}));
    // BERT-style head split: [1, 128, 768] -> [1, 128, 12, 64].
    EXPECT_EQ(og.shapeOf(og.node("Reshape", {og.input({1, 128, 768}), og.constInts({0, 0, 12, 64})})),
              (Shape{1, 128, 12, 64}));
    EXPECT_EQ(og.shapeOf(og.node("Flatten", {og.input({2, 3, 4, 5})}, {{"axis", i64(2)}})), (Shape{6, 20}));
    EXPECT_EQ(og.shapeOf(og.node("Flatten", {og.input({2, 3, 4, 5})}, {{"axis", i64(0)}})), (Shape{1, 120}));
    EXPECT_EQ(og.shapeOf(og.node("Squeeze", {og.input({1, 3, 1, 5}), og.constInts({0, -2})})), (Shape{3, 5}));
    EXPECT_EQ(og.shapeOf(og.node("Squeeze", {og.input({1, 3, 1, 5})})), (Shape{3, 5}));
    EXPECT_EQ(og.shapeOf(og.node("Unsqueeze", {og.input({3, 5}), og.constInts({0, 3})})), (Shape{1, 3, 5, 1}));
    OpGraph o11(11);
    EXPECT_EQ(o11.shapeOf(o11.node("Unsqueeze", {o11.input({3, 5})}, {{"axes", ints({-1})}})), (Shape{3, 5, 1}));
    EXPECT_EQ(og.shapeOf(og.node("Transpose", {og.input({2, 3, 4})})), (Shape{4, 3, 2}));
}

TEST(Shapes, ReshapeInvalid)
{
    OpGraph og(14);
    const TensorId x = og.input({2, 3, 4});
    const NodeId nc = og.node("Reshape", {x, og.input({2}, DType::Int64)});
    expectError(og, nc, "reshape: input 'shape' is not a constant tensor");
    std::vector<TensorType> out;
    EXPECT_EQ(og.infer(nc, out).location().tensor, og.g.tensor(og.g.node(nc).inputs[1]).name);
    expectError(og, og.node("Reshape", {x, og.constInts({-1, -1})}), "has more than one -1");
    expectError(og, og.node("Reshape", {x, og.constInts({5, -1})}), "cannot infer the -1");
    expectError(og, og.node("Reshape", {x, og.constInts({5, 5})}), "has 25 elements, input 2x3x4 has 24");
    expectError(og, og.node("Reshape", {og.input({2, 0}), og.constInts({0, 5})}), "has 10 elements");
    expectError(og, og.node("Reshape", {og.input({2, 0}), og.constInts({0, -1})}, {{"allowzero", i64(1)}}),
                "combines 0 and -1");
    expectError(og, og.node("Squeeze", {og.input({1, 3}), og.constInts({1})}), "axis 1 has extent 3, expected 1");
    expectError(og, og.node("Unsqueeze", {og.input({3}), og.constInts({0, 0})}), "axis 0 is repeated");
    expectError(og, og.node("Unsqueeze", {og.input({3})}), "axes are missing");
}

TEST(Shapes, DataMovement)
{
    OpGraph og(13);
    EXPECT_EQ(og.shapeOf(og.node("Concat", {og.input({1, 64, 8, 8}), og.input({1, 32, 8, 8})}, {{"axis", i64(1)}})),
              (Shape{1, 96, 8, 8}));
    const NodeId s = og.node("Split", {og.input({2, 10}), og.constInts({3, 7})}, {{"axis", i64(-1)}}, 2);
    EXPECT_EQ(og.shapeOf(s, 1), (Shape{2, 7}));
    EXPECT_EQ(og.shapeOf(og.node("Split", {og.input({6, 2})}, {}, 3), 2), (Shape{2, 2}));
    EXPECT_EQ(og.shapeOf(og.node("Gather", {og.input({5, 4}), og.constInts({0, -1, 2}, Shape{3})})), (Shape{3, 4}));
    EXPECT_EQ(og.shapeOf(og.node("Gather", {og.input({5, 4}), og.constInts({2}, Shape{})}, {{"axis", i64(1)}})),
              (Shape{5}));
    EXPECT_EQ(og.shapeOf(og.node("Pad", {og.input({1, 3, 4, 4}), og.constInts({0, 0, 1, -1, 0, 0, 2, 3})})),
              (Shape{1, 3, 7, 6}));
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(og.node("Shape", {og.input({2, 3, 4})}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {3}}));
    OpGraph o15(15);
    EXPECT_EQ(o15.shapeOf(o15.node("Shape", {o15.input({2, 3, 4})}, {{"start", i64(-1)}})), (Shape{1}));
    EXPECT_EQ(o15.shapeOf(o15.node("Shape", {o15.input({2, 3, 4})}, {{"start", i64(1)}, {"end", i64(99)}})),
              (Shape{2}));
    ASSERT_TRUE(
        og.infer(og.node("Constant", {}, {{"value_floats", Attribute{std::vector<double>{1, 2}}}}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Float32, {2}}));
}

TEST(Shapes, DataMovementInvalid)
{
    OpGraph og(13);
    expectError(og, og.node("Concat", {og.input({1, 64, 8, 8}), og.input({1, 32, 4, 8})}, {{"axis", i64(1)}}),
                "incompatible with");
    expectError(og, og.node("Split", {og.input({2, 10}), og.constInts({3, 6})}, {{"axis", i64(1)}}, 2),
                "sums to 9, axis 1 has extent 10");
    expectError(og, og.node("Split", {og.input({7, 2})}, {}, 3), "does not split evenly into 3 outputs");
    expectError(og, og.node("Gather", {og.input({5, 4}), og.constInts({5})}),
                "index 5 is out of range for an axis of extent 5");
    expectError(og, og.node("Pad", {og.input({1, 3}), og.constInts({0, -2, 0, -2})}),
                "negative or overflowing extent on axis 1");
    expectError(og, og.node("Pad", {og.input({1, 3}), og.constInts({0, 1, 0, 1})}, {{"mode", str("wrap")}}),
                "mode 'wrap' is not one of constant, reflect, edge");
    expectError(og, og.node("Pad", {og.input({1, 3}), og.constInts({0, 1, 0, 1}), og.input({0})}),
                "constant_value has shape 0, expected a scalar");
    expectError(og, og.node("Constant", {}), "needs exactly one of");
}

TEST(Shapes, Resize)
{
    OpGraph og(13);
    const TensorId x = og.input({1, 3, 5, 7});
    EXPECT_EQ(og.shapeOf(og.node("Resize", {x, kInvalidId, og.constFloats({1, 1, 2, 1.5f})})), (Shape{1, 3, 10, 10}));
    EXPECT_EQ(og.shapeOf(og.node("Resize", {x, kInvalidId, kInvalidId, og.constInts({1, 3, 3, 4})},
                                 {{"mode", str("linear")}})),
              (Shape{1, 3, 3, 4}));
    OpGraph o10(10);
    EXPECT_EQ(o10.shapeOf(o10.node("Resize", {o10.input({1, 1, 4, 4}), o10.constFloats({1, 1, 0.5f, 0.5f})})),
              (Shape{1, 1, 2, 2}));
}

TEST(Shapes, ResizeInvalid)
{
    OpGraph og(13);
    const TensorId x = og.input({1, 3, 5, 7});
    expectError(og, og.node("Resize", {x}), "needs scales or sizes");
    expectError(og, og.node("Resize", {x, kInvalidId, og.constFloats({1, 1, 2})}), "scales has 3 entries for rank 4");
    expectError(og, og.node("Resize", {x, kInvalidId, og.constFloats({1, 1, 2, 2}), og.constInts({1, 3, 3, 4})}),
                "has both scales and sizes");
    expectError(og, og.node("Resize", {x, kInvalidId, og.constFloats({1, 1, 2, 2})}, {{"mode", str("area")}}),
                "mode 'area' is not one of nearest, linear, cubic");
    expectError(og, og.node("Resize", {x, kInvalidId, og.input({4})}), "input 'scales' is not a constant tensor");
}

// --- checks every op shares ----------------------------------------------------------------------

TEST(Shapes, OverflowingDims)
{
    OpGraph og;
    const std::int64_t big = std::int64_t{1} << 40;
    expectError(og, og.node("Relu", {og.input({big, big})}), "input 0 has an invalid shape");
    expectError(og, og.node("Relu", {og.input({std::int64_t{1} << 53})}), "input 0 has an invalid shape");
    expectError(og, og.node("Relu", {og.input({2, -3})}), "input 0 has an invalid shape 2x-3");
    expectError(og, og.node("Reshape", {og.input({4}), og.constInts({big, big, 0})}, {{"allowzero", i64(1)}}),
                "overflows");
    expectError(og, og.node("Pad", {og.input({4}), og.constInts({kMax, kMax})}), "overflowing extent");
    expectError(og, og.node("Resize", {og.input({4}), kInvalidId, og.constFloats({1e30f})}),
                "gives a too large extent");
    expectError(og,
                og.node("ConvTranspose", {og.input({1, 1, 1 << 20}), og.input({1, 1, 3})},
                        {{"strides", ints({std::int64_t{1} << 40})}}),
                "extent overflows");
    expectError(og,
                og.node("ConvTranspose", {og.input({1, 1, 1 << 21}), og.input({1, 1, 3})},
                        {{"strides", ints({std::int64_t{1} << 32})}}),
                "output 0 shape 1x1x9007194959773699 is negative or too large");
    expectError(og, og.node("Conv", {og.input({1, 1, 8}), og.input({1, 1, 3})}, {{"dilations", ints({kMax})}}),
                "dilations value");
    expectError(
        og,
        og.node("Concat", {og.input({std::int64_t{1} << 52}), og.input({std::int64_t{1} << 52})}, {{"axis", i64(0)}}),
        "too large");
}

TEST(Shapes, UnknownOpsAndAttributeKinds)
{
    OpGraph og;
    expectError(og, og.node("Frobnicate", {og.input({2})}), "unknown op 'Frobnicate'; known ops: Abs, Acos",
                ErrorCode::Unsupported);
    Node n{.name = "fused", .opType = "Conv", .domain = "com.microsoft"};
    std::vector<TensorType> out;
    EXPECT_EQ(inferShapes(og.g, n, out).code(), ErrorCode::Unsupported);
    expectError(og, og.node("Conv", {og.input({1, 1, 5, 5}), og.input({1, 1, 3, 3})}, {{"strides", i64(2)}}),
                "attribute 'strides' is an int, expected ints");
    expectError(og, og.node("Conv", {og.input({1, 1, 5, 5})}), "has 1 inputs, expected 2 to 3");
    expectError(og, og.node("Conv", {kInvalidId, og.input({1, 1, 3, 3})}), "required input 0 is missing");
}

TEST(Shapes, KnownOps)
{
    const std::vector<std::string_view> required = {"Conv",
                                                    "ConvTranspose",
                                                    "MatMul",
                                                    "Gemm",
                                                    "BatchNormalization",
                                                    "Relu",
                                                    "LeakyRelu",
                                                    "Clip",
                                                    "Sigmoid",
                                                    "Tanh",
                                                    "Erf",
                                                    "HardSwish",
                                                    "Add",
                                                    "Sub",
                                                    "Mul",
                                                    "Div",
                                                    "Pow",
                                                    "Sum",
                                                    "Sqrt",
                                                    "MaxPool",
                                                    "AveragePool",
                                                    "GlobalAveragePool",
                                                    "GlobalMaxPool",
                                                    "Concat",
                                                    "Split",
                                                    "Slice",
                                                    "Reshape",
                                                    "Flatten",
                                                    "Squeeze",
                                                    "Unsqueeze",
                                                    "Transpose",
                                                    "Softmax",
                                                    "LayerNormalization",
                                                    "ReduceMean",
                                                    "ReduceSum",
                                                    "Gather",
                                                    "Pad",
                                                    "Resize",
                                                    "Constant",
                                                    "Identity",
                                                    "Dropout",
                                                    "Cast",
                                                    "Shape"};
    // Issue 11: element-wise math, reductions, softmax variants, index-mapped movement.
    const std::vector<std::string_view> added = {"Abs",
                                                 "Neg",
                                                 "Sign",
                                                 "Exp",
                                                 "Log",
                                                 "Reciprocal",
                                                 "Floor",
                                                 "Ceil",
                                                 "Round",
                                                 "Sin",
                                                 "Cos",
                                                 "Tan",
                                                 "Asin",
                                                 "Acos",
                                                 "Atan",
                                                 "Sinh",
                                                 "Cosh",
                                                 "Asinh",
                                                 "Acosh",
                                                 "Atanh",
                                                 "Softplus",
                                                 "Softsign",
                                                 "Elu",
                                                 "Selu",
                                                 "Celu",
                                                 "ThresholdedRelu",
                                                 "HardSigmoid",
                                                 "Shrink",
                                                 "IsNaN",
                                                 "IsInf",
                                                 "Not",
                                                 "Mod",
                                                 "BitShift",
                                                 "PRelu",
                                                 "Equal",
                                                 "Less",
                                                 "Greater",
                                                 "LessOrEqual",
                                                 "GreaterOrEqual",
                                                 "And",
                                                 "Or",
                                                 "Xor",
                                                 "Max",
                                                 "Min",
                                                 "Mean",
                                                 "Where",
                                                 "CastLike",
                                                 "ReduceMax",
                                                 "ReduceMin",
                                                 "ReduceProd",
                                                 "ReduceL1",
                                                 "ReduceL2",
                                                 "ReduceLogSum",
                                                 "ReduceLogSumExp",
                                                 "ReduceSumSquare",
                                                 "ArgMax",
                                                 "ArgMin",
                                                 "LogSoftmax",
                                                 "Hardmax",
                                                 "Expand",
                                                 "Tile",
                                                 "DepthToSpace",
                                                 "SpaceToDepth",
                                                 "Trilu",
                                                 "GatherElements",
                                                 "CumSum",
                                                 "OneHot",
                                                 "ConstantOfShape",
                                                 "Range",
                                                 "EyeLike",
                                                 "Size",
                                                 "NegativeLogLikelihoodLoss",
                                                 "SoftmaxCrossEntropyLoss",
                                                 "InstanceNormalization",
                                                 "GatherND",
                                                 "ScatterElements",
                                                 "Scatter",
                                                 "ScatterND",
                                                 "QuantizeLinear",
                                                 "DequantizeLinear",
                                                 "DynamicQuantizeLinear",
                                                 "ConvInteger",
                                                 "QLinearConv",
                                                 "MatMulInteger",
                                                 "QLinearMatMul",
                                                 "TopK",
                                                 "LRN",
                                                 "MeanVarianceNormalization",
                                                 "ReverseSequence",
                                                 "Compress",
                                                 "NonZero",
                                                 "HannWindow",
                                                 "HammingWindow",
                                                 "BlackmanWindow",
                                                 "RNN",
                                                 "GRU",
                                                 "LSTM",
                                                 "Einsum",
                                                 "GridSample",
                                                 "NonMaxSuppression",
                                                 "Unique",
                                                 "Det",
                                                 "MaxUnpool",
                                                 "Upsample",
                                                 "RoiAlign",
                                                 "TfIdfVectorizer",
                                                 "DFT",
                                                 "STFT",
                                                 "MelWeightMatrix"};
    for (auto op : required)
        EXPECT_TRUE(isKnownOp(op)) << op;
    for (auto op : added)
        EXPECT_TRUE(isKnownOp(op)) << op;
    const auto known = knownOps();
    EXPECT_EQ(known.size(), required.size() + added.size());
    EXPECT_TRUE(std::is_sorted(known.begin(), known.end()));
    EXPECT_FALSE(isKnownOp("Frobnicate"));
    EXPECT_FALSE(isKnownOp("conv"));
}

// --- issue 11: element-wise math, reductions and index-mapped movement -------------------------

TEST(Shapes, MathReductionsAndIndexedOps)
{
    OpGraph og;
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(og.node("Less", {og.input({2, 1, 4}), og.input({3, 1})}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Bool, {2, 3, 4}}));
    ASSERT_TRUE(og.infer(og.node("Where", {og.input({3, 1}, DType::Bool), og.input({4}, DType::Int64),
                                           og.input({1, 4}, DType::Int64)}),
                         out)
                    .isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {3, 4}}));
    EXPECT_EQ(og.shapeOf(og.node("Max", {og.input({5}), og.input({2, 1}), og.input({1})})), (Shape{2, 5}));
    ASSERT_TRUE(
        og.infer(og.node("ArgMax", {og.input({2, 7, 3})}, {{"axis", i64(-2)}, {"keepdims", i64(0)}}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {2, 3}}));
    EXPECT_EQ(og.shapeOf(og.node("ReduceLogSumExp", {og.input({2, 7, 3})}, {{"axes", ints({1})}})), (Shape{2, 1, 3}));
    EXPECT_EQ(og.shapeOf(og.node("Expand", {og.input({3, 1}), og.constInts({2, 1, 6})})), (Shape{2, 3, 6}));
    EXPECT_EQ(og.shapeOf(og.node("Tile", {og.input({2, 3}), og.constInts({3, 2})})), (Shape{6, 6}));
    EXPECT_EQ(og.shapeOf(og.node("DepthToSpace", {og.input({1, 8, 2, 3})}, {{"blocksize", i64(2)}})),
              (Shape{1, 2, 4, 6}));
    EXPECT_EQ(og.shapeOf(og.node("SpaceToDepth", {og.input({1, 2, 4, 6})}, {{"blocksize", i64(2)}})),
              (Shape{1, 8, 2, 3}));
    EXPECT_EQ(og.shapeOf(og.node(
                  "OneHot", {og.input({2, 3}, DType::Int64), og.constInts({5}, Shape{}), og.constFloats({0.f, 1.f})},
                  {{"axis", i64(1)}})),
              (Shape{2, 5, 3}));
    EXPECT_EQ(og.shapeOf(og.node(
                  "Range", {og.constInts({1}, Shape{}), og.constInts({10}, Shape{}), og.constInts({3}, Shape{})})),
              (Shape{3}));
    EXPECT_EQ(og.shapeOf(og.node("ConstantOfShape", {og.constInts({4, 0, 2})})), (Shape{4, 0, 2}));
    ASSERT_TRUE(og.infer(og.node("Size", {og.input({4, 5})}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {}}));
}

TEST(Shapes, MathReductionsAndIndexedOpsInvalid)
{
    OpGraph og;
    expectError(og, og.node("Less", {og.input({2}), og.input({2}, DType::Int64)}), "input 1 is i64, input 0 is f32");
    expectError(og, og.node("Where", {og.input({2}), og.input({2}), og.input({2})}), "condition is f32, expected bool");
    expectError(og, og.node("PRelu", {og.input({3}), og.input({2, 3})}), "does not broadcast to X");
    expectError(og, og.node("ArgMax", {og.input({2, 7})}, {{"axis", i64(2)}}), "axis");
    expectError(og, og.node("Expand", {og.input({3, 2}), og.constInts({4, 5})}), "cannot broadcast 3x2 to 4x5");
    expectError(og, og.node("Expand", {og.input({3}), og.input({1}, DType::Int64)}), "not a constant");
    expectError(og, og.node("Tile", {og.input({2, 3}), og.constInts({3})}), "repeats has 1 entries for a rank-2 input");
    expectError(og, og.node("DepthToSpace", {og.input({1, 6, 2, 3})}, {{"blocksize", i64(2)}}),
                "not a multiple of blocksize");
    expectError(og,
                og.node("Range", {og.constInts({1}, Shape{}), og.constInts({10}, Shape{}), og.constInts({0}, Shape{})}),
                "delta is zero");
    expectError(og, og.node("ConstantOfShape", {og.constInts({4, -1})}), "negative entry");
}

// --- issue 11: scatters, GatherND and the quantized ops ----------------------------------------

TEST(Shapes, ScattersAndGatherND)
{
    OpGraph og;
    const TensorId i64s = og.input({2, 3}, DType::Int64);
    EXPECT_EQ(og.shapeOf(og.node("ScatterElements", {og.input({4, 3}), i64s, og.input({2, 3})},
                                 {{"axis", i64(0)}, {"reduction", str("add")}})),
              (Shape{4, 3}));
    EXPECT_EQ(
        og.shapeOf(og.node("ScatterND", {og.input({4, 5, 6}), og.input({2, 1}, DType::Int64), og.input({2, 5, 6})})),
        (Shape{4, 5, 6}));
    EXPECT_EQ(og.shapeOf(og.node("GatherND", {og.input({2, 3, 4}), og.input({2, 2}, DType::Int64)})), (Shape{2, 4}));
    EXPECT_EQ(og.shapeOf(
                  og.node("GatherND", {og.input({2, 3, 4}), og.input({2, 1}, DType::Int64)}, {{"batch_dims", i64(1)}})),
              (Shape{2, 4}));
}

TEST(Shapes, ScattersAndGatherNDInvalid)
{
    OpGraph og;
    const TensorId i64s = og.input({2, 3}, DType::Int64);
    expectError(og, og.node("ScatterElements", {og.input({4, 3}), i64s, og.input({3, 2})}),
                "updates have shape 3x2, indices 2x3");
    expectError(og, og.node("ScatterElements", {og.input({4, 3}), i64s, og.input({2, 3})}, {{"reduction", str("avg")}}),
                "reduction 'avg' is not none, add, mul, max or min");
    expectError(og, og.node("ScatterND", {og.input({4, 5}), og.input({2, 3}, DType::Int64), og.input({2})}),
                "indices' last dim 3 is not in [1, 2]");
    expectError(og, og.node("GatherND", {og.input({2, 3}), og.input({3, 1}, DType::Int64)}, {{"batch_dims", i64(1)}}),
                "batch dims of indices 3x1 differ from data 2x3");
    expectError(og, og.node("GatherND", {og.input({2, 3}), og.input({2, 1})}), "indices must be int32 or int64");
}

TEST(Shapes, QuantizedOps)
{
    OpGraph og;
    std::vector<TensorType> out;
    const TensorId s = og.input({}), zu8 = og.input({}, DType::UInt8), zi8 = og.input({}, DType::Int8);
    ASSERT_TRUE(og.infer(og.node("QuantizeLinear", {og.input({2, 3}), s, zi8}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int8, {2, 3}}));
    ASSERT_TRUE(og.infer(og.node("QuantizeLinear", {og.input({2, 3}), og.input({3})}), out).isOk()); // per axis 1
    EXPECT_EQ(out[0], (TensorType{DType::UInt8, {2, 3}}));
    ASSERT_TRUE(og.infer(og.node("DequantizeLinear", {og.input({2, 3}, DType::UInt8), s, zu8}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Float32, {2, 3}}));
    ASSERT_TRUE(og.infer(og.node("DynamicQuantizeLinear", {og.input({2, 3})}, {}, 3), out).isOk());
    EXPECT_EQ(out, (std::vector<TensorType>{{DType::UInt8, {2, 3}}, {DType::Float32, {}}, {DType::UInt8, {}}}));
    ASSERT_TRUE(og.infer(og.node("MatMulInteger", {og.input({4, 3}, DType::UInt8), og.input({3, 2}, DType::Int8),
                                                   og.input({4}, DType::UInt8), zi8}),
                         out)
                    .isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int32, {4, 2}}));
    ASSERT_TRUE(og.infer(og.node("QLinearMatMul", {og.input({4, 3}, DType::UInt8), s, zu8,
                                                   og.input({3, 2}, DType::UInt8), s, zu8, s, zi8}),
                         out)
                    .isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int8, {4, 2}}));
    ASSERT_TRUE(og.infer(og.node("ConvInteger",
                                 {og.input({1, 2, 5, 5}, DType::UInt8), og.input({4, 2, 3, 3}, DType::UInt8), zu8,
                                  og.input({4}, DType::UInt8)},
                                 {{"pads", ints({1, 1, 1, 1})}}),
                         out)
                    .isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int32, {1, 4, 5, 5}}));
    ASSERT_TRUE(og.infer(og.node("QLinearConv",
                                 {og.input({1, 2, 5, 5}, DType::UInt8), s, zu8, og.input({4, 2, 3, 3}, DType::Int8),
                                  og.input({4}), og.input({4}, DType::Int8), s, zu8, og.input({4}, DType::Int32)}),
                         out)
                    .isOk());
    EXPECT_EQ(out[0], (TensorType{DType::UInt8, {1, 4, 3, 3}}));
}

TEST(Shapes, QuantizedOpsInvalid)
{
    OpGraph og;
    const TensorId s = og.input({}), zu8 = og.input({}, DType::UInt8);
    expectError(og, og.node("QuantizeLinear", {og.input({2, 3}), og.input({2})}), "y_scale has shape 2");
    expectError(og, og.node("QuantizeLinear", {og.input({2, 3}), s, og.input({}, DType::Int32)}),
                "y_zero_point has element type i32");
    expectError(og, og.node("DequantizeLinear", {og.input({2, 3}), s}), "x is f32, expected i8, u8 or i32");
    expectError(og, og.node("DynamicQuantizeLinear", {og.input({2}, DType::Float64)}, {}, 3), "expected f32");
    expectError(og,
                og.node("MatMulInteger",
                        {og.input({4, 3}, DType::UInt8), og.input({3, 2}, DType::UInt8), og.input({3}, DType::UInt8)}),
                "a_zero_point has shape 3, expected a scalar or 4 entries");
    expectError(og,
                og.node("QLinearMatMul", {og.input({4, 3}), s, zu8, og.input({3, 2}, DType::UInt8), s, zu8, s, zu8}),
                "A is f32, expected i8 or u8");
    expectError(og,
                og.node("ConvInteger", {og.input({1, 2, 5, 5}, DType::UInt8), og.input({4, 3, 3, 3}, DType::UInt8)}),
                "weight has 3 input channels per group");
    expectError(og,
                og.node("QLinearConv", {og.input({1, 2, 5, 5}, DType::UInt8), s, zu8,
                                        og.input({4, 2, 3, 3}, DType::UInt8), og.input({3}), zu8, s, zu8}),
                "w_scale has shape 3, expected a scalar or 4 entries");
}

// --- issue 11: TopK, LRN, MVN, ReverseSequence, Compress, NonZero, windows ----------------------

TEST(Shapes, SelectionNormsAndWindows)
{
    OpGraph og;
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(og.node("TopK", {og.input({3, 5}), og.constInts({2})}, {}, 2), out).isOk());
    EXPECT_EQ(out, (std::vector<TensorType>{{DType::Float32, {3, 2}}, {DType::Int64, {3, 2}}}));
    EXPECT_EQ(og.shapeOf(og.node("LRN", {og.input({1, 5, 2, 2})}, {{"size", i64(3)}})), (Shape{1, 5, 2, 2}));
    EXPECT_EQ(og.shapeOf(og.node("MeanVarianceNormalization", {og.input({2, 3, 4, 4})})), (Shape{2, 3, 4, 4}));
    EXPECT_EQ(og.shapeOf(og.node("ReverseSequence", {og.input({4, 2, 3}), og.input({2}, DType::Int64)})),
              (Shape{4, 2, 3}));
    EXPECT_EQ(og.shapeOf(og.node("Compress", {og.input({3, 2}), og.constInts({0, 1, 1})}, {{"axis", i64(0)}})),
              (Shape{2, 2}));
    EXPECT_EQ(og.shapeOf(og.node("Compress", {og.input({3, 2}), og.constInts({1, 0, 1, 1})})), (Shape{3}));
    ASSERT_TRUE(og.infer(og.node("NonZero", {og.constInts({0, 2, 0, 3}, Shape{2, 2})}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {2, 2}}));
    ASSERT_TRUE(
        og.infer(og.node("HannWindow", {og.constInts({10}, Shape{})}, {{"output_datatype", i64(11)}}), out).isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Float64, {10}}));
}

TEST(Shapes, SelectionNormsAndWindowsInvalid)
{
    OpGraph og;
    expectError(og, og.node("TopK", {og.input({3, 5}), og.constInts({6})}, {}, 2), "K 6 is not in [0, 5]");
    expectError(og, og.node("TopK", {og.input({3, 5}), og.input({1}, DType::Int64)}, {}, 2), "not a constant");
    expectError(og, og.node("LRN", {og.input({1, 5, 2, 2})}), "size 0 must be positive");
    expectError(og, og.node("MeanVarianceNormalization", {og.input({2, 3})}), "axes 2 is out of range");
    expectError(og, og.node("ReverseSequence", {og.input({4, 2, 3}), og.input({4}, DType::Int64)}),
                "sequence_lens has shape 4, expected 2");
    expectError(og, og.node("Compress", {og.input({3, 2}), og.constInts({1, 0, 1, 1})}, {{"axis", i64(1)}}),
                "condition has more entries than axis 1");
    expectError(og, og.node("NonZero", {og.input({2, 2})}), "NonZero's output shape depends on its values");
    expectError(og, og.node("BlackmanWindow", {og.constInts({-1}, Shape{})}), "size -1 is negative");
}

// --- issue 11: recurrent layers --------------------------------------------------------------

TEST(Shapes, RecurrentLayers)
{
    OpGraph og;
    std::vector<TensorType> out;
    // LSTM, bidirectional: X [T 5, B 3, I 4], hidden 2.
    ASSERT_TRUE(og.infer(og.node("LSTM", {og.input({5, 3, 4}), og.input({2, 8, 4}), og.input({2, 8, 2})},
                                 {{"direction", str("bidirectional")}, {"hidden_size", i64(2)}}, 3),
                         out)
                    .isOk());
    EXPECT_EQ(out[0].shape, (Shape{5, 2, 3, 2}));
    EXPECT_EQ(out[2].shape, (Shape{2, 3, 2}));
    // GRU, layout 1: X [B 3, T 5, I 4].
    ASSERT_TRUE(og.infer(og.node("GRU", {og.input({3, 5, 4}), og.input({1, 6, 4}), og.input({1, 6, 2})},
                                 {{"layout", i64(1)}}, 2),
                         out)
                    .isOk());
    EXPECT_EQ(out[0].shape, (Shape{3, 5, 1, 2}));
    EXPECT_EQ(out[1].shape, (Shape{3, 1, 2}));
    EXPECT_EQ(og.shapeOf(og.node("RNN", {og.input({5, 3, 4}), og.input({1, 7, 4}), og.input({1, 7, 7})})),
              (Shape{5, 1, 3, 7}));
}

TEST(Shapes, RecurrentLayersInvalid)
{
    OpGraph og;
    expectError(
        og, og.node("LSTM", {og.input({5, 3, 4}), og.input({1, 6, 4}), og.input({1, 8, 2})}, {{"hidden_size", i64(2)}}),
        "W has shape 1x6x4, expected 1x8x4");
    expectError(og,
                og.node("RNN", {og.input({5, 3, 4}), og.input({1, 2, 4}), og.input({1, 2, 2})},
                        {{"direction", str("sideways")}}),
                "direction 'sideways'");
    expectError(og,
                og.node("GRU", {og.input({5, 3, 4}), og.input({1, 6, 4}), og.input({1, 6, 2}), kInvalidId,
                                og.input({4}, DType::Int32)}),
                "sequence_lens has shape 4, expected 3");
    expectError(og,
                og.node("RNN", {og.input({5, 3, 4}), og.input({1, 2, 4}), og.input({1, 2, 2})},
                        {{"activations", Attribute{std::vector<std::string>{"Tanh", "Tanh"}}}}),
                "2 activations given, expected 1");
}

// --- issue 11: Einsum ------------------------------------------------------------------------

TEST(Shapes, Einsum)
{
    OpGraph og;
    auto eq = [](const char *e) { return AttrMap{{"equation", str(e)}}; };
    EXPECT_EQ(og.shapeOf(og.node("Einsum", {og.input({2, 3, 4}), og.input({2, 4, 5})}, eq("bij,bjk->bik"))),
              (Shape{2, 3, 5}));
    EXPECT_EQ(og.shapeOf(og.node("Einsum", {og.input({3, 4})}, eq("ij->ji"))), (Shape{4, 3}));
    EXPECT_EQ(og.shapeOf(og.node("Einsum", {og.input({5}), og.input({5})}, eq("i,i"))), (Shape{}));
    EXPECT_EQ(og.shapeOf(og.node("Einsum", {og.input({2, 3, 3})}, eq("...ii ->...i"))), (Shape{2, 3}));
    EXPECT_EQ(og.shapeOf(og.node("Einsum", {og.input({7, 1, 3, 4}), og.input({5, 4, 2})}, eq("...ij,...jk"))),
              (Shape{7, 5, 3, 2})); // implicit output: broadcast dims, then i, k
}

TEST(Shapes, EinsumInvalid)
{
    OpGraph og;
    auto eq = [](const char *e) { return AttrMap{{"equation", str(e)}}; };
    expectError(og, og.node("Einsum", {og.input({2, 3}), og.input({4, 5})}, eq("ij,jk->ik")),
                "subscript 'j' has extent 4 in input 1, 3 elsewhere");
    expectError(og, og.node("Einsum", {og.input({2, 3})}, eq("ijk->i")), "does not match input 0");
    expectError(og, og.node("Einsum", {og.input({2, 3})}, eq("ij->iz")), "output subscript 'z' is in no operand");
    expectError(og, og.node("Einsum", {og.input({2, 3})}, eq("i1->i")), "has the character '1'");
    expectError(og, og.node("Einsum", {og.input({2, 3}), og.input({3})}, eq("ij->i")), "has 1 operands");
}

TEST(Shapes, GridSample)
{
    OpGraph og;
    EXPECT_EQ(og.shapeOf(og.node("GridSample", {og.input({2, 3, 5, 6}), og.input({2, 4, 7, 2})})), (Shape{2, 3, 4, 7}));
    expectError(og, og.node("GridSample", {og.input({2, 3, 5, 6}), og.input({2, 4, 7, 3})}),
                "grid has shape 2x4x7x3, expected 2 x Ho x Wo x 2");
    expectError(og, og.node("GridSample", {og.input({2, 3, 5, 6}), og.input({2, 4, 7, 2})}, {{"mode", str("area")}}),
                "mode 'area' is not bilinear, nearest or bicubic");
}

// --- issue 11: NonMaxSuppression (constant inputs) ---------------------------------------------

TEST(Shapes, NonMaxSuppressionSelectsFromConstants)
{
    OpGraph og;
    // Boxes 0 and 1 overlap (IoU 0.81 > 0.5), box 2 stands apart: boxes 0 and 2 are kept.
    const TensorId boxes = og.constFloats({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6}, Shape{1, 3, 4});
    const TensorId scores = og.constFloats({0.9f, 0.8f, 0.7f}, Shape{1, 1, 3});
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(og.node("NonMaxSuppression",
                                 {boxes, scores, og.constInts({10}, Shape{}), og.constFloats({0.5f}, Shape{})}),
                         out)
                    .isOk());
    EXPECT_EQ(out[0], (TensorType{DType::Int64, {2, 3}}));
    EXPECT_EQ(og.shapeOf(og.node("NonMaxSuppression", {boxes, scores})), (Shape{0, 3})); // max_output 0
}

TEST(Shapes, NonMaxSuppressionOfRunTimeBoxesIsRefused)
{
    OpGraph og;
    const TensorId scores = og.constFloats({0.9f, 0.8f, 0.7f}, Shape{1, 1, 3});
    expectError(og, og.node("NonMaxSuppression", {og.input({1, 3, 4}), scores}),
                "NonMaxSuppression's output shape depends on its values");
    expectError(og,
                og.node("NonMaxSuppression", {og.constFloats(std::vector<float>(12, 0), Shape{1, 3, 4}),
                                              og.constFloats({0.9f, 0.8f}, Shape{1, 1, 2})}),
                "scores have shape 1x1x2, expected 1 x C x 3");
}

TEST(Shapes, UniqueCountsTheDistinctValuesOfAConstant)
{
    OpGraph og;
    std::vector<TensorType> out;
    ASSERT_TRUE(og.infer(og.node("Unique", {og.constFloats({2, 1, 1, 3, 4, 3})}, {}, 4), out).isOk());
    EXPECT_EQ(out, (std::vector<TensorType>{
                       {DType::Float32, {4}}, {DType::Int64, {4}}, {DType::Int64, {6}}, {DType::Int64, {4}}}));
    // Along axis 0 of [[1, 2], [1, 2], [3, 4]]: two distinct rows.
    EXPECT_EQ(og.shapeOf(og.node("Unique", {og.constFloats({1, 2, 1, 2, 3, 4}, Shape{3, 2})}, {{"axis", i64(0)}})),
              (Shape{2, 2}));
}

TEST(Shapes, UniqueOfARunTimeInputIsRefused)
{
    OpGraph og;
    expectError(og, og.node("Unique", {og.input({6})}), "Unique's output shape depends on its values");
    expectError(og, og.node("Unique", {og.constFloats({1, 2})}, {{"axis", i64(1)}}), "axis");
}

TEST(Shapes, DetAndMaxUnpool)
{
    OpGraph og;
    EXPECT_EQ(og.shapeOf(og.node("Det", {og.input({3, 2, 2})})), (Shape{3}));
    EXPECT_EQ(og.shapeOf(og.node("Det", {og.input({4, 4})})), (Shape{}));
    const TensorId x = og.input({1, 1, 2, 2}), i = og.input({1, 1, 2, 2}, DType::Int64);
    EXPECT_EQ(og.shapeOf(og.node("MaxUnpool", {x, i}, {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}})),
              (Shape{1, 1, 4, 4}));
    EXPECT_EQ(og.shapeOf(og.node("MaxUnpool", {x, i, og.constInts({1, 1, 5, 5})},
                                 {{"kernel_shape", ints({2, 2})}, {"strides", ints({2, 2})}})),
              (Shape{1, 1, 5, 5}));
}

TEST(Shapes, DetAndMaxUnpoolInvalid)
{
    OpGraph og;
    expectError(og, og.node("Det", {og.input({2, 3})}), "expected [*, M, M]");
    const TensorId x = og.input({1, 1, 2, 2});
    expectError(og, og.node("MaxUnpool", {x, og.input({1, 1, 2, 2})}, {{"kernel_shape", ints({2, 2})}}),
                "I is f32 1x1x2x2, expected i64 1x1x2x2");
    expectError(og,
                og.node("MaxUnpool", {x, og.input({1, 1, 2, 2}, DType::Int64), og.constInts({1, 2, 5, 5})},
                        {{"kernel_shape", ints({2, 2})}}),
                "does not keep X's N and C");
}

TEST(Shapes, UpsampleIsResize10)
{
    OpGraph og(9);
    EXPECT_EQ(og.shapeOf(og.node("Upsample", {og.input({1, 2, 2, 3}), og.constFloats({1, 1, 2, 1.5f})})),
              (Shape{1, 2, 4, 4}));
    expectError(og,
                og.node("Upsample", {og.input({1, 2, 2, 3}), og.constFloats({1, 1, 2, 2})}, {{"mode", str("cubic")}}),
                "mode 'cubic' is not an Upsample mode");
}

TEST(Shapes, RoiAlign)
{
    OpGraph og;
    const TensorId x = og.input({2, 3, 8, 8}), rois = og.input({5, 4}), idx = og.input({5}, DType::Int64);
    EXPECT_EQ(og.shapeOf(og.node("RoiAlign", {x, rois, idx}, {{"output_height", i64(2)}, {"output_width", i64(3)}})),
              (Shape{5, 3, 2, 3}));
    expectError(og, og.node("RoiAlign", {x, og.input({5, 5}), idx}), "rois have shape 5x5, expected R x 4");
    expectError(og, og.node("RoiAlign", {x, rois, idx}, {{"mode", str("median")}}),
                "mode 'median' is neither avg nor max");
}

TEST(Shapes, TfIdfVectorizer)
{
    OpGraph og;
    const AttrMap attrs{{"mode", str("TF")},
                        {"min_gram_length", i64(1)},
                        {"max_gram_length", i64(2)},
                        {"ngram_counts", ints({0, 2})},
                        {"ngram_indexes", ints({0, 3, 1})},
                        {"pool_int64s", ints({1, 3, 1, 2})}};
    EXPECT_EQ(og.shapeOf(og.node("TfIdfVectorizer", {og.input({2, 5}, DType::Int32)}, attrs)), (Shape{2, 4}));
    AttrMap bad = attrs;
    bad["ngram_indexes"] = ints({0, 1});
    expectError(og, og.node("TfIdfVectorizer", {og.input({2, 5}, DType::Int32)}, bad),
                "ngram_indexes has fewer entries than the pool has n-grams");
    expectError(og, og.node("TfIdfVectorizer", {og.input({2, 5})}, attrs), "expected i32 or i64 tokens");
}
