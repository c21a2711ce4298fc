// The CPU backend's task dependencies (backends/cpu/cpu.cpp S3): a brick
// waits for the earlier bricks that wrote a part of what it reads, not for
// every brick that wrote the tensor (issue 13: BrickDL plans had O(bricks²)
// edges), and an earlier task already behind a barrier it waits for adds no
// edge. Counted through the compile metric "task_dependencies"; every plan
// also matches the reference backend. Each positive test beside its negative
// twin (a 3x3 convolution's halo keeps the neighbours' bricks).
#include "backends/cpu/cpu.h"
#include "backends/reference/reference.h"

#include <gtest/gtest.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using tessera::testgraphs::op;

namespace {

constexpr int kBricks = 4; // row bricks of 7 of the 28 rows

// x[1,8,28,28] -> Relu r -> `reader` c (a Relu, or a 3x3 convolution with
// same padding) -> output; with `side`, a Sigmoid of x as a second output
// (its task first: the bricks' barrier then is no prefix of the plan).
struct Bricks {
    Graph graph;
    ExecutionPlan plan;
};

Bricks bricks(bool conv, bool side)
{
    Bricks b;
    Graph &g = b.graph;
    g.name = conv ? "bricks-conv" : "bricks-relu";
    const TensorId x = testgraphs::tensor(g, "x", {1, 8, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId r = op(g, "r", "Relu", {x}, {1, 8, 28, 28});
    const TensorId c = conv ? testgraphs::conv28(g, "c", r, 8, 8, 3) : op(g, "c", "Relu", {r}, {1, 8, 28, 28});
    g.outputs = {c};
    TensorId u = kInvalidId;
    if (side) {
        u = op(g, "u", "Sigmoid", {x}, {1, 8, 28, 28});
        g.outputs.push_back(u);
    }

    ExecutionPlan &p = b.plan;
    p.algorithm = "test-bricks";
    p.graphName = g.name;
    auto rows = [](int i) { return ops::Region{{0, 1}, {0, 8}, {7 * i, 7 * (i + 1)}, {0, 28}}; };
    if (side) {
        Task t;
        t.kernel = p.addKernel("u", {g.tensor(u).producer});
        p.addTask(t);
    }
    const KernelId kr = p.addKernel("r", {g.tensor(r).producer});
    const KernelId kc = p.addKernel("c", {g.tensor(c).producer});
    std::vector<TaskId> relus;
    for (int i = 0; i < kBricks; ++i) {
        Task t;
        t.kernel = kr;
        t.tiles = {NodeTile{g.tensor(r).producer, 0, rows(i)}};
        relus.push_back(p.addTask(t));
    }
    Task barrier;
    barrier.kind = TaskKind::Barrier;
    barrier.deps = relus;
    const TaskId end = p.addTask(barrier);
    for (int i = 0; i < kBricks; ++i) {
        Task t;
        t.kernel = kc;
        t.tiles = {NodeTile{g.tensor(c).producer, 0, rows(i)}};
        t.deps = {end};
        p.addTask(t);
    }
    return b;
}

class CpuDepsTest : public ::testing::Test
{
protected:
    // `b` on the cpu backend against the reference backend: its dependencies.
    double dependencies(const Bricks &b)
    {
        auto r =
            planutil::runAgainstReference(*cpu, *reference, b.graph, b.plan, planutil::makeInputs(b.graph, 7), 1e-4);
        EXPECT_EQ(r.mismatch, "") << b.graph.name;
        EXPECT_EQ(r.got.metrics.count("task_dependencies"), 1u) << b.graph.name;
        return r.got.metrics["task_dependencies"];
    }

    std::unique_ptr<IBackend> cpu = createCpuBackend();
    std::unique_ptr<IBackend> reference = createReferenceBackend();
};

// The plan's own: the barrier waits for the 4 Relu bricks, each brick of c
// for the barrier. Behind a barrier that is not a prefix of the plan (the
// Sigmoid's task before it), a brick of an element-wise c also waits for the
// one Relu brick of its rows: 4 more, where every writer of r made 16.
TEST_F(CpuDepsTest, ABrickWaitsOnlyForTheBricksItReads)
{
    EXPECT_EQ(dependencies(bricks(false, true)), 4 + 4 + 4);
}

// Negative twin: a 3x3 convolution's brick reads a row beyond its own on
// each side, so the neighbours' Relu bricks stay: 2 + 3 + 3 + 2.
TEST_F(CpuDepsTest, AConvolutionsHaloKeepsTheNeighbourBricks)
{
    EXPECT_EQ(dependencies(bricks(true, true)), 4 + 4 + (2 + 3 + 3 + 2));
}

// Behind a barrier that ends a prefix of the plan (every earlier task its
// ancestor) no brick adds an edge, halo or not; the plan's 8 are left.
TEST_F(CpuDepsTest, AnEarlierTaskBehindTheBarrierAddsNoEdge)
{
    EXPECT_EQ(dependencies(bricks(false, false)), 4 + 4);
    EXPECT_EQ(dependencies(bricks(true, false)), 4 + 4);
}

// A task of whole tensors reads all of r: behind the same barrier it waits
// for every Relu brick (no region says less).
TEST_F(CpuDepsTest, AWholeTensorReaderWaitsForEveryWriter)
{
    Bricks b = bricks(false, true);
    Task &first = b.plan.tasks[static_cast<std::size_t>(kBricks + 2)]; // c's first brick
    ASSERT_EQ(first.tiles.size(), 1u);
    first.tiles.clear(); // the whole of c
    b.plan.tasks.resize(static_cast<std::size_t>(kBricks + 3));
    EXPECT_EQ(dependencies(b), 4 + 1 + 4);
}

} // namespace
