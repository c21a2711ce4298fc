// Hierarchy inference (core/ir/hierarchy.h) and name scopes (core/ir/scopes.h).
#include "core/ir/hierarchy.h"
#include "core/ir/scopes.h"

#include <gtest/gtest.h>
#include <map>
#include <set>

#include "fixtures.h"

using namespace tessera;
using tessera::test::DagBuilder;

namespace {

GroupId findGroup(const Hierarchy &h, const std::string &path)
{
    for (std::size_t i = 0; i < h.groups().size(); ++i)
        if (h.groups()[i].path == path)
            return static_cast<GroupId>(i);
    return -1;
}

std::set<std::string> paths(const Hierarchy &h)
{
    std::set<std::string> out;
    for (std::size_t i = 1; i < h.groups().size(); ++i)
        out.insert(h.groups()[i].path);
    return out;
}

// Invariants of every hierarchy: each node in exactly one group's list (the
// one groupOf names), totals add up, paths unique, children point back.
void expectWellFormed(const Graph &g, const Hierarchy &h)
{
    ASSERT_FALSE(h.groups().empty());
    EXPECT_EQ(h.group(0).kind, Group::Kind::Root);
    std::vector<int> seen(g.nodeCount(), 0);
    std::set<std::string> uniquePaths;
    for (std::size_t i = 0; i < h.groups().size(); ++i) {
        const Group &grp = h.groups()[i];
        for (NodeId v : grp.nodes) {
            ++seen[static_cast<std::size_t>(v)];
            EXPECT_EQ(h.groupOf(v), static_cast<GroupId>(i));
        }
        std::int64_t total = static_cast<std::int64_t>(grp.nodes.size());
        for (GroupId c : grp.children) {
            EXPECT_EQ(h.group(c).parent, static_cast<GroupId>(i));
            total += h.group(c).totalNodes;
        }
        EXPECT_EQ(grp.totalNodes, total) << grp.path;
        EXPECT_TRUE(uniquePaths.insert(grp.path).second) << "duplicate path " << grp.path;
        if (i > 0) {
            EXPECT_GT(grp.totalNodes, 0) << "empty group " << grp.path;
        }
    }
    for (std::size_t v = 0; v < g.nodeCount(); ++v)
        EXPECT_EQ(seen[v], 1) << g.node(static_cast<NodeId>(v)).name;
    EXPECT_EQ(h.group(0).totalNodes, static_cast<std::int64_t>(g.nodeCount()));
}

// torchvision-ResNet-style names as the PyTorch ONNX exporter writes them.
Graph resnetNamed(int layers, int blocks)
{
    DagBuilder b;
    NodeId x = b.op("/conv1/Conv", {}, "Conv");
    x = b.op("/relu/Relu", {x}, "Relu");
    x = b.op("/maxpool/MaxPool", {x}, "MaxPool");
    for (int l = 1; l <= layers; ++l)
        for (int k = 0; k < blocks; ++k) {
            const std::string p =
                "/layer" + std::to_string(l) + "/layer" + std::to_string(l) + "." + std::to_string(k) + "/";
            NodeId y = b.op(p + "conv1/Conv", {x}, "Conv");
            y = b.op(p + "relu/Relu", {y}, "Relu");
            y = b.op(p + "conv2/Conv", {y}, "Conv");
            NodeId skip = x;
            if (k == 0 && l > 1)
                skip = b.op(p + "downsample/downsample.0/Conv", {x}, "Conv");
            y = b.op(p + "Add", {y, skip}, "Add");
            x = b.op(p + "relu_1/Relu", {y}, "Relu");
        }
    x = b.op("/avgpool/GlobalAveragePool", {x}, "GlobalAveragePool");
    x = b.op("/Flatten", {x}, "Flatten");
    b.op("/fc/Gemm", {x}, "Gemm");
    return b.finish();
}

// BERT-style names, slash form ("/encoder/layer.3/attention/self/query/MatMul")
// or dotted form ("bert.encoder.layer.3.attention.self.query.MatMul").
Graph bertNamed(int layers, bool dotted)
{
    DagBuilder b;
    auto name = [&](const std::string &scopes, const std::string &op) {
        if (!dotted)
            return "/" + scopes + "/" + op;
        std::string s = "bert." + scopes + "." + op;
        std::replace(s.begin(), s.end(), '/', '.');
        return s;
    };
    NodeId x = b.op(name("embeddings/word_embeddings", "Gather"), {}, "Gather");
    x = b.op(name("embeddings", "Add"), {x}, "Add");
    x = b.op(name("embeddings/LayerNorm", "LayerNormalization"), {x}, "LayerNormalization");
    for (int i = 0; i < layers; ++i) {
        const std::string l = "encoder/layer." + std::to_string(i);
        auto proj = [&](const std::string &scope, NodeId in) {
            return b.op(name(scope, "Add"), {b.op(name(scope, "MatMul"), {in}, "MatMul")}, "Add");
        };
        const NodeId q = proj(l + "/attention/self/query", x);
        const NodeId k = proj(l + "/attention/self/key", x);
        const NodeId v = proj(l + "/attention/self/value", x);
        NodeId s = b.op(name(l + "/attention/self", "MatMul"), {q, k}, "MatMul");
        s = b.op(name(l + "/attention/self", "Softmax"), {s}, "Softmax");
        s = b.op(name(l + "/attention/self", "MatMul_1"), {s, v}, "MatMul");
        NodeId o = proj(l + "/attention/output/dense", s);
        o = b.op(name(l + "/attention/output", "Add"), {o, x}, "Add");
        o = b.op(name(l + "/attention/output/LayerNorm", "LayerNormalization"), {o}, "LayerNormalization");
        NodeId f = proj(l + "/intermediate/dense", o);
        f = b.op(name(l + "/intermediate/intermediate_act_fn", "Gelu"), {f}, "Gelu");
        f = proj(l + "/output/dense", f);
        f = b.op(name(l + "/output", "Add"), {f, o}, "Add");
        x = b.op(name(l + "/output/LayerNorm", "LayerNormalization"), {f}, "LayerNormalization");
    }
    x = b.op(name("pooler/dense", "Gemm"), {x}, "Gemm");
    b.op(name("pooler/activation", "Tanh"), {x}, "Tanh");
    return b.finish();
}

std::string nodeName(int k)
{
    return "n" + std::to_string(k);
}

} // namespace

