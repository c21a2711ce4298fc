// ModelBuilder: shape tracking, naming, seeded weights, the checker gate in
// finish(), and saveModel with and without external data.
#include "samples/builder.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <unistd.h>

#include "sampletest.h"

using namespace tessera;
using namespace tessera::samples;
using tessera::samples::test::dimsOf;

namespace {

using Shape = std::vector<std::int64_t>;

const onnx::TensorProto *findInitializer(const onnx::ModelProto &m, const std::string &name)
{
    for (const onnx::TensorProto &t : m.graph().initializer())
        if (t.name() == name)
            return &t;
    return nullptr;
}

std::vector<float> floatsOf(const onnx::TensorProto &t)
{
    std::vector<float> v(t.raw_data().size() / sizeof(float));
    std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
    return v;
}

// A small CNN touching most helpers.
std::unique_ptr<onnx::ModelProto> smallCnn(std::uint64_t seed)
{
    ModelBuilder b("small", seed);
    std::string x = b.input("x", {2, 3, 32, 32});
    {
        ScopeGuard s(b, "stem");
        x = b.relu(b.batchNorm(b.conv(x, "conv", 16, 3, 2), "bn"), "relu");
    }
    x = b.maxPool(x, "pool", 3, 2, 1);
    const std::string y = b.conv(x, "dw", 16, 3, 1, -1, 16);
    x = b.concat({x, y}, "cat");
    x = b.gemm(b.flatten(b.globalAvgPool(x, "gap"), "flatten"), "fc", 10);
    b.output(b.softmax(x, "softmax"));
    auto m = b.finish();
    EXPECT_TRUE(m.isOk()) << m.status().str();
    return m.isOk() ? std::move(m).value() : nullptr;
}

class TempDir
{
public:
    TempDir() : m_path(std::filesystem::temp_directory_path() / ("tst_samples_builder_" + std::to_string(::getpid())))
    {
        std::filesystem::create_directories(m_path);
    }
    ~TempDir() { std::filesystem::remove_all(m_path); }
    std::string file(const std::string &name) const { return (m_path / name).string(); }

private:
    std::filesystem::path m_path;
};

} // namespace

TEST(ModelBuilder, TracksConvAndPoolShapes)
{
    ModelBuilder b("shapes", 1);
    const std::string x = b.input("x", {1, 3, 224, 224});
    const std::string c = b.conv(x, "conv", 64, 7, 2);
    EXPECT_EQ(b.shape(c), (Shape{1, 64, 112, 112}));
    EXPECT_EQ(b.shape(b.maxPool(c, "pool", 3, 2, 1)), (Shape{1, 64, 56, 56}));
    EXPECT_EQ(b.shape(b.avgPool(c, "avg", 2, 2)), (Shape{1, 64, 56, 56}));
    EXPECT_EQ(b.shape(b.conv(c, "dilated", 8, 3, 1, -1, 1, 2)), (Shape{1, 8, 112, 112}));
    EXPECT_EQ(b.shape(b.conv2d(x, "asym", 8, {1, 7}, {1, 1}, {0, 3, 0, 3})), (Shape{1, 8, 224, 224}));
    const std::string seq = b.input("seq", {2, 10, 64});
    EXPECT_EQ(b.shape(b.linear(seq, "proj", 32)), (Shape{2, 10, 32}));
    EXPECT_EQ(b.shape(b.reshape(seq, "heads", {0, 0, 4, -1})), (Shape{2, 10, 4, 16}));
    EXPECT_EQ(b.shape(b.transpose(seq, "t", {0, 2, 1})), (Shape{2, 64, 10}));
    EXPECT_EQ(b.shape(b.conv(b.transpose(seq, "t", {0, 2, 1}), "conv1d", 64, 31, 1, -1, 64)), (Shape{2, 64, 10}));
    b.output(c);
    const auto m = b.finish();
    ASSERT_TRUE(m.isOk()) << m.status().str();
    EXPECT_EQ(dimsOf(m.value()->graph().output(0)), (Shape{1, 64, 112, 112}));
}

