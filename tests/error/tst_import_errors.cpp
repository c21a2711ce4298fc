// Must-fail ONNX inputs: each class of broken or hostile model is generated
// here into a temporary folder, imported, and must fail with its specific
// diagnostic, an InvalidInput/Io exit class and a Location naming the file,
// node or tensor. The unknown-op case is the negative twin of failure: it
// imports, as an opaque node with a warning.
#include "core/onnx/importer.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <gtest/gtest.h>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "tests/onnx/proto_builder.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;
using onnxtest::ProtoBuilder;

struct Expect {
    std::string message;     // substring of the diagnostic's message
    std::string node = {};   // Location::node, when the problem has one
    std::string tensor = {}; // Location::tensor, when the problem has one
    ErrorCode code = ErrorCode::InvalidInput;
};

class ImportErrors : public ::testing::Test
{
protected:
    void SetUp() override { m_dir = onnxtest::makeTempDir("errors"); }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string write(const std::string &name, const std::string &bytes)
    {
        onnxtest::writeFile(m_dir / name, bytes);
        return (m_dir / name).string();
    }

    // Imports `path` and checks the failure against `e`.
    void expectFailure(const std::string &path, const Expect &e)
    {
        auto r = importModel(path);
        ASSERT_FALSE(r) << "imported a model that must fail: " << path;
        const Status s = r.status();
        EXPECT_EQ(s.code(), e.code) << s.str();
        EXPECT_EQ(exitCodeFor(s.code()), 3) << s.str();
        EXPECT_NE(s.message().find(e.message), std::string::npos) << "expected '" << e.message << "' in: " << s.str();
        EXPECT_EQ(s.location().file, path) << s.str();
        EXPECT_EQ(s.location().node, e.node) << s.str();
        EXPECT_EQ(s.location().tensor, e.tensor) << s.str();
        EXPECT_EQ(s.str().find('\n'), std::string::npos) << "diagnostics are one line: " << s.str();
    }

    // x[2,3] → Relu → y with x's dims replaced.
    std::string reluWithInputDims(const std::string &name, const std::vector<onnxtest::Dim> &dims)
    {
        ProtoBuilder m;
        m.input("x", dims);
        m.node("Relu", {"x"}, {"y"}, "relu");
        m.output("y", dims);
        return write(name, m.bytes());
    }

    // x[2,4] · W[4,4] with W's external data described by `entries`.
    std::string externalModel(const std::vector<std::pair<std::string, std::string>> &entries)
    {
        onnxtest::writeFile(m_dir / "w.bin", std::string(64, '\0'));
        ProtoBuilder m;
        m.input("x", {2, 4});
        auto *w = m.graph().add_initializer();
        w->set_name("W");
        w->set_data_type(::onnx::TensorProto::FLOAT);
        w->add_dims(4);
        w->add_dims(4);
        w->set_data_location(::onnx::TensorProto::EXTERNAL);
        for (const auto &[k, v] : entries) {
            auto *e = w->add_external_data();
            e->set_key(k);
            e->set_value(v);
        }
        m.node("MatMul", {"x", "W"}, {"y"}, "matmul");
        m.output("y", {2, 4});
        return write("model.onnx", m.bytes());
    }

    fs::path m_dir;
};

// --- the file itself ----------------------------------------------------------

TEST_F(ImportErrors, NonExistentPath)
{
    expectFailure((m_dir / "missing.onnx").string(), {"No such file", {}, {}, ErrorCode::Io});
}

TEST_F(ImportErrors, EmptyFile)
{
    expectFailure(write("empty.onnx", ""), {"file is empty"});
}

TEST_F(ImportErrors, TruncatedProtobuf)
{
    const std::string model = onnxtest::readFile(onnxtest::nodeTestModel("test_conv_with_strides_padding"));
    ASSERT_GT(model.size(), 150u);
    expectFailure(write("truncated.onnx", model.substr(0, 150)), {"corrupt or truncated"});
}