// --- name scopes ----------------------------------------------------------------

TEST(NameScopes, RecognisesExporterConventions)
{
    const std::vector<std::pair<std::string, std::vector<std::string_view>>> cases = {
        {"/layer1/layer1.0/conv1/Conv", {"layer1", "layer1.0", "conv1"}},
        {"layer1/layer1.0/conv1", {"layer1", "layer1.0"}},
        {"/encoder/layer.3/attention/self/query/MatMul", {"encoder", "layer.3", "attention", "self", "query"}},
        {"bert.encoder.layer.3.attention.self.query.MatMul",
         {"bert", "encoder", "layer.3", "attention", "self", "query"}},
        {"/model/layers.0/self_attn/q_proj/MatMul", {"model", "layers.0", "self_attn", "q_proj"}},
        {"stage2_block1_conv", {"stage2", "block1"}},
        {"block3/unit14/bottleneck_v2/conv1/Conv2D", {"block3", "unit14", "bottleneck_v2", "conv1"}},
        {"resnet_v2_50/block3/unit_1/bottleneck_v2_conv1_Conv2D",
         {"resnet_v2_50", "block3", "unit_1", "bottleneck_v2", "conv1"}},
        {"resnetv17_stage1_conv0_fwd", {"resnetv17", "stage1", "conv0"}},
        {"/layer1/layer1.0/layer1.0.conv1/Conv", {"layer1", "layer1.0", "conv1"}},
        {"model/dense_1/MatMul", {"model", "dense_1"}},
    };
    for (const auto &[name, expected] : cases)
        EXPECT_EQ(nameScopes(name), expected) << name;
}

TEST(NameScopes, PlainNamesHaveNoScope)
{
    for (const char *name : {"n17", "Conv_0", "MatMul_123", "/Flatten", "", "/", "relu", "x_1_2"})
        EXPECT_TRUE(nameScopes(name).empty()) << name;
}

TEST(NameScopes, DepthIsBounded)
{
    std::string deep;
    for (int i = 0; i < 100; ++i)
        deep += "s" + std::to_string(i) + "/";
    deep += "Op";
    EXPECT_EQ(nameScopes(deep).size(), kMaxScopeDepth);
}

