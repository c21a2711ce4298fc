// Generic constant folding at import (S9) on the shape computations real
// exporters write, rebuilt with ModelBuilder since the exported files are not
// on this machine. Each model has a symbolic batch (or sequence) dim that the
// import options fix, and intermediate values without value_info whose dims
// ONNX's own inference leaves symbolic:
//   torchvision ShuffleNetV2  channel shuffle: Reshape(x, Concat(b, g, Div(c, g), h, w))
//   torchvision ViT           class token: Expand(cls, Where(Equal(shape, -1), 1, shape))
//   torchvision Swin          window padding: Pad(x, Concat(.., Mod(Sub(w, Mod(H, w)), w), ..)) + Slice to H
//   torchvision DeepLabV3     upsampling: Resize(f, sizes = Concat(Slice(Shape(f)), Slice(Shape(x))))
//   PyTorch TransformerEncoder causal mask Trilu(ConstantOfShape(Concat(s, s)) + -inf), Range positions,
//                             head split Reshape(x, Concat(s, Mul(b, heads), d))
// Each positive test checks that the chain is gone, the consumer has a constant
// operand and the right static shape; its negative twin takes one value of the
// chain from an int64 graph input (a truly dynamic dim) and must fail naming
// the node whose output cannot be computed.
#include "backends/reference/evaluate.h"
#include "core/onnx/fold_constants.h"
#include "core/onnx/importer.h"
#include "core/onnx/modelbuilder.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "tests/onnx/graphquery.h"

