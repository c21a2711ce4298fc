// The reference backend on hand-built graphs and plans: tiled, instance-split
// and recomputing plans give the untiled plan's outputs bit for bit; results
// match values computed independently in the test; every refusal (missing or
// mis-shaped input, opaque node, a tile reading what its dependencies did not
// produce, truncated external weights, cancellation, bad indices) is a Status
// naming what is wrong. Each positive test has its negative twin next to it.
#include "backends/reference/kernel.h"
#include "backends/reference/reference.h"
#include "core/backend/inputs.h"
#include "core/backend/tensorio.h"
#include "core/plan/verify.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
using tessera::testgraphs::op;

namespace {

using Ints = std::vector<std::int64_t>;

AttrMap convAttrs(std::int64_t pad)
{
    return {{"kernel_shape", {Ints{3, 3}}}, {"pads", {Ints{pad, pad, pad, pad}}}};
}

// x[n,8,16,16] -> Conv 3x3 (bias) -> Relu.
Graph convRelu(std::int64_t batch = 1)
{
    Graph g;
    g.name = "conv_relu";
    const TensorId x = testgraphs::tensor(g, "x", {batch, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId c =
        op(g, "conv", "Conv", {x, testgraphs::weight(g, "w", {8, 8, 3, 3}), testgraphs::weight(g, "b", {8})},
           {batch, 8, 16, 16}, convAttrs(1));
    g.outputs = {op(g, "relu", "Relu", {c}, {batch, 8, 16, 16})};
    return g;
}

std::vector<std::vector<NodeId>> perNode(const Graph &g)
{
    std::vector<std::vector<NodeId>> k;
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
        k.push_back({n});
    return k;
}

std::vector<NodeId> allNodes(const Graph &g)
{
    std::vector<NodeId> k;
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n)
        k.push_back(n);
    return k;
}

const float *f32(const TensorData &d)
{
    return reinterpret_cast<const float *>(d.bytes.data());
}

class ReferenceBackend : public ::testing::Test
{
protected:
    RunResult run(const Graph &g, const ExecutionPlan &plan, const std::vector<HostTensor> &inputs)
    {
        auto r = planutil::compileAndRun(*backend, g, plan, inputs);
        EXPECT_TRUE(r.isOk()) << r.status().str();
        return r ? *r : RunResult{};
    }
    std::unique_ptr<IBackend> backend = createReferenceBackend();
};

// --- tiles and instances -------------------------------------------------------------

TEST_F(ReferenceBackend, ConvReluInFourRowTilesEqualsTheWholePlanBitForBit)
{
    const Graph g = convRelu();
    const auto inputs = planutil::makeInputs(g, 1);
    const RunResult whole = run(g, planutil::wholePlan(g, perNode(g)), inputs);
    const ExecutionPlan tiled = planutil::tiledPlan(g, planutil::wholePlan(g, {allNodes(g)}), 4, 2);
    ASSERT_EQ(tiled.tasks.size(), 4u);
    EXPECT_EQ(tiled.tasks[1].tiles[0].region[2], (ops::Interval{4, 8}));
    const RunResult parts = run(g, tiled, inputs);
    ASSERT_EQ(whole.outputs.size(), 1u);
    ASSERT_EQ(parts.outputs.size(), 1u);
    EXPECT_TRUE(planutil::bitEqual(whole.outputs[0], parts.outputs[0]));

    // Independent check: the convolution written out naively, in double.
    const float *x = inputs[0].f32(), *w = f32(*g.tensor(g.findTensor("w")).data),
                *b = f32(*g.tensor(g.findTensor("b")).data);
    double worst = 0;
    for (int m = 0; m < 8; ++m)
        for (int h = 0; h < 16; ++h)
            for (int v = 0; v < 16; ++v) {
                double acc = b[m];
                for (int c = 0; c < 8; ++c)
                    for (int kh = 0; kh < 3; ++kh)
                        for (int kw = 0; kw < 3; ++kw) {
                            const int ih = h + kh - 1, iw = v + kw - 1;
                            if (ih >= 0 && ih < 16 && iw >= 0 && iw < 16)
                                acc += double(x[(c * 16 + ih) * 16 + iw]) * w[((m * 8 + c) * 3 + kh) * 3 + kw];
                        }
                worst = std::max(worst, std::abs(std::max(acc, 0.0) - parts.outputs[0].f32()[(m * 16 + h) * 16 + v]));
            }
    EXPECT_LT(worst, 1e-5);
}

TEST_F(ReferenceBackend, TileReadingRowsItsDependenciesDidNotProduceIsRefused)
{
    // Conv and Relu as two kernels of four row tiles each; then each Relu tile
    // depends on the wrong Conv tile, so it reads rows nobody produced for it.
    const Graph g = convRelu();
    ExecutionPlan plan = planutil::tiledPlan(g, planutil::wholePlan(g, perNode(g)), 4, 2);
    ASSERT_TRUE(verifyPlan(plan, g).isOk());
    ASSERT_TRUE(backend->compile(g, plan).isOk());
    for (std::size_t i = 0; i < 4; ++i)
        plan.tasks[4 + i].deps = {static_cast<TaskId>((i + 1) % 4)};
    auto compiled = backend->compile(g, plan);
    ASSERT_FALSE(compiled.isOk());
    EXPECT_EQ(compiled.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(compiled.status().message().find("invalid plan"), std::string::npos) << compiled.status().str();
    EXPECT_NE(compiled.status().message().find("without depending on it"), std::string::npos)
        << compiled.status().str();
}

// x[4,8,8,8] -> conv -> relu -> conv -> add(x) -> relu -> global pool -> flatten -> gemm.
Graph residualBatch4()
{
    Graph g;
    g.name = "residual_batch4";
    const TensorId x = testgraphs::tensor(g, "x", {4, 8, 8, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId c1 =
        op(g, "conv1", "Conv", {x, testgraphs::weight(g, "w1", {8, 8, 3, 3})}, {4, 8, 8, 8}, convAttrs(1));
    const TensorId r1 = op(g, "relu1", "Relu", {c1}, {4, 8, 8, 8});
    const TensorId c2 =
        op(g, "conv2", "Conv", {r1, testgraphs::weight(g, "w2", {8, 8, 3, 3})}, {4, 8, 8, 8}, convAttrs(1));
    const TensorId a = op(g, "add", "Add", {c2, x}, {4, 8, 8, 8});
    const TensorId r2 = op(g, "relu2", "Relu", {a}, {4, 8, 8, 8});
    const TensorId p = op(g, "pool", "GlobalAveragePool", {r2}, {4, 8, 1, 1});
    const TensorId f = op(g, "flatten", "Flatten", {p}, {4, 8});
    g.outputs = {op(g, "fc", "Gemm", {f, testgraphs::weight(g, "fc.w", {5, 8}), testgraphs::weight(g, "fc.b", {5})},
                    {4, 5}, {{"transB", {std::int64_t{1}}}})};
    return g;
}

TEST_F(ReferenceBackend, FusedChainSplitIntoBatchInstancesEqualsTheSequentialPlan)
{
    const Graph g = residualBatch4();
    const auto inputs = planutil::makeInputs(g, 2);
    auto seq = planutil::baselinePlan(g, "sequential");
    ASSERT_TRUE(seq.isOk()) << seq.status().str();
    const RunResult whole = run(g, *seq, inputs);
    // One fused kernel for the whole chain, four instances along the batch.
    const ExecutionPlan instances = planutil::tiledPlan(g, planutil::wholePlan(g, {allNodes(g)}), 4, 0);
    ASSERT_EQ(instances.tasks.size(), 4u);
    EXPECT_TRUE(instances.tasks[0].deps.empty() && instances.tasks[3].deps.empty()); // independent instances
    const RunResult split = run(g, instances, inputs);
    ASSERT_EQ(split.outputs.size(), 1u);
    EXPECT_TRUE(planutil::bitEqual(whole.outputs[0], split.outputs[0]));
    EXPECT_EQ(split.outputs[0].shape, (Shape{4, 5}));
}

TEST_F(ReferenceBackend, HaloRecomputeAndRecomputeTasksGiveIdenticalValues)
{
    const Graph g = testgraphs::residualChain(2);
    const auto inputs = planutil::makeInputs(g, 3);
    const RunResult whole = run(g, planutil::wholePlan(g, perNode(g)), inputs);
    // A kernel per block, three row tiles each: conv1/relu1 rows are recomputed
    // by neighbouring tiles (halo) inside each task.
    const std::vector<std::vector<NodeId>> blocks{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}};
    ExecutionPlan plan = planutil::tiledPlan(g, planutil::wholePlan(g, blocks), 3, 2);
    // And a task recomputing block 0's middle tile, which block 1 then depends on.
    Task again = plan.tasks[1];
    again.recompute = true;
    again.deps.clear();
    plan.tasks.insert(plan.tasks.begin() + 3, again);
    for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
        plan.tasks[i].id = static_cast<TaskId>(i);
        if (i > 3)
            plan.tasks[i].deps.push_back(3); // old deps are tasks 0-2: unchanged
    }
    ASSERT_TRUE(verifyPlan(plan, g).isOk()) << verifyPlan(plan, g).str();
    const RunResult tiled = run(g, plan, inputs);
    ASSERT_EQ(tiled.outputs.size(), 1u);
    EXPECT_TRUE(planutil::bitEqual(whole.outputs[0], tiled.outputs[0]));
    EXPECT_EQ(tiled.timeline.size(), plan.tasks.size());
}

TEST_F(ReferenceBackend, DuplicateComputationNotMarkedRecomputeIsRefused)
{
    const Graph g = convRelu();
    ExecutionPlan plan = planutil::tiledPlan(g, planutil::wholePlan(g, {allNodes(g)}), 2, 2);
    Task again = plan.tasks[0];
    plan.addTask(again);
    auto compiled = backend->compile(g, plan);
    ASSERT_FALSE(compiled.isOk());
    EXPECT_NE(compiled.status().message().find("computed twice"), std::string::npos) << compiled.status().str();
}

// Softmax over [2, 3, 4] with axis 1: opset 11 normalizes each batch's 12
// elements (dims 1 and 2 flattened), opset 13 each column of 3 (dim 1 only).
// Tiles split the normalized dims; every tile still sees whole rows.
TEST_F(ReferenceBackend, SoftmaxFollowsTheOpsetAndTilesAcrossItsRows)
{
    for (std::int64_t opset : {11, 13}) {
        Graph g;
        g.opsetVersion = opset;
        const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4}, Tensor::Kind::Input);
        g.inputs = {x};
        g.outputs = {op(g, "softmax", "Softmax", {x}, {2, 3, 4}, {{"axis", {std::int64_t{1}}}})};
        const auto inputs = planutil::makeInputs(g, 9);
        const RunResult whole = run(g, planutil::wholePlan(g, perNode(g)), inputs);
        const RunResult tiled = run(g, planutil::tiledPlan(g, planutil::wholePlan(g, perNode(g)), 2, 2), inputs);
        ASSERT_EQ(tiled.outputs.size(), 1u);
        EXPECT_TRUE(planutil::bitEqual(whole.outputs[0], tiled.outputs[0])) << "opset " << opset;
        const float *in = inputs[0].f32(), *out = tiled.outputs[0].f32();
        for (int n = 0; n < 2; ++n)
            for (int c = 0; c < 3; ++c)
                for (int w = 0; w < 4; ++w) {
                    double sum = 0;
                    for (int c2 = 0; c2 < 3; ++c2)
                        for (int w2 = 0; w2 < 4; ++w2)
                            if (opset < 13 || w2 == w)
                                sum += std::exp(double(in[(n * 3 + c2) * 4 + w2]));
                    const int i = (n * 3 + c) * 4 + w;
                    EXPECT_NEAR(out[i], std::exp(double(in[i])) / sum, 1e-6) << "opset " << opset << " element " << i;
                }
    }
}

// --- int64 shape arithmetic --------------------------------------------------------

TEST_F(ReferenceBackend, ShapeTensorsFlowThroughInt64Kernels)
{
    // y = x * float(Shape(x)[1] + Shape(x)[0] * 10)   for x [2, 3]  ->  x * 23
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {2, 3}, Tensor::Kind::Input);
    g.inputs = {x};
    auto ints = [&](const std::string &name, const Ints &v, const Shape &s) {
        auto d = std::make_shared<TensorData>();
        d->dtype = DType::Int64;
        d->shape = s;
        d->bytes.resize(v.size() * 8);
        std::memcpy(d->bytes.data(), v.data(), d->bytes.size());
        Tensor t{name, DType::Int64, s, Tensor::Kind::Initializer, kInvalidId, {}, d};
        return g.addTensor(t);
    };
    auto int64 = [&](TensorId t) {
        g.tensor(t).dtype = DType::Int64;
        return t;
    };
    const TensorId shape = int64(op(g, "shape", "Shape", {x}, {2}));
    const TensorId d0 = int64(op(g, "d0", "Gather", {shape, ints("i0", {0}, {})}, {}));
    const TensorId d1 = int64(op(g, "d1", "Gather", {shape, ints("i1", {1}, {})}, {}));
    const TensorId tens = int64(op(g, "tens", "Mul", {d0, ints("ten", {10}, {})}, {}));
    const TensorId sum = int64(op(g, "sum", "Add", {tens, d1}, {}));
    const TensorId f = op(g, "cast", "Cast", {sum}, {}, {{"to", {std::int64_t{1}}}});
    g.outputs = {op(g, "y", "Mul", {x, f}, {2, 3}), sum};
    const auto inputs = std::vector{planutil::floatTensor("x", {2, 3}, {1, 2, 3, -1, 0.5f, 4})};
    const RunResult r = run(g, planutil::wholePlan(g, perNode(g)), inputs);
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(r.outputs[0].f32()[1], 46.0f);
    EXPECT_EQ(r.outputs[0].f32()[3], -23.0f);
    ASSERT_EQ(r.outputs[1].dtype, DType::Int64);
    std::int64_t s = 0;
    std::memcpy(&s, r.outputs[1].bytes.data(), 8);
    EXPECT_EQ(s, 23);
}