// --- the Hierarchy container ------------------------------------------------------

TEST(Hierarchy, BuildingBlocks)
{
    Hierarchy h;
    h.reset(5);
    const GroupId stage = h.addGroup("s", Group::Kind::Stage, 0);
    const GroupId block = h.addGroup("b", Group::Kind::Block, stage);
    h.assign(1, stage);
    h.assign(3, block);
    h.assign(4, block);
    h.finalize();
    EXPECT_EQ(h.group(block).path, "s/b");
    EXPECT_EQ(h.group(stage).children, std::vector<GroupId>{block});
    EXPECT_EQ(h.group(0).nodes, (std::vector<NodeId>{0, 2})); // unassigned nodes stay in the root
    EXPECT_EQ(h.group(block).nodes, (std::vector<NodeId>{3, 4}));
    EXPECT_EQ(h.group(stage).totalNodes, 3);
    EXPECT_EQ(h.group(0).totalNodes, 5);
    EXPECT_EQ(h.nodesUnder(stage), (std::vector<NodeId>{1, 3, 4}));
    EXPECT_EQ(h.ancestry(block), (std::vector<GroupId>{0, stage, block}));
    EXPECT_EQ(h.groupOf(2), 0);

    h.assign(3, stage); // reassigning moves the node on the next finalize
    h.finalize();
    EXPECT_EQ(h.group(block).nodes, std::vector<NodeId>{4});
    EXPECT_EQ(h.group(stage).totalNodes, 3);
}

// --- name-based inference ----------------------------------------------------------

TEST(InferHierarchy, ResNetNamesGiveLayersAndBlocks)
{
    const Graph g = resnetNamed(4, 2);
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);

    const GroupId layer1 = findGroup(h, "layer1");
    const GroupId block = findGroup(h, "layer1/layer1.0");
    ASSERT_GE(layer1, 0);
    ASSERT_GE(block, 0);
    EXPECT_EQ(h.group(layer1).kind, Group::Kind::Stage);
    EXPECT_EQ(h.group(block).kind, Group::Kind::Block);
    EXPECT_EQ(h.group(block).name, "layer1.0");
    EXPECT_EQ(h.group(block).parent, layer1);
    EXPECT_EQ(h.group(layer1).totalNodes, 10);
    EXPECT_EQ(h.groupOf(g.findNode("/layer1/layer1.0/conv1/Conv")), block);
    EXPECT_EQ(h.groupOf(g.findNode("/layer2/layer2.0/downsample/downsample.0/Conv")), findGroup(h, "layer2/layer2.0"));
    // One-node module scopes ("conv1", "relu", "fc") are below minGroupSize.
    EXPECT_EQ(findGroup(h, "layer1/layer1.0/conv1"), -1);
    EXPECT_EQ(findGroup(h, "fc"), -1);
    EXPECT_EQ(h.groupOf(g.findNode("/fc/Gemm")), 0);
    EXPECT_EQ(h.group(0).nodes.size(), 6u); // stem and head

    // Children in model order.
    std::vector<std::string> top;
    for (GroupId c : h.group(0).children)
        top.push_back(h.group(c).name);
    EXPECT_EQ(top, (std::vector<std::string>{"layer1", "layer2", "layer3", "layer4"}));
}

TEST(InferHierarchy, UnscopedSmallGraphStaysFlat)
{
    DagBuilder b;
    NodeId x = b.op("Conv_0");
    for (int i = 1; i < 40; ++i)
        x = b.op("Relu_" + std::to_string(i), {x});
    const Graph g = b.finish();
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_EQ(h.groups().size(), 1u);
    EXPECT_EQ(h.group(0).nodes.size(), 40u);
}