namespace tessera {
namespace {

using onnxtest::countOps;

using MB = ModelBuilder;
constexpr int kInt64 = 7, kBool = 9, kFloat = 1;

// The reference backend's kernels evaluate the folded nodes (as in the app).
[[maybe_unused]] const bool kEvaluator = (setConstantEvaluator(evaluateConstantNode), true);

std::string gather(MB &b, const std::string &shape, std::int64_t i, const std::string &name)
{
    return b.node("Gather", name, {shape, b.constantInt(name + "_i", i)}, {MB::aInt("axis", 0)}, {{}}).front();
}

std::string unsqueeze(MB &b, const std::string &x, const std::string &name)
{
    return b.node("Unsqueeze", name, {x, b.constantInts(name + "_axes", {0})}, {}, {{1}}).front();
}

std::string shapeOf(MB &b, const std::string &x, const std::string &name)
{
    return b.node("Shape", name, {x}, {}, {{static_cast<std::int64_t>(b.shape(x).size())}}).front();
}

// A value the chain reads: a constant, or (dynamic) an int64 graph input.
std::string scalarOrInput(MB &b, const std::string &name, std::int64_t value, bool dynamic)
{
    return dynamic ? b.input(name, {}, kInt64) : b.constantInt(name, value);
}

struct Built {
    std::string bytes;
    ImportOptions options;
};

Built finish(MB &b, ImportOptions options = {})
{
    auto model = b.finish();
    EXPECT_TRUE(model) << model.status().str();
    return {model ? (*model)->SerializeAsString() : std::string(), std::move(options)};
}

Expected<ImportResult> import(const Built &m, const std::string &name)
{
    return importModelFromBytes(m.bytes, name, m.options);
}

const Tensor &tensorNamed(const Graph &g, const std::string &name)
{
    const TensorId t = g.findTensor(name);
    EXPECT_NE(t, kInvalidId) << name;
    return g.tensor(t);
}

// --- torchvision ShuffleNetV2: channel_shuffle ----------------------------------

Built shuffleNetChannelShuffle(bool dynamic)
{
    MB b("shufflenet_channel_shuffle", 1);
    const std::string x = b.input("x", {2, 8, 4, 4});
    b.setDimParam(x, 0, "batch");
    const std::string s = shapeOf(b, x, "Shape_0");
    const std::string n = gather(b, s, 0, "Gather_1"), c = gather(b, s, 1, "Gather_2"), h = gather(b, s, 2, "Gather_3"),
                      w = gather(b, s, 3, "Gather_4");
    const std::string groups = scalarOrInput(b, "groups", 2, dynamic);
    const std::string cpg = b.node("Div", "Div_5", {c, groups}, {}, {{}}).front();
    const std::string shape1 =
        b.node("Concat", "Concat_6",
               {unsqueeze(b, n, "Unsqueeze_n"), unsqueeze(b, groups, "Unsqueeze_g"), unsqueeze(b, cpg, "Unsqueeze_c"),
                unsqueeze(b, h, "Unsqueeze_h"), unsqueeze(b, w, "Unsqueeze_w")},
               {MB::aInt("axis", 0)}, {{5}})
            .front();
    const std::string r1 = b.node("Reshape", "Reshape_7", {x, shape1}, {}, {{2, 2, 4, 4, 4}}).front();
    b.forgetShape(r1);
    const std::string t =
        b.node("Transpose", "Transpose_8", {r1}, {MB::aInts("perm", {0, 2, 1, 3, 4})}, {{2, 4, 2, 4, 4}}).front();
    b.forgetShape(t);
    const std::string shape2 = b.node("Concat", "Concat_9",
                                      {unsqueeze(b, n, "Unsqueeze_n2"), b.constantInts("minus1", {-1}),
                                       unsqueeze(b, h, "Unsqueeze_h2"), unsqueeze(b, w, "Unsqueeze_w2")},
                                      {MB::aInt("axis", 0)}, {{4}})
                                   .front();
    const std::string y = b.node("Reshape", "Reshape_10", {t, shape2}, {}, {{2, 8, 4, 4}}).front();
    b.output(y);
    b.setDimParam(y, 0, "batch");
    ImportOptions o;
    o.batchSize = 3;
    return finish(b, o);
}

TEST(FoldExports, ShuffleNetChannelShuffleFoldsToTwoReshapesAndATranspose)
{
    auto r = import(shuffleNetChannelShuffle(false), "shufflenet.onnx");
    ASSERT_TRUE(r) << r.status().str();
    const Graph &g = r->graph;
    EXPECT_EQ(g.nodeCount(), 3u);
    EXPECT_EQ(countOps(g, "Reshape"), 2);
    EXPECT_EQ(countOps(g, "Transpose"), 1);
    EXPECT_EQ(tensorNamed(g, "Reshape_7").shape, (Shape{3, 2, 4, 4, 4})); // batch 3 from the options
    EXPECT_EQ(tensorNamed(g, "Transpose_8").shape, (Shape{3, 4, 2, 4, 4}));
    EXPECT_EQ(tensorNamed(g, "Reshape_10").shape, (Shape{3, 8, 4, 4}));
    const Tensor &shape1 = tensorNamed(g, "Concat_6");
    ASSERT_TRUE(shape1.isConstant());
    ASSERT_NE(shape1.data->i64(), nullptr);
    EXPECT_EQ(std::vector<std::int64_t>(shape1.data->i64(), shape1.data->i64() + 5),
              (std::vector<std::int64_t>{3, 2, 4, 4, 4}));
    EXPECT_GE(r->fold.foldedNodes, 15); // Shape, Gathers, Div, Unsqueezes, Concats (and their Constants)
    // The import log lists them: "folded N constant nodes (M evaluated, K shapes computed): Shape_0, ..."
    bool noted = false;
    for (const Diagnostic &d : r->log.items())
        noted = noted || (d.message.starts_with("folded " + std::to_string(r->fold.foldedNodes) + " constant nodes") &&
                          d.message.find("shapes computed") != std::string::npos &&
                          d.message.find("Div_5") != std::string::npos);
    EXPECT_TRUE(noted) << "the import log lists the folded nodes";
}

TEST(FoldExports, ShuffleNetWithDynamicGroupsNamesTheReshape)
{
    auto r = import(shuffleNetChannelShuffle(true), "shufflenet_dynamic.onnx");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().node, "Reshape_7") << r.status().str();
    EXPECT_NE(r.status().message().find("computed from graph input 'groups'"), std::string::npos) << r.status().str();
    EXPECT_NE(r.status().message().find("depends on data at run time"), std::string::npos) << r.status().str();
}

// --- torchvision ViT: class token expand -----------------------------------------

Built vitClassToken(bool dynamic)
{
    MB b("vit_class_token", 2);
    const std::string x = b.input("x", {2, 4, 8});
    b.setDimParam(x, 0, "batch");
    const std::string cls = b.weight("class_token", {1, 1, 8}, 0.5f);
    const std::string n = gather(b, shapeOf(b, x, "Shape_0"), 0, "Gather_1");
    const std::string minus = dynamic ? b.input("tokens", {1}, kInt64) : b.constantInts("minus1", {-1});
    const std::string shape =
        b.node("Concat", "Concat_2", {unsqueeze(b, n, "Unsqueeze_3"), minus, minus}, {MB::aInt("axis", 0)}, {{3}})
            .front();
    const std::string eq =
        b.node("Equal", "Equal_4", {shape, b.constantInts("all_minus1", {-1, -1, -1})}, {}, {{3}}).front();
    b.setElemType(eq, kBool);
    const std::string fixed =
        b.node("Where", "Where_5", {eq, b.constantInts("ones", {1, 1, 1}), shape}, {}, {{3}}).front();
    b.setElemType(fixed, kInt64);
    const std::string e = b.node("Expand", "Expand_6", {cls, fixed}, {}, {{2, 1, 8}}).front();
    b.setElemType(e, kFloat);
    b.forgetShape(e);
    const std::string y = b.concat({e, x}, "Concat_7", 1);
    b.output(y);
    b.setDimParam(y, 0, "batch");
    ImportOptions o;
    o.batchSize = 2;
    return finish(b, o);
}

TEST(FoldExports, VitClassTokenExpandFoldsToTheRepeatedToken)
{
    auto r = import(vitClassToken(false), "vit.onnx");
    ASSERT_TRUE(r) << r.status().str();
    const Graph &g = r->graph;
    // The shape chain folds, and so does Expand itself: the class token is a
    // weight, so [batch, 1, 8] copies of it are a (small) constant.
    EXPECT_EQ(g.nodeCount(), 1u);
    EXPECT_EQ(countOps(g, "Concat"), 1);
    const Tensor &e = tensorNamed(g, "Expand_6");
    ASSERT_TRUE(e.isConstant());
    EXPECT_EQ(e.shape, (Shape{2, 1, 8}));
    EXPECT_EQ(g.findTensor("class_token"), kInvalidId); // read only by the folded Expand
    for (std::int64_t i = 0; i < 8; ++i) {
        EXPECT_EQ(e.data->floatAt(i), e.data->floatAt(i + 8)) << i; // one token per batch entry
        EXPECT_NE(e.data->floatAt(i), 0.0) << i;
    }
    EXPECT_EQ(tensorNamed(g, "Concat_7").shape, (Shape{2, 5, 8}));
}

TEST(FoldExports, VitWithATokenCountFromAnInputNamesTheExpand)
{
    auto r = import(vitClassToken(true), "vit_dynamic.onnx");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().node, "Expand_6") << r.status().str();
    EXPECT_NE(r.status().message().find("computed from graph input 'tokens'"), std::string::npos) << r.status().str();
}

