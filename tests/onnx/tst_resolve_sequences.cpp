// S2d: sequences built from constant positions become the tensors they hold;
// each case beside the one that must stay a sequence (and is then refused,
// naming the tensor). Values are checked by folding (the reference kernels)
// when every input is a constant, and at the opset before 13 too, where
// Unsqueeze/Squeeze/Split take attributes instead of inputs.
#include "backends/reference/evaluate.h"
#include "core/onnx/fold_constants.h"
#include "core/onnx/importer.h"

#include <gtest/gtest.h>

#include "tests/onnx/graphquery.h"
#include "tests/onnx/proto_builder.h"

namespace tessera {
namespace {

using onnxtest::countOps;
using onnxtest::valuesOf;

using onnxtest::ProtoBuilder;

[[maybe_unused]] const bool kEvaluator = (setConstantEvaluator(evaluateConstantNode), true);

// Construct(a, b, c) → Erase(pos) → Insert(a, at 0) → At(-1) and Length.
ProtoBuilder constructEraseInsertAt(bool constantPosition)
{
    ProtoBuilder m;
    m.floats("a", {2}, {1, 2});
    m.floats("b", {2}, {3, 4});
    m.floats("c", {2}, {5, 6});
    if (constantPosition)
        m.ints("pos_erase", {}, {-1}); // erases c
    else
        m.input("pos_erase", {}, ::onnx::TensorProto::INT64);
    m.ints("pos_insert", {}, {0});
    m.ints("pos_at", {}, {-1});
    m.node("SequenceConstruct", {"a", "b", "c"}, {"s1"}, "construct");
    m.node("SequenceErase", {"s1", "pos_erase"}, {"s2"}, "erase");
    m.node("SequenceInsert", {"s2", "a", "pos_insert"}, {"s3"}, "insert");
    m.node("SequenceAt", {"s3", "pos_at"}, {"y"}, "at");
    m.node("SequenceLength", {"s3"}, {"len"}, "length");
    m.output("y", {2});
    m.output("len", {}, ::onnx::TensorProto::INT64);
    return m;
}

TEST(ResolveSequences, ConstantPositionsResolveToTheHeldTensors)
{
    auto r = importModelFromBytes(constructEraseInsertAt(true).bytes(), "seq.onnx");
    ASSERT_TRUE(r) << r.status().str();
    for (const Node &n : r->graph.nodes())
        EXPECT_EQ(n.opType.rfind("Sequence", 0), std::string::npos) << n.name;
    // [a, b, c] → [a, b] → [a, a, b]: the last is b, the length 3.
    EXPECT_EQ(valuesOf(r->graph, "y"), (std::vector<double>{3, 4}));
    EXPECT_EQ(valuesOf(r->graph, "len"), (std::vector<double>{3}));
}

TEST(ResolveSequences, ARunTimePositionIsRefusedNamingTheSequence)
{
    auto r = importModelFromBytes(constructEraseInsertAt(false).bytes(), "seq_dynamic.onnx");
    ASSERT_FALSE(r);
    EXPECT_NE(r.status().str().find("sequence"), std::string::npos) << r.status().str();
}

TEST(ResolveSequences, PositionOutOfRangeIsRefused)
{
    ProtoBuilder m = constructEraseInsertAt(true);
    for (auto &t : *m.graph().mutable_initializer())
        if (t.name() == "pos_at") {
            const std::int64_t v = 3; // the sequence holds 3 tensors: 3 is past the end
            t.set_raw_data(std::string(reinterpret_cast<const char *>(&v), 8));
        }
    auto r = importModelFromBytes(m.bytes(), "seq_range.onnx");
    ASSERT_FALSE(r);
}

// SplitToSequence(x [2, 3], axis 1, keepdims 0) → ConcatFromSequence(new_axis 1, axis 0): x transposed.
ProtoBuilder splitAndStack(std::int64_t opset, bool declaredShape)
{
    ProtoBuilder m(opset);
    if (declaredShape)
        m.floats("x", {2, 3}, {1, 2, 3, 4, 5, 6});
    else
        m.input("x", {2, "n"});
    auto &split = m.node("SplitToSequence", {"x"}, {"s"}, "split");
    ProtoBuilder::attr(split, "axis", std::int64_t{1});
    ProtoBuilder::attr(split, "keepdims", std::int64_t{0});
    auto &stack = m.node("ConcatFromSequence", {"s"}, {"y"}, "stack");
    ProtoBuilder::attr(stack, "axis", std::int64_t{0});
    ProtoBuilder::attr(stack, "new_axis", std::int64_t{1});
    m.node("SequenceLength", {"s"}, {"len"}, "length");
    m.output("y", {3, 2});
    m.output("len", {}, ::onnx::TensorProto::INT64);
    return m;
}

TEST(ResolveSequences, SplitToSequenceAndConcatFromSequenceBecomeSplitAndConcat)
{
    for (std::int64_t opset : {12, 17}) {
        auto r = importModelFromBytes(splitAndStack(opset, true).bytes(), "split.onnx");
        ASSERT_TRUE(r) << "opset " << opset << ": " << r.status().str();
        EXPECT_EQ(valuesOf(r->graph, "y"), (std::vector<double>{1, 4, 2, 5, 3, 6})) << "opset " << opset;
        EXPECT_EQ(valuesOf(r->graph, "len"), (std::vector<double>{3})) << "opset " << opset;
    }
}

TEST(ResolveSequences, SplitToSequenceOfAnUndeclaredLengthIsRefused)
{
    ImportOptions o;
    o.dims["n"] = 3; // known only after S5: S2d reads the model's declarations
    auto r = importModelFromBytes(splitAndStack(17, false).bytes(), "split_dynamic.onnx", o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.status().str().find("sequence"), std::string::npos) << r.status().str();
}

// A scalar split cuts chunks of that size, the last one smaller; it feeds a plain Concat.
TEST(ResolveSequences, ScalarSplitCutsEqualChunksAndASmallerLastOne)
{
    ProtoBuilder m;
    m.floats("x", {5}, {1, 2, 3, 4, 5});
    m.ints("chunk", {}, {2});
    m.ints("last", {}, {-1});
    m.node("SplitToSequence", {"x", "chunk"}, {"s"}, "split");
    m.node("SequenceAt", {"s", "last"}, {"tail"}, "at");
    m.node("SequenceLength", {"s"}, {"len"}, "length");
    m.output("tail", {1});
    m.output("len", {}, ::onnx::TensorProto::INT64);
    auto r = importModelFromBytes(m.bytes(), "chunks.onnx");
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(valuesOf(r->graph, "tail"), (std::vector<double>{5}));
    EXPECT_EQ(valuesOf(r->graph, "len"), (std::vector<double>{3}));
    EXPECT_EQ(countOps(r->graph, "SplitToSequence"), 0);
}

TEST(ResolveSequences, ASequenceReadByAnotherOpIsRefused)
{
    ProtoBuilder m;
    m.floats("a", {2}, {1, 2});
    m.node("SequenceConstruct", {"a"}, {"s"}, "construct");
    m.node("Identity", {"s"}, {"t"}, "copy"); // a sequence through a non-sequence op
    m.ints("zero", {}, {0});
    m.node("SequenceAt", {"t", "zero"}, {"y"}, "at");
    m.output("y", {2});
    auto r = importModelFromBytes(m.bytes(), "seq_identity.onnx");
    ASSERT_FALSE(r);
}

} // namespace
} // namespace tessera
