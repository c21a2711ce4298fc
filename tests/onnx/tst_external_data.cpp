// External data inside the model's folder: kept lazily by default, loaded on
// demand (loadTensorData, loadExternalData) or at import (loadExternalData
// option) as a view into a shared read-only file mapping. Paths that leave the
// folder are must-fail cases in tests/error.
#include "core/onnx/external_data.h"
#include "core/onnx/importer.h"
#include "core/support/filemapping.h"

#include <cstring>
#include <gtest/gtest.h>

#include "tests/onnx/proto_builder.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using onnxtest::ProtoBuilder;

class ExternalData : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = onnxtest::makeTempDir("external");
        for (int i = 0; i < 16; ++i)
            m_weights.push_back(0.5f * static_cast<float>(i));
    }
    void TearDown() override { fs::remove_all(m_dir); }

    // x[2,4] · W[4,4] with W at `location`, `offset` bytes into its file.
    fs::path writeModel(const std::string &location, std::int64_t offset)
    {
        fs::create_directories((m_dir / location).parent_path());
        std::string file(static_cast<std::size_t>(offset), 'p');
        file.append(reinterpret_cast<const char *>(m_weights.data()), m_weights.size() * sizeof(float));
        onnxtest::writeFile(m_dir / location, file);

        ProtoBuilder m;
        m.input("x", {2, 4});
        auto *w = m.graph().add_initializer();
        w->set_name("W");
        w->set_data_type(::onnx::TensorProto::FLOAT);
        w->add_dims(4);
        w->add_dims(4);
        w->set_data_location(::onnx::TensorProto::EXTERNAL);
        for (const auto &[k, v] : {std::pair<std::string, std::string>{"location", location},
                                   {"offset", std::to_string(offset)},
                                   {"length", std::to_string(m_weights.size() * sizeof(float))}}) {
            auto *e = w->add_external_data();
            e->set_key(k);
            e->set_value(v);
        }
        m.node("MatMul", {"x", "W"}, {"y"}, "matmul");
        m.output("y", {2, 4});
        m.write(m_dir / "model.onnx");
        return m_dir / "model.onnx";
    }

    bool holdsWeights(const TensorData &d) const
    {
        return d.view().size() == m_weights.size() * sizeof(float) &&
               std::memcmp(d.view().data(), m_weights.data(), d.view().size()) == 0;
    }

    fs::path m_dir;
    std::vector<float> m_weights;
};

TEST_F(ExternalData, IsKeptLazilyAndLoadsOnDemand)
{
    auto r = importModel(writeModel("weights/w.bin", 24).string());
    ASSERT_TRUE(r) << r.status().str();
    const Tensor &w = r->graph.tensor(r->graph.findTensor("W"));
    ASSERT_TRUE(w.isConstant());
    ASSERT_TRUE(w.data->isExternal());
    EXPECT_TRUE(w.data->view().empty());
    EXPECT_EQ(w.data->external->path, fs::canonical(m_dir / "weights/w.bin").string());
    EXPECT_EQ(w.data->external->offset, 24);
    EXPECT_EQ(w.data->external->length, 64);
    EXPECT_EQ(w.data->byteSize(), 64);

    auto loaded = loadTensorData(w.data);
    ASSERT_TRUE(loaded) << loaded.status().str();
    EXPECT_FALSE((*loaded)->isExternal());
    EXPECT_TRUE(holdsWeights(**loaded));

    Graph g = r->graph;
    ASSERT_TRUE(loadExternalData(g));
    EXPECT_TRUE(holdsWeights(*g.tensor(g.findTensor("W")).data));
}

TEST_F(ExternalData, LoadsAtImportWhenAsked)
{
    ImportOptions o;
    o.loadExternalData = true;
    auto r = importModel(writeModel("w.bin", 0).string(), o);
    ASSERT_TRUE(r) << r.status().str();
    const TensorData &d = *r->graph.tensor(r->graph.findTensor("W")).data;
    EXPECT_FALSE(d.isExternal());
    EXPECT_TRUE(holdsWeights(d));
}