// --- torchvision Swin: padding to a multiple of the window, then cropping back --------

Built swinWindowPadding(bool dynamic)
{
    MB b("swin_window_padding", 3);
    const std::string x = b.input("x", {1, 7, 7, 4}); // NHWC, as Swin's blocks
    b.setDimParam(x, 0, "batch");
    const std::string s = shapeOf(b, x, "Shape_0");
    const std::string hgt = gather(b, s, 1, "Gather_1"), wid = gather(b, s, 2, "Gather_2");
    const std::string window = scalarOrInput(b, "window", 4, dynamic);
    auto padOf = [&](const std::string &dim, const std::string &tag) {
        const std::string m = b.node("Mod", "Mod_" + tag, {dim, window}, {}, {{}}).front();
        const std::string d = b.node("Sub", "Sub_" + tag, {window, m}, {}, {{}}).front();
        return b.node("Mod", "Mod2_" + tag, {d, window}, {}, {{}}).front();
    };
    const std::string zero = b.constantInts("zero", {0});
    const std::string pads = b.node("Concat", "Concat_3",
                                    {zero, zero, zero, zero, zero, unsqueeze(b, padOf(hgt, "h"), "Unsqueeze_h"),
                                     unsqueeze(b, padOf(wid, "w"), "Unsqueeze_w"), zero},
                                    {MB::aInt("axis", 0)}, {{8}})
                                 .front();
    const std::string padded = b.node("Pad", "Pad_4", {x, pads}, {}, {{1, 8, 8, 4}}).front();
    b.forgetShape(padded);
    const std::string y =
        b.node("Slice", "Slice_5", {padded, zero, unsqueeze(b, hgt, "Unsqueeze_end"), b.constantInts("axis1", {1})}, {},
               {{1, 7, 8, 4}})
            .front();
    b.forgetShape(y);
    const std::string out = b.relu(y, "Relu_6");
    b.output(out);
    b.setDimParam(out, 0, "batch");
    return finish(b);
}