// Gather with run-time indices: data [4, 2], indices from the input.
Graph gatherGraph()
{
    Graph g;
    const TensorId idx = testgraphs::tensor(g, "idx", {3}, Tensor::Kind::Input);
    g.tensor(idx).dtype = DType::Int64;
    g.inputs = {idx};
    g.outputs = {op(g, "gather", "Gather", {testgraphs::weight(g, "table", {4, 2}), idx}, {3, 2})};
    return g;
}

HostTensor indices(Ints v)
{
    HostTensor h{"idx", DType::Int64, {static_cast<std::int64_t>(v.size())}, std::vector<std::uint8_t>(v.size() * 8)};
    std::memcpy(h.bytes.data(), v.data(), h.bytes.size());
    return h;
}

TEST_F(ReferenceBackend, GatherReadsRunTimeIndicesIncludingNegativeOnes)
{
    const Graph g = gatherGraph();
    const RunResult r = run(g, planutil::wholePlan(g, perNode(g)), {indices({3, -4, 1})});
    const float *table = f32(*g.tensor(g.findTensor("table")).data);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_EQ(r.outputs[0].f32()[0], table[6]);
    EXPECT_EQ(r.outputs[0].f32()[3], table[1]);
    EXPECT_EQ(r.outputs[0].f32()[5], table[3]);
}

TEST_F(ReferenceBackend, GatherIndexOutOfRangeIsARunTimeErrorNamingTheNode)
{
    const Graph g = gatherGraph();
    auto r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), {indices({0, 4, 1})});
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().location().node, "gather");
    EXPECT_NE(r.status().message().find("index 4 is out of range"), std::string::npos) << r.status().str();
}

// --- kernels core/ops does not describe yet (no plan can contain them) -------------------

// Runs node `id`'s kernel directly on `inputs`, computing `tiles` of output 0.
std::vector<float> runKernel(const Graph &g, NodeId id, const std::vector<std::vector<float>> &inputs,
                             const std::vector<ops::Region> &tiles)
{
    const Node &n = g.node(id);
    auto kernel = reference::makeKernel(g, n);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().str();
    if (!kernel)
        return {};
    const Tensor &y = g.tensor(n.outputs[0]);
    std::vector<float> out(static_cast<std::size_t>(y.elements()), -99.0f);
    reference::KernelArgs args;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        const Tensor &t = g.tensor(n.inputs[i]);
        args.in.push_back({t.dtype, &t.shape, reinterpret_cast<const std::uint8_t *>(inputs[i].data())});
    }
    args.out.push_back({y.dtype, &y.shape, reinterpret_cast<std::uint8_t *>(out.data())});
    for (const ops::Region &r : tiles)
        EXPECT_TRUE((*kernel)->compute(args, 0, r).isOk());
    return out;
}

TEST(ReferenceKernels, SumAddsBroadcastInputsInOrder)
{
    Graph g;
    const TensorId a = testgraphs::tensor(g, "a", {2, 3}, Tensor::Kind::Input);
    const TensorId b = testgraphs::tensor(g, "b", {3}, Tensor::Kind::Input);
    const TensorId c = testgraphs::tensor(g, "c", {2, 1}, Tensor::Kind::Input);
    g.inputs = {a, b, c};
    g.outputs = {op(g, "sum", "Sum", {a, b, c}, {2, 3})};
    const std::vector<std::vector<float>> in{{1, 2, 3, 4, 5, 6}, {10, 20, 30}, {100, 200}};
    const auto whole = runKernel(g, 0, in, {{{0, 2}, {0, 3}}});
    EXPECT_EQ(whole, (std::vector<float>{111, 122, 133, 214, 225, 236}));
    EXPECT_EQ(runKernel(g, 0, in, {{{0, 2}, {0, 1}}, {{0, 2}, {1, 3}}}), whole); // two column tiles
    EXPECT_EQ(runKernel(g, 0, in, {{{1, 2}, {0, 3}}})[0], -99.0f);               // a tile writes only itself
}

TEST(ReferenceKernels, GlobalMaxPoolTakesEachPlanesMaximum)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 2, 2, 2}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {op(g, "gmp", "GlobalMaxPool", {x}, {1, 2, 1, 1})};
    const std::vector<std::vector<float>> in{{1, -2, 7, 3, -5, -1, -8, -4}};
    EXPECT_EQ(runKernel(g, 0, in, {{{0, 1}, {0, 2}, {0, 1}, {0, 1}}}), (std::vector<float>{7, -1}));
    EXPECT_EQ(runKernel(g, 0, in, {{{0, 1}, {1, 2}, {0, 1}, {0, 1}}}), (std::vector<float>{-99, -1}));
}

// x[1,2,3] -> InstanceNormalization with scale/B [2] inputs.
Graph instanceNorm(DType type = DType::Float32)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 2, 3}, Tensor::Kind::Input);
    const TensorId s = testgraphs::tensor(g, "scale", {2}, Tensor::Kind::Input);
    const TensorId b = testgraphs::tensor(g, "b", {2}, Tensor::Kind::Input);
    g.tensor(x).dtype = type;
    g.inputs = {x, s, b};
    const TensorId y = op(g, "in", "InstanceNormalization", {x, s, b}, {1, 2, 3});
    g.tensor(y).dtype = type;
    g.outputs = {y};
    return g;
}

TEST(ReferenceKernels, InstanceNormalizationNormalizesEachPlaneAndTilesByChannel)
{
    const Graph g = instanceNorm();
    const std::vector<std::vector<float>> in{{1, 2, 3, 10, 10, 10}, {1, 2}, {0, 5}};
    const auto whole = runKernel(g, 0, in, {{{0, 1}, {0, 2}, {0, 3}}});
    const float z = static_cast<float>(1.0 / std::sqrt(2.0 / 3.0 + 1e-5)); // (x - mean) / sd for x - mean = 1
    EXPECT_NEAR(whole[0], -z, 1e-6);
    EXPECT_NEAR(whole[1], 0.0f, 1e-6);
    EXPECT_NEAR(whole[2], z, 1e-6);
    EXPECT_NEAR(whole[3], 5.0f, 1e-6); // a constant plane: 0 · scale + B
    EXPECT_EQ(runKernel(g, 0, in, {{{0, 1}, {0, 1}, {0, 3}}, {{0, 1}, {1, 2}, {0, 3}}}), whole); // channel tiles
    EXPECT_EQ(runKernel(g, 0, in, {{{0, 1}, {0, 2}, {0, 1}}, {{0, 1}, {0, 2}, {1, 3}}}), whole); // spatial tiles
}

TEST(ReferenceKernels, InstanceNormalizationOnFloat64IsUnsupported)
{
    const Graph g = instanceNorm(DType::Float64);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "in");
}

TEST(ReferenceKernels, SumWithAStringInputIsUnsupported)
{
    Graph g;
    const TensorId a = testgraphs::tensor(g, "a", {2}, Tensor::Kind::Input);
    const TensorId b = testgraphs::tensor(g, "b", {2}, Tensor::Kind::Input);
    g.tensor(b).dtype = DType::String;
    g.inputs = {a, b};
    g.outputs = {op(g, "sum", "Sum", {a, b}, {2})};
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "sum");
}

// x int8 [5], optional run-time bounds lo, hi (int8 scalars, or `boundType`).
Graph clipInt8(bool bounds, DType boundType = DType::Int8)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {5}, Tensor::Kind::Input);
    g.tensor(x).dtype = DType::Int8;
    std::vector<TensorId> ins{x};
    if (bounds)
        for (const char *name : {"lo", "hi"}) {
            ins.push_back(testgraphs::tensor(g, name, {}, Tensor::Kind::Input));
            g.tensor(ins.back()).dtype = boundType;
        }
    g.inputs = ins;
    const TensorId y = op(g, "clip", "Clip", ins, {5});
    g.tensor(y).dtype = DType::Int8;
    g.outputs = {y};
    return g;
}

std::vector<std::int8_t> runClipInt8(const Graph &g, std::vector<std::int8_t> x, std::int8_t lo, std::int8_t hi)
{
    const Node &n = g.node(0);
    auto kernel = reference::makeKernel(g, n);
    EXPECT_TRUE(kernel.isOk()) << kernel.status().str();
    if (!kernel)
        return {};
    const Shape scalar;
    std::vector<std::int8_t> y(x.size(), 99);
    reference::KernelArgs args;
    args.in.push_back({DType::Int8, &g.tensor(n.inputs[0]).shape, reinterpret_cast<const std::uint8_t *>(x.data())});
    if (n.inputs.size() == 3) {
        args.in.push_back({DType::Int8, &scalar, reinterpret_cast<const std::uint8_t *>(&lo)});
        args.in.push_back({DType::Int8, &scalar, reinterpret_cast<const std::uint8_t *>(&hi)});
    }
    args.out.push_back({DType::Int8, &g.tensor(n.outputs[0]).shape, reinterpret_cast<std::uint8_t *>(y.data())});
    EXPECT_TRUE((*kernel)->compute(args, 0, {{0, 5}}).isOk());
    return y;
}

TEST(ReferenceKernels, ClipOnInt8ClampsToItsBoundsOrTheTypesRange)
{
    const std::vector<std::int8_t> x{-128, -3, 0, 5, 127};
    EXPECT_EQ(runClipInt8(clipInt8(true), x, -2, 4), (std::vector<std::int8_t>{-2, -2, 0, 4, 4}));
    EXPECT_EQ(runClipInt8(clipInt8(false), x, 0, 0), x); // no bounds: int8's whole range
}