TEST_F(ImportErrors, RandomGarbageBytes)
{
    std::mt19937 rng(20240607);
    std::string bytes(4096, '\0');
    for (char &c : bytes)
        c = static_cast<char>(rng());
    expectFailure(write("garbage.onnx", bytes), {"not a valid onnx model"});
}

TEST_F(ImportErrors, TinyFileClaimingAHugeInitializerIsRefusedBeforeAllocating)
{
    ProtoBuilder m;
    m.input("x", {1});
    m.floats("w", {1000000, 1000000}, {1.f}); // 10^12 elements, 4 bytes of data
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y", {1000000, 1000000});
    const std::string bytes = m.bytes();
    ASSERT_LT(bytes.size(), 4096u);
    const auto start = std::chrono::steady_clock::now();
    expectFailure(write("huge.onnx", bytes), {"larger than the limit of 17179869184 bytes", {}, "w"});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(ImportErrors, InitializerRawDataShorterThanItsShape)
{
    ProtoBuilder m;
    m.input("x", {100000000});
    m.floats("w", {100000000}, {1.f}); // 400 MB claimed, 4 bytes present
    m.node("Add", {"x", "w"}, {"y"}, "add");
    m.output("y", {100000000});
    expectFailure(write("short.onnx", m.bytes()),
                  {"has 4 bytes of raw_data but its shape 100000000 f32 needs 400000000", {}, "w"});
}

// --- declared shapes ----------------------------------------------------------

TEST_F(ImportErrors, NegativeDim)
{
    expectFailure(reluWithInputDims("negative.onnx", {2, -3}), {"negative dimension -3 (axis 1)", {}, "x"});
}

TEST_F(ImportErrors, DimsWhoseElementCountOverflows)
{
    const std::int64_t big = std::int64_t(1) << 40;
    expectFailure(reluWithInputDims("overflow.onnx", {big, big}), {"overflows the int64 element count", {}, "x"});
}

TEST_F(ImportErrors, RankAboveTheLimit)
{
    expectFailure(reluWithInputDims("rank.onnx", {1, 1, 1, 1, 1, 1, 1, 1, 1}), {"has rank 9", {}, "x"});
}

TEST_F(ImportErrors, InconsistentShapes)
{
    ProtoBuilder m;
    m.input("a", {2, 3});
    m.input("b", {4, 5});
    m.node("Add", {"a", "b"}, {"y"}, "add");
    m.output("y", {2, 3});
    expectFailure(write("inconsistent.onnx", m.bytes()), {"inconsistent shapes", "add", "b"});
}

TEST_F(ImportErrors, OnnxCheckerFailureNamesTheNode)
{
    ProtoBuilder m;
    m.input("x", {2, 3});
    ProtoBuilder::attr(m.node("Relu", {"x"}, {"y"}, "relu"), "bogus", std::int64_t(1));
    m.output("y", {2, 3});
    expectFailure(write("checker.onnx", m.bytes()), {"onnx checker: Unrecognized attribute: bogus", "relu"});
}

TEST_F(ImportErrors, ZeroStrideThatWouldCrashOnnxShapeInference)
{
    ProtoBuilder m;
    m.input("x", {1, 1, 7, 5});
    m.floats("W", {1, 1, 3, 3}, std::vector<float>(9, 1.f));
    auto &conv = m.node("Conv", {"x", "W"}, {"y"}, "conv");
    ProtoBuilder::attr(conv, "strides", std::vector<std::int64_t>{0, 2});
    m.output("y", {1, 1, 4, 3});
    expectFailure(write("stride.onnx", m.bytes()), {"attribute 'strides' has value 0, it must be at least 1", "conv"});
}

TEST_F(ImportErrors, ModelThatCrashesOnnxShapeInferenceIsContained)
{
    // Found by fuzz_import: libonnx 1.12's ConvTranspose inference reads
    // W's dims 2.. without checking W's rank; S6 runs it in a child process.
    ProtoBuilder m(11, 6);
    m.input("X", {1, 1, 3, 3});
    m.input("W", {1, 2});
    m.node("ConvTranspose", {"X", "W"}, {"Y"}, "deconv");
    m.output("Y", {1, 2, 5, 5});
    expectFailure(write("crash.onnx", m.bytes()), {"onnx shape inference crashed ("});
}

// S6 runs libonnx in the helper process tessera-onnx-check, spawned fresh (a
// child forked from a multi-threaded program may wait forever for a lock
// another thread held: core/onnx/onnx_checks.cpp). A model whose 1 MiB weight
// stays out of what the helper gets still checks and infers: its output
// shape comes back. Twin: a helper that is not libonnx (/bin/false, exiting
// 1 with nothing written) is reported as the check's crash, so the import
// does ask the helper.
TEST_F(ImportErrors, OnnxChecksRunInTheSpawnedHelper)
{
    ProtoBuilder m;
    m.input("x", {4, 512});
    m.floats("W", {512, 512}, std::vector<float>(512 * 512, 0.5f)); // 1 MiB: set aside for the helper
    m.node("MatMul", {"x", "W"}, {"y"}, "mm");
    m.output("y", {4, 512});
    const std::string path = write("large-weight.onnx", m.bytes());
    auto ok = importModel(path);
    ASSERT_TRUE(ok.isOk()) << ok.status().str();
    const TensorId w = ok->graph.findTensor("W");
    ASSERT_NE(w, kInvalidId);
    ASSERT_TRUE(ok->graph.tensor(w).isConstant()); // the weight is back, with its data
    EXPECT_EQ(ok->graph.tensor(w).data->bytes.size(), std::size_t{512 * 512 * 4});
    EXPECT_EQ(ok->graph.tensor(ok->graph.outputs[0]).shape, (Shape{4, 512}));

    ::setenv("TESSERA_ONNX_CHECK", "/bin/false", 1);
    auto broken = importModel(path);
    ::unsetenv("TESSERA_ONNX_CHECK");
    ASSERT_FALSE(broken.isOk());
    EXPECT_NE(broken.status().message().find("onnx checker crashed (exit status 1)"), std::string::npos)
        << broken.status().str();
}

// Imports while other threads of the program allocate (the workbench lays
// out a graph while a model loads): each finishes, well inside a 20 s libonnx
// timeout (a check that waited for a lock would fail at that timeout, not
// hang the test). Run under the asan preset by .ci/asan-subset. A guard, not
// a reproduction: the fork hazard the helper removes needs a thread to hold
// an allocator lock at the instant of fork(), which these threads make
// possible but not likely (with the fork fallback, TESSERA_ONNX_CHECK set to
// nothing runnable, it passed 4 of 4 runs under ASan); the workbench tests
// that hung one load in three before the helper are the reproduction.
TEST_F(ImportErrors, ImportsBesideAllocatingThreadsNeverWaitForALock)
{
    ProtoBuilder m;
    m.input("x", {2, 8});
    m.node("Relu", {"x"}, {"y"}, "relu");
    m.output("y", {2, 8});
    const std::string path = write("small.onnx", m.bytes());
    std::atomic<bool> stop{false};
    std::vector<std::thread> churn;
    for (int t = 0; t < 2; ++t)
        churn.emplace_back([&] {
            // Bursts of small blocks of every size class up to 1 KiB, so the
            // allocator's shared free lists (and their locks) are taken all
            // the time, not only the thread's own cache.
            std::vector<char *> burst(512);
            for (std::size_t round = 0; !stop.load(std::memory_order_relaxed); ++round) {
                for (std::size_t i = 0; i < burst.size(); ++i)
                    burst[i] = new char[16 + (round * 16 + i) % 1024];
                for (char *p : burst)
                    delete[] p;
            }
        });
    ImportOptions options;
    options.onnxTimeoutSeconds = 20;
    int ok = 0;
    for (int i = 0; i < 20; ++i) {
        auto r = importModel(path, options);
        EXPECT_TRUE(r.isOk()) << "import " << i << ": " << r.status().str();
        ok += r.isOk();
    }
    stop = true;
    for (std::thread &t : churn)
        t.join();
    EXPECT_EQ(ok, 20);
}

// --- structure ------------------------------------------------------------------

TEST_F(ImportErrors, Cycle)
{
    ProtoBuilder m;
    m.input("x", {2, 2});
    m.node("Add", {"x", "t2"}, {"t1"}, "add");
    m.node("Relu", {"t1"}, {"t2"}, "relu");
    m.output("t2", {2, 2});
    auto path = write("cycle.onnx", m.bytes());
    auto r = importModel(path);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(r.status().message().find("cycle"), std::string::npos) << r.status().str();
    EXPECT_EQ(r.status().location().file, path);
    const std::string node = r.status().location().node;
    EXPECT_TRUE(node == "add" || node == "relu") << r.status().str();
}

TEST_F(ImportErrors, DanglingInput)
{
    ProtoBuilder m;
    m.input("x", {2, 2});
    m.node("Add", {"x", "nowhere"}, {"y"}, "add");
    m.output("y", {2, 2});
    expectFailure(write("dangling.onnx", m.bytes()), {"dangling input", "add", "nowhere"});
}

TEST_F(ImportErrors, DuplicateProducer)
{
    ProtoBuilder m;
    m.input("x", {2, 2});
    m.node("Relu", {"x"}, {"y"}, "first");
    m.node("Neg", {"x"}, {"y"}, "second");
    m.output("y", {2, 2});
    expectFailure(write("duplicate.onnx", m.bytes()), {"already produced by node 'first'", "second", "y"});
}

TEST_F(ImportErrors, UnknownOpImportsAsOpaqueWithAWarning)
{
    ProtoBuilder m;
    m.input("x", {2, 3});
    m.node("TesseraMadeUpOp", {"x"}, {"t"}, "madeup");
    m.valueInfo("t", {2, 3});
    m.node("Relu", {"t"}, {"y"}, "relu");
    m.output("y", {2, 3});
    auto r = importModel(write("unknown.onnx", m.bytes()));
    ASSERT_TRUE(r) << r.status().str();
    const Node &n = r->graph.node(r->graph.findNode("madeup"));
    EXPECT_TRUE(n.opaque);
    EXPECT_EQ(n.domain, "");
    bool warned = false;
    for (const Diagnostic &d : r->log.items())
        warned |= d.severity == Severity::Warning && d.message.find("'TesseraMadeUpOp'") != std::string::npos &&
                  d.location.node == "madeup";
    EXPECT_TRUE(warned);
}

// --- external data ----------------------------------------------------------------

TEST_F(ImportErrors, ExternalDataEscapingTheFolder)
{
    expectFailure(externalModel({{"location", "../../etc/passwd"}}), {"escapes the model's folder", {}, "W"});
}

TEST_F(ImportErrors, ExternalDataAbsolutePath)
{
    expectFailure(externalModel({{"location", "/etc/passwd"}}), {"is an absolute path", {}, "W"});
}

TEST_F(ImportErrors, ExternalDataSymlinkOutOfTheFolder)
{
    fs::create_symlink("/etc/passwd", m_dir / "link.bin");
    expectFailure(externalModel({{"location", "link.bin"}}), {"escapes the model's folder", {}, "W"});
}

TEST_F(ImportErrors, ExternalDataOffsetBeyondTheFile)
{
    expectFailure(externalModel({{"location", "w.bin"}, {"offset", "1000"}, {"length", "64"}}),
                  {"offset 1000 is beyond the end of 'w.bin' (64 bytes)", {}, "W"});
}

TEST_F(ImportErrors, ExternalDataLengthNotMatchingTheShape)
{
    expectFailure(externalModel({{"location", "w.bin"}, {"length", "32"}}),
                  {"length 32 does not match the 64 bytes", {}, "W"});
}

} // namespace
} // namespace tessera
