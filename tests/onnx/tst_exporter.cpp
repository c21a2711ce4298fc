// Export and round trip: import → export → import gives the same graph
// structure (names, ops, attributes, opaque flags, tensors, data), with data
// inline or in an external file.
#include "core/onnx/exporter.h"
#include "core/onnx/external_data.h"
#include "core/onnx/importer.h"

#include <gtest/gtest.h>

#include "tests/onnx/proto_builder.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using onnxtest::ProtoBuilder;

std::vector<std::uint8_t> bytesOf(const std::shared_ptr<const TensorData> &d)
{
    auto loaded = loadTensorData(d);
    EXPECT_TRUE(loaded) << loaded.status().str();
    if (!loaded)
        return {};
    const auto view = (*loaded)->view();
    return {view.begin(), view.end()};
}

void expectSameGraph(const Graph &a, const Graph &b)
{
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.opsetVersion, b.opsetVersion);
    ASSERT_EQ(a.nodeCount(), b.nodeCount());
    ASSERT_EQ(a.tensorCount(), b.tensorCount());
    auto names = [](const Graph &g, const std::vector<TensorId> &ids) {
        std::vector<std::string> out;
        for (TensorId id : ids)
            out.push_back(id == kInvalidId ? "" : g.tensor(id).name);
        return out;
    };
    EXPECT_EQ(names(a, a.inputs), names(b, b.inputs));
    EXPECT_EQ(names(a, a.outputs), names(b, b.outputs));
    for (NodeId i = 0; i < static_cast<NodeId>(a.nodeCount()); ++i) {
        const Node &x = a.node(i), &y = b.node(i);
        SCOPED_TRACE(x.name);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.opType, y.opType);
        EXPECT_EQ(x.domain, y.domain);
        EXPECT_EQ(x.opaque, y.opaque);
        EXPECT_EQ(names(a, x.inputs), names(b, y.inputs));
        EXPECT_EQ(names(a, x.outputs), names(b, y.outputs));
        ASSERT_EQ(x.attrs.size(), y.attrs.size());
        for (const auto &[key, attr] : x.attrs)
            EXPECT_EQ(attr.str(), y.attr(key) ? y.attr(key)->str() : "<missing>") << key;
    }
    for (const Tensor &t : a.tensors()) {
        SCOPED_TRACE(t.name);
        const TensorId id = b.findTensor(t.name);
        ASSERT_NE(id, kInvalidId);
        const Tensor &u = b.tensor(id);
        EXPECT_EQ(t.dtype, u.dtype);
        EXPECT_EQ(t.shape, u.shape);
        EXPECT_EQ(t.kind, u.kind);
        ASSERT_EQ(t.isConstant(), u.isConstant());
        if (t.isConstant()) {
            EXPECT_EQ(bytesOf(t.data), bytesOf(u.data));
        }
    }
}

// Conv + custom-domain opaque node + float/int attributes + initializers.
ProtoBuilder mixedModel()
{
    ProtoBuilder m;
    auto *op = m.model.add_opset_import();
    op->set_domain("com.example");
    op->set_version(3);
    m.input("x", {1, 2, 5, 5});
    std::vector<float> w(3 * 2 * 3 * 3);
    for (std::size_t i = 0; i < w.size(); ++i)
        w[i] = 0.01f * static_cast<float>(i);
    m.floats("w", {3, 2, 3, 3}, w);
    m.floats("b", {3}, {0.5f, -0.5f, 1.f});
    auto &conv = m.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
    ProtoBuilder::attr(conv, "pads", std::vector<std::int64_t>{1, 1, 1, 1});
    ProtoBuilder::attr(conv, "kernel_shape", std::vector<std::int64_t>{3, 3});
    auto &fancy = m.node("Fancy", {"c"}, {"f"}, "fancy");
    fancy.set_domain("com.example");
    ProtoBuilder::attr(fancy, "alpha", 0.25f);
    ProtoBuilder::attr(fancy, "mode", std::string("wide"));
    m.valueInfo("f", {1, 3, 5, 5});
    auto &lrelu = m.node("LeakyRelu", {"f"}, {"y"}, "lrelu");
    ProtoBuilder::attr(lrelu, "alpha", 0.125f);
    m.output("y", {1, 3, 5, 5});
    return m;
}

class Export : public ::testing::Test
{
protected:
    void SetUp() override { m_dir = onnxtest::makeTempDir("export"); }
    void TearDown() override { fs::remove_all(m_dir); }
    fs::path m_dir;
};