TEST_F(ExternalData, SymlinkInsideTheFolderIsFollowed)
{
    const fs::path model = writeModel("real/w.bin", 0);
    fs::create_symlink(m_dir / "real/w.bin", m_dir / "link.bin");
    // Point the model at the link by rewriting its location.
    ::onnx::ModelProto proto;
    const std::string bytes = onnxtest::readFile(model);
    ASSERT_TRUE(proto.ParseFromString(bytes));
    proto.mutable_graph()->mutable_initializer(0)->mutable_external_data(0)->set_value("link.bin");
    onnxtest::writeFile(model, proto.SerializeAsString());
    auto r = importModel(model.string());
    ASSERT_TRUE(r) << r.status().str();
    EXPECT_EQ(r->graph.tensor(r->graph.findTensor("W")).data->external->path,
              fs::canonical(m_dir / "real/w.bin").string());
}

TEST_F(ExternalData, DataFileRemovedAfterImportFailsToLoad)
{
    auto r = importModel(writeModel("w.bin", 0).string());
    ASSERT_TRUE(r) << r.status().str();
    fs::remove(m_dir / "w.bin");
    auto loaded = loadTensorData(r->graph.tensor(r->graph.findTensor("W")).data);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.status().code(), ErrorCode::Io);
}

TEST_F(ExternalData, ModelFromBytesWithoutAFolderIsRefused)
{
    const std::string bytes = onnxtest::readFile(writeModel("w.bin", 0));
    auto r = importModelFromBytes(bytes, "");
    ASSERT_FALSE(r);
    EXPECT_NE(r.status().message().find("needs the model's folder"), std::string::npos) << r.status().str();
    EXPECT_EQ(r.status().location().tensor, "W");

    auto ok = importModelFromBytes(bytes, (m_dir / "model.onnx").string());
    EXPECT_TRUE(ok) << ok.status().str();
}

TEST_F(ExternalData, MappedDataEqualsThePreadBytes)
{
    auto r = importModel(writeModel("w.bin", 24).string());
    ASSERT_TRUE(r) << r.status().str();
    const auto &lazy = r->graph.tensor(r->graph.findTensor("W")).data;
    auto loaded = loadTensorData(lazy);
    ASSERT_TRUE(loaded) << loaded.status().str();
    ASSERT_TRUE((*loaded)->isMapped());
    EXPECT_TRUE((*loaded)->bytes.empty()); // nothing copied
    auto read = readExternalData(*lazy->external);
    ASSERT_TRUE(read) << read.status().str();
    ASSERT_EQ((*loaded)->view().size(), read->size());
    EXPECT_TRUE(std::equal(read->begin(), read->end(), (*loaded)->view().begin()));
    // The typed helpers read mapped data too.
    ASSERT_NE((*loaded)->f32(), nullptr);
    EXPECT_EQ((*loaded)->f32()[15], m_weights[15]);
    EXPECT_EQ((*loaded)->floatAt(3), m_weights[3]);
    EXPECT_EQ((*loaded)->byteSize(), 64);

    // Twin: the comparison fails for another range of the same file.
    auto shifted = readExternalData({lazy->external->path, lazy->external->offset - 4, lazy->external->length});
    ASSERT_TRUE(shifted) << shifted.status().str();
    EXPECT_FALSE(std::equal(shifted->begin(), shifted->end(), (*loaded)->view().begin()));
}

TEST_F(ExternalData, MisalignedOffsetIsCopiedNotMapped)
{
    auto r = importModel(writeModel("w.bin", 6).string()); // 6 is not a multiple of sizeof(float)
    ASSERT_TRUE(r) << r.status().str();
    auto loaded = loadTensorData(r->graph.tensor(r->graph.findTensor("W")).data);
    ASSERT_TRUE(loaded) << loaded.status().str();
    EXPECT_FALSE((*loaded)->isMapped());
    EXPECT_TRUE(holdsWeights(**loaded));
    ASSERT_NE((*loaded)->f32(), nullptr);
    EXPECT_EQ((*loaded)->f32()[15], m_weights[15]);
}