TEST(FoldExports, SwinWindowPaddingGetsConstantPadsAndSliceEnds)
{
    auto r = import(swinWindowPadding(false), "swin.onnx");
    ASSERT_TRUE(r) << r.status().str();
    const Graph &g = r->graph;
    EXPECT_EQ(g.nodeCount(), 3u); // Pad, Slice, Relu
    EXPECT_EQ(tensorNamed(g, "Pad_4").shape, (Shape{1, 8, 8, 4}));
    EXPECT_EQ(tensorNamed(g, "Slice_5").shape, (Shape{1, 7, 8, 4}));
    const Tensor &pads = tensorNamed(g, "Concat_3");
    ASSERT_TRUE(pads.isConstant());
    EXPECT_EQ(pads.data->i64()[5], 1); // (4 - 7 % 4) % 4
    EXPECT_EQ(pads.data->i64()[6], 1);
}

TEST(FoldExports, SwinWithAWindowFromAnInputNamesThePad)
{
    auto r = import(swinWindowPadding(true), "swin_dynamic.onnx");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().node, "Pad_4") << r.status().str();
    EXPECT_NE(r.status().message().find("graph input 'window'"), std::string::npos) << r.status().str();
}

// --- torchvision DeepLabV3: classifier output resized to the input's size -----------

Built deepLabResize(bool dynamic)
{
    MB b("deeplab_resize", 4);
    const std::string x = b.input("x", {1, 3, 8, 8});
    b.setDimParam(x, 0, "batch");
    const std::string f = b.conv(x, "Conv_0", 4, 3, 2); // [N,4,4,4]
    b.forgetShape(f);
    const std::string head =
        b.node("Slice", "Slice_1", {shapeOf(b, f, "Shape_f"), b.constantInts("s0", {0}), b.constantInts("s2", {2})}, {},
               {{2}})
            .front();
    const std::string hw =
        dynamic ? b.input("size", {2}, kInt64)
                : b.node("Slice", "Slice_2",
                         {shapeOf(b, x, "Shape_x"), b.constantInts("e2", {2}), b.constantInts("e4", {4})}, {}, {{2}})
                      .front();
    const std::string sizes = b.node("Concat", "Concat_3", {head, hw}, {MB::aInt("axis", 0)}, {{4}}).front();
    const std::string y =
        b.node("Resize", "Resize_4", {f, "", "", sizes},
               {MB::aString("mode", "linear"), MB::aString("coordinate_transformation_mode", "pytorch_half_pixel")},
               {{1, 4, 8, 8}})
            .front();
    b.forgetShape(y);
    const std::string out = b.relu(y, "Relu_5");
    b.output(out);
    b.setDimParam(out, 0, "batch");
    ImportOptions o;
    o.batchSize = 2;
    return finish(b, o);
}

