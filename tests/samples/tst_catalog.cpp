// The sample catalog: every network builds checker-clean (finish() runs ONNX
// strict shape inference and the checker), has the op counts its architecture
// definition implies and the published parameter count; options reach the
// input shapes; bad names and options are Status errors.
#include "samples/catalog.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

#include "sampletest.h"

using namespace tessera;
using namespace tessera::samples;
using tessera::samples::test::dimsOf;
using tessera::samples::test::opCounts;
using tessera::samples::test::parameterCount;

namespace {

using Shape = std::vector<std::int64_t>;

std::unique_ptr<onnx::ModelProto> build(const std::string &name, const SampleOptions &opts = {})
{
    auto m = buildSample(name, opts);
    EXPECT_TRUE(m.isOk()) << name << ": " << m.status().str();
    return m.isOk() ? std::move(m).value() : nullptr;
}

struct Expectation {
    const char *name;
    std::map<std::string, int> ops; // only the listed op types are checked
    std::int64_t parameters;        // from the architecture definition
    std::int64_t published;         // the paper's / reference implementation's count, 0 = none
};

void PrintTo(const Expectation &e, std::ostream *os)
{
    *os << e.name;
}

const Expectation kExpectations[] = {
    // stem + 16 bottlenecks × 3 + 4 projections; torchvision resnet50: 25,557,032.
    {"resnet50",
     {{"Conv", 53},
      {"BatchNormalization", 53},
      {"Relu", 49},
      {"Add", 16},
      {"MaxPool", 1},
      {"GlobalAveragePool", 1},
      {"Gemm", 1}},
     25'557'032,
     25'557'032},
    // A plain chain: 17 Conv (with folded-BN bias) + Relu, no Add.
    {"resnet18-tailor",
     {{"Conv", 17}, {"Relu", 17}, {"Add", 0}, {"BatchNormalization", 0}, {"Gemm", 1}, {"Softmax", 1}},
     11'511'784,
     0},
    // 1 + (2 + 16 × 3) + 1 Conv; ReLU6 on all but the 17 projections; 10 residual Adds.
    {"mobilenetv2",
     {{"Conv", 52}, {"BatchNormalization", 52}, {"Clip", 35}, {"Add", 10}, {"Gemm", 1}},
     3'504'872,
     3'504'872},
    // 1 + 58 layers × 2 + 3 transitions; one Concat per layer (after the first) and block.
    {"densenet121",
     {{"Conv", 120}, {"BatchNormalization", 121}, {"Relu", 121}, {"Concat", 58}, {"AveragePool", 3}, {"Gemm", 1}},
     7'978'856,
     7'978'856},
    {"vgg16", {{"Conv", 13}, {"Relu", 15}, {"MaxPool", 5}, {"Gemm", 3}}, 138'357'544, 138'357'544},
    // stem + 5 downsampling + 23 residual units × 2.
    {"darknet53",
     {{"Conv", 52}, {"BatchNormalization", 52}, {"LeakyRelu", 52}, {"Add", 23}, {"Gemm", 1}},
     41'609'928,
     0},
    // 12 layers × (4 projections + 2 attention products + 2 FFN); pooler is a Gemm.
    // Adds: 2 embedding sums + 12 × (3 qkv biases, mask, out bias, residual, FFN bias, GELU, FFN bias, residual).
    {"bert",
     {{"MatMul", 96},
      {"Gemm", 1},
      {"Gather", 4},
      {"LayerNormalization", 25},
      {"Softmax", 12},
      {"Erf", 12},
      {"Div", 24},
      {"Add", 122},
      {"Tanh", 1}},
     109'482'240,
     110'000'000},
    {"vit",
     {{"Conv", 1},
      {"MatMul", 96},
      {"Gemm", 1},
      {"LayerNormalization", 25},
      {"Softmax", 12},
      {"Erf", 12},
      {"Concat", 1},
      {"Expand", 1}},
     86'567'656,
     86'567'656},
    // 2 subsampling + 16 × 3 Conv; 1 + 16 × 10 MatMul; 5 LayerNorms per block; Sigmoids: GLU + 3 Swish.
    {"conformer",
     {{"Conv", 50},
      {"MatMul", 161},
      {"LayerNormalization", 80},
      {"Softmax", 16},
      {"Split", 16},
      {"Sigmoid", 64},
      {"BatchNormalization", 16}},
     26'205'184,
     0},
    // 8 trunk + density + feature + view + rgb.
    {"nerf-mlp", {{"Gemm", 12}, {"Relu", 10}, {"Concat", 2}, {"Sigmoid", 1}}, 595'844, 0},
};

class Network : public ::testing::TestWithParam<Expectation>
{
};

} // namespace

TEST_P(Network, OpCountsAndParametersFollowTheArchitecture)
{
    const Expectation &e = GetParam();
    const auto m = build(e.name);
    ASSERT_TRUE(m);
    const auto counts = opCounts(*m);
    for (const auto &[op, n] : e.ops) {
        const auto it = counts.find(op);
        EXPECT_EQ(it == counts.end() ? 0 : it->second, n) << e.name << ": " << op;
    }
    const std::int64_t params = parameterCount(*m);
    EXPECT_EQ(params, e.parameters) << e.name;
    if (e.published) {
        EXPECT_NEAR(static_cast<double>(params), static_cast<double>(e.published),
                    0.01 * static_cast<double>(e.published))
            << e.name;
    }
    // Every node name is unique and every graph input has a static shape.
    std::set<std::string> names;
    for (const auto &n : m->graph().node())
        EXPECT_TRUE(names.insert(n.name()).second) << "duplicate node name " << n.name();
    for (const auto &in : m->graph().input())
        for (std::int64_t d : dimsOf(in))
            EXPECT_GT(d, 0) << in.name();
}

INSTANTIATE_TEST_SUITE_P(Samples, Network, ::testing::ValuesIn(kExpectations), [](const auto &info) {
    std::string s = info.param.name;
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
});

TEST(Catalog, ListsEveryNetworkOnceWithProvenance)
{
    // The IOS benchmark networks are the IOS plugin's (tests/plugins/tst_iosnetworks.cpp).
    const std::set<std::string> expected = {"resnet50",    "resnet18-tailor", "mobilenetv2", "bert",     "vit",
                                            "densenet121", "vgg16",           "darknet53",   "nerf-mlp", "conformer"};
    std::set<std::string> names;
    for (const SampleInfo &i : sampleCatalog()) {
        EXPECT_TRUE(names.insert(i.name).second) << i.name;
        EXPECT_FALSE(i.title.empty() || i.paper.empty() || i.description.empty()) << i.name;
    }
    EXPECT_EQ(names, expected);
}

TEST(Catalog, SampleNetworksAreTheCatalog)
{
    const std::vector<SampleNetwork> networks = sampleNetworks();
    ASSERT_EQ(networks.size(), sampleCatalog().size());
    for (std::size_t i = 0; i < networks.size(); ++i)
        EXPECT_EQ(networks[i].info.name, sampleCatalog()[i].name);
    SampleOptions o;
    o.imageSize = 64;
    const auto viaNetwork = networks.front().build(o), direct = buildSample(networks.front().info.name, o);
    ASSERT_TRUE(viaNetwork && direct);
    EXPECT_EQ((*viaNetwork)->SerializeAsString(), (*direct)->SerializeAsString());
}

TEST(Catalog, UnknownNameListsTheKnownOnes)
{
    const auto m = buildSample("resnet51", {});
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), ErrorCode::Usage);
    const std::string msg = m.status().message();
    EXPECT_EQ(msg.rfind("unknown sample 'resnet51'; known: ", 0), 0u) << msg;
    EXPECT_FALSE(buildSample("squeezenet", {})) << "a plugin's sample is not built in";
    for (const SampleInfo &i : sampleCatalog())
        EXPECT_NE(msg.find(i.name), std::string::npos) << i.name;
}