TEST(ReferenceKernels, ClipWithBoundsOfAnotherTypeThanItsInputIsUnsupported)
{
    const Graph g = clipInt8(true, DType::Float32);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().tensor, "lo");
}

// --- issue 11: scatters, GatherND and the quantized ops (typed kernels) -----------------

template <typename T> std::vector<std::uint8_t> bytes(std::vector<T> v)
{
    std::vector<std::uint8_t> b(v.size() * sizeof(T));
    std::memcpy(b.data(), v.data(), b.size());
    return b;
}

// Adds input `name` of `type` and `shape` to g (a graph input).
TensorId typedInput(Graph &g, const std::string &name, Shape shape, DType type)
{
    const TensorId t = testgraphs::tensor(g, name, std::move(shape), Tensor::Kind::Input);
    g.tensor(t).dtype = type;
    g.inputs.push_back(t);
    return t;
}

// The last node of g with output `output` typed `type`.
NodeId typedOp(Graph &g, const std::string &name, const std::string &opType, std::vector<TensorId> in, Shape out,
               DType type, AttrMap attrs = {})
{
    const TensorId y = op(g, name, opType, std::move(in), std::move(out), std::move(attrs));
    g.tensor(y).dtype = type;
    g.outputs = {y};
    return static_cast<NodeId>(g.nodeCount() - 1);
}

// Runs node `id`'s kernel on raw `inputs` (one byte vector per input, empty:
// omitted), computing `tiles` of output `output`; the status of the first
// failing tile, or the output's elements (T) after all tiles.
template <typename T>
Expected<std::vector<T>> runTyped(const Graph &g, NodeId id, const std::vector<std::vector<std::uint8_t>> &inputs,
                                  const std::vector<ops::Region> &tiles, int output = 0)
{
    const Node &n = g.node(id);
    auto kernel = reference::makeKernel(g, n);
    if (!kernel)
        return kernel.status();
    const Tensor &y = g.tensor(n.outputs[static_cast<std::size_t>(output)]);
    std::vector<T> out(static_cast<std::size_t>(y.elements()), T(99));
    reference::KernelArgs args;
    for (std::size_t i = 0; i < n.inputs.size(); ++i) {
        if (n.inputs[i] == kInvalidId) { // an omitted optional input
            args.in.push_back({});
            continue;
        }
        const Tensor &t = g.tensor(n.inputs[i]);
        args.in.push_back({t.dtype, &t.shape, inputs[i].data()});
    }
    for (std::size_t o = 0; o < n.outputs.size(); ++o)
        args.out.push_back(o == static_cast<std::size_t>(output)
                               ? reference::OutView{y.dtype, &y.shape, reinterpret_cast<std::uint8_t *>(out.data())}
                               : reference::OutView{});
    for (const ops::Region &r : tiles)
        TS_TRY((*kernel)->compute(args, output, r));
    return out;
}

// data [3,2] float, indices/updates [2,2] -> ScatterElements(axis 0, reduction).
Graph scatterElements(const std::string &reduction)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {3, 2}, DType::Float32), i = typedInput(g, "i", {2, 2}, DType::Int64),
                   u = typedInput(g, "u", {2, 2}, DType::Float32);
    typedOp(g, "scatter", "ScatterElements", {x, i, u}, {3, 2}, DType::Float32, {{"reduction", {reduction}}});
    return g;
}

TEST(ReferenceKernels, ScatterElementsReducesDuplicatesInUpdateOrderWhateverTheTiles)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 2, 3, 4, 5, 6}),
                                                    bytes<std::int64_t>({2, 2, 2, -3}), bytes<float>({10, 20, 30, 40})};
    auto whole = runTyped<float>(scatterElements("add"), 0, in, {{{0, 3}, {0, 2}}});
    ASSERT_TRUE(whole.isOk()) << whole.status().str();
    // (0,0)->row 2, (0,1)->row 2, (1,0)->row 2, (1,1)->row -3 = 0.
    EXPECT_EQ(*whole, (std::vector<float>{1, 42, 3, 4, 45, 26}));
    auto rows = runTyped<float>(scatterElements("add"), 0, in, {{{0, 1}, {0, 2}}, {{1, 3}, {0, 2}}});
    EXPECT_EQ(*rows, *whole);
    auto none = runTyped<float>(scatterElements("none"), 0, in, {{{0, 3}, {0, 2}}});
    EXPECT_EQ(*none, (std::vector<float>{1, 40, 3, 4, 30, 20})); // the later duplicate wins
}

TEST(ReferenceKernels, ScatterElementsIndexOutOfRangeIsARunTimeError)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 2, 3, 4, 5, 6}), bytes<std::int64_t>({0, 3, 0, 0}),
                                                    bytes<float>({10, 20, 30, 40})};
    auto r = runTyped<float>(scatterElements("none"), 0, in, {{{0, 3}, {0, 2}}});
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("out of range"), std::string::npos) << r.status().str();
}

TEST(ReferenceKernels, ScatterNDAndGatherNDMoveSlices)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {2, 2, 2}, DType::Int32), i = typedInput(g, "i", {1, 1}, DType::Int64),
                   u = typedInput(g, "u", {1, 2, 2}, DType::Int32);
    typedOp(g, "snd", "ScatterND", {x, i, u}, {2, 2, 2}, DType::Int32, {{"reduction", {std::string("mul")}}});
    const std::vector<std::vector<std::uint8_t>> in{bytes<std::int32_t>({1, 2, 3, 4, 5, 6, 7, 8}),
                                                    bytes<std::int64_t>({1}), bytes<std::int32_t>({2, 3, 4, 5})};
    auto y = runTyped<std::int32_t>(g, 0, in, {{{0, 2}, {0, 1}, {0, 2}}, {{0, 2}, {1, 2}, {0, 2}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<std::int32_t>{1, 2, 3, 4, 10, 18, 28, 40}));

    Graph h; // GatherND with batch_dims 1: out[b, j] = x[b, i[b, j, 0]]
    const TensorId hx = typedInput(h, "x", {2, 3}, DType::Float32), hi = typedInput(h, "i", {2, 2, 1}, DType::Int64);
    typedOp(h, "gnd", "GatherND", {hx, hi}, {2, 2}, DType::Float32, {{"batch_dims", {std::int64_t{1}}}});
    auto z = runTyped<float>(h, 0, {bytes<float>({1, 2, 3, 4, 5, 6}), bytes<std::int64_t>({2, 0, -1, 1})},
                             {{{0, 2}, {0, 1}}, {{0, 2}, {1, 2}}});
    ASSERT_TRUE(z.isOk()) << z.status().str();
    EXPECT_EQ(*z, (std::vector<float>{3, 1, 6, 5}));
    auto bad = runTyped<float>(h, 0, {bytes<float>({1, 2, 3, 4, 5, 6}), bytes<std::int64_t>({3, 0, 0, 0})},
                               {{{0, 2}, {0, 2}}});
    EXPECT_FALSE(bad.isOk()); // index 3 of an extent-3 axis
}

TEST(ReferenceKernels, QuantizeRoundsHalfToEvenAndSaturatesDequantizePerAxis)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {6}, DType::Float32), s = typedInput(g, "s", {}, DType::Float32),
                   z = typedInput(g, "z", {}, DType::Int8);
    typedOp(g, "q", "QuantizeLinear", {x, s, z}, {6}, DType::Int8);
    auto q = runTyped<std::int8_t>(
        g, 0, {bytes<float>({0.5f, 1.5f, 2.5f, -2.5f, 1000.f, -1000.f}), bytes<float>({1.0f}), bytes<std::int8_t>({1})},
        {{{0, 3}}, {{3, 6}}});
    ASSERT_TRUE(q.isOk()) << q.status().str();
    EXPECT_EQ(*q, (std::vector<std::int8_t>{1, 3, 3, -1, 127, -128})); // rint: 0, 2, 2, -2; then + 1, saturated

    Graph h; // per axis 1 of [2, 2]: scale {1, 10}, zero point {0, 128}
    const TensorId hx = typedInput(h, "x", {2, 2}, DType::UInt8), hs = typedInput(h, "s", {2}, DType::Float32),
                   hz = typedInput(h, "z", {2}, DType::UInt8);
    typedOp(h, "dq", "DequantizeLinear", {hx, hs, hz}, {2, 2}, DType::Float32);
    auto d = runTyped<float>(
        h, 0, {bytes<std::uint8_t>({3, 130, 255, 0}), bytes<float>({1, 10}), bytes<std::uint8_t>({0, 128})},
        {{{0, 2}, {0, 2}}});
    ASSERT_TRUE(d.isOk()) << d.status().str();
    EXPECT_EQ(*d, (std::vector<float>{3, 20, 255, -1280}));
}

TEST(ReferenceKernels, DequantizeLinearOfInt16IsRefusedNamingTheNode)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {2}, DType::Int16), s = typedInput(g, "s", {}, DType::Float32);
    typedOp(g, "dq", "DequantizeLinear", {x, s}, {2}, DType::Float32);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("x is i16, expected i8, u8 or i32"), std::string::npos) << k.status().str();
    EXPECT_EQ(k.status().location().node, "dq");
}

TEST(ReferenceKernels, DynamicQuantizeLinearTakesTheRangeIncludingZero)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {4}, DType::Float32);
    const TensorId y = op(g, "dql", "DynamicQuantizeLinear", {x}, {4});
    g.tensor(y).dtype = DType::UInt8;
    const TensorId sc = testgraphs::tensor(g, "scale", {}), zp = testgraphs::tensor(g, "zp", {});
    g.tensor(zp).dtype = DType::UInt8;
    g.node(0).outputs.push_back(sc);
    g.node(0).outputs.push_back(zp);
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1.0f, 2.0f, 0.5f, 5.1f})}; // range [0, 5.1]
    auto scale = runTyped<float>(g, 0, in, {ops::Region{}}, 1);
    ASSERT_TRUE(scale.isOk()) << scale.status().str();
    EXPECT_EQ((*scale)[0], 5.1f / 255.0f);
    EXPECT_EQ((*runTyped<std::uint8_t>(g, 0, in, {ops::Region{}}, 2))[0], 0);
    EXPECT_EQ(*runTyped<std::uint8_t>(g, 0, in, {{{0, 2}}, {{2, 4}}}), (std::vector<std::uint8_t>{50, 100, 25, 255}));
}

// a [2,3] u8 (zero point 1) x b [3,2] u8 (zero point 2), scales 0.5 · 0.25 / 0.125 = 1, y zero point 10.
Graph qlinearMatMul(DType yZero = DType::UInt8)
{
    Graph g;
    const TensorId a = typedInput(g, "a", {2, 3}, DType::UInt8), sa = typedInput(g, "sa", {}, DType::Float32),
                   za = typedInput(g, "za", {}, DType::UInt8), b = typedInput(g, "b", {3, 2}, DType::UInt8),
                   sb = typedInput(g, "sb", {}, DType::Float32), zb = typedInput(g, "zb", {}, DType::UInt8),
                   sy = typedInput(g, "sy", {}, DType::Float32), zy = typedInput(g, "zy", {}, yZero);
    typedOp(g, "qmm", "QLinearMatMul", {a, sa, za, b, sb, zb, sy, zy}, {2, 2}, yZero);
    return g;
}

