// DFT, STFT and MelWeightMatrix: shapes and index maps from core/ops, values
// from the reference kernels (run through evaluateConstantNode, the path
// import-time folding takes), each beside the input that must be refused.
#include "backends/reference/evaluate.h"
#include "core/ops/ops.h"
#include "core/ops/spectral.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <numbers>

namespace tessera {
namespace {

template <typename T> std::shared_ptr<const TensorData> data(DType t, Shape s, std::vector<T> v)
{
    auto d = std::make_shared<TensorData>();
    d->dtype = t;
    d->shape = std::move(s);
    d->bytes.resize(v.size() * sizeof(T));
    std::memcpy(d->bytes.data(), v.data(), d->bytes.size());
    return d;
}

TensorId constant(Graph &g, const std::string &name, std::shared_ptr<const TensorData> d)
{
    return g.addTensor(
        {.name = name, .dtype = d->dtype, .shape = d->shape, .kind = Tensor::Kind::Initializer, .data = d});
}

TensorId scalar(Graph &g, const std::string &name, std::int64_t v)
{
    return constant(g, name, data<std::int64_t>(DType::Int64, {}, {v}));
}

// Adds node `op` with an output typed by ops::inferShapes; returns the status.
Status addNode(Graph &g, const std::string &op, std::vector<TensorId> inputs, AttrMap attrs = {})
{
    const TensorId y = g.addTensor({.name = "y", .dtype = DType::Float32, .shape = {}});
    g.addNode({.name = "node", .opType = op, .attrs = std::move(attrs), .inputs = std::move(inputs), .outputs = {y}});
    std::vector<ops::TensorType> types;
    TS_TRY(ops::inferShapes(g, g.node(0), types));
    g.tensor(y).dtype = types[0].dtype;
    g.tensor(y).shape = types[0].shape;
    return Status::ok();
}

std::vector<double> run(const Graph &g)
{
    auto r = evaluateConstantNode(g, g.node(0));
    EXPECT_TRUE(r) << r.status().str();
    std::vector<double> v;
    if (r)
        for (std::int64_t i = 0; i < g.tensor(g.node(0).outputs[0]).elements(); ++i)
            v.push_back((*r)[0]->floatAt(i).value_or(NAN));
    return v;
}

// Σ x[j] e^{-2πi jk/N} of a real signal, directly.
std::pair<double, double> dftOf(const std::vector<float> &x, std::int64_t k, std::int64_t n, double sign = -1)
{
    double re = 0, im = 0;
    for (std::size_t j = 0; j < x.size() && static_cast<std::int64_t>(j) < n; ++j) {
        const double a = sign * 2 * std::numbers::pi * static_cast<double>(j) * static_cast<double>(k) / n;
        re += x[j] * std::cos(a);
        im += x[j] * std::sin(a);
    }
    return {re, im};
}

TEST(Spectral, DftOfARealSignalAlongAxisOneWithPaddingAndOnesided)
{
    Graph g;
    const std::vector<float> x = {1, 2, 0, -1, 3};
    const TensorId in = constant(g, "x", data<float>(DType::Float32, {1, 5, 1}, x));
    ASSERT_TRUE(addNode(g, "DFT", {in, scalar(g, "len", 8)}, {{"onesided", {std::int64_t(1)}}}));
    EXPECT_EQ(g.tensor(g.node(0).outputs[0]).shape, (Shape{1, 5, 2})); // 8/2 + 1 bins
    const auto y = run(g);
    ASSERT_EQ(y.size(), 10u);
    for (std::int64_t k = 0; k < 5; ++k) {
        const auto [re, im] = dftOf(x, k, 8); // zero-padded to 8
        EXPECT_NEAR(y[static_cast<std::size_t>(2 * k)], re, 1e-5) << k;
        EXPECT_NEAR(y[static_cast<std::size_t>(2 * k + 1)], im, 1e-5) << k;
    }
    // Index map: the transform axis and the complex dim are reduced.
    const auto maps = ops::axisMaps(g, g.node(0));
    ASSERT_FALSE(maps.empty());
    EXPECT_EQ(maps[0].reducedDims, (std::vector<int>{1, 2}));
}

TEST(Spectral, InverseDftUndoesTheForwardOne)
{
    Graph g;
    // X = DFT([1, 2, 3, 4]) = [10, -2+2i, -2, -2-2i]
    const TensorId in = constant(g, "x", data<float>(DType::Float32, {4, 2}, {10, 0, -2, 2, -2, 0, -2, -2}));
    ASSERT_TRUE(addNode(g, "DFT", {in}, {{"axis", {std::int64_t(0)}}, {"inverse", {std::int64_t(1)}}}));
    const auto y = run(g);
    const std::vector<double> want = {1, 0, 2, 0, 3, 0, 4, 0};
    ASSERT_EQ(y.size(), want.size());
    for (std::size_t i = 0; i < y.size(); ++i)
        EXPECT_NEAR(y[i], want[i], 1e-6) << i;
}

TEST(Spectral, DftRefusesOnesidedComplexInputAndABadAxis)
{
    Graph g;
    const TensorId in = constant(g, "x", data<float>(DType::Float32, {1, 2, 2}, {1, 0, 1, 0}));
    Status s = addNode(g, "DFT", {in}, {{"onesided", {std::int64_t(1)}}});
    EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.str();
    Graph h;
    const TensorId in2 = constant(h, "x", data<float>(DType::Float32, {1, 2, 1}, {1, 0}));
    s = addNode(h, "DFT", {in2}, {{"axis", {std::int64_t(2)}}}); // the complex dim
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("axis 2"), std::string::npos) << s.str();
}

TEST(Spectral, StftFramesWithAWindowAndItsAffineTimeMap)
{
    Graph g;
    std::vector<float> x(10);
    for (std::size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<float>(i % 3) - 1;
    const std::vector<float> w = {0.5f, 1, 1, 0.5f};
    const TensorId in = constant(g, "signal", data<float>(DType::Float32, {1, 10, 1}, x));
    const TensorId win = constant(g, "window", data<float>(DType::Float32, {4}, w));
    ASSERT_TRUE(addNode(g, "STFT", {in, scalar(g, "step", 3), win}));
    EXPECT_EQ(g.tensor(g.node(0).outputs[0]).shape, (Shape{1, 3, 3, 2})); // (10-4)/3+1 frames, 4/2+1 bins
    const auto y = run(g);
    for (std::int64_t f = 0; f < 3; ++f) {
        std::vector<float> frame;
        for (std::size_t j = 0; j < 4; ++j)
            frame.push_back(w[j] * x[static_cast<std::size_t>(f * 3) + j]);
        for (std::int64_t k = 0; k < 3; ++k) {
            const auto [re, im] = dftOf(frame, k, 4);
            EXPECT_NEAR(y[static_cast<std::size_t>((f * 3 + k) * 2)], re, 1e-5);
            EXPECT_NEAR(y[static_cast<std::size_t>((f * 3 + k) * 2 + 1)], im, 1e-5);
        }
    }
    // Frames 1..2 read signal [3, 10): the affine window along time.
    auto regions = ops::inputRegions(g, g.node(0), 0, {{0, 1}, {1, 3}, {0, 3}, {0, 2}});
    ASSERT_TRUE(regions) << regions.status().str();
    EXPECT_EQ((*regions)[0].clipped[1], (ops::Interval{3, 10}));
}

TEST(Spectral, StftRefusesAWindowThatIsNotTheFrameLength)
{
    Graph g;
    const TensorId in = constant(g, "signal", data<float>(DType::Float32, {1, 10, 1}, std::vector<float>(10, 1)));
    const TensorId win = constant(g, "window", data<float>(DType::Float32, {4}, {1, 1, 1, 1}));
    const Status s = addNode(g, "STFT", {in, scalar(g, "step", 3), win, scalar(g, "len", 5)});
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("frame_length is 5"), std::string::npos) << s.str();
}

TEST(Spectral, MelWeightMatrixTrianglesAndTheirShape)
{
    Graph g;
    const TensorId lo = constant(g, "lo", data<float>(DType::Float32, {}, {0}));
    const TensorId hi = constant(g, "hi", data<float>(DType::Float32, {}, {4096}));
    ASSERT_TRUE(
        addNode(g, "MelWeightMatrix", {scalar(g, "mels", 8), scalar(g, "len", 16), scalar(g, "rate", 8192), lo, hi}));
    EXPECT_EQ(g.tensor(g.node(0).outputs[0]).shape, (Shape{9, 8}));
    const auto y = run(g);
    // The 10 mel points fall on bins 0 0 0 1 1 2 3 4 5 6: at this resolution
    // every filter is a one-bin peak at its centre (filters 0, 1 at bin 0, 2, 3 at bin 1, ...).
    EXPECT_EQ(y[0 * 8 + 0], 1.0);
    EXPECT_EQ(y[0 * 8 + 1], 1.0);
    EXPECT_EQ(y[1 * 8 + 2], 1.0);
    EXPECT_EQ(y[5 * 8 + 7], 1.0);
    EXPECT_EQ(y[6 * 8 + 7], 0.0);
    double sum = 0;
    for (double v : y)
        sum += v;
    EXPECT_EQ(sum, 8.0);
}

TEST(Spectral, MelWeightMatrixNeedsAConstantBinCount)
{
    Graph g;
    const TensorId mels =
        g.addTensor({.name = "mels", .dtype = DType::Int64, .shape = {}, .kind = Tensor::Kind::Input});
    g.inputs = {mels};
    const TensorId lo = constant(g, "lo", data<float>(DType::Float32, {}, {0}));
    const Status s = addNode(g, "MelWeightMatrix", {mels, scalar(g, "len", 16), scalar(g, "rate", 8192), lo, lo});
    EXPECT_FALSE(s);
    EXPECT_NE(s.message().find("num_mel_bins"), std::string::npos) << s.str();
}

} // namespace
} // namespace tessera
