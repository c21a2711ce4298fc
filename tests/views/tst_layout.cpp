// Flat layout engines (views/models/layout.h) and node metrics (layoutnodes.h):
// every box placed, no overlaps, edges running from their source box to their
// target box, pins respected, the layered fallback fast on 5,000 boxes.
#include "views/models/layout.h"
#include "views/models/layoutnodes.h"

#include <QElapsedTimer>

#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <random>

namespace tessera::layout {
namespace {

// A residual-block-like DAG: a chain with skips every 3 boxes, plus a side branch.
Input residualInput(int n)
{
    Input in;
    for (int i = 0; i < n; ++i)
        in.sizes.push_back(QSizeF(80 + (i % 3) * 20, 40));
    for (int i = 0; i + 1 < n; ++i)
        in.edges.push_back({i, i + 1, 1});
    for (int i = 0; i + 3 < n; i += 3)
        in.edges.push_back({i, i + 3, 1});
    return in;
}

Input randomDag(int n, std::uint64_t seed)
{
    std::mt19937_64 rng(seed);
    Input in;
    for (int i = 0; i < n; ++i)
        in.sizes.push_back(QSizeF(60 + static_cast<double>(rng() % 80), 40));
    for (int i = 1; i < n; ++i) {
        in.edges.push_back({static_cast<int>(rng() % static_cast<std::uint64_t>(i)), i, 1});
        if (i > 4 && rng() % 2)
            in.edges.push_back({i - 1 - static_cast<int>(rng() % 4), i, 1});
    }
    return in;
}

// First overlapping pair as "a,b", or "" if none (boxes may touch, not intersect).
std::string firstOverlap(const std::vector<QRectF> &boxes)
{
    for (std::size_t a = 0; a < boxes.size(); ++a)
        for (std::size_t b = a + 1; b < boxes.size(); ++b)
            if (boxes[a].adjusted(0.5, 0.5, -0.5, -0.5).intersects(boxes[b].adjusted(0.5, 0.5, -0.5, -0.5)))
                return std::to_string(a) + "," + std::to_string(b);
    return {};
}

double distanceToRect(QPointF p, const QRectF &r)
{
    const double dx = std::max({r.left() - p.x(), 0.0, p.x() - r.right()});
    const double dy = std::max({r.top() - p.y(), 0.0, p.y() - r.bottom()});
    return std::hypot(dx, dy);
}

// Every edge is a Bézier (3k+1 points) starting on its source box and ending on its target box.
std::string firstBadEdge(const Input &in, const Output &out, double tolerance = 2.0)
{
    for (std::size_t k = 0; k < in.edges.size(); ++k) {
        const auto &path = out.edges[k];
        const Edge &e = in.edges[k];
        if (path.size() < 4 || (path.size() - 1) % 3 != 0)
            return "edge " + std::to_string(k) + " has " + std::to_string(path.size()) + " points";
        if (distanceToRect(path.front(), out.boxes[static_cast<std::size_t>(e.from)]) > tolerance)
            return "edge " + std::to_string(k) + " does not start at its source";
        if (distanceToRect(path.back(), out.boxes[static_cast<std::size_t>(e.to)]) > tolerance)
            return "edge " + std::to_string(k) + " does not end at its target";
    }
    return {};
}

void expectWellFormed(const Input &in, const Output &out)
{
    ASSERT_EQ(out.boxes.size(), in.sizes.size());
    ASSERT_EQ(out.edges.size(), in.edges.size());
    const QRectF all(QPointF(0, 0), out.size);
    for (std::size_t i = 0; i < out.boxes.size(); ++i) {
        EXPECT_NEAR(out.boxes[i].width(), in.sizes[i].width(), 1e-6);
        EXPECT_TRUE(all.adjusted(-1, -1, 1, 1).contains(out.boxes[i])) << "box " << i << " outside the layout size";
    }
    EXPECT_EQ(firstOverlap(out.boxes), "");
    EXPECT_EQ(firstBadEdge(in, out), "");
}

TEST(LayoutCheckers, DetectOverlapAndMisroutedEdges)
{
    // The checkers the other tests rely on must be able to fail.
    EXPECT_EQ(firstOverlap({QRectF(0, 0, 10, 10), QRectF(20, 0, 10, 10)}), "");
    EXPECT_EQ(firstOverlap({QRectF(0, 0, 10, 10), QRectF(5, 5, 10, 10)}), "0,1");
    Input in;
    in.sizes = {QSizeF(10, 10), QSizeF(10, 10)};
    in.edges = {{0, 1, 1}};
    Output out;
    out.boxes = {QRectF(0, 0, 10, 10), QRectF(0, 40, 10, 10)};
    out.edges = {{QPointF(5, 10), QPointF(5, 20), QPointF(5, 30), QPointF(5, 40)}};
    EXPECT_EQ(firstBadEdge(in, out), "");
    std::reverse(out.edges[0].begin(), out.edges[0].end());
    EXPECT_NE(firstBadEdge(in, out), "");
}

TEST(LayoutDot, ResidualChainIsWellFormedAndTopDown)
{
    const Input in = residualInput(12);
    const Output out = layoutDot(in);
    ASSERT_TRUE(out.ok);
    EXPECT_EQ(out.engine, Engine::Dot);
    expectWellFormed(in, out);
    for (int i = 0; i + 1 < 12; ++i) // a chain runs downwards
        EXPECT_LT(out.boxes[static_cast<std::size_t>(i)].center().y(),
                  out.boxes[static_cast<std::size_t>(i + 1)].center().y());
}

TEST(LayoutDot, EmptyInputGivesEmptyOutput)
{
    const Output out = layoutDot(Input{});
    EXPECT_TRUE(out.ok);
    EXPECT_TRUE(out.boxes.empty());
    EXPECT_TRUE(out.size.isEmpty());
}

TEST(LayoutDot, PinsGoToFirstAndLastRank)
{
    Input in = residualInput(6);
    in.sizes.push_back(QSizeF(6, 6)); // 6: in-port
    in.sizes.push_back(QSizeF(6, 6)); // 7: out-port
    in.pins.assign(8, Pin::None);
    in.pins[6] = Pin::First;
    in.pins[7] = Pin::Last;
    in.edges.push_back({6, 2, 1});
    in.edges.push_back({3, 7, 1});
    const Output out = layoutDot(in);
    expectWellFormed(in, out);
    for (int i = 0; i < 6; ++i) {
        EXPECT_LT(out.boxes[6].center().y(), out.boxes[static_cast<std::size_t>(i)].center().y());
        EXPECT_GT(out.boxes[7].center().y(), out.boxes[static_cast<std::size_t>(i)].center().y());
    }
}

TEST(LayoutDot, CycleEdgesStillRunSourceToTarget)
{
    Input in = residualInput(5);
    in.edges.push_back({4, 1, 1}); // back edge
    const Output out = layoutDot(in);
    expectWellFormed(in, out);
}

TEST(LayoutLayered, RandomDagIsWellFormed)
{
    const Input in = randomDag(200, 7);
    const Output out = layoutLayered(in);
    EXPECT_EQ(out.engine, Engine::Layered);
    expectWellFormed(in, out);
    for (const Edge &e : in.edges) // acyclic input: every edge points down
        EXPECT_LT(out.boxes[static_cast<std::size_t>(e.from)].center().y(),
                  out.boxes[static_cast<std::size_t>(e.to)].center().y());
}

TEST(LayoutLayered, CycleIsBrokenAndBackEdgeRunsUpward)
{
    Input in = residualInput(5);
    in.edges.push_back({4, 1, 1});
    const Output out = layoutLayered(in);
    expectWellFormed(in, out);
    EXPECT_GT(out.boxes[4].center().y(), out.boxes[1].center().y());
    EXPECT_GT(out.edges.back().front().y(), out.edges.back().back().y()); // drawn upward
}

TEST(LayoutLayered, PinsGoToFirstAndLastRank)
{
    Input in = residualInput(6);
    in.sizes.push_back(QSizeF(6, 6));
    in.sizes.push_back(QSizeF(6, 6));
    in.pins.assign(8, Pin::None);
    in.pins[6] = Pin::First;
    in.pins[7] = Pin::Last;
    in.edges.push_back({6, 4, 1});
    in.edges.push_back({1, 7, 1});
    const Output out = layoutLayered(in);
    expectWellFormed(in, out);
    for (int i = 0; i < 6; ++i) {
        EXPECT_LT(out.boxes[6].center().y(), out.boxes[static_cast<std::size_t>(i)].center().y());
        EXPECT_GT(out.boxes[7].center().y(), out.boxes[static_cast<std::size_t>(i)].center().y());
    }
}

TEST(LayoutLayered, FiveThousandBoxesInWellUnderASecond)
{
    const Input in = randomDag(5000, 11);
    QElapsedTimer t;
    t.start();
    const Output out = layoutLayered(in);
    const qint64 ms = t.elapsed();
    std::printf("layered layout of 5,000 boxes: %lld ms\n", static_cast<long long>(ms)); // target: bench/
    ASSERT_EQ(out.boxes.size(), 5000u);
    EXPECT_EQ(firstBadEdge(in, out), "");
    // Overlap check in O(n log n): sort by row, then x.
    std::vector<QRectF> boxes = out.boxes;
    std::sort(boxes.begin(), boxes.end(), [](const QRectF &a, const QRectF &b) {
        return a.center().y() != b.center().y() ? a.center().y() < b.center().y() : a.left() < b.left();
    });
    for (std::size_t i = 1; i < boxes.size(); ++i) {
        if (boxes[i].center().y() == boxes[i - 1].center().y()) {
            ASSERT_GE(boxes[i].left(), boxes[i - 1].right()) << "overlap in a row";
        }
    }
}

TEST(LayoutAuto, PicksDotForSmallAndLayeredForLarge)
{
    EXPECT_EQ(layoutAuto(residualInput(10), 300).engine, Engine::Dot);
    EXPECT_EQ(layoutAuto(residualInput(10), 5).engine, Engine::Layered);
}

TEST(LayoutNodes, CategoriesByOpType)
{
    EXPECT_EQ(opCategory("Conv"), OpCategory::Conv);
    EXPECT_EQ(opCategory("Gemm"), OpCategory::MatMul);
    EXPECT_EQ(opCategory("Relu"), OpCategory::Elementwise);
    EXPECT_EQ(opCategory("LayerNormalization"), OpCategory::Norm);
    EXPECT_EQ(opCategory("MaxPool"), OpCategory::Pool);
    EXPECT_EQ(opCategory("Reshape"), OpCategory::Shape);
    EXPECT_EQ(opCategory("Transpose"), OpCategory::DataMovement);
    EXPECT_EQ(opCategoryName(OpCategory::DataMovement), "data movement");
}

TEST(LayoutNodes, UnknownOpsAreOther)
{
    EXPECT_EQ(opCategory("FastSwish"), OpCategory::Other);
    EXPECT_EQ(opCategory(""), OpCategory::Other);
    EXPECT_EQ(opCategory("conv"), OpCategory::Other); // op types are case-sensitive
}

TEST(LayoutNodes, FlopsText)
{
    EXPECT_EQ(flopsText(4.1e9), "4.10 GFLOPs");
    EXPECT_EQ(flopsText(123456), "123 kFLOPs");
    EXPECT_EQ(flopsText(0), "");
    EXPECT_EQ(flopsText(-5), "");
}

} // namespace
} // namespace tessera::layout