TEST(ReferenceKernels, QLinearMatMulRequantizesTheIntegerProduct)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<std::uint8_t>({1, 2, 3, 4, 5, 6}),
                                                    bytes<float>({0.5f}),
                                                    bytes<std::uint8_t>({1}),
                                                    bytes<std::uint8_t>({2, 3, 4, 5, 6, 200}),
                                                    bytes<float>({0.25f}),
                                                    bytes<std::uint8_t>({2}),
                                                    bytes<float>({0.125f}),
                                                    bytes<std::uint8_t>({10})};
    // (a - 1) = [[0,1,2],[3,4,5]], (b - 2) = [[0,1],[2,3],[4,198]].
    auto y = runTyped<std::uint8_t>(qlinearMatMul(), 0, in, {{{0, 1}, {0, 2}}, {{1, 2}, {0, 2}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<std::uint8_t>{10 + 10, 255, 10 + 28, 255})); // 10, 399, 28, 1005: saturated
}

TEST(ReferenceKernels, QLinearMatMulWithAnInt32OutputZeroPointIsRefusedNamingTheNode)
{
    const Graph g = qlinearMatMul(DType::Int32);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("y_zero_point has element type i32"), std::string::npos) << k.status().str();
    EXPECT_EQ(k.status().location().node, "qmm");
}

// x [1,1,2,2] u8 (zero point 1), w [1,1,2,2] u8 (zero point 0), pads 1 -> y [1,1,3,3] int32.
Graph convInteger(DType x = DType::UInt8)
{
    Graph g;
    const TensorId xi = typedInput(g, "x", {1, 1, 2, 2}, x), w = typedInput(g, "w", {1, 1, 2, 2}, DType::UInt8),
                   zx = typedInput(g, "zx", {}, x);
    typedOp(g, "ci", "ConvInteger", {xi, w, zx}, {1, 1, 3, 3}, DType::Int32,
            {{"pads", {Ints{1, 1, 1, 1}}}, {"kernel_shape", {Ints{2, 2}}}});
    return g;
}

TEST(ReferenceKernels, ConvIntegerSubtractsZeroPointsAndPadsWithThem)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<std::uint8_t>({2, 3, 4, 5}),
                                                    bytes<std::uint8_t>({1, 2, 3, 4}), bytes<std::uint8_t>({1})};
    // x - 1 = [[1,2],[3,4]] padded by zeros, correlated with w = [[1,2],[3,4]].
    auto y = runTyped<std::int32_t>(convInteger(), 0, in,
                                    {{{0, 1}, {0, 1}, {0, 2}, {0, 3}}, {{0, 1}, {0, 1}, {2, 3}, {0, 3}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<std::int32_t>{4, 11, 6, 14, 30, 14, 6, 11, 4}));
}

TEST(ReferenceKernels, ConvIntegerOnInt16IsRefusedNamingTheNode)
{
    const Graph g = convInteger(DType::Int16);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("x is i16, expected i8 or u8"), std::string::npos) << k.status().str();
    EXPECT_EQ(k.status().location().node, "ci");
}

// A constant initializer of `type` holding `values` (compile-time inputs: K, conditions).
template <typename T>
TensorId constant(Graph &g, const std::string &name, Shape shape, DType type, std::vector<T> values)
{
    const TensorId t = testgraphs::tensor(g, name, shape, Tensor::Kind::Initializer);
    auto d = std::make_shared<TensorData>();
    d->dtype = type;
    d->shape = std::move(shape);
    d->bytes = bytes(std::move(values));
    g.tensor(t).dtype = type;
    g.tensor(t).data = std::move(d);
    return t;
}

// x [2,4] (type `type`) -> TopK(K = 2, largest or smallest) -> values, indices [2,2].
Graph topk(bool largest, DType type = DType::Float32)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {2, 4}, type), k = constant<std::int64_t>(g, "k", {1}, DType::Int64, {2});
    const TensorId v = op(g, "topk", "TopK", {x, k}, {2, 2}, {{"largest", {std::int64_t{largest ? 1 : 0}}}});
    g.tensor(v).dtype = type;
    const TensorId i = testgraphs::tensor(g, "idx", {2, 2});
    g.tensor(i).dtype = DType::Int64;
    g.node(0).outputs.push_back(i);
    g.outputs = {v, i};
    return g;
}

TEST(ReferenceKernels, TopKRanksEachLineAndKeepsTiesInIndexOrder)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 5, 5, 2, 0, -1, 3, 3}), {}};
    const std::vector<ops::Region> whole{{{0, 2}, {0, 2}}}, tiles{{{0, 1}, {1, 2}}, {{0, 2}, {0, 1}}, {{1, 2}, {1, 2}}};
    EXPECT_EQ(*runTyped<float>(topk(true), 0, in, whole), (std::vector<float>{5, 5, 3, 3}));
    EXPECT_EQ(*runTyped<std::int64_t>(topk(true), 0, in, whole, 1), (std::vector<std::int64_t>{1, 2, 2, 3}));
    EXPECT_EQ(*runTyped<std::int64_t>(topk(true), 0, in, tiles, 1), (std::vector<std::int64_t>{1, 2, 2, 3}));
    EXPECT_EQ(*runTyped<float>(topk(false), 0, in, tiles), (std::vector<float>{1, 2, -1, 0}));
}

TEST(ReferenceKernels, TopKOnInt64IsUnsupported)
{
    const Graph g = topk(true, DType::Int64);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "topk");
}

// x [1,3,1,1] -> LRN(size 2, alpha 3, beta 1, bias 1).
Graph lrn(DType type = DType::Float32)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {1, 3, 1, 1}, type);
    typedOp(g, "lrn", "LRN", {x}, {1, 3, 1, 1}, type,
            {{"size", {std::int64_t{2}}}, {"alpha", {3.0}}, {"beta", {1.0}}, {"bias", {1.0}}});
    return g;
}

TEST(ReferenceKernels, LRNDividesByItsChannelWindow)
{
    // size 2: channel c sums c and c + 1; y = x / (1 + 3/2 · Σx²).
    auto y = runTyped<float>(lrn(), 0, {bytes<float>({1, 2, 3})},
                             {{{0, 1}, {0, 2}, {0, 1}, {0, 1}}, {{0, 1}, {2, 3}, {0, 1}, {0, 1}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{1.0f / 8.5f, 2.0f / 20.5f, 3.0f / 14.5f}));
}

TEST(ReferenceKernels, LRNOnFloat64IsUnsupported)
{
    const Graph g = lrn(DType::Float64);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "lrn");
}

TEST(ReferenceKernels, ReverseSequenceCompressNonZeroAndWindows)
{
    Graph g; // x [3 time, 2 batch], lengths {2, 3}
    const TensorId x = typedInput(g, "x", {3, 2}, DType::Float32), l = typedInput(g, "l", {2}, DType::Int64);
    typedOp(g, "rev", "ReverseSequence", {x, l}, {3, 2}, DType::Float32);
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 2, 3, 4, 5, 6}), bytes<std::int64_t>({2, 3})};
    EXPECT_EQ(*runTyped<float>(g, 0, in, {{{0, 3}, {0, 1}}, {{0, 3}, {1, 2}}}), (std::vector<float>{3, 6, 1, 4, 5, 2}));
    auto tooLong = runTyped<float>(g, 0, {in[0], bytes<std::int64_t>({4, 1})}, {{{0, 3}, {0, 2}}});
    EXPECT_FALSE(tooLong.isOk()); // a length beyond the 3 time steps

    Graph c; // Compress along axis 1 with a constant condition
    const TensorId cx = typedInput(c, "x", {2, 3}, DType::Int32);
    const TensorId cc = constant<std::uint8_t>(c, "cond", {3}, DType::Bool, {1, 0, 1});
    typedOp(c, "compress", "Compress", {cx, cc}, {2, 2}, DType::Int32, {{"axis", {std::int64_t{1}}}});
    EXPECT_EQ(*runTyped<std::int32_t>(c, 0, {bytes<std::int32_t>({1, 2, 3, 4, 5, 6}), {}}, {{{0, 2}, {0, 2}}}),
              (std::vector<std::int32_t>{1, 3, 4, 6}));

    Graph nz; // NonZero of a constant [2,2]: coordinates of 2 and 3
    const TensorId v = constant<std::int64_t>(nz, "v", {2, 2}, DType::Int64, {0, 2, 3, 0});
    typedOp(nz, "nz", "NonZero", {v}, {2, 2}, DType::Int64);
    EXPECT_EQ(*runTyped<std::int64_t>(nz, 0, std::vector<std::vector<std::uint8_t>>(1), {{{0, 2}, {0, 2}}}),
              (std::vector<std::int64_t>{0, 1, 1, 0}));

    Graph w; // a symmetric Hann window of 3: 0, 1, 0
    const TensorId size = constant<std::int64_t>(w, "size", {}, DType::Int64, {3});
    typedOp(w, "hann", "HannWindow", {size}, {3}, DType::Float32, {{"periodic", {std::int64_t{0}}}});
    auto hann = runTyped<float>(w, 0, std::vector<std::vector<std::uint8_t>>(1), {{{0, 3}}});
    ASSERT_TRUE(hann.isOk()) << hann.status().str();
    EXPECT_NEAR((*hann)[0], 0.0f, 1e-7);
    EXPECT_NEAR((*hann)[1], 1.0f, 1e-7);
    EXPECT_NEAR((*hann)[2], 0.0f, 1e-7);
}