// Two tensors viewing `files` (one per tensor) at offsets 0 and 64 of a 128-byte file.
Graph twoTensorGraph(const std::vector<std::string> &files)
{
    Graph g;
    for (int i = 0; i < 2; ++i) {
        auto d = std::make_shared<TensorData>();
        d->dtype = DType::Float32;
        d->shape = {16};
        d->external = TensorData::External{files[static_cast<std::size_t>(i)], 64 * i, 64};
        Tensor t;
        t.name = "w" + std::to_string(i);
        t.dtype = DType::Float32;
        t.shape = {16};
        t.kind = Tensor::Kind::Initializer;
        t.data = std::move(d);
        g.addTensor(std::move(t));
    }
    return g;
}

TEST_F(ExternalData, TwoTensorsOfOneFileShareOneMapping)
{
    onnxtest::writeFile(m_dir / "both.bin", std::string(128, 'x'));
    const std::string file = (m_dir / "both.bin").string();
    const std::size_t live = liveFileMappings();
    {
        Graph g = twoTensorGraph({file, file});
        ASSERT_TRUE(loadExternalData(g));
        const TensorData &a = *g.tensor(0).data, &b = *g.tensor(1).data;
        ASSERT_TRUE(a.isMapped() && b.isMapped());
        EXPECT_EQ(a.mapped->file, b.mapped->file);
        EXPECT_EQ(liveFileMappings(), live + 1);
        EXPECT_EQ(b.view().data(), a.view().data() + 64);
        // A later load of the same unchanged file reuses the live mapping.
        auto again = loadTensorData(twoTensorGraph({file, file}).tensor(0).data);
        ASSERT_TRUE(again) << again.status().str();
        EXPECT_EQ((*again)->mapped->file, a.mapped->file);
    }
    EXPECT_EQ(liveFileMappings(), live); // unmapped with the last user
}

TEST_F(ExternalData, TensorsOfTwoFilesMapTwice)
{
    onnxtest::writeFile(m_dir / "a.bin", std::string(128, 'a'));
    onnxtest::writeFile(m_dir / "b.bin", std::string(128, 'b'));
    const std::size_t live = liveFileMappings();
    Graph g = twoTensorGraph({(m_dir / "a.bin").string(), (m_dir / "b.bin").string()});
    ASSERT_TRUE(loadExternalData(g));
    EXPECT_NE(g.tensor(0).data->mapped->file, g.tensor(1).data->mapped->file);
    EXPECT_EQ(liveFileMappings(), live + 2);
    EXPECT_EQ(g.tensor(0).data->view()[0], 'a');
    EXPECT_EQ(g.tensor(1).data->view()[0], 'b');
}

TEST_F(ExternalData, FileShrunkAfterImportIsRefusedNotMapped)
{
    auto r = importModel(writeModel("w.bin", 24).string());
    ASSERT_TRUE(r) << r.status().str();
    fs::resize_file(m_dir / "w.bin", 24 + 60); // 4 bytes short: touching them through a mapping would SIGBUS
    auto loaded = loadTensorData(r->graph.tensor(r->graph.findTensor("W")).data);
    ASSERT_FALSE(loaded);
    EXPECT_EQ(loaded.status().code(), ErrorCode::Io);
    EXPECT_NE(loaded.status().message().find("shorter than recorded at import"), std::string::npos)
        << loaded.status().str();
    Graph g = r->graph;
    EXPECT_FALSE(loadExternalData(g));
}

TEST_F(ExternalData, FileGrownAfterImportStillLoads)
{
    auto r = importModel(writeModel("w.bin", 24).string());
    ASSERT_TRUE(r) << r.status().str();
    fs::resize_file(m_dir / "w.bin", 24 + 64 + 4096);
    auto loaded = loadTensorData(r->graph.tensor(r->graph.findTensor("W")).data);
    ASSERT_TRUE(loaded) << loaded.status().str();
    EXPECT_TRUE((*loaded)->isMapped());
    EXPECT_TRUE(holdsWeights(**loaded));
}

} // namespace
} // namespace tessera
