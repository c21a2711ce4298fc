#include "core/ir/graph.h"

#include <gtest/gtest.h>

using namespace tessera;

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