TEST(ReferenceKernels, CompressWithARunTimeConditionIsRefusedNamingTheNode)
{
    Graph c;
    const TensorId cx = typedInput(c, "x", {2, 3}, DType::Int32), cc = typedInput(c, "cond", {3}, DType::Bool);
    typedOp(c, "compress", "Compress", {cx, cc}, {2, 2}, DType::Int32, {{"axis", {std::int64_t{1}}}});
    auto k = reference::makeKernel(c, c.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_NE(k.status().message().find("not a constant"), std::string::npos) << k.status().str();
    EXPECT_EQ(k.status().location().node, "compress");
}

// --- issue 11: recurrent layers -------------------------------------------------------------

// X [2 steps, 2 batch, 1] -> RNN (hidden 1, W 0.5, R -1, Wb 0.1, Rb 0.2), optional sequence_lens.
Graph rnn(bool lens, const std::string &activation = "Tanh")
{
    Graph g;
    const TensorId x = typedInput(g, "x", {2, 2, 1}, DType::Float32), w = typedInput(g, "w", {1, 1, 1}, DType::Float32),
                   r = typedInput(g, "r", {1, 1, 1}, DType::Float32), b = typedInput(g, "b", {1, 2}, DType::Float32);
    std::vector<TensorId> in{x, w, r, b};
    if (lens)
        in.push_back(typedInput(g, "lens", {2}, DType::Int32));
    typedOp(g, "rnn", "RNN", in, {2, 1, 2, 1}, DType::Float32,
            {{"hidden_size", {std::int64_t{1}}}, {"activations", {std::vector<std::string>{activation}}}});
    return g;
}

TEST(ReferenceKernels, RNNRunsEachBatchRowsRecurrenceAndZeroesStepsPastItsLength)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 2, -1, 0.5f}), bytes<float>({0.5f}),
                                                    bytes<float>({-1}), bytes<float>({0.1f, 0.2f}),
                                                    bytes<std::int32_t>({2, 1})};
    const double b0 = std::tanh(0.5 * 1 + 0.1 + 0.2), b1 = std::tanh(0.5 * 2 + 0.1 + 0.2);
    const double b0t1 = std::tanh(0.5 * -1 - b0 + 0.1 + 0.2);
    // Batch rows as separate tiles; row 1 has length 1: its step 1 is 0.
    auto y = runTyped<float>(rnn(true), 0, in, {{{0, 2}, {0, 1}, {0, 1}, {0, 1}}, {{0, 2}, {0, 1}, {1, 2}, {0, 1}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_NEAR((*y)[0], b0, 1e-6);
    EXPECT_NEAR((*y)[1], b1, 1e-6);
    EXPECT_NEAR((*y)[2], b0t1, 1e-6);
    EXPECT_EQ((*y)[3], 0.0f);
    auto whole = runTyped<float>(rnn(false), 0, {in[0], in[1], in[2], in[3]}, {{{0, 2}, {0, 1}, {0, 2}, {0, 1}}});
    EXPECT_NEAR((*whole)[3], std::tanh(0.5 * 0.5 - b1 + 0.1 + 0.2), 1e-6); // without lengths: two steps
    auto tooLong = runTyped<float>(rnn(true), 0, {in[0], in[1], in[2], in[3], bytes<std::int32_t>({3, 1})},
                                   {{{0, 2}, {0, 1}, {0, 2}, {0, 1}}});
    EXPECT_FALSE(tooLong.isOk()); // a length past the 2 steps
}

TEST(ReferenceKernels, RNNWithAnUnknownActivationIsUnsupported)
{
    const Graph g = rnn(false, "Swish");
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "rnn");
}

TEST(ReferenceKernels, LSTMWithPeepholesFollowsOnnxsEquations)
{
    Graph g; // one step, batch 2, hidden 1; W = {i, o, f, c}, P = {i, o, f}
    const TensorId x = typedInput(g, "x", {1, 2, 1}, DType::Float32), w = typedInput(g, "w", {1, 4, 1}, DType::Float32),
                   r = typedInput(g, "r", {1, 4, 1}, DType::Float32),
                   h0 = typedInput(g, "h0", {1, 2, 1}, DType::Float32),
                   c0 = typedInput(g, "c0", {1, 2, 1}, DType::Float32), p = typedInput(g, "p", {1, 3}, DType::Float32);
    typedOp(g, "lstm", "LSTM", {x, w, r, kInvalidId, kInvalidId, h0, c0, p}, {1, 1, 2, 1}, DType::Float32,
            {{"hidden_size", {std::int64_t{1}}}});
    for (const char *name : {"yh", "yc"}) {
        const TensorId t = testgraphs::tensor(g, name, {1, 2, 1});
        g.node(0).outputs.push_back(t);
    }
    const std::vector<float> xs{1, -2}, hs{0.5f, -0.25f}, cs{-1, 2};
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>(xs),
                                                    bytes<float>({0.1f, 0.2f, 0.3f, 0.4f}),
                                                    bytes<float>({0.5f, 0.6f, 0.7f, 0.8f}),
                                                    {},
                                                    {},
                                                    bytes<float>(hs),
                                                    bytes<float>(cs),
                                                    bytes<float>({0.1f, 0.2f, 0.3f})};
    auto sig = [](double v) { return 1 / (1 + std::exp(-v)); };
    auto yh = runTyped<float>(g, 0, in, {{{0, 1}, {0, 1}, {0, 1}}, {{0, 1}, {1, 2}, {0, 1}}}, 1);
    auto yc = runTyped<float>(g, 0, in, {{{0, 1}, {0, 2}, {0, 1}}}, 2);
    ASSERT_TRUE(yh.isOk() && yc.isOk()) << yh.status().str();
    for (std::size_t b = 0; b < 2; ++b) {
        const double xv = xs[b], h = hs[b], c = cs[b];
        const double i = sig(0.1 * xv + 0.5 * h + 0.1 * c), f = sig(0.3 * xv + 0.7 * h + 0.3 * c);
        const double cand = std::tanh(0.4 * xv + 0.8 * h), cNew = f * c + i * cand;
        const double o = sig(0.2 * xv + 0.6 * h + 0.2 * cNew);
        EXPECT_NEAR((*yc)[b], cNew, 1e-6) << b;
        EXPECT_NEAR((*yh)[b], o * std::tanh(cNew), 1e-6) << b;
    }
}

// --- issue 11: Einsum -----------------------------------------------------------------------

TEST(ReferenceKernels, EinsumContractsDiagonalsAndBroadcastDims)
{
    Graph g; // batched matmul with a broadcast B
    const TensorId a = typedInput(g, "a", {2, 1, 2}, DType::Float32), b = typedInput(g, "b", {1, 2, 2}, DType::Float32);
    typedOp(g, "mm", "Einsum", {a, b}, {2, 1, 2}, DType::Float32, {{"equation", {std::string("...ij,...jk->...ik")}}});
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 2, 3, 4}), bytes<float>({1, 0, 10, 100})};
    auto y = runTyped<float>(g, 0, in, {{{0, 1}, {0, 1}, {0, 2}}, {{1, 2}, {0, 1}, {0, 2}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{21, 200, 43, 400}));

    Graph d; // batch diagonal of int64 matrices
    const TensorId x = typedInput(d, "x", {2, 2, 2}, DType::Int64);
    typedOp(d, "diag", "Einsum", {x}, {2, 2}, DType::Int64, {{"equation", {std::string("bii->bi")}}});
    EXPECT_EQ(*runTyped<std::int64_t>(d, 0, {bytes<std::int64_t>({1, 2, 3, 4, 5, 6, 7, 8})}, {{{0, 2}, {0, 2}}}),
              (std::vector<std::int64_t>{1, 4, 5, 8}));
}

TEST(ReferenceKernels, EinsumOfBoolIsUnsupported)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {2, 2}, DType::Bool);
    typedOp(g, "t", "Einsum", {x}, {2, 2}, DType::Bool, {{"equation", {std::string("ij->ji")}}});
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "t");
}

// --- issue 11: GridSample -------------------------------------------------------------------

// X [1,1,2,2] = {1, 2, 3, 4} sampled at two grid points.
Graph gridSample(const std::string &mode, const std::string &pad, DType type = DType::Float32)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {1, 1, 2, 2}, type), grid = typedInput(g, "grid", {1, 1, 2, 2}, type);
    typedOp(g, "gs", "GridSample", {x, grid}, {1, 1, 1, 2}, type,
            {{"mode", {mode}}, {"padding_mode", {pad}}, {"align_corners", {std::int64_t{1}}}});
    return g;
}

TEST(ReferenceKernels, GridSampleInterpolatesAndPadsLikePyTorch)
{
    // align_corners: (-1, -1) is X[0, 0], (1, 1) X[1, 1]; (0, 0) the centre; (3, 0) lies past the right edge.
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 2, 3, 4}), bytes<float>({0, 0, 3, 0})};
    const std::vector<ops::Region> tiles{{{0, 1}, {0, 1}, {0, 1}, {0, 1}}, {{0, 1}, {0, 1}, {0, 1}, {1, 2}}};
    EXPECT_EQ(*runTyped<float>(gridSample("bilinear", "zeros"), 0, in, tiles), (std::vector<float>{2.5f, 0}));
    // border clamps x = 2 (unnormalized) to 1: the right column's mean.
    EXPECT_EQ(*runTyped<float>(gridSample("bilinear", "border"), 0, in, tiles), (std::vector<float>{2.5f, 3}));
    // reflection mirrors x = 2 about 1 back to 0: the left column's mean.
    EXPECT_EQ(*runTyped<float>(gridSample("bilinear", "reflection"), 0, in, tiles), (std::vector<float>{2.5f, 2}));
    // nearest rounds (0.5, 0.5) half to even: X[0, 0].
    EXPECT_EQ((*runTyped<float>(gridSample("nearest", "zeros"), 0, in, tiles))[0], 1.0f);
}

TEST(ReferenceKernels, GridSampleOnFloat64IsUnsupported)
{
    const Graph g = gridSample("bilinear", "zeros", DType::Float64);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "gs");
}

// --- issue 11: unsigned element types ---------------------------------------------------

TEST(ReferenceKernels, UnsignedTypesRunMaxModAndBitShift)
{
    Graph g;
    const TensorId a = typedInput(g, "a", {3}, DType::UInt64), b = typedInput(g, "b", {3}, DType::UInt64);
    typedOp(g, "max", "Max", {a, b}, {3}, DType::UInt64);
    auto mx = runTyped<std::uint64_t>(g, 0, {bytes<std::uint64_t>({1, 1ull << 40, 7}), bytes<std::uint64_t>({3, 5, 2})},
                                      {{{0, 3}}});
    ASSERT_TRUE(mx.isOk()) << mx.status().str();
    EXPECT_EQ(*mx, (std::vector<std::uint64_t>{3, 1ull << 40, 7}));

    Graph m;
    const TensorId x = typedInput(m, "x", {2}, DType::UInt16), y = typedInput(m, "y", {2}, DType::UInt16);
    typedOp(m, "mod", "Mod", {x, y}, {2}, DType::UInt16);
    EXPECT_EQ(
        *runTyped<std::uint16_t>(m, 0, {bytes<std::uint16_t>({65535, 9}), bytes<std::uint16_t>({10, 4})}, {{{0, 2}}}),
        (std::vector<std::uint16_t>{5, 1}));

    Graph s; // uint32 shifts wrap at 32 bits
    const TensorId sx = typedInput(s, "x", {2}, DType::UInt32), sy = typedInput(s, "y", {2}, DType::UInt32);
    typedOp(s, "shl", "BitShift", {sx, sy}, {2}, DType::UInt32, {{"direction", {std::string("LEFT")}}});
    EXPECT_EQ(*runTyped<std::uint32_t>(s, 0, {bytes<std::uint32_t>({3, 0x80000001u}), bytes<std::uint32_t>({4, 1})},
                                       {{{0, 2}}}),
              (std::vector<std::uint32_t>{48, 2}));
}

TEST(ReferenceKernels, BitShiftOfAFloatIsRefusedNamingTheNode)
{
    Graph s;
    const TensorId sx = typedInput(s, "x", {2}, DType::Float32), sy = typedInput(s, "y", {2}, DType::Float32);
    typedOp(s, "shl", "BitShift", {sx, sy}, {2}, DType::Float32, {{"direction", {std::string("LEFT")}}});
    auto k = reference::makeKernel(s, s.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().location().node, "shl");
}

// --- issue 11: NonMaxSuppression --------------------------------------------------------------

// Three boxes (0 and 1 overlap, 2 apart), one class, max 10 per class, IoU 0.5.
Graph nms()
{
    Graph g;
    const TensorId boxes =
        constant<float>(g, "boxes", {1, 3, 4}, DType::Float32, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6});
    const TensorId scores = constant<float>(g, "scores", {1, 1, 3}, DType::Float32, {0.9f, 0.8f, 0.7f});
    const TensorId max = constant<std::int64_t>(g, "max", {}, DType::Int64, {10});
    const TensorId iou = constant<float>(g, "iou", {}, DType::Float32, {0.5f});
    typedOp(g, "nms", "NonMaxSuppression", {boxes, scores, max, iou}, {2, 3}, DType::Int64);
    return g;
}