TEST_F(Export, RoundTripThroughBytesKeepsTheGraph)
{
    for (const char *model : {"test_conv_with_strides_padding", "test_gemm_all_attributes", "test_add_bcast"}) {
        SCOPED_TRACE(model);
        auto first = importModel(onnxtest::nodeTestModel(model));
        ASSERT_TRUE(first) << first.status().str();
        ExportOptions o;
        o.opsetImports = first->metadata.opsetImports;
        auto bytes = exportModelToBytes(first->graph, o);
        ASSERT_TRUE(bytes) << bytes.status().str();
        auto second = importModelFromBytes(*bytes, "roundtrip.onnx");
        ASSERT_TRUE(second) << second.status().str();
        expectSameGraph(first->graph, second->graph);
        EXPECT_EQ(second->metadata.producerName, "tessera");
    }
}

TEST_F(Export, RoundTripKeepsOpaqueNodesAttributesAndInitializers)
{
    auto first = importModelFromBytes(mixedModel().bytes(), "mixed.onnx");
    ASSERT_TRUE(first) << first.status().str();
    ASSERT_TRUE(first->graph.node(first->graph.findNode("fancy")).opaque);
    ExportOptions o;
    o.opsetImports = first->metadata.opsetImports;
    const fs::path path = m_dir / "mixed.onnx";
    ASSERT_TRUE(exportModel(first->graph, path.string(), o));
    EXPECT_FALSE(fs::exists(m_dir / "mixed.onnx.data")); // small: inline
    auto second = importModel(path.string());
    ASSERT_TRUE(second) << second.status().str();
    expectSameGraph(first->graph, second->graph);
    EXPECT_EQ(second->metadata.opsetImports.at("com.example"), 3);
}

TEST_F(Export, ExternalDataWhenAskedAndLazyOnReimport)
{
    auto first = importModelFromBytes(mixedModel().bytes(), "mixed.onnx");
    ASSERT_TRUE(first) << first.status().str();
    ExportOptions o;
    o.externalData = ExportOptions::ExternalData::Always;
    o.externalThreshold = 64; // w (216 B) goes out, b (12 B) stays inline
    o.opsetImports = first->metadata.opsetImports;
    const fs::path path = m_dir / "ext.onnx";
    ASSERT_TRUE(exportModel(first->graph, path.string(), o));
    ASSERT_TRUE(fs::exists(m_dir / "ext.onnx.data"));
    EXPECT_EQ(fs::file_size(m_dir / "ext.onnx.data"), 216u);
    EXPECT_FALSE(fs::exists(m_dir / "ext.onnx.tmp"));

    auto second = importModel(path.string());
    ASSERT_TRUE(second) << second.status().str();
    EXPECT_TRUE(second->graph.tensor(second->graph.findTensor("w")).data->isExternal());
    EXPECT_FALSE(second->graph.tensor(second->graph.findTensor("b")).data->isExternal());
    expectSameGraph(first->graph, second->graph);

    // A lazily imported graph exports inline elsewhere: the data is read as it is written.
    const fs::path other = m_dir / "sub";
    fs::create_directories(other);
    ASSERT_TRUE(exportModel(second->graph, (other / "inline.onnx").string(), {.opsetImports = o.opsetImports}));
    auto third = importModel((other / "inline.onnx").string());
    ASSERT_TRUE(third) << third.status().str();
    EXPECT_FALSE(third->graph.tensor(third->graph.findTensor("w")).data->isExternal());
    expectSameGraph(first->graph, third->graph);

    // Exporting over the data file `second` still reads lazily is refused, until its data is loaded.
    Status overwrite = exportModel(second->graph, path.string(), o);
    EXPECT_EQ(overwrite.code(), ErrorCode::Usage) << overwrite.str();
    EXPECT_EQ(overwrite.location().tensor, "w");
    Graph loaded = second->graph;
    ASSERT_TRUE(loadExternalData(loaded));
    ASSERT_TRUE(exportModel(loaded, path.string(), o));
    auto fourth = importModel(path.string());
    ASSERT_TRUE(fourth) << fourth.status().str();
    expectSameGraph(first->graph, fourth->graph);
}

TEST_F(Export, BadRequestsAreRefused)
{
    auto first = importModel(onnxtest::nodeTestModel("test_relu"));
    ASSERT_TRUE(first) << first.status().str();
    auto bytes = exportModelToBytes(first->graph, {.externalData = ExportOptions::ExternalData::Always});
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.status().code(), ErrorCode::Usage);

    Status escaping = exportModel(first->graph, (m_dir / "m.onnx").string(),
                                  {.externalData = ExportOptions::ExternalData::Always, .externalFile = "../m.data"});
    EXPECT_EQ(escaping.code(), ErrorCode::Usage);

    Status missingDir = exportModel(first->graph, (m_dir / "no/such/dir/m.onnx").string());
    EXPECT_EQ(missingDir.code(), ErrorCode::Io);
    EXPECT_TRUE(fs::is_empty(m_dir));
}

} // namespace
} // namespace tessera