TEST(ModelBuilder, FinishRejectsAShapeThatInferenceContradicts)
{
    ModelBuilder b("lie", 1);
    const std::string x = b.input("x", {1, 3, 8, 8});
    // A 3×3 valid convolution gives 6×6; the recorded 8×8 must be caught.
    const std::string w = b.weight("w", {4, 3, 3, 3}, 0.1f);
    b.output(b.node("Conv", "conv", {x, w}, {ModelBuilder::aInts("kernel_shape", {3, 3})}, {{1, 4, 8, 8}}).front());
    const auto m = b.finish();
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), ErrorCode::Internal);
    EXPECT_NE(m.status().message().find("fails the onnx checker"), std::string::npos) << m.status().message();
}

TEST(ModelBuilder, FinishAcceptsAnHonestRawNode)
{
    ModelBuilder b("honest", 1);
    const std::string x = b.input("x", {1, 3, 8, 8});
    const std::string w = b.weight("w", {4, 3, 3, 3}, 0.1f);
    b.output(b.node("Conv", "conv", {x, w}, {ModelBuilder::aInts("kernel_shape", {3, 3})}, {{1, 4, 6, 6}}).front());
    const auto m = b.finish();
    EXPECT_TRUE(m.isOk()) << m.status().str();
}

TEST(ModelBuilder, ScopesPrefixNodeAndWeightNamesAndRepeatsGetSuffixes)
{
    ModelBuilder b("names", 1);
    std::string x = b.input("x", {1, 8, 4, 4});
    {
        ScopeGuard l(b, "layer1");
        ScopeGuard blk(b, "layer1.0");
        EXPECT_EQ(b.scoped("conv1"), "layer1/layer1.0/conv1");
        x = b.conv(x, "conv1", 8, 3);
        x = b.relu(x, "relu");
        x = b.relu(x, "relu");
    }
    EXPECT_EQ(b.scoped("fc"), "fc");
    b.output(x);
    const auto m = b.finish();
    ASSERT_TRUE(m.isOk()) << m.status().str();
    const auto &g = m.value()->graph();
    ASSERT_EQ(g.node_size(), 3);
    EXPECT_EQ(g.node(0).name(), "layer1/layer1.0/conv1");
    EXPECT_EQ(g.node(1).name(), "layer1/layer1.0/relu");
    EXPECT_EQ(g.node(2).name(), "layer1/layer1.0/relu_1");
    EXPECT_NE(findInitializer(*m.value(), "layer1/layer1.0/conv1.weight"), nullptr);
    EXPECT_NE(findInitializer(*m.value(), "layer1/layer1.0/conv1.bias"), nullptr);
}

TEST(ModelBuilder, WeightsAreSeededAndWithinScale)
{
    auto a = smallCnn(42), b = smallCnn(42), c = smallCnn(43);
    ASSERT_TRUE(a && b && c);
    EXPECT_EQ(a->SerializeAsString(), b->SerializeAsString());
    const onnx::TensorProto *wa = findInitializer(*a, "stem/conv.weight");
    const onnx::TensorProto *wc = findInitializer(*c, "stem/conv.weight");
    ASSERT_TRUE(wa && wc);
    EXPECT_NE(wa->raw_data(), wc->raw_data());
    // He-uniform bound for fan-in 3·3·3.
    const float bound = std::sqrt(6.0f / 27.0f);
    const std::vector<float> v = floatsOf(*wa);
    ASSERT_EQ(v.size(), 16u * 27u);
    float lo = 0, hi = 0;
    for (float f : v) {
        lo = std::min(lo, f);
        hi = std::max(hi, f);
    }
    EXPECT_GE(lo, -bound);
    EXPECT_LE(hi, bound);
    EXPECT_LT(lo, -bound / 2); // spread over the range, not collapsed
    EXPECT_GT(hi, bound / 2);
}

