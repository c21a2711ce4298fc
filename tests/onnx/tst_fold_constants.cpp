// Constant folding: the PyTorch Reshape(x, Concat(Unsqueeze(Gather(Shape(x))),
// -1)) chain through the importer, and single rules on hand-built graphs, each
// with the case that must not fold.
#include "backends/reference/evaluate.h"
#include "core/onnx/fold_constants.h"
#include "core/onnx/importer.h"

#include <cstring>
#include <gtest/gtest.h>

#include "tests/onnx/proto_builder.h"

namespace tessera {
namespace {

// The reference backend's kernels evaluate the folded nodes (as in the app).
[[maybe_unused]] const bool kEvaluator = (setConstantEvaluator(evaluateConstantNode), true);

using onnxtest::ProtoBuilder;
using TP = ::onnx::TensorProto;

// x[2,3,4] → Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])) → y[2,12]
ProtoBuilder pytorchReshape()
{
    ProtoBuilder m;
    m.input("x", {2, 3, 4});
    m.ints("idx0", {}, {0});
    m.ints("axes0", {1}, {0});
    m.ints("minus1", {1}, {-1});
    m.node("Shape", {"x"}, {"s"});
    m.node("Gather", {"s", "idx0"}, {"g"});
    m.node("Unsqueeze", {"g", "axes0"}, {"u"});
    ProtoBuilder::attr(m.node("Concat", {"u", "minus1"}, {"c"}), "axis", std::int64_t(0));
    m.node("Reshape", {"x", "c"}, {"y"}, "reshape");
    m.output("y", {2, 12});
    return m;
}

TEST(FoldConstants, PytorchReshapePatternFoldsToAConstantShape)
{
    auto r = importModelFromBytes(pytorchReshape().bytes(), "reshape.onnx");
    ASSERT_TRUE(r) << r.status().str();
    const Graph &g = r->graph;
    ASSERT_EQ(g.nodeCount(), 1u);
    const Node &reshape = g.node(0);
    EXPECT_EQ(reshape.opType, "Reshape");
    const Tensor *shape = g.input(reshape, 1);
    ASSERT_TRUE(shape && shape->isConstant());
    EXPECT_EQ(shape->kind, Tensor::Kind::Initializer);
    ASSERT_NE(shape->data->i64(), nullptr);
    EXPECT_EQ(shape->data->shape, (Shape{2}));
    EXPECT_EQ(shape->data->i64()[0], 2);
    EXPECT_EQ(shape->data->i64()[1], -1);
    EXPECT_EQ(g.output(reshape, 0)->shape, (Shape{2, 12}));
    EXPECT_EQ(r->fold.foldedNodes, 4);
    EXPECT_EQ(r->fold.constantNodes, 0);
    EXPECT_EQ(g.findTensor("idx0"), kInvalidId); // used only by folded nodes
    EXPECT_TRUE(g.verify()) << g.verify().str();
}

TEST(FoldConstants, DisabledFoldingKeepsTheChain)
{
    ImportOptions o;
    o.foldConstants = false;
    o.checkShapes = false; // Reshape's shape is not a constant then
    auto r = importModelFromBytes(pytorchReshape().bytes(), "reshape.onnx", o);
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(r->graph.nodeCount(), 5u);
    EXPECT_EQ(r->fold.foldedNodes, 0);
    EXPECT_FALSE(r->graph.input(r->graph.node(r->graph.findNode("reshape")), 1)->isConstant());
}

TEST(FoldConstants, ConstantNodesBecomeInitializers)
{
    ProtoBuilder m;
    m.input("x", {2}, TP::INT64);
    m.constantInts("k", {2}, {5, 6});
    m.node("Add", {"x", "k"}, {"y"}, "add");
    m.output("y", {2}, TP::INT64);
    auto r = importModelFromBytes(m.bytes(), "const.onnx");
    ASSERT_TRUE(r) << r.status().str();
    ASSERT_EQ(r->graph.nodeCount(), 1u); // Add of a graph input is not constant: it stays
    EXPECT_EQ(r->graph.node(0).opType, "Add");
    const Tensor &k = r->graph.tensor(r->graph.findTensor("k"));
    ASSERT_TRUE(k.isConstant());
    EXPECT_EQ(k.data->i64()[1], 6);
    EXPECT_EQ(r->fold.constantNodes, 1);
}

// --- single rules on hand-built graphs ----------------------------------------

TensorId constInts(Graph &g, const std::string &name, Shape shape, const std::vector<std::int64_t> &v,
                   DType dtype = DType::Int64)
{
    auto d = std::make_shared<TensorData>();
    d->dtype = dtype;
    d->shape = shape;
    for (std::int64_t x : v) {
        const std::size_t n = dtypeSize(dtype), at = d->bytes.size();
        d->bytes.resize(at + n);
        if (dtype == DType::Int64)
            std::memcpy(d->bytes.data() + at, &x, 8);
        else {
            const auto x32 = static_cast<std::int32_t>(x);
            std::memcpy(d->bytes.data() + at, &x32, 4);
        }
    }
    return g.addTensor({.name = name,
                        .dtype = dtype,
                        .shape = std::move(shape),
                        .kind = Tensor::Kind::Initializer,
                        .data = std::move(d)});
}

TensorId out(Graph &g, const std::string &name, Shape shape, DType dtype = DType::Int64)
{
    return g.addTensor({.name = name, .dtype = dtype, .shape = std::move(shape)});
}

std::vector<std::int64_t> valuesOf(const Graph &g, const std::string &name)
{
    const Tensor &t = g.tensor(g.findTensor(name));
    std::vector<std::int64_t> v;
    if (!t.data)
        return v;
    for (std::int64_t i = 0; i < t.elements(); ++i)
        v.push_back(t.data->intAt(i).value_or(-999));
    return v;
}

TEST(FoldConstantRules, SliceWithNegativeStepAndRangeAndCast)
{
    Graph g;
    const TensorId data = constInts(g, "data", {5}, {10, 11, 12, 13, 14});
    const TensorId starts = constInts(g, "starts", {1}, {-1});
    const TensorId ends = constInts(g, "ends", {1}, {INT64_MIN});
    const TensorId axes = constInts(g, "axes", {1}, {0});
    const TensorId steps = constInts(g, "steps", {1}, {-2});
    const TensorId sliced = out(g, "sliced", {3});
    g.addNode({.name = "slice", .opType = "Slice", .inputs = {data, starts, ends, axes, steps}, .outputs = {sliced}});
    const TensorId r0 = constInts(g, "r0", {}, {3}), r1 = constInts(g, "r1", {}, {-4}),
                   r2 = constInts(g, "r2", {}, {-3});
    const TensorId range = out(g, "range", {3});
    g.addNode({.name = "range", .opType = "Range", .inputs = {r0, r1, r2}, .outputs = {range}});
    const TensorId cast = out(g, "cast", {3}, DType::Int32);
    g.addNode(
        {.name = "cast", .opType = "Cast", .attrs = {{"to", {std::int64_t(6)}}}, .inputs = {range}, .outputs = {cast}});
    g.outputs = {sliced, cast};

    auto stats = foldConstants(g);
    ASSERT_TRUE(stats) << stats.status().str();
    EXPECT_EQ(stats->foldedNodes, 3);
    EXPECT_EQ(g.nodeCount(), 0u);
    EXPECT_EQ(valuesOf(g, "sliced"), (std::vector<std::int64_t>{14, 12, 10}));
    EXPECT_EQ(valuesOf(g, "cast"), (std::vector<std::int64_t>{3, 0, -3}));
    EXPECT_EQ(g.tensor(g.findTensor("cast")).data->dtype, DType::Int32);
}

TEST(FoldConstantRules, BroadcastArithmeticFolds)
{
    Graph g;
    const TensorId a = constInts(g, "a", {2, 1}, {6, 12});
    const TensorId b = constInts(g, "b", {3}, {1, 2, 3});
    const TensorId q = out(g, "q", {2, 3});
    g.addNode({.name = "div", .opType = "Div", .inputs = {a, b}, .outputs = {q}});
    g.outputs = {q};
    auto stats = foldConstants(g);
    ASSERT_TRUE(stats) << stats.status().str();
    EXPECT_EQ(stats->foldedNodes, 1);
    EXPECT_EQ(valuesOf(g, "q"), (std::vector<std::int64_t>{6, 3, 2, 12, 6, 4}));
    EXPECT_EQ(g.nodeCount(), 0u);
}

// The evaluator's run-time failure is the node's: the import fails naming it.
TEST(FoldConstantRules, DivisionByZeroIsAnErrorNamingTheNode)
{
    Graph g;
    const TensorId a = constInts(g, "a", {2, 1}, {6, 12});
    const TensorId z = constInts(g, "z", {1}, {0});
    const TensorId bad = out(g, "bad", {2, 1});
    g.addNode({.name = "div0", .opType = "Div", .inputs = {a, z}, .outputs = {bad}});
    g.outputs = {bad};
    auto stats = foldConstants(g);
    ASSERT_FALSE(stats);
    EXPECT_EQ(stats.status().location().node, "div0") << stats.status().str();
    EXPECT_NE(stats.status().message().find("constant folding"), std::string::npos) << stats.status().str();
}

// An evaluator that cannot run a node leaves it: only Constant/Shape/Size
// fold without one.
TEST(FoldConstantRules, ANodeTheEvaluatorCannotRunStays)
{
    Graph g;
    const TensorId a = constInts(g, "a", {2}, {6, 12});
    const TensorId b = constInts(g, "b", {2}, {1, 2});
    const TensorId q = out(g, "q", {2});
    g.addNode({.name = "add", .opType = "Add", .inputs = {a, b}, .outputs = {q}});
    g.outputs = {q};
    const ConstantEvaluator saved = constantEvaluator();
    setConstantEvaluator([](const Graph &, const Node &n) -> Expected<std::vector<std::shared_ptr<const TensorData>>> {
        return Status::error(ErrorCode::Unsupported, "no kernel for " + n.opType);
    });
    auto stats = foldConstants(g);
    setConstantEvaluator(saved);
    ASSERT_TRUE(stats) << stats.status().str();
    EXPECT_EQ(stats->foldedNodes, 0);
    EXPECT_EQ(g.nodeCount(), 1u);
}

TEST(FoldConstantRules, WorkIsBoundedByMaxElements)
{
    Graph g;
    const TensorId shape = constInts(g, "shape", {1}, {2000});
    const TensorId filled = out(g, "filled", {2000}, DType::Float32);
    g.addNode({.name = "cos", .opType = "ConstantOfShape", .inputs = {shape}, .outputs = {filled}});
    g.outputs = {filled};
    Graph copy = g;

    auto small = foldConstants(g, {.maxElements = 1000});
    ASSERT_TRUE(small);
    EXPECT_EQ(small->foldedNodes, 0);
    EXPECT_EQ(g.nodeCount(), 1u);

    auto big = foldConstants(copy, {.maxElements = 4096});
    ASSERT_TRUE(big);
    EXPECT_EQ(big->foldedNodes, 1);
    const Tensor &t = copy.tensor(copy.findTensor("filled"));
    ASSERT_TRUE(t.isConstant());
    EXPECT_EQ(t.data->bytes.size(), 8000u);
    EXPECT_EQ(t.data->floatAt(1999), 0.0);
}

TEST(FoldConstantRules, ResultContradictingTheDeclaredShapeIsAnError)
{
    Graph g;
    const TensorId x =
        g.addTensor({.name = "x", .dtype = DType::Float32, .shape = {2, 3}, .kind = Tensor::Kind::Input});
    g.inputs = {x};
    const TensorId s = out(g, "s", {3}); // Shape of a rank-2 tensor has 2 elements
    g.addNode({.name = "shape", .opType = "Shape", .inputs = {x}, .outputs = {s}});
    g.outputs = {s};
    auto r = foldConstants(g);
    ASSERT_FALSE(r);
    EXPECT_NE(r.status().message().find("computes 2 i64 but the model declares 3 i64"), std::string::npos)
        << r.status().str();
    EXPECT_EQ(r.status().location().node, "shape");
}

} // namespace
} // namespace tessera
