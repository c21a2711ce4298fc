// External weights are memory-mapped, not copied (issue 11 item 5): a model
// whose weights live in a side file runs on the reference and cpu backends
// exactly as with inline weights, and compiling it grows the heap by far less
// than the weights' size (measured with mallinfo2: uordblks + hblkhd, the
// malloc arena in use plus malloc's own mmapped blocks; file mappings are not
// heap). Each test has a negative twin showing the check can fail.
#include "backends/cpu/cpu.h"
#include "backends/reference/reference.h"
#include "core/onnx/external_data.h"
#include "core/support/filemapping.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

std::vector<std::vector<NodeId>> perNode(const Graph &g)
{
    std::vector<std::vector<NodeId>> k;
    for (std::size_t i = 0; i < g.nodeCount(); ++i)
        k.push_back({static_cast<NodeId>(i)});
    return k;
}

std::int64_t heapInUse()
{
    const struct mallinfo2 m = ::mallinfo2();
    return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}

// mallinfo2 sees glibc's malloc only (not a sanitizer's): probe that it counts 8 MiB.
bool heapIsMeasurable()
{
    const std::int64_t before = heapInUse();
    auto probe = std::make_unique<std::vector<char>>(std::size_t{8} << 20, char{1});
    return heapInUse() - before >= (std::int64_t{8} << 20) && probe->back() == 1;
}

class MappedWeights : public ::testing::Test
{
protected:
    void SetUp() override
    {
        m_dir = fs::temp_directory_path() / ("tessera-mapped-" + std::to_string(::getpid()));
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    // Moves every initializer of `g` into one file (`scale` times its value,
    // each at a 64-byte aligned offset), leaving lazy external references.
    Graph externalized(const Graph &g, float scale = 1.f)
    {
        Graph out = g;
        const std::string file = (m_dir / "weights.bin").string();
        std::ofstream os(file, std::ios::binary);
        std::int64_t at = 0;
        for (std::size_t i = 0; i < out.tensorCount(); ++i) {
            Tensor &t = out.tensor(static_cast<TensorId>(i));
            if (!t.data || t.data->dtype != DType::Float32)
                continue;
            std::vector<std::uint8_t> bytes(t.data->view().begin(), t.data->view().end());
            for (std::size_t k = 0; k + 4 <= bytes.size(); k += 4) {
                float v;
                std::memcpy(&v, bytes.data() + k, 4);
                v *= scale;
                std::memcpy(bytes.data() + k, &v, 4);
            }
            const std::int64_t pad = (64 - at % 64) % 64;
            os << std::string(static_cast<std::size_t>(pad), '\0');
            at += pad;
            os.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
            auto ext = std::make_shared<TensorData>();
            ext->dtype = t.data->dtype;
            ext->shape = t.data->shape;
            ext->external = TensorData::External{file, at, static_cast<std::int64_t>(bytes.size())};
            at += static_cast<std::int64_t>(bytes.size());
            t.data = std::move(ext);
        }
        return out;
    }

    fs::path m_dir;
};

bool sameOutputs(const RunResult &a, const RunResult &b)
{
    if (a.outputs.size() != b.outputs.size() || a.outputs.empty())
        return false;
    for (std::size_t i = 0; i < a.outputs.size(); ++i)
        if (!planutil::bitEqual(a.outputs[i], b.outputs[i]))
            return false;
    return true;
}

TEST_F(MappedWeights, RunOnReferenceAndCpuLikeInlineWeights)
{
    const Graph inl = testgraphs::residualChain(2);
    const Graph ext = externalized(inl);
    const ExecutionPlan plan = planutil::wholePlan(inl, perNode(inl));
    const auto inputs = planutil::makeInputs(inl, 5);
    for (const bool cpu : {false, true}) {
        const std::unique_ptr<IBackend> backend = cpu ? createCpuBackend() : createReferenceBackend();
        auto a = planutil::compileAndRun(*backend, inl, plan, inputs);
        auto b = planutil::compileAndRun(*backend, ext, plan, inputs);
        ASSERT_TRUE(a.isOk()) << backend->info().name << ": " << a.status().str();
        ASSERT_TRUE(b.isOk()) << backend->info().name << ": " << b.status().str();
        EXPECT_TRUE(sameOutputs(*a, *b)) << backend->info().name;
    }
}

TEST_F(MappedWeights, OtherExternalWeightsGiveOtherOutputs) // twin: the comparison sees the file's values
{
    const Graph inl = testgraphs::residualChain(2);
    const Graph ext = externalized(inl, 2.f);
    const ExecutionPlan plan = planutil::wholePlan(inl, perNode(inl));
    const auto inputs = planutil::makeInputs(inl, 5);
    for (const bool cpu : {false, true}) {
        const std::unique_ptr<IBackend> backend = cpu ? createCpuBackend() : createReferenceBackend();
        auto a = planutil::compileAndRun(*backend, inl, plan, inputs);
        auto b = planutil::compileAndRun(*backend, ext, plan, inputs);
        ASSERT_TRUE(a.isOk() && b.isOk()) << backend->info().name;
        EXPECT_FALSE(sameOutputs(*a, *b)) << backend->info().name;
    }
}

// y = x[1,K] · W[K,N] with 64 MiB of float weights.
constexpr std::int64_t kK = 4096, kN = 4096, kWeightBytes = kK * kN * 4;

Graph bigMatMul()
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, kK}, Tensor::Kind::Input);
    g.inputs = {x};
    Tensor w;
    w.name = "W";
    w.shape = {kK, kN};
    w.kind = Tensor::Kind::Initializer;
    const TensorId wid = g.addTensor(std::move(w));
    g.outputs = {testgraphs::op(g, "mm", "MatMul", {x, wid}, {1, kN})};
    return g;
}