TEST(ModelBuilder, AWeightDoesNotDependOnTheOtherWeights)
{
    ModelBuilder b1("a", 7), b2("b", 7);
    const std::string x1 = b1.input("x", {1, 4});
    const std::string x2 = b2.input("x", {1, 4});
    b1.weight("extra", {100}, 1.0f);
    b1.output(b1.gemm(x1, "fc", 3));
    b2.output(b2.gemm(x2, "fc", 3));
    const auto m1 = b1.finish(), m2 = b2.finish();
    ASSERT_TRUE(m1.isOk() && m2.isOk());
    EXPECT_EQ(findInitializer(*m1.value(), "fc.weight")->raw_data(),
              findInitializer(*m2.value(), "fc.weight")->raw_data());
    EXPECT_NE(findInitializer(*m1.value(), "fc.weight")->raw_data(),
              findInitializer(*m1.value(), "fc.bias")->raw_data());
}

// Weights up to the limit are synthesized; the one that crosses it is refused
// with its name, nothing past it is generated, and finish() fails.
TEST(ModelBuilder, WeightsWithinTheParameterLimitAreBuilt)
{
    ModelBuilder b("m", 1);
    b.setParameterLimit(4 * 3 + 3);
    const std::string x = b.input("x", {1, 4});
    b.output(b.gemm(x, "fc", 3));
    EXPECT_TRUE(b.status().isOk());
    EXPECT_EQ(b.parameterCount(), 15);
    EXPECT_TRUE(b.finish().isOk());
}

TEST(ModelBuilder, AWeightPastTheParameterLimitIsRefusedByName)
{
    ModelBuilder b("m", 1);
    b.setParameterLimit(4 * 3 + 2);
    const std::string x = b.input("x", {1, 4});
    b.output(b.gemm(x, "fc", 3)); // weight 12 fits, bias 3 does not
    ASSERT_FALSE(b.status().isOk());
    EXPECT_NE(b.status().message().find("'fc.bias'"), std::string::npos) << b.status().str();
    EXPECT_EQ(b.parameterCount(), 12);
    EXPECT_FALSE(b.finish().isOk());

    ModelBuilder huge("h", 1); // an overflowing shape is refused too, not wrapped
    huge.weight("w", {std::int64_t{1} << 40, std::int64_t{1} << 40}, 1.0f);
    EXPECT_FALSE(huge.status().isOk());
    EXPECT_EQ(huge.parameterCount(), 0);
}

// A set cancel token stops the builder where it is: no more weight data is
// synthesized and finish() returns Cancelled without running ONNX's checker.
TEST(ModelBuilder, ASetCancelTokenStopsTheBuild)
{
    std::atomic<bool> cancel{false};
    ModelBuilder b("m", 1);
    b.setCancel(&cancel);
    const std::string x = b.input("x", {1, 4});
    const std::string h = b.gemm(x, "fc1", 3);
    EXPECT_TRUE(b.status().isOk());
    EXPECT_EQ(b.parameterCount(), 15);
    cancel = true;
    b.output(b.gemm(h, "fc2", 2));
    EXPECT_EQ(b.status().code(), ErrorCode::Cancelled) << b.status().str();
    EXPECT_EQ(b.parameterCount(), 15); // fc2's weights were not synthesized
    auto m = b.finish();
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), ErrorCode::Cancelled);
}

// Twin: a token that stays unset changes nothing, byte for byte.
TEST(ModelBuilder, AnUnsetCancelTokenChangesNothing)
{
    const std::atomic<bool> cancel{false};
    ModelBuilder plain("m", 1), watched("m", 1);
    watched.setCancel(&cancel);
    for (ModelBuilder *b : {&plain, &watched})
        b->output(b->gemm(b->gemm(b->input("x", {1, 4}), "fc1", 3), "fc2", 2));
    auto a = plain.finish(), c = watched.finish();
    ASSERT_TRUE(a.isOk()) << a.status().str();
    ASSERT_TRUE(c.isOk()) << c.status().str();
    EXPECT_EQ((*a)->SerializeAsString(), (*c)->SerializeAsString());
}