TEST(ReferenceKernels, NonMaxSuppressionKeepsTheBestOfOverlappingBoxes)
{
    const Graph g = nms();
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 5, 5, 6, 6}),
                                                    bytes<float>({0.9f, 0.8f, 0.7f}), bytes<std::int64_t>({10}),
                                                    bytes<float>({0.5f})};
    auto y = runTyped<std::int64_t>(g, 0, in, {{{0, 1}, {0, 3}}, {{1, 2}, {0, 3}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<std::int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(ReferenceKernels, NonMaxSuppressionSelectingAnotherCountThanCompiledIsARunTimeError)
{
    const Graph g = nms();
    // Box 1 no longer overlaps box 0: three boxes selected, the output holds two.
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({0, 0, 1, 1, 2, 2, 3, 3, 5, 5, 6, 6}),
                                                    bytes<float>({0.9f, 0.8f, 0.7f}), bytes<std::int64_t>({10}),
                                                    bytes<float>({0.5f})};
    auto y = runTyped<std::int64_t>(g, 0, in, {{{0, 2}, {0, 3}}});
    ASSERT_FALSE(y.isOk());
    EXPECT_EQ(y.status().location().node, "nms");
}

// x = [2, 1, 1, 3, 4, 3] (a constant) -> Unique (sorted or in order of first occurrence).
Graph unique(bool sorted)
{
    Graph g;
    const TensorId x = constant<float>(g, "x", {6}, DType::Float32, {2, 1, 1, 3, 4, 3});
    const TensorId y = op(g, "unique", "Unique", {x}, {4}, {{"sorted", {std::int64_t{sorted ? 1 : 0}}}});
    for (const char *name : {"indices", "inverse", "counts"}) {
        const TensorId t = testgraphs::tensor(g, name, {std::string_view(name) == "inverse" ? 6 : 4});
        g.tensor(t).dtype = DType::Int64;
        g.node(0).outputs.push_back(t);
    }
    g.outputs = {y};
    return g;
}

TEST(ReferenceKernels, UniqueSortsOrKeepsFirstOccurrences)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({2, 1, 1, 3, 4, 3})};
    EXPECT_EQ(*runTyped<float>(unique(true), 0, in, {{{0, 2}}, {{2, 4}}}), (std::vector<float>{1, 2, 3, 4}));
    EXPECT_EQ(*runTyped<std::int64_t>(unique(true), 0, in, {{{0, 4}}}, 1), (std::vector<std::int64_t>{1, 0, 3, 4}));
    EXPECT_EQ(*runTyped<std::int64_t>(unique(true), 0, in, {{{0, 6}}}, 2),
              (std::vector<std::int64_t>{1, 0, 0, 2, 3, 2}));
    EXPECT_EQ(*runTyped<std::int64_t>(unique(true), 0, in, {{{0, 4}}}, 3), (std::vector<std::int64_t>{2, 1, 2, 1}));
    EXPECT_EQ(*runTyped<float>(unique(false), 0, in, {{{0, 4}}}), (std::vector<float>{2, 1, 3, 4}));
}

TEST(ReferenceKernels, UniqueOfOtherValuesThanCompiledIsARunTimeError)
{
    auto y = runTyped<float>(unique(true), 0, {bytes<float>({1, 2, 3, 4, 5, 6})}, {{{0, 4}}});
    ASSERT_FALSE(y.isOk()); // six distinct values, the output holds four
    EXPECT_EQ(y.status().location().node, "unique");
}

// --- issue 11: Det, MaxUnpool ----------------------------------------------------------------

TEST(ReferenceKernels, DetFactorsEachMatrixWithPivoting)
{
    Graph g; // [[0, 2], [3, 4]] needs a row swap: det -6; [[1, 2], [2, 4]] is singular
    const TensorId x = typedInput(g, "x", {2, 2, 2}, DType::Float32);
    typedOp(g, "det", "Det", {x}, {2}, DType::Float32);
    auto y = runTyped<float>(g, 0, {bytes<float>({0, 2, 3, 4, 1, 2, 2, 4})}, {{{0, 1}}, {{1, 2}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{-6, 0}));
}

TEST(ReferenceKernels, DetOfAnIntegerMatrixIsRefusedNamingTheNode)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {2, 2}, DType::Int32);
    typedOp(g, "det", "Det", {x}, {}, DType::Int32);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().location().node, "det");
}

// x [1,1,1,2] with indices into y [1,1,2,2].
Graph maxUnpool()
{
    Graph g;
    const TensorId x = typedInput(g, "x", {1, 1, 1, 2}, DType::Float32),
                   i = typedInput(g, "i", {1, 1, 1, 2}, DType::Int64);
    typedOp(g, "unpool", "MaxUnpool", {x, i}, {1, 1, 2, 2}, DType::Float32,
            {{"kernel_shape", {Ints{2, 1}}}, {"strides", {Ints{2, 1}}}});
    return g;
}

TEST(ReferenceKernels, MaxUnpoolPlacesEachValueAtItsIndexWhateverTheTiles)
{
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({5, 7}), bytes<std::int64_t>({3, 0})};
    auto y = runTyped<float>(maxUnpool(), 0, in, {{{0, 1}, {0, 1}, {0, 1}, {0, 2}}, {{0, 1}, {0, 1}, {1, 2}, {0, 2}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{7, 0, 0, 5}));
}

TEST(ReferenceKernels, MaxUnpoolIndexOutsideTheOutputIsARunTimeError)
{
    auto y = runTyped<float>(maxUnpool(), 0, {bytes<float>({5, 7}), bytes<std::int64_t>({4, 0})},
                             {{{0, 1}, {0, 1}, {0, 2}, {0, 2}}});
    ASSERT_FALSE(y.isOk());
    EXPECT_EQ(y.status().location().node, "unpool");
}

// --- issue 11: BatchNormalization in training mode --------------------------------------------

// x [2, 1] (N 2, C 1) -> BatchNormalization(training_mode 1, momentum 0.5) at `opset`.
Graph trainingBatchNorm(std::int64_t opset)
{
    Graph g;
    g.opsetVersion = opset;
    std::vector<TensorId> in{typedInput(g, "x", {2, 1}, DType::Float32)};
    for (const char *name : {"scale", "b", "mean", "var"})
        in.push_back(typedInput(g, name, {1}, DType::Float32));
    typedOp(g, "bn", "BatchNormalization", in, {2, 1}, DType::Float32,
            {{"training_mode", {std::int64_t{1}}}, {"momentum", {0.5}}, {"epsilon", {0.0}}});
    for (const char *name : {"running_mean", "running_var"})
        g.node(0).outputs.push_back(testgraphs::tensor(g, name, {1}));
    return g;
}

TEST(ReferenceKernels, TrainingBatchNormUsesBatchStatisticsAndUpdatesTheRunningOnes)
{
    // x = {1, 3}: batch mean 2, population variance 1; running mean 10, var 4.
    const std::vector<std::vector<std::uint8_t>> in{bytes<float>({1, 3}), bytes<float>({2}), bytes<float>({5}),
                                                    bytes<float>({10}), bytes<float>({4})};
    const Graph g = trainingBatchNorm(15);
    EXPECT_EQ(*runTyped<float>(g, 0, in, {{{0, 1}, {0, 1}}, {{1, 2}, {0, 1}}}), (std::vector<float>{3, 7}));
    EXPECT_EQ(*runTyped<float>(g, 0, in, {{{0, 1}}}, 1), (std::vector<float>{6}));    // 10·0.5 + 2·0.5
    EXPECT_EQ(*runTyped<float>(g, 0, in, {{{0, 1}}}, 2), (std::vector<float>{2.5f})); // 4·0.5 + 1·0.5
}

TEST(ReferenceKernels, TrainingBatchNormBeforeOpset14IsUnsupported)
{
    const Graph g = trainingBatchNorm(9); // opset 9: five outputs; these three are refused
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().location().node, "bn");
}

// --- issue 11: Upsample (Resize-10) ----------------------------------------------------------

Graph upsample(const std::string &mode)
{
    Graph g;
    g.opsetVersion = 9;
    const TensorId x = typedInput(g, "x", {1, 1, 1, 2}, DType::Float32);
    const TensorId s = constant<float>(g, "scales", {4}, DType::Float32, {1, 1, 2, 2});
    typedOp(g, "up", "Upsample", {x, s}, {1, 1, 2, 4}, DType::Float32, {{"mode", {mode}}});
    return g;
}

TEST(ReferenceKernels, UpsampleNearestRepeatsEachElement)
{
    auto y = runTyped<float>(upsample("nearest"), 0, {bytes<float>({1, 2}), {}},
                             {{{0, 1}, {0, 1}, {0, 1}, {0, 4}}, {{0, 1}, {0, 1}, {1, 2}, {0, 4}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(ReferenceKernels, UpsampleWithACubicModeIsRefusedNamingTheNode)
{
    const Graph g = upsample("cubic");
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().location().node, "up");
}

// --- issue 11: MaxPool on int8/uint8 -------------------------------------------------------

Graph pool(const std::string &opType, DType type)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {1, 1, 2, 2}, type);
    typedOp(g, "pool", opType, {x}, {1, 1, 1, 1}, type, {{"kernel_shape", {Ints{2, 2}}}});
    return g;
}

TEST(ReferenceKernels, MaxPoolOnUint8ComparesExactly)
{
    auto y = runTyped<std::uint8_t>(pool("MaxPool", DType::UInt8), 0, {bytes<std::uint8_t>({7, 255, 3, 254})},
                                    {{{0, 1}, {0, 1}, {0, 1}, {0, 1}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<std::uint8_t>{255}));
}

TEST(ReferenceKernels, AveragePoolOnUint8IsUnsupported)
{
    const Graph g = pool("AveragePool", DType::UInt8);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "pool");
}

// --- issue 11: RoiAlign -----------------------------------------------------------------------

// X [1,1,2,2] and one roi over the whole image -> RoiAlign (2 x 2 bins, one sample each, half_pixel).
Graph roiAlign(const std::string &mode)
{
    Graph g;
    g.opsetVersion = 16;
    const TensorId x = typedInput(g, "x", {1, 1, 2, 2}, DType::Float32),
                   rois = typedInput(g, "rois", {1, 4}, DType::Float32), idx = typedInput(g, "idx", {1}, DType::Int64);
    typedOp(g, "roi", "RoiAlign", {x, rois, idx}, {1, 1, 2, 2}, DType::Float32,
            {{"output_height", {std::int64_t{2}}},
             {"output_width", {std::int64_t{2}}},
             {"sampling_ratio", {std::int64_t{1}}},
             {"mode", {mode}}});
    return g;
}

TEST(ReferenceKernels, RoiAlignSamplesEachBinsCentre)
{
    // Bin centres of the roi [0, 2] x [0, 2] shifted by half a pixel are the pixel centres: Y = X.
    auto y = runTyped<float>(roiAlign("avg"), 0,
                             {bytes<float>({0, 1, 2, 3}), bytes<float>({0, 0, 2, 2}), bytes<std::int64_t>({0})},
                             {{{0, 1}, {0, 1}, {0, 1}, {0, 2}}, {{0, 1}, {0, 1}, {1, 2}, {0, 2}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{0, 1, 2, 3}));
}

TEST(ReferenceKernels, RoiAlignMaxModeIsUnsupported)
{
    const Graph g = roiAlign("max");
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "roi");
}

// --- issue 11: TfIdfVectorizer ----------------------------------------------------------------

// x [5] int32; pool: unigrams 1, 3 and the bigram (1, 2); n-grams of length 1..2, skips up to 2.
Graph tfidf(bool strings)
{
    Graph g;
    const TensorId x = typedInput(g, "x", {5}, DType::Int32);
    AttrMap attrs{{"mode", {std::string("TF")}},          {"min_gram_length", {std::int64_t{1}}},
                  {"max_gram_length", {std::int64_t{2}}}, {"max_skip_count", {std::int64_t{2}}},
                  {"ngram_counts", {Ints{0, 2}}},         {"ngram_indexes", {Ints{0, 1, 2}}}};
    if (strings)
        attrs["pool_strings"] = {std::vector<std::string>{"a", "b", "a", "c"}};
    else
        attrs["pool_int64s"] = {Ints{1, 3, 1, 2}};
    typedOp(g, "tfidf", "TfIdfVectorizer", {x}, {3}, DType::Float32, attrs);
    return g;
}

TEST(ReferenceKernels, TfIdfVectorizerCountsNGramsWithSkipsAndUnigramsOnce)
{
    // x = 1 2 1 2 3: unigram 1 twice, 3 once; bigram (1, 2) at skip 0 (twice) and skip 2 (x[0], x[3]).
    auto y = runTyped<float>(tfidf(false), 0, {bytes<std::int32_t>({1, 2, 1, 2, 3})}, {{{0, 1}}, {{1, 3}}});
    ASSERT_TRUE(y.isOk()) << y.status().str();
    EXPECT_EQ(*y, (std::vector<float>{2, 1, 3}));
}

TEST(ReferenceKernels, TfIdfVectorizerWithAStringPoolIsUnsupported)
{
    const Graph g = tfidf(true);
    auto k = reference::makeKernel(g, g.node(0));
    ASSERT_FALSE(k.isOk());
    EXPECT_EQ(k.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(k.status().location().node, "tfidf");
}

// --- inputs ---------------------------------------------------------------------------

TEST_F(ReferenceBackend, InputsAreMatchedByName)
{
    const Graph g = convRelu();
    auto inputs = planutil::makeInputs(g, 4);
    inputs.insert(inputs.begin(), inputs[0]); // order does not matter, names do
    inputs.erase(inputs.begin() + 1);
    EXPECT_TRUE(planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), inputs).isOk());
}