TEST(InferHierarchy, BertNamesSlashAndDottedAgree)
{
    for (bool dotted : {false, true}) {
        const Graph g = bertNamed(3, dotted);
        const Hierarchy h = inferHierarchy(g);
        expectWellFormed(g, h);
        // The all-enclosing "bert" scope of the dotted form adds nothing and is dropped.
        EXPECT_EQ(findGroup(h, "bert"), -1);
        const GroupId layer = findGroup(h, "encoder/layer.1");
        const GroupId self = findGroup(h, "encoder/layer.1/attention/self");
        ASSERT_GE(layer, 0) << dotted;
        ASSERT_GE(self, 0) << dotted;
        EXPECT_EQ(h.group(findGroup(h, "encoder")).kind, Group::Kind::Stage);
        EXPECT_EQ(h.group(layer).kind, Group::Kind::Block);
        EXPECT_EQ(h.group(self).kind, Group::Kind::Layer);
        EXPECT_EQ(h.group(self).totalNodes, 9);
        const std::string q = dotted ? "bert.encoder.layer.1.attention.self.query.MatMul"
                                     : "/encoder/layer.1/attention/self/query/MatMul";
        EXPECT_EQ(h.groupOf(g.findNode(q)), self);
        EXPECT_GE(findGroup(h, "embeddings"), 0);
    }
    EXPECT_EQ(paths(inferHierarchy(bertNamed(3, false))), paths(inferHierarchy(bertNamed(3, true))));
}

TEST(InferHierarchy, UnderscoreStagesAndBlocks)
{
    DagBuilder b;
    NodeId x = b.op("input_conv");
    for (int s = 1; s <= 2; ++s)
        for (int k = 1; k <= 2; ++k)
            for (const char *op : {"conv", "bn", "relu"})
                x = b.op("stage" + std::to_string(s) + "_block" + std::to_string(k) + "_" + op, {x});
    const Graph g = b.finish();
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_EQ(paths(h), (std::set<std::string>{"stage1", "stage1/block1", "stage1/block2", "stage2", "stage2/block1",
                                               "stage2/block2"}));
    EXPECT_EQ(h.groupOf(g.findNode("stage2_block1_bn")), findGroup(h, "stage2/block1"));
}

TEST(InferHierarchy, TinyScopesMergeUpward)
{
    DagBuilder b;
    NodeId x = b.op("/tiny/a");
    x = b.op("/tiny/b", {x});
    for (const char *n : {"/big/a", "/big/b", "/big/c"})
        x = b.op(n, {x});
    const Graph g = b.finish();
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_EQ(paths(h), std::set<std::string>{"big"});
    EXPECT_EQ(h.groupOf(g.findNode("/tiny/a")), 0);

    const Hierarchy loose = inferHierarchy(g, {.maxGroupSize = 64, .minGroupSize = 2});
    EXPECT_EQ(paths(loose), (std::set<std::string>{"big", "tiny"}));
}

TEST(InferHierarchy, ScopesThatAddNothingAreDropped)
{
    // "top" holds everything; "x" holds nothing but "y".
    DagBuilder b;
    NodeId v = b.op("/top/x/y/a");
    for (const char *n : {"/top/x/y/b", "/top/x/y/c", "/top/z/a", "/top/z/b", "/top/z/c"})
        v = b.op(n, {v});
    const Graph g = b.finish();
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_EQ(paths(h), (std::set<std::string>{"x", "z"}));
    EXPECT_EQ(h.groupOf(g.findNode("/top/x/y/b")), findGroup(h, "x"));

    // Negative twin: once "x" has a node of its own, "y" is a real level.
    DagBuilder b2;
    v = b2.op("/top/x/own");
    for (const char *n : {"/top/x/y/a", "/top/x/y/b", "/top/x/y/c", "/top/z/a", "/top/z/b", "/top/z/c"})
        v = b2.op(n, {v});
    const Hierarchy h2 = inferHierarchy(b2.finish());
    EXPECT_EQ(paths(h2), (std::set<std::string>{"x", "x/y", "z"}));
}

// --- structural inference -----------------------------------------------------------

TEST(InferHierarchy, UnnamedResidualChainGetsStructuralGroups)
{
    std::vector<std::vector<NodeId>> regions;
    const Graph g = tessera::test::residualChain(166, nodeName, &regions); // 997 nodes "n0".."n996"
    const HierarchyOptions opts;                                           // maxGroupSize 64
    const Hierarchy h = inferHierarchy(g, opts);
    expectWellFormed(g, h);

    EXPECT_GT(h.groups().size(), 1u);
    EXPECT_TRUE(h.group(0).nodes.empty());
    EXPECT_LE(h.group(0).children.size(), opts.maxGroupSize);
    for (const Group &grp : h.groups())
        EXPECT_LE(grp.nodes.size(), opts.maxGroupSize) << grp.path;
    // A residual block's body is a single-entry/single-exit region: never cut.
    for (const std::vector<NodeId> &r : regions)
        for (NodeId v : r)
            EXPECT_EQ(h.groupOf(v), h.groupOf(r.front())) << g.node(v).name;
    // Labels come from node names.
    EXPECT_EQ(h.group(h.group(0).children.front()).name.rfind("n0..", 0), 0u) << h.group(1).name;
}

