// Topological order, Reachability and dagWidth (core/ir/analysis.h), checked
// against brute force on random DAGs and on known shapes.
#include "core/ir/analysis.h"

#include <bit>
#include <gtest/gtest.h>

#include "fixtures.h"

using namespace tessera;
using tessera::test::DagBuilder;

namespace {

// Width by exhaustive antichain search (n <= ~16).
std::int64_t bruteForceWidth(const Graph &g, const std::vector<NodeId> &nodes)
{
    const std::size_t k = nodes.size();
    std::vector<std::uint32_t> comparable(k, 0);
    for (std::size_t i = 0; i < k; ++i) {
        const std::vector<bool> r = tessera::test::reachableByDfs(g, nodes[i]);
        for (std::size_t j = 0; j < k; ++j)
            if (r[static_cast<std::size_t>(nodes[j])]) {
                comparable[i] |= 1u << j;
                comparable[j] |= 1u << i;
            }
    }
    std::int64_t best = 0;
    for (std::uint32_t mask = 1; mask < (1u << k); ++mask) {
        bool antichain = true;
        for (std::size_t i = 0; i < k && antichain; ++i)
            antichain = !((mask >> i) & 1) || !(comparable[i] & mask);
        if (antichain)
            best = std::max<std::int64_t>(best, std::popcount(mask));
    }
    return best;
}

std::vector<NodeId> allNodes(const Graph &g)
{
    std::vector<NodeId> v(g.nodeCount());
    std::iota(v.begin(), v.end(), 0);
    return v;
}

// The antichain is a valid answer: right size, within `nodes`, pairwise incomparable.
void expectValidAntichain(const Graph &g, const DagWidth &w, const std::vector<NodeId> &nodes)
{
    ASSERT_EQ(static_cast<std::int64_t>(w.antichain.size()), w.width);
    EXPECT_TRUE(std::is_sorted(w.antichain.begin(), w.antichain.end()));
    for (NodeId a : w.antichain) {
        EXPECT_NE(std::find(nodes.begin(), nodes.end(), a), nodes.end()) << a;
        const std::vector<bool> r = tessera::test::reachableByDfs(g, a);
        for (NodeId b : w.antichain)
            EXPECT_FALSE(r[static_cast<std::size_t>(b)]) << g.node(a).name << " reaches " << g.node(b).name;
    }
}

} // namespace

// --- topological order -------------------------------------------------------

TEST(TopologicalOrder, Diamond)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId l = b.op("l", {a});
    const NodeId r = b.op("r", {a});
    const NodeId d = b.op("d", {l, r});
    auto order = topologicalOrder(b.finish());
    ASSERT_TRUE(order.isOk()) << order.status().str();
    EXPECT_EQ(*order, (std::vector<NodeId>{a, l, r, d}));
}

TEST(TopologicalOrder, TiesGoToTheSmallerId)
{
    // Ids are not in dependency order: 0 <- 3, 1 <- 2, and 4 is independent.
    Graph g;
    const TensorId x = g.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
    std::vector<TensorId> t;
    for (int i = 0; i < 5; ++i)
        t.push_back(g.addTensor({.name = "t" + std::to_string(i), .shape = {1}}));
    g.addNode({.name = "n0", .opType = "Op", .inputs = {t[3]}, .outputs = {t[0]}});
    g.addNode({.name = "n1", .opType = "Op", .inputs = {t[2]}, .outputs = {t[1]}});
    g.addNode({.name = "n2", .opType = "Op", .inputs = {x}, .outputs = {t[2]}});
    g.addNode({.name = "n3", .opType = "Op", .inputs = {x}, .outputs = {t[3]}});
    g.addNode({.name = "n4", .opType = "Op", .inputs = {x}, .outputs = {t[4]}});
    auto order = topologicalOrder(g);
    ASSERT_TRUE(order.isOk());
    // Ready {2,3,4}: 2 releases 1, which beats 3.
    EXPECT_EQ(*order, (std::vector<NodeId>{2, 1, 3, 0, 4}));
    EXPECT_EQ(*order, *topologicalOrder(g)); // and again
}