TEST_F(ReferenceBackend, MissingInputIsAnErrorNamingIt)
{
    const Graph g = convRelu();
    auto r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), {});
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().location().tensor, "x");
    EXPECT_EQ(r.status().message(), "missing input 'x' (f32 1x8x16x16)");
}

TEST_F(ReferenceBackend, MisShapedInputIsAnErrorNamingIt)
{
    const Graph g = convRelu();
    std::vector<HostTensor> inputs{planutil::floatTensor("x", {1, 8, 16, 15}, std::vector<float>(8 * 16 * 15))};
    auto r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), inputs);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().message(), "input 'x' is f32 1x8x16x15, expected f32 1x8x16x16");
    inputs[0] = planutil::floatTensor("y", {1, 8, 16, 16}, std::vector<float>(8 * 16 * 16));
    inputs.push_back(planutil::makeInputs(g, 1)[0]);
    r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), inputs);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().message(), "unknown input 'y'; graph inputs: x");
}

// --- what the backend runs --------------------------------------------------------------

TEST_F(ReferenceBackend, SupportsKnownOpsAndCompilesTheirPlans)
{
    const Graph g = convRelu();
    for (const Node &n : g.nodes())
        EXPECT_TRUE(backend->supports(g, n)) << n.name;
    EXPECT_EQ(backend->info().name, "reference");
    EXPECT_TRUE(backend->info().available);
}

TEST_F(ReferenceBackend, OpaqueNodeIsUnsupportedAndRefusedByName)
{
    Graph g = convRelu();
    const TensorId y = g.outputs[0];
    Node custom;
    custom.name = "mystery";
    custom.opType = "FancyActivation";
    custom.domain = "com.example";
    custom.opaque = true;
    custom.inputs = {y};
    custom.outputs = {testgraphs::tensor(g, "z", {1, 8, 16, 16})};
    g.addNode(custom);
    g.outputs = {g.findTensor("z")};
    EXPECT_FALSE(backend->supports(g, g.node(g.findNode("mystery"))));
    auto compiled = backend->compile(g, planutil::wholePlan(g, perNode(g)));
    ASSERT_FALSE(compiled.isOk());
    EXPECT_EQ(compiled.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(compiled.status().location().node, "mystery");
    EXPECT_NE(compiled.status().message().find("opaque op 'FancyActivation'"), std::string::npos);
}

TEST_F(ReferenceBackend, UnsupportedAttributeValueIsRefusedByName)
{
    // BatchNormalization's training form runs from opset 14 on (three outputs); the
    // opset < 14 form with saved_mean/saved_var outputs is refused.
    for (bool legacy : {false, true}) {
        Graph g;
        g.opsetVersion = legacy ? 9 : 15;
        const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4}, Tensor::Kind::Input);
        g.inputs = {x};
        std::vector<TensorId> in{x};
        for (const char *p : {"scale", "bias", "mean", "var"})
            in.push_back(testgraphs::weight(g, p, {3}));
        g.outputs = {op(g, "bn", "BatchNormalization", in, {2, 3, 4})};
        if (legacy)
            for (const char *name : {"mean_out", "var_out", "saved_mean", "saved_var"})
                g.node(0).outputs.push_back(testgraphs::tensor(g, name, {3}));
        EXPECT_EQ(backend->supports(g, g.node(0)), !legacy);
        auto r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), planutil::makeInputs(g, 5));
        ASSERT_EQ(r.isOk(), !legacy) << r.status().str();
        if (legacy) {
            EXPECT_EQ(r.status().code(), ErrorCode::Unsupported);
            EXPECT_EQ(r.status().location().node, "bn");
            EXPECT_NE(r.status().message().find("training mode"), std::string::npos);
        }
    }
}

// x[2,3] -> Dropout(x, ratio, training_mode=true) with constant ratio and mode.
Graph trainingDropout(float ratio)
{
    Graph g;
    g.opsetVersion = 13;
    const TensorId x = testgraphs::tensor(g, "x", {2, 3}, Tensor::Kind::Input);
    g.inputs = {x};
    auto constant = [&](const std::string &name, DType t, const void *value, std::size_t size) {
        auto d = std::make_shared<TensorData>();
        d->dtype = t;
        d->bytes.resize(size);
        std::memcpy(d->bytes.data(), value, size);
        return g.addTensor(Tensor{name, t, {}, Tensor::Kind::Initializer, kInvalidId, {}, d});
    };
    const std::uint8_t training = 1;
    const TensorId r = constant("ratio", DType::Float32, &ratio, 4);
    const TensorId mode = constant("training_mode", DType::Bool, &training, 1);
    g.outputs = {op(g, "drop", "Dropout", {x, r, mode}, {2, 3})};
    return g;
}

TEST_F(ReferenceBackend, TrainingDropoutWithRatioZeroIsTheIdentity)
{
    const Graph g = trainingDropout(0.0f);
    const auto inputs = std::vector{planutil::floatTensor("x", {2, 3}, {1, -2, 3, 0.5f, 5, -6})};
    const RunResult r = run(g, planutil::wholePlan(g, perNode(g)), inputs);
    ASSERT_EQ(r.outputs.size(), 1u);
    EXPECT_TRUE(planutil::bitEqual(r.outputs[0], inputs[0]));
}

TEST_F(ReferenceBackend, TrainingDropoutWithANonZeroRatioIsRefused)
{
    const Graph g = trainingDropout(0.5f);
    auto r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), planutil::makeInputs(g, 5));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(r.status().location().node, "drop");
    EXPECT_NE(r.status().message().find("training mode"), std::string::npos);
}

TEST_F(ReferenceBackend, MaxPoolIndicesAreFlatPositionsInRowOrColumnMajorOrder)
{
    for (std::int64_t order : {0, 1}) {
        Graph g;
        const TensorId x = testgraphs::tensor(g, "x", {1, 2, 4, 4}, Tensor::Kind::Input);
        g.inputs = {x};
        Node n;
        n.name = "pool";
        n.opType = "MaxPool";
        n.attrs = {{"kernel_shape", {Ints{2, 2}}}, {"strides", {Ints{2, 2}}}, {"storage_order", {order}}};
        n.inputs = {x};
        n.outputs = {testgraphs::tensor(g, "y", {1, 2, 2, 2}), testgraphs::tensor(g, "i", {1, 2, 2, 2})};
        g.tensor(n.outputs[1]).dtype = DType::Int64;
        g.addNode(n);
        g.outputs = n.outputs;
        const auto inputs = planutil::makeInputs(g, 5);
        auto r = planutil::compileAndRun(*backend, g, planutil::wholePlan(g, perNode(g)), inputs);
        ASSERT_TRUE(r.isOk()) << r.status().str();
        for (int k = 0; k < 8; ++k) { // channel c = k / 4, window (k / 2 % 2, k % 2)
            std::int64_t idx = 0;
            std::memcpy(&idx, r->outputs[1].bytes.data() + 8 * k, 8);
            const std::int64_t c = idx / 16, p = idx % 16, h = order ? p % 4 : p / 4, w = order ? p / 4 : p % 4;
            EXPECT_EQ(c, k / 4);
            EXPECT_EQ(h / 2, k / 2 % 2);
            EXPECT_EQ(w / 2, k % 2);
            EXPECT_EQ(inputs[0].f32()[c * 16 + h * 4 + w], r->outputs[0].f32()[k]);
        }
    }
}

// --- external weights ------------------------------------------------------------------

class ExternalWeights : public ReferenceBackend
{
protected:
    void SetUp() override
    {
        dir = std::filesystem::temp_directory_path() / ("tessera-ref-ext-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        inlineGraph = convRelu();
        graph = inlineGraph;
        // Move w's 576 floats to a file at offset 64.
        const TensorId w = graph.findTensor("w");
        const auto &bytes = graph.tensor(w).data->bytes;
        file = (dir / "weights.bin").string();
        std::ofstream out(file, std::ios::binary);
        out << std::string(64, '\0');
        out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        out.close();
        auto ext = std::make_shared<TensorData>();
        ext->dtype = DType::Float32;
        ext->shape = graph.tensor(w).shape;
        ext->external = TensorData::External{file, 64, static_cast<std::int64_t>(bytes.size())};
        graph.tensor(w).data = ext;
    }
    void TearDown() override { std::filesystem::remove_all(dir); }

    std::filesystem::path dir;
    std::string file;
    Graph inlineGraph, graph;
};

TEST_F(ExternalWeights, AreLoadedAtCompileTime)
{
    const auto inputs = planutil::makeInputs(graph, 6);
    const RunResult ext = run(graph, planutil::wholePlan(graph, perNode(graph)), inputs);
    const RunResult inl = run(inlineGraph, planutil::wholePlan(inlineGraph, perNode(inlineGraph)), inputs);
    ASSERT_EQ(ext.outputs.size(), 1u);
    EXPECT_TRUE(planutil::bitEqual(ext.outputs[0], inl.outputs[0]));
    EXPECT_EQ(ext.metrics.at("weight_bytes"), (576 + 8) * 4);
}

TEST_F(ExternalWeights, TruncatedFileIsRefusedNamingTheTensor)
{
    std::filesystem::resize_file(file, 64 + 100);
    auto compiled = backend->compile(graph, planutil::wholePlan(graph, perNode(graph)));
    ASSERT_FALSE(compiled.isOk());
    EXPECT_EQ(compiled.status().location().tensor, "w") << compiled.status().str();
}

// --- observation ---------------------------------------------------------------------------

TEST_F(ReferenceBackend, TimelineProgressAndMetricsDescribeTheRun)
{
    const Graph g = testgraphs::residualChain(1);
    ExecutionPlan plan = planutil::wholePlan(g, perNode(g));
    // Data movement and a barrier move no values here but are run and timed.
    Task copy, barrier;
    copy.kind = TaskKind::Copy;
    copy.deps = {0};
    barrier.kind = TaskKind::Barrier;
    barrier.deps = {plan.addTask(copy), 4};
    plan.addTask(barrier);
    auto compiled = backend->compile(g, plan);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    std::vector<double> fractions;
    RunObserver obs;
    obs.taskFinished = [&](TaskId, double f) { fractions.push_back(f); };
    auto r = backend->run(**compiled, planutil::makeInputs(g, 7), obs);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    ASSERT_EQ(r->timeline.size(), plan.tasks.size());
    for (std::size_t i = 0; i < r->timeline.size(); ++i) {
        EXPECT_EQ(r->timeline[i].task, static_cast<TaskId>(i));
        EXPECT_LE(r->timeline[i].startNs, r->timeline[i].endNs);
        if (i) {
            EXPECT_GE(r->timeline[i].startNs, r->timeline[i - 1].endNs);
        }
    }
    ASSERT_EQ(fractions.size(), plan.tasks.size());
    EXPECT_EQ(fractions.back(), 1.0);
    EXPECT_GT(r->metrics.at("op_ms/Conv"), 0.0);
    EXPECT_GT(r->latencyMs, 0.0);
    // Buffers are freed after their last use: never all five 8 KiB tensors at once.
    const double fixed = 8 * 16 * 16 * 4 + r->metrics.at("weight_bytes");
    EXPECT_LT(r->metrics.at("peak_host_bytes") - fixed, 5 * 8192);
    EXPECT_GE(r->metrics.at("peak_host_bytes") - fixed, 2 * 8192);
}

TEST_F(ReferenceBackend, CancelStopsTheRun)
{
    const Graph g = testgraphs::residualChain(1);
    auto compiled = backend->compile(g, planutil::wholePlan(g, perNode(g)));
    ASSERT_TRUE(compiled.isOk());
    std::atomic<bool> cancel{false};
    RunObserver obs;
    obs.cancel = &cancel;
    obs.taskFinished = [&](TaskId t, double) { cancel = t == 1; };
    auto r = backend->run(**compiled, planutil::makeInputs(g, 8), obs);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::Cancelled);
    EXPECT_EQ(r.status().message(), "run cancelled after 2 of 5 tasks");
}

