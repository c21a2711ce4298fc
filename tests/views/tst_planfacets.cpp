// views/models/planfacets: the plan on the graph, from the ExecutionPlan alone.
#include "views/models/planfacets.h"

#include <gtest/gtest.h>

#include "../common/testgraphs.h"

using namespace tessera;
using namespace tessera::views;

namespace {

// diamond(): x -> {a: relu, b: sigmoid -> tanh} -> add; nodes 0 relu, 1 sigmoid, 2 tanh, 3 add.
struct Fixture {
    Graph g = testgraphs::diamond();
    ExecutionPlan plan;

    Task compute(KernelId k, std::int32_t stage, Binding b)
    {
        Task t;
        t.kernel = k;
        t.stage = stage;
        t.binding = b;
        return t;
    }
    NodeId byType(const char *type) const
    {
        for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
            if (g.node(n).opType == type)
                return n;
        ADD_FAILURE() << type;
        return kInvalidId;
    }
};

QString nameOf(const NodeCategories &c, NodeId n)
{
    const int i = c.perNode[static_cast<std::size_t>(n)];
    return i < 0 ? QStringLiteral("(none)") : c.names[static_cast<std::size_t>(i)];
}

} // namespace

TEST(PlanFacets, KernelsStagesStreamsFromTheTasks)
{
    Fixture f;
    const NodeId relu = f.byType("Relu"), sig = f.byType("Sigmoid"), tanh = f.byType("Tanh"), add = f.byType("Add");
    const KernelId a = f.plan.addKernel("k0:relu", {relu});
    const KernelId b = f.plan.addKernel("k1:sigmoid+tanh", {sig, tanh});
    const KernelId c = f.plan.addKernel("k2:add", {add});
    f.plan.addTask(f.compute(a, 0, {.stream = 0}));
    f.plan.addTask(f.compute(b, 0, {.stream = 1}));
    f.plan.addTask(f.compute(c, 1, {.stream = 0}));

    const NodeCategories kernels = planCategories(f.g, f.plan, PlanFacet::Kernel);
    ASSERT_EQ(kernels.names.size(), 3u);
    EXPECT_EQ(kernels.perNode[static_cast<std::size_t>(sig)], kernels.perNode[static_cast<std::size_t>(tanh)]);
    EXPECT_NE(kernels.perNode[static_cast<std::size_t>(relu)], kernels.perNode[static_cast<std::size_t>(sig)]);
    EXPECT_EQ(nameOf(kernels, tanh), "k1:sigmoid+tanh");
    EXPECT_EQ(kernels.nodesOf(kernels.perNode[static_cast<std::size_t>(sig)]).size(), 2u);

    const NodeCategories stages = planCategories(f.g, f.plan, PlanFacet::Stage);
    EXPECT_EQ(stages.names, (std::vector<QString>{"stage 0", "stage 1"}));
    EXPECT_EQ(nameOf(stages, relu), "stage 0");
    EXPECT_EQ(nameOf(stages, sig), "stage 0");
    EXPECT_EQ(nameOf(stages, add), "stage 1");

    const NodeCategories streams = planCategories(f.g, f.plan, PlanFacet::Stream);
    EXPECT_EQ(nameOf(streams, relu), "stream 0");
    EXPECT_EQ(nameOf(streams, tanh), "stream 1");
    EXPECT_EQ(nameOf(streams, add), "stream 0");
}

// A kernel split into instances on several cores names the set; unbound tasks say so.
TEST(PlanFacets, InstancesOnSeveralCoresAndUnboundTasks)
{
    Fixture f;
    const NodeId relu = f.byType("Relu"), sig = f.byType("Sigmoid");
    const KernelId a = f.plan.addKernel("k0:relu", {relu});
    const KernelId b = f.plan.addKernel("k1:sigmoid", {sig});
    for (int core = 0; core < 4; ++core)
        f.plan.addTask(f.compute(a, core == 3 ? 5 : 2, {.cluster = 0, .core = core}));
    f.plan.addTask(f.compute(b, -1, {}));

    const NodeCategories bindings = planCategories(f.g, f.plan, PlanFacet::Binding);
    EXPECT_EQ(nameOf(bindings, relu), "4 bindings");
    EXPECT_EQ(nameOf(bindings, sig), "unbound");
    const NodeCategories stages = planCategories(f.g, f.plan, PlanFacet::Stage);
    EXPECT_EQ(nameOf(stages, relu), "stages 2, 5");
    EXPECT_EQ(nameOf(stages, sig), "no stage");
    // The negative twin: nodes no kernel lists have no category.
    EXPECT_EQ(nameOf(stages, f.byType("Tanh")), "(none)");
    EXPECT_TRUE(stages.nodesOf(-1).empty());

    ExecutionPlan single;
    const KernelId k = single.addKernel("k0", {relu});
    Task t;
    t.kernel = k;
    t.binding = {.cluster = 1, .core = 0, .coreCount = 4, .unit = 2};
    single.addTask(t);
    EXPECT_EQ(nameOf(planCategories(f.g, single, PlanFacet::Binding), relu), "cluster 1 · cores 0–3 · unit 2");
}

TEST(PlanFacets, MemoryLevelOfEachOutput)
{
    Fixture f;
    const NodeId relu = f.byType("Relu"), sig = f.byType("Sigmoid"), tanh = f.byType("Tanh");
    f.plan.addKernel("k0", {relu, sig, tanh});
    f.plan.addBuffer({.tensor = f.g.node(relu).outputs[0], .level = "LB"});
    f.plan.addBuffer({.tensor = f.g.node(sig).outputs[0], .level = "LB"});
    f.plan.addBuffer({.tensor = f.g.node(sig).outputs[0], .level = "DDR"});
    f.plan.addBuffer({.tensor = kInvalidId, .level = "L1"}); // scratch: no node's output
    const NodeCategories levels = planCategories(f.g, f.plan, PlanFacet::MemoryLevel);
    EXPECT_EQ(nameOf(levels, relu), "LB");
    EXPECT_EQ(nameOf(levels, sig), "LB + DDR");
    EXPECT_EQ(nameOf(levels, tanh), "no buffer");
    EXPECT_EQ(levels.names.size(), 3u);
}