TEST(TopologicalOrder, CycleNamesANodeOnTheCycle)
{
    // n0 hangs below the cycle n1 -> n2 -> n3 -> n1: Kahn leaves it unordered
    // too, but it must not be the one reported.
    Graph g;
    const TensorId x = g.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
    std::vector<TensorId> t;
    for (int i = 0; i < 4; ++i)
        t.push_back(g.addTensor({.name = "t" + std::to_string(i), .shape = {1}}));
    g.addNode({.name = "below", .opType = "Op", .inputs = {t[3]}, .outputs = {t[0]}});
    g.addNode({.name = "c1", .opType = "Add", .inputs = {x, t[3]}, .outputs = {t[1]}});
    g.addNode({.name = "c2", .opType = "Op", .inputs = {t[1]}, .outputs = {t[2]}});
    g.addNode({.name = "c3", .opType = "Op", .inputs = {t[2]}, .outputs = {t[3]}});
    auto order = topologicalOrder(g);
    ASSERT_FALSE(order.isOk());
    const Status s = order.status();
    EXPECT_EQ(s.code(), ErrorCode::InvalidInput);
    EXPECT_TRUE(s.location().node == "c1" || s.location().node == "c2" || s.location().node == "c3") << s.str();
    EXPECT_NE(s.message().find("cycle"), std::string::npos);
    const std::string &m = s.message();
    EXPECT_TRUE(m.find("c1 -> c2 -> c3 -> c1") != std::string::npos ||
                m.find("c2 -> c3 -> c1 -> c2") != std::string::npos ||
                m.find("c3 -> c1 -> c2 -> c3") != std::string::npos)
        << m;
}

TEST(TopologicalOrder, SelfLoopIsACycle)
{
    Graph g;
    const TensorId t = g.addTensor({.name = "t", .shape = {1}});
    g.addNode({.name = "self", .opType = "Op", .inputs = {t}, .outputs = {t}});
    auto order = topologicalOrder(g);
    ASSERT_FALSE(order.isOk());
    EXPECT_EQ(order.status().location().node, "self");
}

TEST(TopologicalOrder, RandomDagsRespectEveryEdge)
{
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        const Graph g = tessera::test::randomDag(60, 0.08, seed);
        auto order = topologicalOrder(g);
        ASSERT_TRUE(order.isOk());
        ASSERT_EQ(order->size(), g.nodeCount());
        std::vector<std::size_t> pos(g.nodeCount());
        for (std::size_t p = 0; p < order->size(); ++p)
            pos[static_cast<std::size_t>((*order)[p])] = p;
        for (NodeId v = 0; v < static_cast<NodeId>(g.nodeCount()); ++v)
            for (NodeId s : g.successors(v))
                EXPECT_LT(pos[static_cast<std::size_t>(v)], pos[static_cast<std::size_t>(s)]);
    }
}

// --- reachability ------------------------------------------------------------

TEST(Reachability, MatchesDepthFirstSearchOnRandomDags)
{
    for (std::uint32_t seed = 0; seed < 20; ++seed) {
        const Graph g = tessera::test::randomDag(130, seed % 2 ? 0.03 : 0.1, seed); // > 2 words per row
        const Reachability reach(g);
        ASSERT_EQ(reach.size(), g.nodeCount());
        for (NodeId a = 0; a < static_cast<NodeId>(g.nodeCount()); ++a) {
            const std::vector<bool> expected = tessera::test::reachableByDfs(g, a);
            for (NodeId b = 0; b < static_cast<NodeId>(g.nodeCount()); ++b)
                ASSERT_EQ(reach.reaches(a, b), expected[static_cast<std::size_t>(b)])
                    << "seed " << seed << ": " << a << " -> " << b;
        }
    }
}

TEST(Reachability, DiamondBranchesAreIncomparable)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId l = b.op("l", {a});
    const NodeId r = b.op("r", {a});
    const NodeId d = b.op("d", {l, r});
    const Reachability reach(b.finish());
    EXPECT_TRUE(reach.reaches(a, d));
    EXPECT_TRUE(reach.comparable(d, a));
    EXPECT_FALSE(reach.reaches(d, a));
    EXPECT_FALSE(reach.reaches(a, a)); // paths have length >= 1
    EXPECT_FALSE(reach.comparable(l, r));
}

// --- width ---------------------------------------------------------------------

TEST(DagWidth, MatchesExhaustiveSearchOnRandomDags)
{
    int checked = 0;
    for (std::uint32_t seed = 0; seed < 300; ++seed) {
        const int n = 1 + static_cast<int>(seed % 14);
        const double p = 0.05 + 0.1 * (seed % 7);
        const Graph g = tessera::test::randomDag(n, p, seed);
        const DagWidth w = dagWidth(g);
        ASSERT_EQ(w.width, bruteForceWidth(g, allNodes(g))) << "seed " << seed << " n " << n << " p " << p;
        expectValidAntichain(g, w, allNodes(g));
        ++checked;
    }
    EXPECT_EQ(checked, 300);
}

