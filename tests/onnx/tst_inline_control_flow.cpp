// S2c: If with a constant condition, Loop with a small constant trip count and
// Scan with static lengths become plain nodes; each beside the case that must
// stay opaque with a warning naming the node. Values are checked by folding
// (the reference kernels) when every input is a constant.
#include "backends/reference/evaluate.h"
#include "core/onnx/fold_constants.h"
#include "core/onnx/importer.h"

#include <cstring>
#include <gtest/gtest.h>

#include "tests/onnx/graphquery.h"
#include "tests/onnx/proto_builder.h"

namespace tessera {
namespace {

using onnxtest::countOps;
using onnxtest::valuesOf;

using onnxtest::ProtoBuilder;
using TP = ::onnx::TensorProto;

[[maybe_unused]] const bool kEvaluator = (setConstantEvaluator(evaluateConstantNode), true);

void boolInit(ProtoBuilder &m, const std::string &name, bool v)
{
    const char b = v ? 1 : 0;
    ProtoBuilder::fillTensor(*m.graph().add_initializer(), name, {}, TP::BOOL, &b, 1);
}

::onnx::GraphProto &graphAttr(::onnx::NodeProto &n, const std::string &name)
{
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::GRAPH);
    a->mutable_g()->set_name(name);
    return *a->mutable_g();
}

void typed(::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> *list, const std::string &name,
           const std::vector<onnxtest::Dim> &dims, int elem = TP::FLOAT)
{
    ProtoBuilder::setType(*list->Add(), name, dims, elem);
}

::onnx::NodeProto &bodyNode(::onnx::GraphProto &g, const std::string &op, std::vector<std::string> in,
                            std::vector<std::string> out)
{
    auto *n = g.add_node();
    n->set_op_type(op);
    for (auto &i : in)
        n->add_input(i);
    for (auto &o : out)
        n->add_output(o);
    return *n;
}

bool warned(const ImportResult &r, const std::string &node, const std::string &text)
{
    for (const Diagnostic &d : r.log.items())
        if (d.location.node == node && d.message.find(text) != std::string::npos)
            return true;
    return false;
}

// y = If(c) then x + 1 else x - 1, x [2]
ProtoBuilder ifModel(bool constantCondition)
{
    ProtoBuilder m;
    m.input("x", {2});
    if (constantCondition)
        boolInit(m, "c", false);
    else
        m.input("c", {}, TP::BOOL);
    m.floats("one", {1}, {1});
    auto &n = m.node("If", {"c"}, {"y"}, "if");
    for (auto [branch, op] : {std::pair{"then_branch", "Add"}, std::pair{"else_branch", "Sub"}}) {
        auto &g = graphAttr(n, branch);
        bodyNode(g, op, {"x", "one"}, {"r"});
        typed(g.mutable_output(), "r", {2});
    }
    m.output("y", {2});
    return m;
}

TEST(InlineControlFlow, IfWithAConstantConditionInlinesTheChosenBranch)
{
    auto r = importModelFromBytes(ifModel(true).bytes(), "if.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "If"), 0);
    EXPECT_EQ(countOps(r->graph, "Sub"), 1); // the else branch: c is false
    EXPECT_EQ(countOps(r->graph, "Add"), 0);
    EXPECT_EQ(r->graph.tensor(r->graph.findTensor("y")).shape, (Shape{2}));
    for (const Node &n : r->graph.nodes())
        EXPECT_FALSE(n.opaque) << n.name;
}

TEST(InlineControlFlow, IfWithARunTimeConditionStaysOpaqueWithAWarning)
{
    auto r = importModelFromBytes(ifModel(false).bytes(), "if_dynamic.onnx");
    ASSERT_TRUE(r) << r.status().str(); // the If's output is declared: it imports as an opaque node
    EXPECT_EQ(countOps(r->graph, "If"), 1);
    EXPECT_TRUE(warned(*r, "if", "its condition 'c' is not a constant")) << "no warning naming the If";
}

// Loop(trip, cond) with state y: y_out = y_in + 1, scan_out = y_out.
ProtoBuilder loopModel(std::int64_t trips, bool bodyComputesCondition)
{
    ProtoBuilder m;
    m.ints("trip", {}, {trips});
    boolInit(m, "cond", true);
    m.floats("y0", {2}, {10, 20});
    m.floats("one", {1}, {1});
    auto &n = m.node("Loop", {"trip", "cond", "y0"}, {"res_y", "res_scan"}, "loop");
    auto &g = graphAttr(n, "body");
    typed(g.mutable_input(), "iter", {}, TP::INT64);
    typed(g.mutable_input(), "cond_in", {}, TP::BOOL);
    typed(g.mutable_input(), "y_in", {2});
    if (bodyComputesCondition) {
        auto *two = g.add_initializer();
        const std::int64_t v = 2;
        ProtoBuilder::fillTensor(*two, "two", {}, TP::INT64, &v, 8);
        bodyNode(g, "Less", {"iter", "two"}, {"cond_out"});
    } else {
        bodyNode(g, "Identity", {"cond_in"}, {"cond_out"});
    }
    bodyNode(g, "Add", {"y_in", "one"}, {"y_out"});
    bodyNode(g, "Identity", {"y_out"}, {"scan_out"});
    typed(g.mutable_output(), "cond_out", {}, TP::BOOL);
    typed(g.mutable_output(), "y_out", {2});
    typed(g.mutable_output(), "scan_out", {2});
    m.output("res_y", {2});
    m.output("res_scan", {trips, 2});
    return m;
}

TEST(InlineControlFlow, LoopWithAConstantTripCountUnrollsAndFolds)
{
    auto r = importModelFromBytes(loopModel(3, false).bytes(), "loop.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "Loop"), 0);
    EXPECT_EQ(r->graph.nodeCount(), 0u); // every input is a constant: the unrolled loop folds away
    EXPECT_EQ(valuesOf(r->graph, "res_y"), (std::vector<double>{13, 23}));
    EXPECT_EQ(valuesOf(r->graph, "res_scan"), (std::vector<double>{11, 21, 12, 22, 13, 23}));
}

TEST(InlineControlFlow, LoopAboveTheUnrollBoundStaysOpaque)
{
    auto r = importModelFromBytes(loopModel(100, false).bytes(), "loop_long.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "Loop"), 1);
    EXPECT_TRUE(warned(*r, "loop", "100 iterations; only 1 to 64 are unrolled"));
}

TEST(InlineControlFlow, LoopWhoseBodyComputesTheConditionStaysOpaque)
{
    auto r = importModelFromBytes(loopModel(3, true).bytes(), "loop_cond.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "Loop"), 1);
    EXPECT_TRUE(warned(*r, "loop", "its body computes the condition"));
}

// Scan-9: running sum over the rows of x [3, 2], scan output the partial sums.
ProtoBuilder scanModel(bool staticLength)
{
    ProtoBuilder m(11);
    m.floats("init", {2}, {0, 0});
    if (staticLength)
        m.floats("x", {3, 2}, {1, 2, 3, 4, 5, 6});
    else
        m.input("x", {"n", 2});
    auto &n = m.node("Scan", {"init", "x"}, {"sum", "partial"}, "scan");
    ProtoBuilder::attr(n, "num_scan_inputs", std::int64_t(1));
    auto &g = graphAttr(n, "body");
    typed(g.mutable_input(), "s_in", {2});
    typed(g.mutable_input(), "row", {2});
    bodyNode(g, "Add", {"s_in", "row"}, {"s_out"});
    bodyNode(g, "Identity", {"s_out"}, {"p"});
    typed(g.mutable_output(), "s_out", {2});
    typed(g.mutable_output(), "p", {2});
    m.output("sum", {2});
    m.output("partial", {3, 2});
    return m;
}

TEST(InlineControlFlow, ScanWithAStaticLengthUnrollsAndFolds)
{
    auto r = importModelFromBytes(scanModel(true).bytes(), "scan.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "Scan"), 0);
    EXPECT_EQ(valuesOf(r->graph, "sum"), (std::vector<double>{9, 12}));
    EXPECT_EQ(valuesOf(r->graph, "partial"), (std::vector<double>{1, 2, 4, 6, 9, 12}));
}

TEST(InlineControlFlow, ScanOverASymbolicLengthStaysOpaque)
{
    ImportOptions o;
    o.dims["n"] = 3;
    auto r = importModelFromBytes(scanModel(false).bytes(), "scan_dynamic.onnx", o);
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(countOps(r->graph, "Scan"), 1);
    EXPECT_TRUE(warned(*r, "scan", "the length of scan input 'x' is not declared statically"));
}

} // namespace
} // namespace tessera
