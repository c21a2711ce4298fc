// Whole models on the reference backend: SqueezeNet (224×224) and ResNet-50
// (64×64, weights in an external data file) from the sample catalog, and a
// two-layer mini-BERT built here with ModelBuilder (int64 token ids and mask,
// embeddings, attention, GELU via Erf, LayerNorm, pooler). Each runs under the
// sequential plan, the layer-fusion plan and a tiled plan (every layer-fusion
// kernel split into three tiles) and the three must agree bit for bit. A tiny
// MLP with hand-picked weights is checked against the value computed here.
#include "backends/reference/reference.h"
#include "core/onnx/importer.h"
#include "samples/builder.h"
#include "samples/catalog.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <gtest/gtest.h>
#include <numeric>
#include <onnx/onnx_pb.h>
#include <unistd.h>
#include <utility>

#include "tests/backends/planutil.h"
#include "tests/common/testsamples.h"

namespace fs = std::filesystem;
using namespace tessera;
using samples::ModelBuilder;

namespace {

class Models : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("tessera-ref-models-" + std::to_string(::getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    Expected<Graph> import(const onnx::ModelProto &m, const std::string &name, bool external)
    {
        const std::string path = (dir / (name + ".onnx")).string();
        TS_TRY(samples::saveModel(m, path, external));
        auto r = importModel(path);
        if (!r)
            return r.status();
        return std::move(r->graph);
    }

    // Runs the sequential, layer-fusion and tiled plans; returns the outputs of
    // the first after checking the others equal them bit for bit.
    std::vector<HostTensor> runThreePlans(const Graph &g, const std::vector<HostTensor> &inputs, int preferDim)
    {
        auto seq = planutil::baselinePlan(g, "sequential");
        auto fused = planutil::baselinePlan(g, "layer-fusion");
        EXPECT_TRUE(seq.isOk()) << seq.status().str();
        EXPECT_TRUE(fused.isOk()) << fused.status().str();
        if (!seq || !fused)
            return {};
        EXPECT_LT(fused->kernels.size(), seq->kernels.size()); // layer fusion fused something
        const ExecutionPlan tiled = planutil::tiledPlan(g, *fused, 3, preferDim);
        EXPECT_GT(tiled.tasks.size(), fused->kernels.size() * 2);
        std::vector<std::vector<HostTensor>> outs;
        for (const ExecutionPlan *p : {&std::as_const(*seq), &std::as_const(*fused), &tiled}) {
            auto r = planutil::compileAndRun(*backend, g, *p, inputs);
            EXPECT_TRUE(r.isOk()) << p->algorithm << ": " << r.status().str();
            if (!r)
                return {};
            outs.push_back(std::move(r->outputs));
        }
        for (std::size_t p = 1; p < outs.size(); ++p) {
            EXPECT_EQ(outs[p].size(), outs[0].size());
            for (std::size_t i = 0; i < outs[0].size() && i < outs[p].size(); ++i)
                EXPECT_TRUE(planutil::bitEqual(outs[0][i], outs[p][i]))
                    << "plan " << p << " output '" << outs[0][i].name << "' differs";
        }
        return outs[0];
    }

    static bool finite(const HostTensor &t)
    {
        for (std::int64_t i = 0; i < t.elements(); ++i)
            if (!std::isfinite(t.f32()[i]))
                return false;
        return true;
    }

    fs::path dir;
    std::unique_ptr<IBackend> backend = createReferenceBackend();
};

TEST_F(Models, SqueezeNetPlansAgree)
{
    auto m = test::buildRegisteredSample("squeezenet", {});
    ASSERT_TRUE(m.isOk()) << m.status().str();
    auto g = import(**m, "squeezenet", false);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const auto out = runThreePlans(*g, planutil::makeInputs(*g, 11), 2);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_TRUE(finite(out[0]));
}

TEST_F(Models, ResNet50WithExternalWeightsPlansAgree)
{
    samples::SampleOptions o;
    o.imageSize = 64;
    auto m = test::buildRegisteredSample("resnet50", o);
    ASSERT_TRUE(m.isOk()) << m.status().str();
    auto g = import(**m, "resnet50", true);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    EXPECT_TRUE(std::any_of(g->tensors().begin(), g->tensors().end(),
                            [](const Tensor &t) { return t.data && t.data->isExternal(); }));
    const auto out = runThreePlans(*g, planutil::makeInputs(*g, 12), 2);
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].shape, (Shape{1, 1000}));
    EXPECT_TRUE(finite(out[0]));
}