// --- Backend tags: a backend runs only plans it compiled ---------------------------------

// A plan another backend compiled (tagged "cpu"), and one built with no tag at all.
class ForeignPlan final : public CompiledPlan
{
public:
    ForeignPlan() : CompiledPlan("cpu") {}
};
class UntaggedPlan final : public CompiledPlan
{
};

TEST_F(ReferenceBackend, CompiledPlanCarriesTheReferenceKind)
{
    const Graph g = testgraphs::residualChain(1);
    auto compiled = backend->compile(g, planutil::wholePlan(g, perNode(g)));
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    EXPECT_EQ((*compiled)->backend(), "reference");
    EXPECT_EQ((*compiled)->backend(), backend->info().name);
    auto r = backend->run(**compiled, planutil::makeInputs(g, 3));
    EXPECT_TRUE(r.isOk()) << r.status().str();
}

TEST_F(ReferenceBackend, ForeignCompiledPlanIsRefusedCleanly)
{
    const Graph g = testgraphs::residualChain(1);
    ForeignPlan foreign;
    auto r = backend->run(foreign, planutil::makeInputs(g, 3));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_EQ(r.status().message(),
              "the plan was compiled by the 'cpu' backend, not by the reference backend; compile it here first");
    UntaggedPlan untagged;
    EXPECT_EQ(untagged.backend(), "");
    auto u = backend->run(untagged, {});
    ASSERT_FALSE(u.isOk());
    EXPECT_EQ(u.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(u.status().message().find("'unknown' backend"), std::string::npos) << u.status().str();
}

// --- Synthetic inputs (core/backend/inputs.h) ----------------------------------------------

TEST(SyntheticInputs, DeterministicPerSeedAndInRange)
{
    const Graph g = testgraphs::residualChain(1);
    const auto a = syntheticInputs(g, 1), b = syntheticInputs(g, 1), c = syntheticInputs(g, 2);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].name, "x");
    EXPECT_EQ(a[0].shape, (Shape{1, 8, 16, 16}));
    EXPECT_TRUE(planutil::bitEqual(a[0], b[0]));
    EXPECT_FALSE(planutil::bitEqual(a[0], c[0]));
    float lo = 1, hi = -1;
    for (std::int64_t i = 0; i < a[0].elements(); ++i) {
        lo = std::min(lo, a[0].f32()[i]);
        hi = std::max(hi, a[0].f32()[i]);
    }
    EXPECT_GE(lo, -1.0f);
    EXPECT_LT(hi, 1.0f);
    EXPECT_LT(lo, -0.9f); // spread over the range, not a constant
    EXPECT_GT(hi, 0.9f);
    // Bit for bit what tessera-cli has always fed (its former private generator).
    std::uint64_t s = 1;
    for (std::int64_t i = 0; i < a[0].elements(); ++i) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        ASSERT_EQ(a[0].f32()[i], static_cast<float>(s >> 40) / static_cast<float>(1 << 24) * 2.0f - 1.0f) << i;
    }
    // syntheticInputs seeds consecutively from firstSeed.
    EXPECT_TRUE(planutil::bitEqual(syntheticInput(g.tensor(g.inputs[0]), 2), c[0]));
    // The result is a valid run input.
    auto compiled = planutil::compileAndRun(*createReferenceBackend(), g, planutil::wholePlan(g, perNode(g)), a);
    EXPECT_TRUE(compiled.isOk()) << compiled.status().str();
}

TEST(SyntheticInputs, PerDtypeRanges)
{
    Graph g;
    auto add = [&](const std::string &name, DType dtype) {
        const TensorId t = testgraphs::tensor(g, name, {64}, Tensor::Kind::Input);
        g.tensor(t).dtype = dtype;
        return t;
    };
    const TensorId idsId = add("ids", DType::Int64), maskId = add("mask", DType::Bool),
                   halfId = add("half", DType::Float16), bytesId = add("bytes", DType::UInt8);
    const Tensor &ids = g.tensor(idsId), &mask = g.tensor(maskId), &half = g.tensor(halfId), &bytes = g.tensor(bytesId);
    // Integers default to zeros: a valid index for any Gather.
    const HostTensor zeros = syntheticInput(ids, 5);
    EXPECT_EQ(zeros.bytes.size(), 64u * 8);
    EXPECT_TRUE(std::all_of(zeros.bytes.begin(), zeros.bytes.end(), [](std::uint8_t b) { return b == 0; }));
    SyntheticInputOptions o;
    o.intLow = 3;
    o.intHigh = 7;
    const HostTensor ranged = syntheticInput(ids, 5, o);
    const auto *v = reinterpret_cast<const std::int64_t *>(ranged.bytes.data());
    EXPECT_EQ(*std::min_element(v, v + 64), 3);
    EXPECT_EQ(*std::max_element(v, v + 64), 7);
    // Bool clamps to {0, 1}; uint8 clamps a negative low bound to 0.
    o.intLow = -5;
    o.intHigh = 9;
    for (const Tensor *t : {&mask, &bytes}) {
        const HostTensor h = syntheticInput(*t, 9, o);
        const std::uint8_t top = t == &mask ? 1 : 9;
        EXPECT_TRUE(std::all_of(h.bytes.begin(), h.bytes.end(), [&](std::uint8_t b) { return b <= top; })) << t->name;
        EXPECT_TRUE(std::any_of(h.bytes.begin(), h.bytes.end(), [](std::uint8_t b) { return b > 0; })) << t->name;
    }
    // Halves are in [-1, 1): |x| < 1 means an exponent below 15 (bits 0x3c00).
    const HostTensor h = syntheticInput(half, 4);
    ASSERT_EQ(h.bytes.size(), 64u * 2);
    const auto *hv = reinterpret_cast<const std::uint16_t *>(h.bytes.data());
    for (int i = 0; i < 64; ++i)
        EXPECT_LE(hv[i] & 0x7fffu, 0x3c00u) << i;
    EXPECT_TRUE(std::any_of(hv, hv + 64, [](std::uint16_t x) { return (x & 0x7fffu) > 0x3000u; }));
}

// --- TensorProto files ------------------------------------------------------------------

class TensorFiles : public ::testing::Test
{
protected:
    void SetUp() override { std::filesystem::create_directories(dir); }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::string path(const std::string &name) const { return (dir / name).string(); }
    std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("tessera-ref-pb-" + std::to_string(::getpid()));
};

TEST_F(TensorFiles, RoundTripAndTypedFields)
{
    const HostTensor t = planutil::floatTensor("x", {2, 2}, {1, -2, 3.5f, 0});
    ASSERT_TRUE(writeTensorProto(t, path("x.pb")).isOk());
    auto back = readTensorProto(path("x.pb"));
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_TRUE(planutil::bitEqual(*back, t));
    EXPECT_EQ(back->name, "x");
    // int64_data instead of raw_data.
    onnx::TensorProto p;
    p.set_name("ids");
    p.set_data_type(onnx::TensorProto::INT64);
    p.add_dims(3);
    for (std::int64_t v : {7, -1, 40})
        p.add_int64_data(v);
    std::ofstream(path("ids.pb"), std::ios::binary) << p.SerializeAsString();
    auto ids = readTensorProto(path("ids.pb"));
    ASSERT_TRUE(ids.isOk()) << ids.status().str();
    EXPECT_EQ(ids->dtype, DType::Int64);
    EXPECT_EQ(reinterpret_cast<const std::int64_t *>(ids->bytes.data())[1], -1);
}

TEST_F(TensorFiles, ShortPayloadAndGarbageAreRefused)
{
    onnx::TensorProto p;
    p.set_data_type(onnx::TensorProto::FLOAT);
    p.add_dims(4);
    p.add_float_data(1);
    std::ofstream(path("short.pb"), std::ios::binary) << p.SerializeAsString();
    auto r = readTensorProto(path("short.pb"));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(r.status().message().find("tensor has 1 values but its shape 4 needs 4"), std::string::npos)
        << r.status().str();
    std::ofstream(path("junk.pb"), std::ios::binary) << "\xff\xff\xff not a tensor";
    EXPECT_FALSE(readTensorProto(path("junk.pb")).isOk());
    HostTensor bad = planutil::floatTensor("y", {3}, {1, 2});
    EXPECT_EQ(writeTensorProto(bad, path("y.pb")).code(), ErrorCode::Usage);
}

// The importer's decoder (core/onnx/tensorfile.h) reads the files: raw_data of
// the wrong size is refused as it is for an initializer, and so are string and
// external tensors.
TEST_F(TensorFiles, WrongRawDataStringAndExternalTensorsAreRefused)
{
    onnx::TensorProto raw;
    raw.set_name("r");
    raw.set_data_type(onnx::TensorProto::FLOAT);
    raw.add_dims(2);
    raw.set_raw_data(std::string(4, '\0'));
    std::ofstream(path("raw.pb"), std::ios::binary) << raw.SerializeAsString();
    auto r = readTensorProto(path("raw.pb"));
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(r.status().message().find("tensor 'r' has 4 bytes of raw_data but its shape 2 f32 needs 8"),
              std::string::npos)
        << r.status().str();
    EXPECT_EQ(r.status().location().file, path("raw.pb"));
    raw.set_raw_data(std::string(8, '\0'));
    std::ofstream(path("raw.pb"), std::ios::binary) << raw.SerializeAsString();
    EXPECT_TRUE(readTensorProto(path("raw.pb")).isOk()); // the twin: the right size reads

    onnx::TensorProto str;
    str.set_data_type(onnx::TensorProto::STRING);
    str.add_dims(1);
    str.add_string_data("x");
    std::ofstream(path("str.pb"), std::ios::binary) << str.SerializeAsString();
    EXPECT_EQ(readTensorProto(path("str.pb")).status().code(), ErrorCode::Unsupported);

    onnx::TensorProto ext;
    ext.set_data_type(onnx::TensorProto::FLOAT);
    ext.add_dims(1);
    ext.set_data_location(onnx::TensorProto::EXTERNAL);
    auto *loc = ext.add_external_data();
    loc->set_key("location");
    loc->set_value("weights.bin");
    std::ofstream(path("ext.pb"), std::ios::binary) << ext.SerializeAsString();
    auto e = readTensorProto(path("ext.pb"));
    EXPECT_EQ(e.status().code(), ErrorCode::Unsupported);
    EXPECT_EQ(e.status().message(), "external tensor data is not supported");
}

} // namespace
