// Operators with their epilogues (core/sched/epilogues.h) and the baseline
// schedules that issue them (sequential, greedy: option `epilogues`).
#include "core/hw/deviceregistry.h"
#include "core/sched/epilogues.h"
#include "core/sched/session.h"
#include "plugins/greedy/greedy.h"
#include "plugins/sequential/sequential.h"

#include <gtest/gtest.h>

#include "tests/common/testgraphs.h"

using namespace tessera;
using namespace tessera::testgraphs;

namespace {

std::vector<std::vector<std::string>> names(const Graph &g, const std::vector<std::vector<NodeId>> &groups)
{
    std::vector<std::vector<std::string>> out;
    for (const auto &grp : groups) {
        out.emplace_back();
        for (NodeId n : grp)
            out.back().push_back(g.node(n).name);
    }
    return out;
}

std::size_t kernelsOf(const Graph &g, const IScheduler &s, const std::string &epilogues)
{
    auto device = DeviceRegistry::standard().lookup("nvidia-v100");
    EXPECT_TRUE(device.isOk());
    ScheduleSetup setup;
    setup.options = {{"epilogues", epilogues}};
    auto run = scheduleGraph(g, *device, s, setup);
    EXPECT_TRUE(run.isOk()) << run.status().str(); // verified by scheduleGraph
    return run ? run->result.plan.kernels.size() : 0;
}

} // namespace

TEST(Epilogues, AConvolutionTakesItsActivationAndTheResidualAdd)
{
    const Graph g = residualChain(1);
    using V = std::vector<std::vector<std::string>>;
    EXPECT_EQ(names(g, operatorsWithEpilogues(g)),
              (V{{"block0/conv1", "block0/relu1"}, {"block0/conv2", "block0/add", "block0/relu2"}}));
}

// Negative twin: a tensor read twice ends its operator — the activation of a
// convolution whose output is also read elsewhere runs on its own.
TEST(Epilogues, ATensorReadTwiceEndsTheOperator)
{
    Graph g;
    const TensorId x = tensor(g, "x", {1, 8, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId c = conv28(g, "conv", x, 8, 8, 3);
    const TensorId r = op(g, "relu", "Relu", {c}, {1, 8, 28, 28});
    const TensorId s = op(g, "sigmoid", "Sigmoid", {c}, {1, 8, 28, 28});
    g.outputs = {r, s};
    using V = std::vector<std::vector<std::string>>;
    EXPECT_EQ(names(g, operatorsWithEpilogues(g)), (V{{"conv"}, {"relu"}, {"sigmoid"}}));
    // Every node in exactly one group, in topological order of the heads.
    const Graph chain = residualChain(3);
    std::size_t count = 0;
    for (const auto &grp : operatorsWithEpilogues(chain))
        count += grp.size();
    EXPECT_EQ(count, chain.nodeCount());
    EXPECT_EQ(operatorsWithEpilogues(chain).size(), 6u);
}

TEST(Epilogues, BaselinesIssueOperatorsOrNodesAsAsked)
{
    const Graph g = residualChain(2); // 10 nodes, 4 operators
    auto sequential = createSequentialScheduler();
    auto greedy = createGreedyScheduler();
    EXPECT_EQ(kernelsOf(g, *sequential, "true"), 4u);
    EXPECT_EQ(kernelsOf(g, *greedy, "true"), 4u);
    // Negative twin: without epilogues every node is a kernel.
    EXPECT_EQ(kernelsOf(g, *sequential, "false"), 10u);
    EXPECT_EQ(kernelsOf(g, *greedy, "false"), 10u);
}