TEST(DagWidth, KnownShapes)
{
    { // a chain is width 1
        DagBuilder b;
        NodeId v = b.op("c0");
        for (int i = 1; i < 100; ++i)
            v = b.op("c" + std::to_string(i), {v});
        EXPECT_EQ(dagWidth(b.finish()).width, 1);
    }
    { // n parallel branches of different lengths between a fork and a join
        for (int n : {2, 5, 64, 65, 130}) {
            DagBuilder b;
            const NodeId fork = b.op("fork");
            std::vector<NodeId> ends;
            for (int i = 0; i < n; ++i) {
                NodeId v = fork;
                for (int len = 0; len <= i % 3; ++len)
                    v = b.op("b" + std::to_string(i) + "_" + std::to_string(len), {v});
                ends.push_back(v);
            }
            b.op("join", ends);
            const Graph g = b.finish();
            const DagWidth w = dagWidth(g);
            EXPECT_EQ(w.width, n);
            expectValidAntichain(g, w, allNodes(g));
        }
    }
    { // inception-like modules: width is the branch count, not the module count
        const Graph g = tessera::test::inceptionChain(3, 4);
        const DagWidth w = dagWidth(g);
        EXPECT_EQ(w.width, 4);
        expectValidAntichain(g, w, allNodes(g));
    }
    { // empty graph
        EXPECT_EQ(dagWidth(Graph{}).width, 0);
        EXPECT_TRUE(dagWidth(Graph{}).antichain.empty());
    }
}

TEST(DagWidth, DiamondIsWidthTwoNotThree)
{
    DagBuilder b;
    const NodeId a = b.op("a");
    const NodeId l = b.op("l", {a});
    const NodeId r = b.op("r", {a});
    b.op("d", {l, r});
    const DagWidth w = dagWidth(b.finish());
    EXPECT_EQ(w.width, 2);
    EXPECT_EQ(w.antichain, (std::vector<NodeId>{l, r}));
}

TEST(DagWidth, SubsetCountsPathsThroughOutsideNodes)
{
    // p -> mid -> q, and s independent of all of them.
    DagBuilder b;
    const NodeId p = b.op("p");
    const NodeId mid = b.op("mid", {p});
    const NodeId q = b.op("q", {mid});
    const NodeId s = b.op("s");
    const Graph g = b.finish();
    EXPECT_EQ(dagWidth(g, {p, q}).width, 1);    // ordered through mid, which is outside
    EXPECT_EQ(dagWidth(g, {q, p, q}).width, 1); // order and duplicates do not matter
    const DagWidth w = dagWidth(g, {p, q, s});
    EXPECT_EQ(w.width, 2);
    EXPECT_EQ(w.antichain.size(), 2u);
    EXPECT_NE(std::find(w.antichain.begin(), w.antichain.end(), s), w.antichain.end());
    EXPECT_EQ(dagWidth(g, {s}).width, 1);
}

TEST(DagWidth, SubsetMatchesExhaustiveSearch)
{
    for (std::uint32_t seed = 0; seed < 100; ++seed) {
        const Graph g = tessera::test::randomDag(24, 0.12, 1000 + seed);
        std::mt19937 rng(seed);
        std::vector<NodeId> subset = allNodes(g);
        std::shuffle(subset.begin(), subset.end(), rng);
        subset.resize(4 + seed % 11);
        const DagWidth w = dagWidth(g, subset);
        ASSERT_EQ(w.width, bruteForceWidth(g, subset)) << "seed " << seed;
        expectValidAntichain(g, w, subset);
    }
}

// No timing assertion: this only has to finish (in a few seconds in a
// release build) and give the right answer on a 20,000-node graph.
TEST(DagWidth, LargeSyntheticGraphCompletes)
{
    const Graph g = tessera::test::inceptionChain(1819, 4); // 11 nodes per module
    ASSERT_GE(g.nodeCount(), 20000u);
    const DagWidth w = dagWidth(g);
    EXPECT_EQ(w.width, 4);
    ASSERT_EQ(w.antichain.size(), 4u);
    for (NodeId a : w.antichain) {
        const std::vector<bool> r = tessera::test::reachableByDfs(g, a);
        for (NodeId c : w.antichain)
            EXPECT_FALSE(r[static_cast<std::size_t>(c)]);
    }
}