// Two post-LN encoder layers, hidden 32, 2 heads, FFN 64, vocabulary 50, 8 tokens.
Expected<std::unique_ptr<onnx::ModelProto>> miniBert()
{
    constexpr std::int64_t n = 1, len = 8, d = 32, heads = 2, dh = d / heads, ffn = 64, vocab = 50;
    ModelBuilder b("mini_bert", 7);
    const std::string ids = b.input("input_ids", {n, len}, 7), mask = b.input("attention_mask", {n, len}, 7);
    std::vector<std::int64_t> positions(len);
    std::iota(positions.begin(), positions.end(), 0);
    std::string x = b.node("Gather", "word_embeddings", {b.weight("word_embeddings.weight", {vocab, d}, 0.5f), ids}, {},
                           {{n, len, d}})
                        .front();
    const std::string pos =
        b.node("Gather", "position_embeddings",
               {b.weight("position_embeddings.weight", {len, d}, 0.5f), b.constantInts("position_ids", positions)}, {},
               {{len, d}})
            .front();
    x = b.layerNorm(b.binary("Add", x, pos, "embeddings/add"), "embeddings/LayerNorm", 1e-12f);
    std::string m =
        b.node("Unsqueeze", "mask/Unsqueeze", {mask, b.constantInts("mask.axes", {1, 2})}, {}, {{n, 1, 1, len}})
            .front();
    m = b.node("Cast", "mask/Cast", {m}, {ModelBuilder::aInt("to", 1)}, {{n, 1, 1, len}}).front();
    m = b.binary("Sub", b.constantScalar("mask.one", 1.0f), m, "mask/Sub");
    m = b.binary("Mul", m, b.constantScalar("mask.min", -10000.0f), "mask/Mul");
    for (int layer = 0; layer < 2; ++layer) {
        const std::string p = "layer" + std::to_string(layer) + "/";
        auto heads4 = [&](const std::string &name, const std::vector<std::int64_t> &perm) {
            return b.transpose(b.reshape(b.linear(x, p + name, d), p + name + "/reshape", {n, len, heads, dh}),
                               p + name + "/transpose", perm);
        };
        const std::string q = heads4("query", {0, 2, 1, 3}), k = heads4("key", {0, 2, 3, 1}),
                          v = heads4("value", {0, 2, 1, 3});
        std::string s = b.matmul(q, k, p + "scores");
        s = b.binary("Div", s, b.constantScalar(p + "sqrt_dh", std::sqrt(static_cast<float>(dh))), p + "scale");
        s = b.softmax(b.binary("Add", s, m, p + "mask"), p + "softmax", -1);
        std::string c = b.transpose(b.matmul(s, v, p + "context"), p + "context/transpose", {0, 2, 1, 3});
        c = b.reshape(c, p + "context/reshape", {n, len, d});
        x = b.layerNorm(b.binary("Add", b.linear(c, p + "output", d), x, p + "residual1"), p + "ln1", 1e-12f);
        const std::string h = b.linear(x, p + "ffn1", ffn);
        const std::string erf = b.unary(
            "Erf", b.binary("Div", h, b.constantScalar(p + "sqrt2", std::sqrt(2.0f)), p + "gelu/div"), p + "gelu/erf");
        const std::string gelu = b.binary(
            "Mul",
            b.binary("Mul", h, b.binary("Add", erf, b.constantScalar(p + "one", 1.0f), p + "gelu/add"), p + "gelu/mul"),
            b.constantScalar(p + "half", 0.5f), p + "gelu/half");
        x = b.layerNorm(b.binary("Add", b.linear(gelu, p + "ffn2", d), x, p + "residual2"), p + "ln2", 1e-12f);
    }
    b.output(x);
    const std::string first = b.node("Gather", "pooler/select", {x, b.constantInt("pooler.index", 0)},
                                     {ModelBuilder::aInt("axis", 1)}, {{n, d}})
                                  .front();
    b.output(b.unary("Tanh", b.gemm(first, "pooler/dense", d), "pooler/tanh"));
    return b.finish();
}