TEST(InferHierarchy, StructuralGroupsNestWhenTheCapIsSmall)
{
    std::vector<std::vector<NodeId>> regions;
    const Graph g = tessera::test::residualChain(166, nodeName, &regions);
    const HierarchyOptions opts{.maxGroupSize = 8, .minGroupSize = 3};
    const Hierarchy h = inferHierarchy(g, opts);
    expectWellFormed(g, h);
    EXPECT_LE(h.group(0).children.size(), opts.maxGroupSize);
    std::size_t depth = 0;
    for (std::size_t i = 0; i < h.groups().size(); ++i) {
        EXPECT_LE(h.groups()[i].nodes.size(), opts.maxGroupSize);
        EXPECT_LE(h.groups()[i].children.size(), opts.maxGroupSize);
        depth = std::max(depth, h.ancestry(static_cast<GroupId>(i)).size() - 1);
    }
    EXPECT_GE(depth, 3u);
    for (const std::vector<NodeId> &r : regions)
        for (NodeId v : r)
            EXPECT_EQ(h.groupOf(v), h.groupOf(r.front()));
    // Kinds follow depth.
    EXPECT_EQ(h.group(h.group(0).children.front()).kind, Group::Kind::Stage);
}

TEST(InferHierarchy, InceptionModulesAreNotCut)
{
    // Node 0 is the stem; module m is nodes 1 + 11m .. 11 + 11m, its concat last.
    const Graph g = tessera::test::inceptionChain(100, 4);
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    for (NodeId m = 0; m < 100; ++m)
        for (NodeId v = 1 + 11 * m; v <= 11 + 11 * m; ++v)
            ASSERT_EQ(h.groupOf(v), h.groupOf(1 + 11 * m)) << g.node(v).name;
    for (const Group &grp : h.groups())
        EXPECT_LE(grp.nodes.size(), 64u);
}

TEST(InferHierarchy, CyclicGraphStillAssignsEveryNode)
{
    // Not a valid graph (verify() rejects it), but inference must not loop or drop nodes.
    Graph g;
    const TensorId x = g.addTensor({.name = "x", .shape = {1}, .kind = Tensor::Kind::Input});
    std::vector<TensorId> t;
    for (int i = 0; i < 100; ++i)
        t.push_back(g.addTensor({.name = "t" + std::to_string(i), .shape = {1}}));
    for (int i = 0; i < 100; ++i)
        g.addNode({.name = "n" + std::to_string(i),
                   .opType = "Op",
                   .inputs = {i == 0 ? t[99] : t[static_cast<std::size_t>(i - 1)], x},
                   .outputs = {t[static_cast<std::size_t>(i)]}});
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_GT(h.groups().size(), 1u);
}

TEST(InferHierarchy, RegionsLargerThanTheCapAreSplit)
{
    // A dense random DAG has almost no clean cut: its regions exceed the cap.
    const Graph g = tessera::test::randomDag(400, 0.3, 7);
    const Hierarchy h = inferHierarchy(g, {.maxGroupSize = 16, .minGroupSize = 3});
    expectWellFormed(g, h);
    EXPECT_LE(h.group(0).children.size(), 16u);
    for (const Group &grp : h.groups())
        EXPECT_LE(grp.nodes.size(), 16u) << grp.path;
}

TEST(InferHierarchy, PathsAreStableAcrossBuilds)
{
    auto snapshot = [](const Hierarchy &h) {
        std::vector<std::pair<std::string, std::vector<NodeId>>> out;
        for (const Group &grp : h.groups())
            out.emplace_back(grp.path, grp.nodes);
        return out;
    };
    const auto first = snapshot(inferHierarchy(tessera::test::residualChain(166, nodeName)));
    const auto second = snapshot(inferHierarchy(tessera::test::residualChain(166, nodeName)));
    EXPECT_EQ(first, second);
    const auto named = snapshot(inferHierarchy(resnetNamed(4, 3)));
    EXPECT_EQ(named, snapshot(inferHierarchy(resnetNamed(4, 3))));
    // Negative twin: a different graph gives different groups.
    EXPECT_NE(first, snapshot(inferHierarchy(tessera::test::residualChain(100, nodeName))));
}

