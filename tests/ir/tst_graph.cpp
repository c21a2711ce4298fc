// Graph construction, verify() and eraseNodes().
#include "core/ir/graph.h"
#include "core/ir/precision.h"

#include <gtest/gtest.h>
#include <limits>

#include "fixtures.h"

using namespace tessera;
using tessera::test::DagBuilder;

TEST(Graph, AddAndWire)
{
    Graph g;
    TensorId x = g.addTensor({.name = "x", .shape = {1, 4}, .kind = Tensor::Kind::Input});
    TensorId y = g.addTensor({.name = "y", .shape = {1, 4}});
    g.inputs = {x};
    g.outputs = {y};
    NodeId r = g.addNode({.name = "relu", .opType = "Relu", .inputs = {x}, .outputs = {y}});
    EXPECT_EQ(g.tensor(y).producer, r);
    EXPECT_EQ(g.tensor(x).consumers, std::vector<NodeId>{r});
    EXPECT_TRUE(g.verify().isOk());
}

TEST(Graph, SuccessorsAndPredecessorsAreDeduplicated)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId m = b.op("mul", {a, a}); // reads a's output twice
    Graph g = b.finish();
    EXPECT_EQ(g.successors(a), std::vector<NodeId>{m});
    EXPECT_EQ(g.predecessors(m), std::vector<NodeId>{a});
    EXPECT_EQ(g.edgeCount(), 1u);
    EXPECT_TRUE(g.predecessors(a).empty());
}

TEST(GraphVerify, DanglingInputIsRejected)
{
    Graph g;
    const TensorId x = g.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
    const TensorId ghost = g.addTensor({.name = "ghost", .shape = {1}}); // nobody produces it
    const TensorId y = g.addTensor({.name = "y", .shape = {1}});
    g.inputs = {x};
    g.outputs = {y};
    g.addNode({.name = "add", .opType = "Add", .inputs = {x, ghost}, .outputs = {y}});
    const Status s = g.verify();
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.code(), ErrorCode::InvalidInput);
    EXPECT_EQ(s.location().node, "add");
    EXPECT_EQ(s.location().tensor, "ghost");
}

TEST(GraphVerify, DoubleProducerIsRejected)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId c = b.op("c");
    Graph g = b.finish();
    ASSERT_TRUE(g.verify().isOk());
    g.node(c).outputs = g.node(a).outputs; // c now also writes a's output
    const Status s = g.verify();
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("more than one node"), std::string::npos) << s.str();
    EXPECT_EQ(s.location().node, "c");
    EXPECT_EQ(s.location().tensor, "a:0");
}

TEST(GraphVerify, CycleIsRejectedWithANodeOnIt)
{
    Graph g;
    const TensorId x = g.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
    const TensorId t1 = g.addTensor({.name = "t1", .shape = {1}});
    const TensorId t2 = g.addTensor({.name = "t2", .shape = {1}});
    const TensorId t3 = g.addTensor({.name = "t3", .shape = {1}});
    g.inputs = {x};
    g.outputs = {t3};
    g.addNode({.name = "p", .opType = "Add", .inputs = {x, t2}, .outputs = {t1}});
    g.addNode({.name = "q", .opType = "Relu", .inputs = {t1}, .outputs = {t2}});
    g.addNode({.name = "r", .opType = "Relu", .inputs = {t1}, .outputs = {t3}});
    const Status s = g.verify();
    ASSERT_FALSE(s.isOk());
    EXPECT_TRUE(s.location().node == "p" || s.location().node == "q") << s.str();
    EXPECT_NE(s.message().find("cycle"), std::string::npos);
}

TEST(GraphErase, RemapsIdsAndDropsOrphanTensors)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId dead = b.op("dead", {a}); // a side branch nobody needs
    const NodeId c = b.op("c", {a});
    Graph g = b.finish();
    g.outputs = {g.node(c).outputs[0]};
    const std::size_t tensorsBefore = g.tensorCount();

    std::vector<bool> erase(g.nodeCount(), false);
    erase[static_cast<std::size_t>(dead)] = true;
    const std::vector<NodeId> map = g.eraseNodes(erase);

    EXPECT_EQ(map, (std::vector<NodeId>{0, kInvalidId, 1}));
    ASSERT_EQ(g.nodeCount(), 2u);
    EXPECT_EQ(g.findNode("c"), map[static_cast<std::size_t>(c)]);
    EXPECT_EQ(g.findNode("dead"), kInvalidId);
    EXPECT_EQ(g.tensorCount(), tensorsBefore - 1);
    EXPECT_EQ(g.findTensor("dead:0"), kInvalidId);
    EXPECT_EQ(g.successors(map[static_cast<std::size_t>(a)]), std::vector<NodeId>{map[static_cast<std::size_t>(c)]});
    EXPECT_EQ(g.tensor(g.outputs[0]).name, "c:0");
    EXPECT_TRUE(g.verify().isOk());
}