TEST_F(Models, MiniBertPlansAgree)
{
    auto m = miniBert();
    ASSERT_TRUE(m.isOk()) << m.status().str();
    auto g = import(**m, "mini_bert", false);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    auto inputs = planutil::makeInputs(*g, 13, 50);
    // The mask attends to the first six tokens.
    for (HostTensor &h : inputs)
        if (h.name == "attention_mask")
            for (std::int64_t i = 0; i < h.elements(); ++i) {
                const std::int64_t v = i < 6 ? 1 : 0;
                std::memcpy(h.bytes.data() + i * 8, &v, 8);
            }
    const auto out = runThreePlans(*g, inputs, 1);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape, (Shape{1, 8, 32}));
    EXPECT_EQ(out[1].shape, (Shape{1, 32}));
    EXPECT_TRUE(finite(out[0]) && finite(out[1]));
    // The pooler ends in Tanh.
    for (std::int64_t i = 0; i < 32; ++i)
        EXPECT_LT(std::abs(out[1].f32()[i]), 1.0f);
}

TEST_F(Models, MiniBertTokenIdOutOfVocabularyIsAnError)
{
    auto m = miniBert();
    ASSERT_TRUE(m.isOk()) << m.status().str();
    auto g = import(**m, "mini_bert", false);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    auto plan = planutil::baselinePlan(*g, "sequential");
    ASSERT_TRUE(plan.isOk());
    auto inputs = planutil::makeInputs(*g, 13, 50);
    for (HostTensor &h : inputs)
        if (h.name == "input_ids") {
            const std::int64_t pastTheEnd = 50;
            std::memcpy(h.bytes.data() + 3 * 8, &pastTheEnd, 8);
        }
    ASSERT_TRUE(planutil::compileAndRun(*backend, *g, *plan, planutil::makeInputs(*g, 13, 50)).isOk());
    auto r = planutil::compileAndRun(*backend, *g, *plan, inputs);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().location().node, "word_embeddings");
    EXPECT_NE(r.status().message().find("index 50 is out of range for an axis of extent 50"), std::string::npos)
        << r.status().str();
}

// y = softmax(W2 · relu(W1 · x + b1) + b2) for x [2, 3], hand-picked weights.
TEST_F(Models, TinyMlpMatchesTheHandComputedValue)
{
    const std::vector<float> w1{0.5f, -1, 0.25f, 1, 1, -0.5f, -0.75f, 0.5f, 2, 0, 0.125f, -1}; // [4, 3]
    const std::vector<float> b1{0.1f, -0.2f, 0.3f, 0};
    const std::vector<float> w2{1, -1, 0.5f, 2, -0.5f, 0.25f, 1, -1}; // [2, 4]
    const std::vector<float> b2{0.05f, -0.05f};
    ModelBuilder b("mlp", 1);
    std::string x = b.input("x", {2, 3});
    x = b.node("Gemm", "fc1", {x, b.constantFloats("w1", {4, 3}, w1), b.constantFloats("b1", {4}, b1)},
               {ModelBuilder::aInt("transB", 1)}, {{2, 4}})
            .front();
    x = b.relu(x, "relu");
    x = b.node("Gemm", "fc2", {x, b.constantFloats("w2", {2, 4}, w2), b.constantFloats("b2", {2}, b2)},
               {ModelBuilder::aInt("transB", 1)}, {{2, 2}})
            .front();
    b.output(b.softmax(x, "softmax", -1));
    auto m = b.finish();
    ASSERT_TRUE(m.isOk()) << m.status().str();
    auto g = import(**m, "mlp", false);
    ASSERT_TRUE(g.isOk()) << g.status().str();
    const std::vector<float> in{1, 2, 3, -1, 0.5f, -2};
    auto plan = planutil::baselinePlan(*g, "sequential");
    ASSERT_TRUE(plan.isOk());
    auto r = planutil::compileAndRun(*backend, *g, *plan, {planutil::floatTensor("x", {2, 3}, in)});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    for (int row = 0; row < 2; ++row) {
        double h[4], o[2];
        for (int j = 0; j < 4; ++j) {
            h[j] = b1[j];
            for (int k = 0; k < 3; ++k)
                h[j] += double(w1[j * 3 + k]) * in[row * 3 + k];
            h[j] = std::max(h[j], 0.0);
        }
        for (int j = 0; j < 2; ++j) {
            o[j] = b2[j];
            for (int k = 0; k < 4; ++k)
                o[j] += double(w2[j * 4 + k]) * h[k];
        }
        const double mx = std::max(o[0], o[1]), e0 = std::exp(o[0] - mx), e1 = std::exp(o[1] - mx);
        EXPECT_NEAR(r->outputs[0].f32()[row * 2], e0 / (e0 + e1), 1e-6);
        EXPECT_NEAR(r->outputs[0].f32()[row * 2 + 1], e1 / (e0 + e1), 1e-6);
    }
}

} // namespace