TEST(InferHierarchy, LongUnscopedRunBesideScopesIsChunked)
{
    DagBuilder b;
    NodeId x = b.op("/stem/a");
    for (const char *n : {"/stem/b", "/stem/c"})
        x = b.op(n, {x});
    for (int i = 0; i < 200; ++i)
        x = b.op("Relu_" + std::to_string(i), {x});
    for (const char *n : {"/head/a", "/head/b", "/head/c"})
        x = b.op(n, {x});
    const Graph g = b.finish();
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_TRUE(h.group(0).nodes.empty());
    ASSERT_GE(h.group(0).children.size(), 5u);
    EXPECT_EQ(h.group(h.group(0).children.front()).name, "stem");
    EXPECT_EQ(h.group(h.group(0).children.back()).name, "head");
    for (const Group &grp : h.groups())
        EXPECT_LE(grp.nodes.size(), 64u);
}

// No timing assertion: inference on 20,000 nodes must complete and collapse
// the graph to a handful of top-level groups.
TEST(InferHierarchy, LargeSyntheticGraphsComplete)
{
    const Graph unnamed = tessera::test::residualChain(3334, nodeName); // 20,005 nodes
    const Hierarchy h = inferHierarchy(unnamed);
    expectWellFormed(unnamed, h);
    EXPECT_LE(h.group(0).children.size(), 100u);
    for (const Group &grp : h.groups())
        EXPECT_LE(grp.nodes.size(), 64u);

    const Graph named = resnetNamed(4, 1000); // 20,009 nodes
    ASSERT_GE(named.nodeCount(), 20000u);
    const Hierarchy hn = inferHierarchy(named);
    expectWellFormed(named, hn);
    EXPECT_EQ(hn.group(0).children.size(), 4u);
    // layer3's 1000 blocks are packed under range groups; each block survives.
    const GroupId layer3 = findGroup(hn, "layer3");
    ASSERT_GE(layer3, 0);
    EXPECT_LE(hn.group(layer3).children.size(), 64u);
    const GroupId last = hn.groupOf(named.findNode("/layer3/layer3.999/conv1/Conv"));
    EXPECT_EQ(hn.group(last).name, "layer3.999");
    EXPECT_EQ(hn.ancestry(last)[1], layer3);
}

// A flat model with one scope per layer (Keras: "conv2d_7/BiasAdd").
Graph kerasFlat(int layers)
{
    DagBuilder b;
    NodeId x = b.op("input_1");
    for (int i = 1; i <= layers; ++i)
        for (const char *op : {"Conv2D", "BiasAdd", "Relu"})
            x = b.op("conv2d_" + std::to_string(i) + "/" + op, {x});
    return b.finish();
}

TEST(InferHierarchy, ManySiblingScopesArePackedUnderRanges)
{
    const Graph g = kerasFlat(200);
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    EXPECT_LE(h.group(0).children.size(), 64u);
    const GroupId first = h.group(0).children.front();
    EXPECT_EQ(h.group(first).name.rfind("conv2d_1..conv2d_", 0), 0u) << h.group(first).name;
    const GroupId conv7 = h.groupOf(g.findNode("conv2d_7/BiasAdd"));
    EXPECT_EQ(h.group(conv7).name, "conv2d_7");
    EXPECT_EQ(h.group(conv7).parent, first);
    for (const Group &grp : h.groups())
        EXPECT_LE(grp.children.size(), 64u) << grp.path;
}

TEST(InferHierarchy, SiblingScopesWithinTheCapStayFlat)
{
    const Graph g = kerasFlat(64);
    const Hierarchy h = inferHierarchy(g);
    expectWellFormed(g, h);
    ASSERT_EQ(h.group(0).children.size(), 64u);
    EXPECT_EQ(h.group(h.group(0).children.front()).path, "conv2d_1");
    EXPECT_EQ(h.group(h.group(0).children.back()).path, "conv2d_64");
}