TEST(FoldExports, DeepLabResizeGetsConstantSizes)
{
    auto r = import(deepLabResize(false), "deeplab.onnx");
    ASSERT_TRUE(r) << r.status().str();
    const Graph &g = r->graph;
    EXPECT_EQ(g.nodeCount(), 3u); // Conv, Resize, Relu
    const Tensor &y = tensorNamed(g, "Resize_4");
    EXPECT_EQ(y.shape, (Shape{2, 4, 8, 8}));
    const Tensor *sizes = g.input(g.node(y.producer), 3);
    ASSERT_TRUE(sizes && sizes->isConstant());
    EXPECT_EQ(sizes->data->i64()[0], 2);
    EXPECT_EQ(sizes->data->i64()[3], 8);
}

TEST(FoldExports, DeepLabWithSizesFromAnInputNamesTheResize)
{
    auto r = import(deepLabResize(true), "deeplab_dynamic.onnx");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().node, "Resize_4") << r.status().str();
    EXPECT_NE(r.status().message().find("graph input 'size'"), std::string::npos) << r.status().str();
}

// --- PyTorch TransformerEncoder: causal mask, positions, head split ---------------------

Built transformerEncoder(bool dynamic)
{
    MB b("transformer_encoder", 5);
    const std::string x = b.input("x", {5, 2, 8}); // [seq, batch, d_model]
    b.setDimParam(x, 0, "seq_len");
    b.setDimParam(x, 1, "batch");
    const std::string s = shapeOf(b, x, "Shape_0");
    const std::string seq = gather(b, s, 0, "Gather_1"), batch = gather(b, s, 1, "Gather_2");
    // positions: Gather(embedding, Range(0, seq, 1)) added to x
    const std::string pos =
        b.node("Range", "Range_3", {b.constantInt("r0", 0), seq, b.constantInt("r1", 1)}, {}, {{5}}).front();
    b.forgetShape(pos);
    const std::string emb = b.weight("pos_embedding", {16, 8}, 0.1f);
    const std::string pe = b.node("Gather", "Gather_4", {emb, pos}, {MB::aInt("axis", 0)}, {{5, 8}}).front();
    b.forgetShape(pe);
    const std::string pe3 =
        b.node("Unsqueeze", "Unsqueeze_5", {pe, b.constantInts("axes1", {1})}, {}, {{5, 1, 8}}).front();
    b.forgetShape(pe3);
    const std::string h = b.binary("Add", x, pe3, "Add_6");
    // heads: Reshape(h, [seq, batch * heads, d / heads]) then [batch*heads, seq, d/heads]
    const std::string heads = scalarOrInput(b, "heads", 2, dynamic);
    const std::string bh = b.node("Mul", "Mul_7", {batch, heads}, {}, {{}}).front();
    const std::string shape =
        b.node("Concat", "Concat_8",
               {unsqueeze(b, seq, "Unsqueeze_s"), unsqueeze(b, bh, "Unsqueeze_bh"), b.constantInts("head_dim", {4})},
               {MB::aInt("axis", 0)}, {{3}})
            .front();
    const std::string q = b.node("Reshape", "Reshape_9", {h, shape}, {}, {{5, 4, 4}}).front();
    b.forgetShape(q);
    const std::string qt =
        b.node("Transpose", "Transpose_10", {q}, {MB::aInts("perm", {1, 0, 2})}, {{4, 5, 4}}).front();
    b.forgetShape(qt);
    const std::string kt =
        b.node("Transpose", "Transpose_11", {q}, {MB::aInts("perm", {1, 2, 0})}, {{4, 4, 5}}).front();
    b.forgetShape(kt);
    const std::string scores = b.node("MatMul", "MatMul_12", {qt, kt}, {}, {{4, 5, 5}}).front();
    b.forgetShape(scores);
    // mask: Trilu(ConstantOfShape([seq, seq]) + -1e9, k = 1, upper)
    const std::string mshape =
        b.node("Concat", "Concat_13", {unsqueeze(b, seq, "Unsqueeze_m0"), unsqueeze(b, seq, "Unsqueeze_m1")},
               {MB::aInt("axis", 0)}, {{2}})
            .front();
    const std::string zeros = b.node("ConstantOfShape", "ConstantOfShape_14", {mshape}, {}, {{5, 5}}).front();
    b.setElemType(zeros, kFloat);
    b.forgetShape(zeros);
    const std::string neg =
        b.node("Add", "Add_15", {zeros, b.constantScalar("minus_inf", -1e9f)}, {}, {{5, 5}}).front();
    b.forgetShape(neg);
    const std::string mask =
        b.node("Trilu", "Trilu_16", {neg, b.constantInt("k1", 1)}, {MB::aInt("upper", 1)}, {{5, 5}}).front();
    b.forgetShape(mask);
    const std::string y = b.node("Add", "Add_17", {scores, mask}, {}, {{4, 5, 5}}).front();
    b.forgetShape(y);
    const std::string out = b.softmax(y, "Softmax_18");
    b.output(out);
    b.setDimParam(out, 0, "bh");
    b.setDimParam(out, 1, "seq_len");
    b.setDimParam(out, 2, "seq_len");
    ImportOptions o;
    o.batchSize = 2;
    o.seqLen = 5;
    return finish(b, o);
}