TEST(Catalog, SameSeedIsByteIdenticalOtherSeedChangesOnlyWeights)
{
    SampleOptions a, c;
    c.seed = a.seed + 1;
    const auto m1 = build("mobilenetv2", a), m2 = build("mobilenetv2", a), m3 = build("mobilenetv2", c);
    ASSERT_TRUE(m1 && m2 && m3);
    EXPECT_EQ(m1->SerializeAsString(), m2->SerializeAsString());
    EXPECT_NE(m1->SerializeAsString(), m3->SerializeAsString());
    EXPECT_EQ(m1->graph().node_size(), m3->graph().node_size());
    ASSERT_EQ(m1->graph().initializer_size(), m3->graph().initializer_size());
    int differing = 0;
    for (int i = 0; i < m1->graph().initializer_size(); ++i) {
        EXPECT_EQ(m1->graph().initializer(i).name(), m3->graph().initializer(i).name());
        differing += m1->graph().initializer(i).raw_data() != m3->graph().initializer(i).raw_data();
    }
    // All random weights differ; only the two Clip bounds are fixed constants.
    EXPECT_EQ(differing, m1->graph().initializer_size() - 2);
}

TEST(Catalog, BatchAndImageSizeReachTheInput)
{
    SampleOptions o;
    o.batch = 4;
    for (const char *name : {"resnet50", "resnet18-tailor", "mobilenetv2", "densenet121", "darknet53"}) {
        const auto m = build(name, o);
        ASSERT_TRUE(m) << name;
        EXPECT_EQ(dimsOf(m->graph().input(0)).front(), 4) << name;
        EXPECT_EQ(dimsOf(m->graph().output(0)), (Shape{4, 1000})) << name;
    }
    o.imageSize = 128;
    const auto r = build("resnet50", o);
    ASSERT_TRUE(r);
    EXPECT_EQ(dimsOf(r->graph().input(0)), (Shape{4, 3, 128, 128}));
    o.imageSize = 384;
    const auto v = build("vit", o);
    ASSERT_TRUE(v);
    EXPECT_EQ(dimsOf(v->graph().input(0)), (Shape{4, 3, 384, 384}));
    EXPECT_EQ(dimsOf(v->graph().output(0)), (Shape{4, 1000}));
    // The position embedding grows to (384/16)² + 1 tokens.
    EXPECT_EQ(parameterCount(*v) - 86'567'656, (577 - 197) * 768);
}