// bigMatMul's weights, all 0.25, as a raw float32 file in the fixture's folder.
class BigMappedWeights : public MappedWeights
{
protected:
    std::string bigWeightsFile() const
    {
        const std::string file = (m_dir / "big.bin").string();
        std::ofstream os(file, std::ios::binary);
        const std::vector<float> row(kN, 0.25f);
        for (std::int64_t r = 0; r < kK; ++r)
            os.write(reinterpret_cast<const char *>(row.data()), static_cast<std::streamsize>(kN * 4));
        return file;
    }
};

TEST_F(BigMappedWeights, CompilingLargeExternalWeightsBarelyGrowsTheHeap)
{
    if (!heapIsMeasurable())
        GTEST_SKIP() << "mallinfo2 does not see this process's allocator (a sanitizer build)";
    const std::string file = bigWeightsFile();
    Graph g = bigMatMul();
    auto ext = std::make_shared<TensorData>();
    ext->dtype = DType::Float32;
    ext->shape = {kK, kN};
    ext->external = TensorData::External{file, 0, kWeightBytes};
    g.tensor(g.findTensor("W")).data = ext;
    const ExecutionPlan plan = planutil::wholePlan(g, perNode(g));
    auto backend = createReferenceBackend();

    const std::int64_t before = heapInUse();
    auto compiled = backend->compile(g, plan);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    const std::int64_t growth = heapInUse() - before;
    EXPECT_LT(growth, kWeightBytes / 16) << growth << " bytes of heap for " << kWeightBytes << " bytes of weights";
    EXPECT_GE(liveFileMappings(), 1u);
    const auto inputs = planutil::makeInputs(g, 3);
    auto r = backend->run(**compiled, inputs, {});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    double sum = 0;
    for (std::int64_t i = 0; i < kK; ++i)
        sum += inputs[0].f32()[i];
    EXPECT_NEAR(r->outputs[0].f32()[kN - 1], 0.25 * sum, 1e-3);
}

TEST_F(BigMappedWeights, CompilingLargeInlineWeightsDoesGrowTheHeap) // twin: the measure sees heap copies
{
    if (!heapIsMeasurable())
        GTEST_SKIP() << "mallinfo2 does not see this process's allocator (a sanitizer build)";
    const std::string file = bigWeightsFile();
    Graph g = bigMatMul();
    const ExecutionPlan plan = planutil::wholePlan(g, perNode(g));
    auto backend = createReferenceBackend();

    const std::int64_t before = heapInUse();
    // The pre-mapping path: the weights read into the heap, then compiled.
    auto bytes = readExternalData(TensorData::External{file, 0, kWeightBytes});
    ASSERT_TRUE(bytes.isOk()) << bytes.status().str();
    auto inl = std::make_shared<TensorData>();
    inl->dtype = DType::Float32;
    inl->shape = {kK, kN};
    inl->bytes = std::move(*bytes);
    g.tensor(g.findTensor("W")).data = std::move(inl);
    auto compiled = backend->compile(g, plan);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    EXPECT_GE(heapInUse() - before, kWeightBytes);
}

} // namespace
} // namespace tessera
