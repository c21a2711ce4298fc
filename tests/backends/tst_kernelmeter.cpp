// The measured cost source (issue 13, item 3): kernelGraph cuts a kernel out
// of a graph (core/ir/kernelgraph.h), BackendMeter times it on a backend
// (core/backend/kernelmeter.h) and the schedulers' cost model takes the
// times (MeasuredCostModel): each beside the case that must not measure.
#include "backends/cpu/cpu.h"
#include "core/backend/kernelmeter.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/kernelgraph.h"
#include "core/sched/session.h"
#include "plugins/layerfusion/layerfusion.h"

#include <algorithm>
#include <gtest/gtest.h>

#include "tests/common/testgraphs.h"

using namespace tessera;

namespace {

NodeId node(const Graph &g, const char *name)
{
    const NodeId n = g.findNode(name);
    EXPECT_NE(n, kInvalidId) << name;
    return n;
}

std::vector<std::string> names(const Graph &g, const std::vector<TensorId> &ids)
{
    std::vector<std::string> out;
    for (TensorId t : ids)
        out.push_back(g.tensor(t).name);
    return out;
}

Device host()
{
    auto d = DeviceRegistry::standard().lookup("host");
    EXPECT_TRUE(d.isOk());
    return *d;
}

} // namespace

// block0's conv1 + relu1: x comes from outside (an input), conv1's weight is
// constant (an initializer with g's data), relu1's output feeds conv2
// outside (the output); nothing else of g.
TEST(KernelGraph, ReadsFromOutsideAreInputsConstantsStayEscapingWritesAreOutputs)
{
    const Graph g = testgraphs::residualChain(2);
    auto k = kernelGraph(g, {node(g, "block0/relu1"), node(g, "block0/conv1")});
    ASSERT_TRUE(k.isOk()) << k.status().str();
    EXPECT_EQ(k->nodeCount(), 2u);
    EXPECT_EQ(k->node(0).name, "block0/conv1"); // g's order, whatever order they were asked in
    EXPECT_EQ(names(*k, k->inputs), std::vector<std::string>{"x"});
    ASSERT_EQ(k->outputs.size(), 1u);
    EXPECT_EQ(k->tensor(k->outputs[0]).name, g.tensor(g.node(node(g, "block0/relu1")).outputs[0]).name);
    const TensorId w = k->findTensor("block0/w1");
    ASSERT_NE(w, kInvalidId);
    EXPECT_EQ(k->tensor(w).data, g.tensor(g.findTensor("block0/w1")).data); // shared, not copied
    EXPECT_TRUE(k->verify().isOk());
}

// Twin: a kernel whose writes all stay inside (g's relu1 feeding only conv2,
// both taken) still computes something: the last node's output; and a
// kernel of no nodes is refused.
TEST(KernelGraph, KernelWithNothingEscapingKeepsItsLastOutputAndEmptyIsRefused)
{
    const Graph g = testgraphs::residualChain(1);
    std::vector<NodeId> all(g.nodeCount());
    for (std::size_t i = 0; i < all.size(); ++i)
        all[i] = static_cast<NodeId>(i);
    auto k = kernelGraph(g, all);
    ASSERT_TRUE(k.isOk()) << k.status().str();
    EXPECT_EQ(names(*k, k->outputs), names(g, g.outputs));
    auto inner = kernelGraph(g, {node(g, "block0/relu1"), node(g, "block0/conv2")});
    ASSERT_TRUE(inner.isOk());
    EXPECT_EQ(inner->outputs.size(), 1u);
    EXPECT_FALSE(kernelGraph(g, {}).isOk());
}

// The CPU backend times a kernel (a positive median) and a second request for
// the same kernel is answered from the cache, not run again.
TEST(BackendMeter, TimesAKernelOnTheCpuBackendOnceAndCachesIt)
{
    const Graph g = testgraphs::residualChain(1);
    auto cpu = createCpuBackend();
    BackendMeter meter(*cpu, host());
    EXPECT_EQ(meter.kind(), CostKind::Measured);
    const std::vector<NodeId> kernel{node(g, "block0/conv1"), node(g, "block0/relu1")};
    auto first = meter.kernelNs(g, kernel);
    ASSERT_TRUE(first.isOk()) << first.status().str();
    EXPECT_GT(*first, 0);
    auto again = meter.kernelNs(g, kernel);
    ASSERT_TRUE(again.isOk());
    EXPECT_EQ(*again, *first);
    EXPECT_EQ(meter.measured(), 1);
    EXPECT_EQ(meter.cacheHits(), 1);
}

// Twin: an op the backend cannot run is an error (the model answers for that
// kernel): layer-fusion's plan with the meter says measured for every kernel
// but the opaque one's.
TEST(BackendMeter, KernelTheBackendCannotRunIsLeftToTheModel)
{
    Graph g = testgraphs::residualChain(1);
    g.node(node(g, "block0/relu1")).opaque = true;
    auto cpu = createCpuBackend();
    BackendMeter meter(*cpu, host());
    EXPECT_FALSE(meter.kernelNs(g, {node(g, "block0/relu1")}).isOk());

    auto fusion = createLayerFusionScheduler();
    ScheduleSetup setup;
    setup.meter = &meter;
    auto run = scheduleGraph(g, host(), *fusion, setup);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    int measured = 0, estimated = 0;
    for (const Task &t : run->result.plan.tasks) {
        if (t.kind != TaskKind::Compute)
            continue;
        const auto &nodes = run->result.plan.kernels[static_cast<std::size_t>(t.kernel)].nodes;
        const bool opaque = std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) { return g.node(n).opaque; });
        EXPECT_EQ(t.cost.kind, opaque ? CostKind::Estimated : CostKind::Measured) << t.label;
        (opaque ? estimated : measured) += 1;
    }
    EXPECT_EQ(estimated, 1);
    EXPECT_GT(measured, 0);
}