TEST(Catalog, SequenceLengthAndBatchReachTheInputs)
{
    SampleOptions o;
    o.batch = 2;
    o.seqLen = 64;
    const auto bert = build("bert", o);
    ASSERT_TRUE(bert);
    ASSERT_EQ(bert->graph().input_size(), 3);
    for (const auto &in : bert->graph().input())
        EXPECT_EQ(dimsOf(in), (Shape{2, 64})) << in.name();
    EXPECT_EQ(dimsOf(bert->graph().output(0)), (Shape{2, 64, 768}));
    EXPECT_EQ(dimsOf(bert->graph().output(1)), (Shape{2, 768}));

    o.seqLen = 200; // subsampled to ⌊(⌊(200−3)/2⌋+1−3)/2⌋+1 = 49 frames
    const auto conf = build("conformer", o);
    ASSERT_TRUE(conf);
    EXPECT_EQ(dimsOf(conf->graph().input(0)), (Shape{2, 200, 80}));
    EXPECT_EQ(dimsOf(conf->graph().output(0)), (Shape{2, 49, 256}));

    o.batch = 4096;
    const auto nerf = build("nerf-mlp", o);
    ASSERT_TRUE(nerf);
    EXPECT_EQ(dimsOf(nerf->graph().input(0)), (Shape{4096, 63}));
    EXPECT_EQ(dimsOf(nerf->graph().input(1)), (Shape{4096, 27}));
    EXPECT_EQ(dimsOf(nerf->graph().output(0)), (Shape{4096, 3}));
    EXPECT_EQ(dimsOf(nerf->graph().output(1)), (Shape{4096, 1}));
}

TEST(Catalog, InvalidOptionsAreUsageErrors)
{
    auto expectUsage = [](const char *name, SampleOptions o, const std::string &fragment) {
        const auto m = buildSample(name, o);
        ASSERT_FALSE(m.isOk()) << name;
        EXPECT_EQ(m.status().code(), ErrorCode::Usage) << name;
        EXPECT_NE(m.status().message().find(fragment), std::string::npos) << m.status().message();
    };
    SampleOptions o;
    o.batch = 0;
    expectUsage("resnet50", o, "batch must be at least 1, got 0");
    o.batch = -3;
    expectUsage("bert", o, "got -3");
    o = {};
    o.seqLen = 513;
    expectUsage("bert", o, "sequence length of 'bert'");
    o.seqLen = 6;
    expectUsage("conformer", o, "at least 7 frames");
    o = {};
    o.imageSize = 100;
    expectUsage("vit", o, "multiple of 16");
    expectUsage("resnet50", o, "multiple of 32");
    o.imageSize = 256;
    expectUsage("vgg16", o, "only image size 224");
    expectUsage("bert", o, "no image input");
    expectUsage("nerf-mlp", o, "no image input");
}