TEST(GraphErase, ErasingAProducerLeavesADanglingUse)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId mid = b.op("mid", {a});
    b.op("c", {mid});
    Graph g = b.finish();
    std::vector<bool> erase(g.nodeCount(), false);
    erase[static_cast<std::size_t>(mid)] = true;
    g.eraseNodes(erase);
    // c still reads mid's output, which survives as an unproduced tensor.
    EXPECT_NE(g.findTensor("mid:0"), kInvalidId);
    EXPECT_EQ(g.tensor(g.findTensor("mid:0")).producer, kInvalidId);
    const Status s = g.verify();
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.location().node, "c");
    EXPECT_EQ(s.location().tensor, "mid:0");
}

TEST(TensorBytes, MultipliesElementsByDtypeSize)
{
    Tensor t;
    t.dtype = DType::Float32;
    t.shape = {2, 3, 4};
    EXPECT_EQ(t.bytes(), 96);
    t.dtype = DType::Float16;
    EXPECT_EQ(t.bytes(), 48);
}

TEST(TensorBytes, SaturatesInsteadOfOverflowing)
{
    Tensor t;
    t.dtype = DType::Float64;
    t.shape = {std::int64_t{1} << 31, std::int64_t{1} << 30}; // 2^61 elements fit, 2^64 bytes do not
    ASSERT_GT(t.elements(), 0);
    EXPECT_EQ(t.bytes(), std::numeric_limits<std::int64_t>::max());
}

// core/ir/precision.h: float32 tensors take the run's precision, so their bytes are its bytes;
// the structure, integer tensors and the constants' data stay.
TEST(Precision, Float32TensorsTakeTheRunsType)
{
    Graph g;
    TensorId x = g.addTensor({.name = "x", .shape = {2, 4}, .kind = Tensor::Kind::Input});
    TensorId i = g.addTensor({.name = "i", .dtype = DType::Int64, .shape = {2}, .kind = Tensor::Kind::Input});
    TensorId y = g.addTensor({.name = "y", .shape = {2, 4}});
    g.inputs = {x, i};
    g.outputs = {y};
    g.addNode({.name = "relu", .opType = "Relu", .inputs = {x}, .outputs = {y}});
    const Graph h = atPrecision(g, DType::Float16);
    EXPECT_EQ(h.tensor(x).dtype, DType::Float16);
    EXPECT_EQ(h.tensor(y).bytes(), 16);
    EXPECT_EQ(g.tensor(y).bytes(), 32); // the original is untouched
    EXPECT_EQ(h.tensor(i).dtype, DType::Int64);
    EXPECT_EQ(h.nodeCount(), g.nodeCount());
    EXPECT_EQ(h.tensor(y).producer, g.tensor(y).producer);
}

// int8, as a fully quantized deployment runs it: one byte per element.
TEST(Precision, Int8IsADeploymentPrecision)
{
    Graph g;
    TensorId x = g.addTensor({.name = "x", .shape = {2, 4}, .kind = Tensor::Kind::Input});
    g.inputs = {x};
    const Graph h = atPrecision(g, DType::Int8);
    EXPECT_EQ(h.tensor(x).dtype, DType::Int8);
    EXPECT_EQ(h.tensor(x).bytes(), 8);
}

// Negative twin: a type no deployment runs at (int64, bool) changes nothing.
TEST(Precision, NonDeploymentTypeLeavesTheGraph)
{
    Graph g;
    TensorId x = g.addTensor({.name = "x", .shape = {2, 4}, .kind = Tensor::Kind::Input});
    g.inputs = {x};
    for (DType t : {DType::Int64, DType::Bool}) {
        const Graph h = atPrecision(g, t);
        EXPECT_EQ(h.tensor(x).dtype, DType::Float32);
        EXPECT_EQ(h.tensor(x).bytes(), 32);
    }
}

TEST(Precision, NamesAsUsersWriteThem)
{
    EXPECT_EQ(precisionFromName("fp16"), DType::Float16);
    EXPECT_EQ(precisionFromName("f16"), DType::Float16);
    EXPECT_EQ(precisionFromName("bf16"), DType::BFloat16);
    EXPECT_EQ(precisionFromName("int8"), DType::Int8);
    EXPECT_EQ(precisionFromName("fp32"), DType::Float32);
    for (DType t : {DType::Float16, DType::BFloat16, DType::Int8, DType::Float32})
        EXPECT_EQ(precisionFromName(precisionName(t)), t);
}

// Negative twin: unknown names and non-deployment types are refused.
TEST(Precision, UnknownNamesAreRefused)
{
    EXPECT_FALSE(precisionFromName("int4"));
    EXPECT_FALSE(precisionFromName("i64"));
    EXPECT_FALSE(precisionFromName(""));
    EXPECT_FALSE(precisionFromName("FP16 "));
}