TEST(FoldExports, TransformerEncoderMaskPositionsAndHeadsFold)
{
    auto r = import(transformerEncoder(false), "transformer.onnx");
    ASSERT_TRUE(r) << r.status().str();
    const Graph &g = r->graph;
    // Add(x, pe), Reshape, two Transposes, MatMul, Add(mask), Softmax
    EXPECT_EQ(g.nodeCount(), 7u);
    EXPECT_EQ(countOps(g, "Range") + countOps(g, "ConstantOfShape") + countOps(g, "Trilu"), 0);
    const Tensor &mask = tensorNamed(g, "Trilu_16");
    ASSERT_TRUE(mask.isConstant());
    EXPECT_EQ(mask.shape, (Shape{5, 5}));
    EXPECT_EQ(mask.data->floatAt(1), -1e9f);                 // above the diagonal
    EXPECT_EQ(mask.data->floatAt(5), 0.0);                   // below it
    EXPECT_TRUE(tensorNamed(g, "Unsqueeze_5").isConstant()); // embedding rows of the folded positions
    EXPECT_EQ(tensorNamed(g, "Reshape_9").shape, (Shape{5, 4, 4}));
    EXPECT_EQ(tensorNamed(g, "Softmax_18").shape, (Shape{4, 5, 5}));
}

TEST(FoldExports, TransformerEncoderWithHeadsFromAnInputNamesTheReshape)
{
    auto r = import(transformerEncoder(true), "transformer_dynamic.onnx");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().location().node, "Reshape_9") << r.status().str();
    EXPECT_NE(r.status().message().find("graph input 'heads'"), std::string::npos) << r.status().str();
}

// The size bound: a constant chain whose result is bigger than maxElements is
// not materialised; the node stays and the backend computes it.
TEST(FoldExports, ConstantOfShapeAboveTheBoundStaysANode)
{
    Built m = transformerEncoder(false);
    m.options.fold.maxElements = 20; // the 5x5 mask is 25 elements
    auto r = import(m, "transformer_bound.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "ConstantOfShape"), 1);
    EXPECT_EQ(tensorNamed(r->graph, "ConstantOfShape_14").shape, (Shape{5, 5})); // its shape is still computed
    EXPECT_FALSE(tensorNamed(r->graph, "Trilu_16").isConstant());
}

} // namespace
} // namespace tessera