TEST(SaveModel, InlineRoundTrips)
{
    TempDir dir;
    auto m = smallCnn(1);
    ASSERT_TRUE(m);
    const std::string path = dir.file("inline.onnx");
    ASSERT_TRUE(saveModel(*m, path, false).isOk());
    std::ifstream in(path, std::ios::binary);
    onnx::ModelProto back;
    ASSERT_TRUE(back.ParseFromIstream(&in));
    EXPECT_EQ(back.SerializeAsString(), m->SerializeAsString());
    EXPECT_FALSE(std::filesystem::exists(path + ".data"));
}

TEST(SaveModel, UnwritablePathIsAnIoError)
{
    auto m = smallCnn(1);
    ASSERT_TRUE(m);
    const Status s = saveModel(*m, "/nonexistent-dir/for/sure/model.onnx", false);
    ASSERT_FALSE(s.isOk());
    EXPECT_EQ(s.code(), ErrorCode::Io);
    EXPECT_EQ(s.location().file, "/nonexistent-dir/for/sure/model.onnx");
    const Status e = saveModel(*m, "/nonexistent-dir/for/sure/model.onnx", true);
    ASSERT_FALSE(e.isOk());
    EXPECT_EQ(e.code(), ErrorCode::Io);
}

TEST(SaveModel, ExternalDataMovesLargeInitializersWithAlignedOffsets)
{
    TempDir dir;
    auto m = smallCnn(3);
    ASSERT_TRUE(m);
    const std::string path = dir.file("ext.onnx");
    ASSERT_TRUE(saveModel(*m, path, true).isOk());
    const std::string dataPath = path + ".data";
    ASSERT_TRUE(std::filesystem::exists(dataPath));
    const auto dataSize = static_cast<std::int64_t>(std::filesystem::file_size(dataPath));
    std::ifstream dataIn(dataPath, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(dataIn)), std::istreambuf_iterator<char>());

    std::ifstream in(path, std::ios::binary);
    onnx::ModelProto back;
    ASSERT_TRUE(back.ParseFromIstream(&in));
    EXPECT_LT(std::filesystem::file_size(path), m->ByteSizeLong());
    ASSERT_EQ(back.graph().initializer_size(), m->graph().initializer_size());
    EXPECT_EQ(back.graph().node_size(), m->graph().node_size());

    int external = 0;
    std::int64_t end = 0;
    for (int i = 0; i < m->graph().initializer_size(); ++i) {
        const onnx::TensorProto &orig = m->graph().initializer(i), &t = back.graph().initializer(i);
        ASSERT_EQ(t.name(), orig.name());
        if (orig.raw_data().size() <= 1024) {
            EXPECT_NE(t.data_location(), onnx::TensorProto::EXTERNAL) << t.name();
            EXPECT_EQ(t.raw_data(), orig.raw_data());
            continue;
        }
        ++external;
        EXPECT_EQ(t.data_location(), onnx::TensorProto::EXTERNAL) << t.name();
        EXPECT_FALSE(t.has_raw_data());
        std::map<std::string, std::string> kv;
        for (const auto &e : t.external_data())
            kv[e.key()] = e.value();
        EXPECT_EQ(kv["location"], "ext.onnx.data");
        const std::int64_t offset = std::stoll(kv["offset"]), length = std::stoll(kv["length"]);
        EXPECT_EQ(offset % 64, 0) << t.name();
        EXPECT_GE(offset, end) << "overlapping external tensors";
        EXPECT_EQ(length, static_cast<std::int64_t>(orig.raw_data().size()));
        ASSERT_LE(offset + length, dataSize);
        EXPECT_EQ(data.substr(static_cast<std::size_t>(offset), static_cast<std::size_t>(length)), orig.raw_data());
        end = offset + length;
    }
    EXPECT_EQ(end, dataSize);
    EXPECT_EQ(external, 2); // stem/conv.weight (1728 B) and fc.weight (1280 B); dw.weight has 576 B
}
