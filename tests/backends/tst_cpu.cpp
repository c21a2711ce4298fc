// The CPU backend (backends/cpu) against the reference backend: the sample
// catalog's SqueezeNet (224×224) and ResNet-50 (64×64, external weights) under
// every built-in scheduler (sequential, greedy, layer-fusion, ios) must match
// the reference outputs within a relative L2 error of 1e-4; a tiled plan runs
// compiled over its tiles and matches too. Also: the kernel cache
// (re-compiling an identical plan generates nothing, an override regenerates
// only what changed), which engine runs what, an opaque op refused by name,
// a plan compiled by another backend refused, capabilities and timing; the
// activation layout pass (tensors kept blocked between the ops that take
// them, one reorder per plain consumer), data movement as copies, MatMul
// batches folded into rows, each beside a negative twin.
#include "backends/cpu/cpu.h"
#include "backends/cpu/cpuop.h"
#include "backends/cpu/jit.h"
#include "backends/cpu/perfcounters.h"
#include "backends/cpu/workerpool.h"
#include "backends/reference/reference.h"
#include "core/backend/outputcheck.h"
#include "core/hw/deviceregistry.h"
#include "core/plan/taskwork.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <dnnl.h>
#include <filesystem>
#include <gtest/gtest.h>
#include <limits>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"

namespace fs = std::filesystem;
using namespace tessera;
using tessera::testgraphs::op;

namespace {

constexpr double kTolerance = 1e-4; // relative L2 error per output

// Convolutions and matrix products: the oneDNN ops with prepared constants.
double anchorCount(const Graph &g)
{
    double n = 0;
    for (const Node &node : g.nodes())
        n += node.opType == "Conv" || node.opType == "Gemm" || node.opType == "MatMul";
    return n;
}

// g scheduled by the algorithm tessera registers as `algorithm`, `overrides` forced.
Expected<ExecutionPlan> plan(const Graph &g, const std::string &algorithm, Overrides overrides = {})
{
    return planutil::schedulePlan(g, test::registeredScheduler(algorithm), std::move(overrides));
}

class CpuBackendTest : public ::testing::Test
{
protected:
    void SetUp() override
    {
        dir = fs::temp_directory_path() / ("tessera-cpu-" + std::to_string(::getpid()));
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    Graph sample(const std::string &name, int imageSize, bool external)
    {
        samples::SampleOptions o;
        if (imageSize > 0)
            o.imageSize = imageSize;
        auto g = test::importRegisteredSample(name, o, (dir / (name + ".onnx")).string(), external);
        EXPECT_TRUE(g.isOk()) << g.status().str();
        return g ? std::move(*g) : Graph{};
    }

    // Every scheduler's plan on the cpu backend against the reference backend's
    // sequential run.
    void matchesReference(const Graph &g, const std::vector<std::string> &algorithms)
    {
        const auto inputs = planutil::makeInputs(g, 21);
        auto seq = plan(g, "sequential");
        ASSERT_TRUE(seq.isOk()) << seq.status().str();
        auto expected = planutil::compileAndRun(*reference, g, *seq, inputs);
        ASSERT_TRUE(expected.isOk()) << expected.status().str();
        for (const std::string &algo : algorithms) {
            auto p = plan(g, algo);
            ASSERT_TRUE(p.isOk()) << algo << ": " << p.status().str();
            auto got = planutil::compileAndRun(*cpu, g, *p, inputs);
            ASSERT_TRUE(got.isOk()) << algo << ": " << got.status().str();
            ASSERT_EQ(got->outputs.size(), expected->outputs.size());
            for (std::size_t i = 0; i < got->outputs.size(); ++i) {
                EXPECT_EQ(got->outputs[i].shape, expected->outputs[i].shape);
                EXPECT_LT(relativeL2(got->outputs[i], expected->outputs[i]), kTolerance)
                    << algo << " output '" << got->outputs[i].name << "'";
            }
            EXPECT_GT(got->latencyMs, 0) << algo;
            EXPECT_EQ(got->timeline.size(), p->tasks.size()) << algo;
            EXPECT_GT(got->metrics["ops/onednn"], 0) << algo;
        }
    }

    fs::path dir;
    std::unique_ptr<IBackend> cpu = createCpuBackend();
    std::unique_ptr<IBackend> reference = createReferenceBackend();
};

TEST_F(CpuBackendTest, SqueezeNetMatchesReferenceUnderEveryScheduler)
{
    matchesReference(sample("squeezenet", 0, false), {"sequential", "greedy", "layer-fusion", "ios"});
}

TEST_F(CpuBackendTest, ResNet50MatchesReferenceUnderEveryScheduler)
{
    matchesReference(sample("resnet50", 64, true), {"sequential", "greedy", "layer-fusion", "ios"});
}

// Depthwise (grouped) convolutions with Clip (ReLU6) epilogues and residual
// adds, on blocked activations: MobileNetV2 at 64x64 under every scheduler.
TEST_F(CpuBackendTest, MobileNetV2MatchesReferenceUnderEveryScheduler)
{
    matchesReference(sample("mobilenetv2", 64, false), {"sequential", "layer-fusion", "ios"});
}

TEST_F(CpuBackendTest, LayerFusionFusesEpiloguesSequentialDoesNot)
{
    const Graph g = sample("resnet50", 64, true);
    ScheduleSetup perNode; // the sequential plan with a kernel per node
    perNode.options = {{"epilogues", "false"}};
    auto seq = scheduleGraph(g, planutil::testDevice(), test::registeredScheduler("sequential"), perNode);
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(seq.isOk() && fused.isOk());
    const auto inputs = planutil::makeInputs(g, 3);
    auto a = planutil::compileAndRun(*cpu, g, seq->result.plan, inputs);
    auto b = planutil::compileAndRun(*cpu, g, *fused, inputs);
    ASSERT_TRUE(a.isOk() && b.isOk());
    // Sequential: every BatchNormalization and Relu is its own JIT kernel; layer
    // fusion folds the BatchNormalizations and residual Adds into the
    // convolutions, leaving one activation pass per kernel (see
    // ConvolutionsKeepActivationsAsPostOpsUnlessGemmBased).
    EXPECT_GT(a->metrics["ops/llvm-jit"], 50);
    EXPECT_LT(b->metrics["ops/llvm-jit"], a->metrics["ops/llvm-jit"] / 2);
    EXPECT_EQ(a->metrics["ops/onednn"], b->metrics["ops/onednn"]); // one per Conv/Gemm either way
    EXPECT_LT(b->metrics["arena_bytes"], a->metrics["arena_bytes"]);
}

// Convolutions with a spatial window, a stride or groups run on the
// activations' layout oneDNN prefers (blocked nChw16c on AVX-512 / nChw8c on
// AVX2: its direct JIT kernels), reordered
// from and to the plain tensors around the primitive; there the activation
// and the residual sum stay post-ops of the primitive. A convolution for
// which oneDNN still picks its GEMM-based implementation keeps bias and sum
// but leaves its activation to an LLVM chain in the same kernel (oneDNN 2.6
// applies it in a slow scalar pass after the GEMM; BENCHMARKS.md, 2026-11-26).
TEST_F(CpuBackendTest, ConvolutionsKeepActivationsAsPostOpsUnlessGemmBased)
{
    const Graph g = sample("resnet50", 64, true);
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(fused.isOk());
    auto r = planutil::compileAndRun(*cpu, g, *fused, planutil::makeInputs(g, 3));
    ASSERT_TRUE(r.isOk()) << r.status().str();
    int gemmConvs = 0, directConvs = 0, residual = 0;
    for (const auto &[key, value] : r->metrics) {
        if (!key.starts_with("kernel/") || !key.ends_with("/wall_ms") || key.find("]:Conv") == std::string::npos)
            continue;
        const std::size_t dnnl = key.find("onednn["), next = key.find(", ", dnnl);
        const std::string primitive = key.substr(dnnl, next == std::string::npos ? std::string::npos : next - dnnl);
        const bool gemm = primitive.find("gemm") != std::string::npos;
        (gemm ? gemmConvs : directConvs) += 1;
        if (gemm)
            EXPECT_EQ(primitive.find("Relu"), std::string::npos) << key;
        else
            EXPECT_EQ(key.find("llvm-jit:Relu"), std::string::npos) << key; // the Relu is a post-op
        if (primitive.find("+Add") != std::string::npos) {
            ++residual;
            EXPECT_NE(key.find("Relu"), std::string::npos) << key; // in the same kernel either way
        }
    }
    EXPECT_EQ(gemmConvs + directConvs, 53);
    EXPECT_EQ(residual, 16); // one per bottleneck block
    if (cpu::blockedLayoutsEnabled()) {
        // With the layout pass every convolution takes the blocked layout,
        // pointwise ones too (no reorder between them: ActivationsStayBlocked...).
        EXPECT_EQ(directConvs, 53);
    } else {
        // Pointwise (1x1, stride 1) convolutions stay plain GEMMs; the 3x3 of
        // every bottleneck block, the 7x7 stem and the strided 1x1 shortcuts
        // take the blocked direct kernels where the host has them.
        EXPECT_GE(gemmConvs, 30);
        if (__builtin_cpu_supports("avx2")) {
            EXPECT_EQ(directConvs, 20);
        }
    }
}

// Negative twin: a matrix product's activation stays a oneDNN post-op (its
// epilogue is not the slow one): MatMul+Relu is one oneDNN op.
TEST_F(CpuBackendTest, MatMulKeepsItsActivationAsAPostOp)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {4, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId w = testgraphs::weight(g, "w", {16, 8});
    const TensorId y = op(g, "mm", "MatMul", {x, w}, {4, 8});
    g.outputs = {op(g, "relu", "Relu", {y}, {4, 8})};
    const ExecutionPlan p = planutil::wholePlan(g, {{0, 1}});
    const auto inputs = planutil::makeInputs(g, 4);
    auto got = planutil::compileAndRun(*cpu, g, p, inputs);
    auto expected = planutil::compileAndRun(*reference, g, p, inputs);
    ASSERT_TRUE(got.isOk() && expected.isOk()) << got.status().str();
    EXPECT_EQ(got->metrics["ops/onednn"], 1);
    EXPECT_EQ(got->metrics["ops/llvm-jit"], 0);
    EXPECT_LT(relativeL2(got->outputs[0], expected->outputs[0]), kTolerance);
}

// A tiled plan's tiles run compiled (tiled.cpp; tst_cputiled covers the
// tiling schedulers and the fallbacks).
TEST_F(CpuBackendTest, TiledPlanRunsCompiledAndMatches)
{
    const Graph g = sample("squeezenet", 0, false);
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(fused.isOk());
    const ExecutionPlan tiled = planutil::tiledPlan(g, *fused, 3, 2);
    const auto inputs = planutil::makeInputs(g, 5);
    auto expected = planutil::compileAndRun(*reference, g, tiled, inputs);
    auto got = planutil::compileAndRun(*cpu, g, tiled, inputs);
    ASSERT_TRUE(expected.isOk() && got.isOk()) << got.status().str();
    EXPECT_GT(got->metrics["ops/onednn"], 0);
    EXPECT_GT(got->metrics["ops/llvm-jit"], 0);
    EXPECT_LT(relativeL2(got->outputs[0], expected->outputs[0]), kTolerance);
}

// Achieved rates (issue 13, "live metrics"): the run reports the plan's FLOPs
// (the graph's, for a plan of whole tensors), its GFLOP/s and GB/s, per
// kernel too, and its share of the host preset's f32 peak when compiled for
// that device. Twin: compiled without a device, no share is claimed.
TEST_F(CpuBackendTest, RunReportsAchievedRatesAndTheShareOfTheHostsPeak)
{
    const Graph g = sample("squeezenet", 0, false);
    auto p = plan(g, "layer-fusion");
    ASSERT_TRUE(p.isOk());
    double graphFlops = 0;
    for (const Node &n : g.nodes())
        graphFlops += ops::opCost(g, n).flops;
    auto host = DeviceRegistry::standard().lookup("host");
    ASSERT_TRUE(host.isOk());
    CompileContext context;
    context.device = &*host;
    auto compiled = cpu->compileFor(g, *p, context);
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    auto r = cpu->run(**compiled, planutil::makeInputs(g, 5));
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_NEAR(r->metrics["flops"], graphFlops, graphFlops * 1e-9);
    EXPECT_GT(r->metrics["achieved_gflops"], 0);
    EXPECT_GT(r->metrics["achieved_gbps"], 0);
    ASSERT_TRUE(r->metrics.count("peak_share"));
    EXPECT_NEAR(r->metrics["peak_share"], r->metrics["achieved_gflops"] * 1e9 / host->peakFlops(DType::Float32), 1e-12);
    int kernelRates = 0;
    for (const auto &[key, value] : r->metrics)
        kernelRates += key.starts_with("kernel/") && key.ends_with("/gflops") && value > 0;
    EXPECT_GT(kernelRates, 0);

    auto plain = planutil::compileAndRun(*cpu, g, *p, planutil::makeInputs(g, 5));
    ASSERT_TRUE(plain.isOk());
    EXPECT_FALSE(plain->metrics.count("peak_share"));
    EXPECT_NEAR(plain->metrics["flops"], graphFlops, graphFlops * 1e-9);
}

// A tiled plan's tasks compute fractions of their nodes: the fractions add
// up to the graph's FLOPs (plus the halos the tiles recompute), each task
// less than its kernel's whole.
TEST_F(CpuBackendTest, TiledTasksCountTheirTilesFlops)
{
    const Graph g = sample("squeezenet", 0, false);
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(fused.isOk());
    const ExecutionPlan tiled = planutil::tiledPlan(g, *fused, 3, 2);
    double graphFlops = 0, tiledFlops = 0, wholeFlops = 0;
    for (const Node &n : g.nodes())
        graphFlops += ops::opCost(g, n).flops;
    for (const Task &t : tiled.tasks)
        tiledFlops += taskWork(g, tiled, t).flops;
    for (const Task &t : fused->tasks)
        wholeFlops += taskWork(g, *fused, t).flops;
    EXPECT_NEAR(wholeFlops, graphFlops, graphFlops * 1e-9);
    EXPECT_GE(tiledFlops, graphFlops * (1 - 1e-9));
    EXPECT_LT(tiledFlops, graphFlops * 1.5); // halos, not whole kernels per tile
}

TEST_F(CpuBackendTest, KernelCacheRecompilesOnlyWhatChanged)
{
    const Graph g = sample("squeezenet", 0, false);
    auto base = plan(g, "sequential");
    ASSERT_TRUE(base.isOk());
    auto first = cpu->compile(g, *base);
    ASSERT_TRUE(first.isOk()) << first.status().str();
    const auto inputs = planutil::makeInputs(g, 7);
    auto r1 = cpu->run(**first, inputs);
    ASSERT_TRUE(r1.isOk());
    EXPECT_GT(r1->metrics["jit_kernels_compiled"], 0);

    // The same plan again: every element-wise kernel comes from the cache.
    auto again = cpu->compile(g, *base);
    ASSERT_TRUE(again.isOk());
    auto r2 = cpu->run(**again, inputs);
    ASSERT_TRUE(r2.isOk());
    EXPECT_EQ(r2->metrics["jit_kernels_compiled"], 0);
    EXPECT_EQ(r2->metrics["jit_cache_hits"], r1->metrics["jit_cache_hits"] + r1->metrics["jit_kernels_compiled"]);

    // Negative twin: layer fusion with one decision overridden brings new chains
    // (a fused kernel's element-wise tail): some, but fewer than a cold cache.
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(fused.isOk());
    auto fresh = createCpuBackend();
    auto cold = fresh->compile(g, *fused);
    ASSERT_TRUE(cold.isOk());
    auto rc = fresh->run(**cold, inputs);
    ASSERT_TRUE(rc.isOk());
    std::string key;
    for (const Node &n : g.nodes())
        if (n.opType == "Concat") {
            key = "layer-fusion.fuse:" + n.name;
            break;
        }
    ASSERT_FALSE(key.empty());
    auto overridden = plan(g, "layer-fusion", {{key, "separate"}});
    ASSERT_TRUE(overridden.isOk()) << overridden.status().str();
    auto warm = fresh->compile(g, *overridden);
    ASSERT_TRUE(warm.isOk());
    auto rw = fresh->run(**warm, inputs);
    ASSERT_TRUE(rw.isOk());
    EXPECT_LT(rw->metrics["jit_kernels_compiled"], rc->metrics["jit_kernels_compiled"]);
    EXPECT_GT(rw->metrics["jit_cache_hits"], 0);
    EXPECT_LT(relativeL2(rw->outputs[0], rc->outputs[0]), kTolerance);
}

TEST_F(CpuBackendTest, OpaqueNodeIsRefusedByNameInOneLine)
{
    for (bool opaque : {false, true}) {
        Graph g;
        const TensorId x = testgraphs::tensor(g, "x", {1, 4, 8, 8}, Tensor::Kind::Input);
        g.inputs = {x};
        const TensorId y = op(g, "relu", "Relu", {x}, {1, 4, 8, 8});
        Node custom;
        custom.name = "mystery";
        custom.opType = opaque ? "FancyActivation" : "Sigmoid";
        custom.opaque = opaque;
        custom.inputs = {y};
        custom.outputs = {testgraphs::tensor(g, "z", {1, 4, 8, 8})};
        g.addNode(custom);
        g.outputs = {g.findTensor("z")};
        auto compiled = cpu->compile(g, planutil::wholePlan(g, {{0}, {1}}));
        if (!opaque) {
            ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
            auto r = cpu->run(**compiled, planutil::makeInputs(g, 1));
            ASSERT_TRUE(r.isOk());
            auto ref =
                planutil::compileAndRun(*reference, g, planutil::wholePlan(g, {{0}, {1}}), planutil::makeInputs(g, 1));
            ASSERT_TRUE(ref.isOk());
            EXPECT_LT(relativeL2(r->outputs[0], ref->outputs[0]), kTolerance);
            continue;
        }
        ASSERT_FALSE(compiled.isOk());
        EXPECT_EQ(compiled.status().code(), ErrorCode::Unsupported);
        EXPECT_EQ(compiled.status().location().node, "mystery");
        EXPECT_NE(compiled.status().message().find("opaque op 'FancyActivation'"), std::string::npos);
        EXPECT_EQ(compiled.status().str().find('\n'), std::string::npos);
    }
}

TEST_F(CpuBackendTest, PlanCompiledByAnotherBackendIsRefused)
{
    const Graph g = sample("squeezenet", 0, false);
    auto p = plan(g, "layer-fusion");
    ASSERT_TRUE(p.isOk());
    const auto inputs = planutil::makeInputs(g, 2);
    auto foreign = reference->compile(g, *p);
    ASSERT_TRUE(foreign.isOk());
    auto refused = cpu->run(**foreign, inputs);
    ASSERT_FALSE(refused.isOk());
    EXPECT_EQ(refused.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(refused.status().message().find("'reference'"), std::string::npos);
    auto own = cpu->compile(g, *p);
    ASSERT_TRUE(own.isOk());
    EXPECT_TRUE(cpu->run(**own, inputs).isOk());
}

// A warm compile re-does no BatchNormalization folding and no weight reorder
// (the oneDNN constants are cached by content); overriding one fusion decision
// prepares only the anchor whose epilogue changed.
TEST_F(CpuBackendTest, WarmCompilePreparesOnlyChangedConstants)
{
    const Graph g = sample("resnet50", 64, true);
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(fused.isOk());
    const auto inputs = planutil::makeInputs(g, 9);
    auto cold = planutil::compileAndRun(*cpu, g, *fused, inputs);
    ASSERT_TRUE(cold.isOk()) << cold.status().str();
    const double anchors = anchorCount(g); // oneDNN ops with constants (pools have none)
    EXPECT_GT(anchors, 50);
    EXPECT_EQ(cold->metrics["dnnl_constants_prepared"], anchors);
    EXPECT_EQ(cold->metrics["dnnl_constants_cached"], 0);

    auto warm = planutil::compileAndRun(*cpu, g, *fused, inputs);
    ASSERT_TRUE(warm.isOk());
    EXPECT_EQ(warm->metrics["dnnl_constants_prepared"], 0);
    EXPECT_EQ(warm->metrics["dnnl_constants_cached"], anchors);

    // The first BatchNormalization kept out of its Conv's kernel: that Conv's
    // weights are no longer folded, so exactly one anchor is prepared again.
    std::string key;
    for (const Node &n : g.nodes())
        if (n.opType == "BatchNormalization") {
            key = "layer-fusion.fuse:" + n.name;
            break;
        }
    ASSERT_FALSE(key.empty());
    auto overridden = plan(g, "layer-fusion", {{key, "separate"}});
    ASSERT_TRUE(overridden.isOk()) << overridden.status().str();
    auto changed = planutil::compileAndRun(*cpu, g, *overridden, inputs);
    ASSERT_TRUE(changed.isOk()) << changed.status().str();
    EXPECT_EQ(changed->metrics["dnnl_constants_prepared"], 1);
    EXPECT_EQ(changed->metrics["dnnl_constants_cached"], anchors - 1);
    EXPECT_LT(relativeL2(changed->outputs[0], cold->outputs[0]), kTolerance);
}

// Negative twin: the cache is keyed by content, not by tensor: the same plan
// over a graph whose one convolution weight changed prepares that anchor only,
// and computes with the new weight (a different output).
TEST_F(CpuBackendTest, ChangedWeightContentIsPreparedAgain)
{
    Graph g = sample("squeezenet", 0, false);
    auto p = plan(g, "layer-fusion");
    ASSERT_TRUE(p.isOk());
    const auto inputs = planutil::makeInputs(g, 6);
    auto first = planutil::compileAndRun(*cpu, g, *p, inputs);
    ASSERT_TRUE(first.isOk()) << first.status().str();
    TensorId weight = kInvalidId;
    for (const Node &n : g.nodes())
        if (n.opType == "Conv") {
            weight = n.inputs[1];
            break;
        }
    ASSERT_NE(weight, kInvalidId);
    auto data = std::make_shared<TensorData>(*g.tensor(weight).data);
    ASSERT_FALSE(data->bytes.empty());
    float *w = reinterpret_cast<float *>(data->bytes.data());
    for (std::size_t i = 0; i < data->bytes.size() / sizeof(float); ++i)
        w[i] *= 2.f;
    g.tensor(weight).data = data;
    auto second = planutil::compileAndRun(*cpu, g, *p, inputs);
    ASSERT_TRUE(second.isOk()) << second.status().str();
    EXPECT_EQ(second->metrics["dnnl_constants_prepared"], 1);
    EXPECT_EQ(second->metrics["dnnl_constants_cached"], anchorCount(g) - 1);
    EXPECT_GT(relativeL2(second->outputs[0], first->outputs[0]), kTolerance);
}

// LLVM is loaded by the first element-wise chain compiled, not when the cache
// (or the backend holding it, at registration) is constructed.
TEST_F(CpuBackendTest, JitLoadsLlvmOnFirstCompileOnly)
{
    cpu::JitCache cache;
    EXPECT_FALSE(cache.started());
    EXPECT_FALSE(cpu::JitCache::hostCpu().empty());
    EXPECT_FALSE(cache.started());
    cpu::EwProgram relu;
    relu.dims = {8};
    relu.strides = {{1}};
    relu.instrs = {{cpu::EwInstr::Op::Relu, 0, 0, 0}};
    auto fn = cache.get(relu);
    ASSERT_TRUE(fn.isOk()) << fn.status().str();
    EXPECT_TRUE(cache.started());
    const float in[8] = {-2, -1, 0, 1, 2, -3, 3, -0.5f};
    const float *ins[] = {in};
    float out[8] = {};
    (*fn)(out, ins);
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(out[i], std::max(in[i], 0.f));
    EXPECT_EQ(cache.compiled(), 1);
}

// Negative twin: a JIT module that cannot be loaded makes get() Unavailable
// (naming the module), and the backend runs the chains on the reference
// kernels instead, reported in the metrics, still matching.
TEST_F(CpuBackendTest, MissingJitModuleFallsBackToReferenceKernels)
{
    const std::string bogus = (dir / "no-such-jit.so").string();
    ::setenv("TESSERA_CPU_JIT", bogus.c_str(), 1);
    cpu::JitCache cache;
    cpu::EwProgram relu;
    relu.dims = {8};
    relu.strides = {{1}};
    relu.instrs = {{cpu::EwInstr::Op::Relu, 0, 0, 0}};
    auto fn = cache.get(relu);
    auto backend = createCpuBackend();
    const Graph g = sample("squeezenet", 0, false);
    auto p = plan(g, "sequential");
    ASSERT_TRUE(p.isOk());
    const auto inputs = planutil::makeInputs(g, 4);
    auto got = planutil::compileAndRun(*backend, g, *p, inputs);
    ::unsetenv("TESSERA_CPU_JIT");
    ASSERT_FALSE(fn.isOk());
    EXPECT_EQ(fn.status().code(), ErrorCode::Unavailable);
    EXPECT_NE(fn.status().message().find("no-such-jit.so"), std::string::npos) << fn.status().str();
    EXPECT_TRUE(cache.started());
    ASSERT_TRUE(got.isOk()) << got.status().str();
    EXPECT_EQ(got->metrics["jit_unavailable"], 1);
    EXPECT_EQ(got->metrics["ops/llvm-jit"], 0);
    auto expected = planutil::compileAndRun(*reference, g, *p, inputs);
    ASSERT_TRUE(expected.isOk());
    EXPECT_LT(relativeL2(got->outputs[0], expected->outputs[0]), kTolerance);
}

// --- pooling, softmax, reductions, normalisation on oneDNN primitives -----------

using Ints = std::vector<std::int64_t>;

// One kernel per node, in node order (the graphs below are built in topological order).
std::vector<std::vector<NodeId>> perNode(const Graph &g)
{
    std::vector<std::vector<NodeId>> k;
    for (std::size_t i = 0; i < g.nodeCount(); ++i)
        k.push_back({static_cast<NodeId>(i)});
    return k;
}

// A graph of one node `opType` over input x (`in`), with `extra` constant
// inputs (shapes), output shape `out`.
Graph oneNode(const std::string &opType, Shape in, Shape out, AttrMap attrs = {}, std::vector<Shape> extra = {},
              std::int64_t opset = 17)
{
    Graph g;
    g.opsetVersion = opset;
    const TensorId x = testgraphs::tensor(g, "x", std::move(in), Tensor::Kind::Input);
    g.inputs = {x};
    std::vector<TensorId> inputs{x};
    for (std::size_t i = 0; i < extra.size(); ++i)
        inputs.push_back(testgraphs::weight(g, "w" + std::to_string(i), extra[i]));
    g.outputs = {op(g, "node", opType, inputs, std::move(out), std::move(attrs))};
    return g;
}

// Runs g on both backends; the outputs must match. Returns the cpu run.
RunResult nativeMatchesReference(IBackend &cpu, IBackend &reference, const Graph &g, const std::string &what)
{
    auto r = planutil::runAgainstReference(cpu, reference, g, planutil::wholePlan(g, perNode(g)),
                                           planutil::makeInputs(g, 13), kTolerance);
    EXPECT_EQ(r.mismatch, "") << what;
    return std::move(r.got);
}

// Two LeakyRelu chains whose slopes differ in the seventh significant digit
// are two kernels (a key printing six digits gave the second the first's
// code); the same slope again is a cache hit.
TEST_F(CpuBackendTest, KernelCacheKeysKeepEveryDigitOfAConstant)
{
    auto run = [&](float alpha) {
        const Graph g = oneNode("LeakyRelu", {4, 8}, {4, 8}, {{"alpha", {static_cast<double>(alpha)}}});
        return nativeMatchesReference(*cpu, *reference, g, "LeakyRelu " + std::to_string(alpha));
    };
    EXPECT_EQ(run(0.1f).metrics["jit_kernels_compiled"], 1);
    EXPECT_EQ(run(std::nextafter(0.1f, 1.0f)).metrics["jit_kernels_compiled"], 1);
    EXPECT_EQ(run(0.1f).metrics["jit_kernels_compiled"], 0); // twin: the same slope
}

// Exp, Sigmoid, Tanh, Erf, Log and Softplus in LLVM chains are inline
// arithmetic (jit.cpp emitExp, emitTanh, emitErf, emitLog); element by
// element against the C library
// (in double, rounded to float) over [-110, 110] and [-6, 6] densely, and at
// the edges: ±inf, NaN, ±0, exp's overflow (88.72) and denormal (-87.3 to
// -103.97) ranges. Allowed: a few ulp of the result (of 1 for tanh and erf,
// whose results are at most 1), exactly inf / 0 / NaN where the library
// gives them.
TEST_F(CpuBackendTest, JitTranscendentalsMatchTheCLibrary)
{
    std::vector<float> xs;
    for (int i = -22000; i <= 22000; ++i)
        xs.push_back(static_cast<float>(i) * 0.005f);
    for (int i = -6000; i <= 6000; ++i)
        xs.push_back(static_cast<float>(i) * 0.001f);
    for (float v : {INFINITY, -INFINITY, NAN,   0.0f,   -0.0f,  88.5f,   88.72f,  88.73f,  89.5f, -87.5f, -100.0f,
                    -103.9f,  -104.0f,   1e-4f, -1e-6f, 1e-30f, 0.6249f, 0.6251f, -0.625f, 3.99f, 4.01f})
        xs.push_back(v);
    for (int i = -149; i <= 127; ++i) // log's: every binade, denormals included
        xs.push_back(std::ldexp(1.37f, i));
    const auto n = static_cast<std::int64_t>(xs.size());
    struct Fn {
        std::string opType;
        double (*ref)(double);
        double ulps; // of max(|result|, the smallest normal); tanh and erf: of 1
        bool unitScale;
    };
    const std::vector<Fn> fns = {
        {"Exp", [](double x) { return std::exp(x); }, 2, false},
        {"Sigmoid", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 4, false},
        {"Tanh", [](double x) { return std::tanh(x); }, 4, true},
        {"Erf", [](double x) { return std::erf(x); }, 6, true},
        {"Log", [](double x) { return std::log(x); }, 2, false},
        {"Softplus", [](double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::abs(x))); }, 3, false},
    };
    for (const Fn &fn : fns) {
        const Graph g = oneNode(fn.opType, {n}, {n});
        auto got = planutil::compileAndRun(
            *cpu, g, planutil::wholePlan(g, perNode(g)),
            {HostTensor{"x",
                        DType::Float32,
                        {n},
                        std::vector<std::uint8_t>(reinterpret_cast<const std::uint8_t *>(xs.data()),
                                                  reinterpret_cast<const std::uint8_t *>(xs.data() + n))}});
        ASSERT_TRUE(got.isOk()) << got.status().str();
        EXPECT_EQ(got->metrics["ops/llvm-jit"], 1) << fn.opType;
        const float *y = got->outputs[0].f32();
        double worst = 0; // in ulps
        std::size_t at = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const auto want = static_cast<float>(fn.ref(static_cast<double>(xs[i])));
            const double ulp =
                fn.unitScale ? 5.96e-8 : std::max(std::abs(want), std::numeric_limits<float>::min()) * 1.1921e-7;
            const bool special = std::isnan(want) || std::isinf(want) || want == 0;
            const double err = special ? ((std::isnan(want) ? std::isnan(y[i]) : y[i] == want) ? 0 : INFINITY)
                                       : std::abs(static_cast<double>(y[i]) - want) / ulp;
            if (!(err <= worst)) {
                worst = err;
                at = i;
            }
        }
        EXPECT_LE(worst, fn.ulps) << fn.opType << "(" << xs[at] << ") = " << y[at]
                                  << ", the C library: " << static_cast<float>(fn.ref(static_cast<double>(xs[at])));
        std::printf("%s: worst %.2f ulp, at %g\n", fn.opType.c_str(), worst, static_cast<double>(xs[at]));
    }
}

// ELU, SELU, CELU, ThresholdedRelu, Softplus, Softsign, Shrink, Sign, Round,
// Log and PRelu (a per-channel slope) join LLVM chains and match the
// reference kernels; Pow(x, 2) is a product (no C library call), and a
// Pow by another exponent still matches.
TEST_F(CpuBackendTest, MoreActivationsAreJitChainsAndMatch)
{
    const std::vector<std::pair<std::string, AttrMap>> unary = {
        {"Elu", {{"alpha", {0.7}}}},
        {"Selu", {}},
        {"Celu", {{"alpha", {1.5}}}},
        {"ThresholdedRelu", {{"alpha", {0.3}}}},
        {"Softplus", {}},
        {"Softsign", {}},
        {"Shrink", {{"lambd", {0.4}}, {"bias", {0.1}}}},
        {"Sign", {}},
        {"Round", {}},
        {"Log", {}},
    };
    for (const auto &[opType, attrs] : unary) {
        RunResult r =
            nativeMatchesReference(*cpu, *reference, oneNode(opType, {2, 3, 5, 7}, {2, 3, 5, 7}, attrs), opType);
        EXPECT_EQ(r.metrics["ops/llvm-jit"], 1) << opType;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << opType;
    }
    RunResult prelu = nativeMatchesReference(*cpu, *reference,
                                             oneNode("PRelu", {2, 3, 5, 7}, {2, 3, 5, 7}, {}, {{3, 1, 1}}), "PRelu");
    EXPECT_EQ(prelu.metrics["ops/llvm-jit"], 1);
    for (float exponent : {2.0f, 3.0f}) {
        Graph g = oneNode("Pow", {4, 9}, {4, 9}, {}, {{1}});
        const TensorId e = g.node(0).inputs[1];
        auto data = std::make_shared<TensorData>(*g.tensor(e).data);
        std::memcpy(data->bytes.data(), &exponent, 4);
        g.tensor(e).data = std::move(data);
        RunResult r = nativeMatchesReference(*cpu, *reference, g, "Pow " + std::to_string(exponent));
        EXPECT_EQ(r.metrics["ops/llvm-jit"], 1);
    }
}

struct PrimCase {
    std::string what, opType;
    Shape in, out;
    AttrMap attrs;
    std::vector<Shape> extra;
    std::int64_t opset = 17;
};

const std::vector<PrimCase> &primCases()
{
    static const std::vector<PrimCase> cases = {
        {"max pool 3x3/2 pad 1",
         "MaxPool",
         {1, 4, 9, 9},
         {1, 4, 5, 5},
         {{"kernel_shape", {Ints{3, 3}}}, {"strides", {Ints{2, 2}}}, {"pads", {Ints{1, 1, 1, 1}}}}},
        {"max pool ceil_mode",
         "MaxPool",
         {1, 2, 8, 8},
         {1, 2, 4, 4},
         {{"kernel_shape", {Ints{3, 3}}}, {"strides", {Ints{2, 2}}}, {"ceil_mode", {std::int64_t{1}}}}},
        {"max pool dilated 1-D",
         "MaxPool",
         {2, 3, 12},
         {2, 3, 8},
         {{"kernel_shape", {Ints{3}}}, {"dilations", {Ints{2}}}}},
        {"average pool excluding pads",
         "AveragePool",
         {1, 3, 7, 7},
         {1, 3, 7, 7},
         {{"kernel_shape", {Ints{3, 3}}}, {"pads", {Ints{1, 1, 1, 1}}}}},
        {"average pool including pads",
         "AveragePool",
         {1, 3, 7, 7},
         {1, 3, 7, 7},
         {{"kernel_shape", {Ints{3, 3}}}, {"pads", {Ints{1, 1, 1, 1}}}, {"count_include_pad", {std::int64_t{1}}}}},
        {"average pool ceil_mode",
         "AveragePool",
         {1, 2, 8, 8},
         {1, 2, 4, 4},
         {{"kernel_shape", {Ints{3, 3}}}, {"strides", {Ints{2, 2}}}, {"ceil_mode", {std::int64_t{1}}}}},
        {"global average pool", "GlobalAveragePool", {1, 5, 6, 6}, {1, 5, 1, 1}},
        {"global max pool", "GlobalMaxPool", {2, 5, 3, 4}, {2, 5, 1, 1}},
        {"softmax axis 1", "Softmax", {2, 3, 4}, {2, 3, 4}, {{"axis", {std::int64_t{1}}}}},
        {"log-softmax last axis", "LogSoftmax", {3, 10}, {3, 10}},
        {"softmax opset 11 (flattened)", "Softmax", {2, 3, 4}, {2, 3, 4}, {{"axis", {std::int64_t{1}}}}, {}, 11},
        {"reduce mean spatial", "ReduceMean", {1, 4, 5, 5}, {1, 4, 1, 1}, {{"axes", {Ints{2, 3}}}}},
        {"reduce sum no keepdims",
         "ReduceSum",
         {2, 3, 4},
         {2, 4},
         {{"axes", {Ints{1}}}, {"keepdims", {std::int64_t{0}}}}},
        {"reduce max all axes", "ReduceMax", {2, 3, 4}, {1, 1, 1}},
        {"reduce L2", "ReduceL2", {2, 6}, {2, 1}, {{"axes", {Ints{-1}}}}},
        {"reduce sum-square", "ReduceSumSquare", {3, 4}, {1, 4}, {{"axes", {Ints{0}}}}},
        {"layer norm last axis", "LayerNormalization", {2, 5, 8}, {2, 5, 8}, {}, {{8}, {8}}},
        {"layer norm axis 1",
         "LayerNormalization",
         {2, 5, 8},
         {2, 5, 8},
         {{"axis", {std::int64_t{1}}}},
         {{5, 8}, {5, 8}}},
        {"instance norm", "InstanceNormalization", {2, 3, 4, 4}, {2, 3, 4, 4}, {}, {{3}, {3}}},
    };
    return cases;
}

// Each primCases() node runs natively: pooling, instance normalisation and
// the softmax/reductions whose axes are not the innermost on oneDNN, the rest
// (innermost axes) as LLVM row kernels (rowops.cpp).
TEST_F(CpuBackendTest, PoolingSoftmaxReductionsNormalisationRunOnOneDnnAndMatch)
{
    for (const PrimCase &c : primCases()) {
        const Graph g = oneNode(c.opType, c.in, c.out, c.attrs, c.extra, c.opset);
        RunResult r = nativeMatchesReference(*cpu, *reference, g, c.what);
        const bool rows = c.what == "log-softmax last axis" || c.what == "softmax opset 11 (flattened)" ||
                          c.what == "reduce mean spatial" || c.what == "reduce max all axes" || c.what == "reduce L2" ||
                          c.what.rfind("layer norm", 0) == 0;
        EXPECT_EQ(r.metrics[rows ? "ops/llvm-jit" : "ops/onednn"], 1) << c.what;
        EXPECT_EQ(r.metrics[rows ? "ops/onednn" : "ops/llvm-jit"], 0) << c.what;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.what;
        for (const auto &[key, value] : r.metrics)
            EXPECT_NE(key.rfind("fallback/", 0), 0u) << c.what << ": " << key;
    }
}

// Twin of the tiled ops' "no oneDNN reference code" checks (tst_cputiled):
// where oneDNN itself has only its reference code (2.6 for a softmax over a
// middle axis), the op still runs on oneDNN and matches, and the run report
// names it.
TEST_F(CpuBackendTest, AnOpOnOneDnnsReferenceCodeIsReported)
{
    const dnnl_version_t *v = dnnl_version();
    if (v->major != 2 || v->minor != 6)
        GTEST_SKIP() << "which ops oneDNN " << v->major << "." << v->minor
                     << " runs on its reference code is not known to this test (written for 2.6)";
    const Graph g = oneNode("Softmax", {2, 3, 4}, {2, 3, 4}, {{"axis", {std::int64_t{1}}}});
    RunResult r = nativeMatchesReference(*cpu, *reference, g, "softmax axis 1");
    EXPECT_EQ(r.metrics["ops/onednn"], 1);
    EXPECT_EQ(r.metrics["slow_path/Softmax: on oneDNN's reference code"], 1);
    // Over the last axis oneDNN has a JIT kernel: nothing reported.
    RunResult last = nativeMatchesReference(*cpu, *reference, oneNode("Softmax", {2, 3, 4}, {2, 3, 4}), "softmax last");
    EXPECT_EQ(last.metrics.count("slow_path/Softmax: on oneDNN's reference code"), 0u);
}

// Softmax, LayerNormalization and reductions over the innermost dims are
// LLVM row kernels (rowops.cpp): on llvm-jit, labelled with the op, matching
// the reference backend (which sums in double) for odd, single-element and
// long rows (a 224x224 global average pool), either keepdims, opset 11's
// flattened softmax.
TEST_F(CpuBackendTest, SoftmaxNormalisationAndTrailingReductionsRunAsLlvmRowKernels)
{
    std::vector<PrimCase> cases;
    for (std::int64_t L : {1, 7, 13, 1000}) {
        const std::string l = " L=" + std::to_string(L);
        cases.push_back({"softmax" + l, "Softmax", {3, L}, {3, L}});
        cases.push_back({"log-softmax" + l, "LogSoftmax", {2, 2, L}, {2, 2, L}});
        cases.push_back({"layer norm" + l, "LayerNormalization", {3, L}, {3, L}, {}, {{L}, {L}}});
        cases.push_back({"reduce mean" + l, "ReduceMean", {3, L}, {3, 1}, {{"axes", {Ints{-1}}}}});
    }
    const std::vector<PrimCase> more = {
        {"softmax L=50176", "Softmax", {2, 50176}, {2, 50176}},
        {"layer norm L=50176", "LayerNormalization", {2, 50176}, {2, 50176}, {}, {{50176}, {50176}}},
        {"global average pool as ReduceMean", "ReduceMean", {1, 2, 224, 224}, {1, 2, 1, 1}, {{"axes", {Ints{2, 3}}}}},
        {"reduce sum L=50176 no keepdims",
         "ReduceSum",
         {2, 50176},
         {2},
         {{"axes", {Ints{1}}}, {"keepdims", {std::int64_t{0}}}}},
        {"softmax opset 11 (flattened)", "Softmax", {2, 3, 4}, {2, 3, 4}, {{"axis", {std::int64_t{1}}}}, {}, 11},
        {"log-softmax opset 11", "LogSoftmax", {2, 3, 5}, {2, 3, 5}, {}, {}, 11},
        {"softmax over an axis followed by unit dims", "Softmax", {2, 9, 1}, {2, 9, 1}, {{"axis", {std::int64_t{1}}}}},
        {"layer norm without bias", "LayerNormalization", {4, 13}, {4, 13}, {}, {{13}}},
        {"layer norm over two dims",
         "LayerNormalization",
         {2, 5, 8},
         {2, 5, 8},
         {{"axis", {std::int64_t{1}}}},
         {{5, 8}, {5, 8}}},
        {"reduce mean spatial keepdims", "ReduceMean", {1, 4, 5, 5}, {1, 4, 1, 1}, {{"axes", {Ints{2, 3}}}}},
        {"reduce max all axes", "ReduceMax", {2, 3, 4}, {1, 1, 1}},
        {"reduce min no keepdims", "ReduceMin", {3, 7}, {3}, {{"axes", {Ints{1}}}, {"keepdims", {std::int64_t{0}}}}},
        {"reduce prod", "ReduceProd", {3, 7}, {3, 1}, {{"axes", {Ints{1}}}}},
        {"reduce L1", "ReduceL1", {4, 13}, {4, 1}, {{"axes", {Ints{-1}}}}},
        {"reduce L2", "ReduceL2", {2, 6}, {2, 1}, {{"axes", {Ints{-1}}}}},
        {"reduce sum-square", "ReduceSumSquare", {5, 1000}, {5, 1}, {{"axes", {Ints{1}}}}},
        {"reduce log-sum-exp", "ReduceLogSumExp", {3, 13}, {3, 1}, {{"axes", {Ints{1}}}}},
        {"reduce over a unit dim and the last", "ReduceSum", {3, 1, 7}, {3, 1, 1}, {{"axes", {Ints{1, 2}}}}},
    };
    cases.insert(cases.end(), more.begin(), more.end());
    for (const PrimCase &c : cases) {
        const Graph g = oneNode(c.opType, c.in, c.out, c.attrs, c.extra, c.opset);
        RunResult r = nativeMatchesReference(*cpu, *reference, g, c.what);
        EXPECT_EQ(r.metrics["ops/llvm-jit"], 1) << c.what;
        EXPECT_EQ(r.metrics["ops/onednn"], 0) << c.what;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.what;
        EXPECT_EQ(r.metrics.count("kernel/0 llvm-jit:" + c.opType + "/wall_ms"), 1u) << c.what;
    }
}

// The row kernels' float sums against the reference's double ones, for the
// longest row here (L = 50176, a global average pool of 224x224): far under
// the backend's 1e-4 bar; and a softmax of large magnitudes (±80: exp
// overflows float without the max subtraction) stays finite and matches.
TEST_F(CpuBackendTest, RowKernelsStayAccurateOnLongRowsAndLargeMagnitudes)
{
    const Graph pool = oneNode("ReduceMean", {1, 3, 224, 224}, {1, 3, 1, 1}, {{"axes", {Ints{2, 3}}}});
    std::vector<HostTensor> in = planutil::makeInputs(pool, 5);
    for (std::int64_t i = 0; i < in[0].elements(); ++i)
        in[0].f32()[i] += 0.5f; // a mean well away from 0 (activations after a Relu)
    const ExecutionPlan p = planutil::wholePlan(pool, perNode(pool));
    auto got = planutil::compileAndRun(*cpu, pool, p, in);
    auto want = planutil::compileAndRun(*reference, pool, p, in);
    ASSERT_TRUE(got.isOk() && want.isOk());
    EXPECT_EQ(got->metrics["ops/llvm-jit"], 1);
    const double error = relativeL2(got->outputs[0], want->outputs[0]);
    EXPECT_LT(error, 1e-6);
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", error);
    RecordProperty("global_pool_relative_l2", text);

    for (const std::string type : {"Softmax", "LogSoftmax"}) {
        const Graph g = oneNode(type, {4, 1000}, {4, 1000});
        std::vector<HostTensor> x = planutil::makeInputs(g, 9);
        for (std::int64_t i = 0; i < x[0].elements(); ++i)
            x[0].f32()[i] *= 80.f;
        auto r = planutil::runAgainstReference(*cpu, *reference, g, planutil::wholePlan(g, perNode(g)), x, kTolerance);
        EXPECT_EQ(r.mismatch, "") << type;
        EXPECT_EQ(r.got.metrics["ops/llvm-jit"], 1) << type;
    }
}

// Negative twin: where the normalised or reduced dims are not the innermost
// ones the row kernel declines and the oneDNN primitive runs, still matching;
// with the LLVM JIT disabled the same nodes that were row kernels run on oneDNN.
TEST_F(CpuBackendTest, RowKernelDeclinesLayoutsThatDoNotFitAndOneDnnRunsThem)
{
    const std::vector<PrimCase> cases = {
        {"softmax axis 1", "Softmax", {2, 3, 4}, {2, 3, 4}, {{"axis", {std::int64_t{1}}}}},
        {"log-softmax axis 0", "LogSoftmax", {3, 5}, {3, 5}, {{"axis", {std::int64_t{0}}}}},
        {"reduce sum middle axis", "ReduceSum", {2, 3, 4}, {2, 1, 4}, {{"axes", {Ints{1}}}}},
        {"reduce mean leading axis", "ReduceMean", {3, 4}, {1, 4}, {{"axes", {Ints{0}}}}},
        {"reduce max over the first and last", "ReduceMax", {2, 3, 4}, {1, 3, 1}, {{"axes", {Ints{0, 2}}}}},
    };
    for (const PrimCase &c : cases) {
        const Graph g = oneNode(c.opType, c.in, c.out, c.attrs, c.extra, c.opset);
        RunResult r = nativeMatchesReference(*cpu, *reference, g, c.what);
        EXPECT_EQ(r.metrics["ops/onednn"], 1) << c.what;
        EXPECT_EQ(r.metrics["ops/llvm-jit"], 0) << c.what;
    }
    ::setenv("TESSERA_CPU_ENGINES", "onednn,copy", 1);
    RunResult dnnl = nativeMatchesReference(*cpu, *reference, oneNode("Softmax", {3, 10}, {3, 10}), "no JIT");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(dnnl.metrics["ops/onednn"], 1);
    EXPECT_EQ(dnnl.metrics["ops/llvm-jit"], 0);
}

// Row kernels are cached by content: the same softmax in a second plan (here
// followed by a Relu chain) compiles only the chain; a softmax of another row
// length compiles anew.
TEST_F(CpuBackendTest, RowKernelsAreCachedByContent)
{
    auto fresh = createCpuBackend();
    const Graph alone = oneNode("Softmax", {12, 128}, {12, 128});
    RunResult first = nativeMatchesReference(*fresh, *reference, alone, "softmax");
    EXPECT_EQ(first.metrics["jit_kernels_compiled"], 1);
    EXPECT_EQ(first.metrics["jit_cache_hits"], 0);

    Graph chained;
    const TensorId x = testgraphs::tensor(chained, "x", {12, 128}, Tensor::Kind::Input);
    chained.inputs = {x};
    const TensorId y = op(chained, "softmax", "Softmax", {x}, {12, 128});
    chained.outputs = {op(chained, "relu", "Relu", {y}, {12, 128})};
    RunResult second = nativeMatchesReference(*fresh, *reference, chained, "softmax + relu");
    EXPECT_EQ(second.metrics["ops/llvm-jit"], 2);
    EXPECT_EQ(second.metrics["jit_kernels_compiled"], 1); // the Relu
    EXPECT_EQ(second.metrics["jit_cache_hits"], 1);       // the softmax

    RunResult other = nativeMatchesReference(*fresh, *reference, oneNode("Softmax", {12, 129}, {12, 129}), "L=129");
    EXPECT_EQ(other.metrics["jit_kernels_compiled"], 1);
    EXPECT_EQ(other.metrics["jit_cache_hits"], 0);
}

// Negative twin: attributes oneDNN cannot express leave the node on the
// reference kernel, with the reason in the run's metrics, still matching.
TEST_F(CpuBackendTest, UnsupportedAttributeFallsBackToReferenceAndSaysWhy)
{
    struct Fallback {
        PrimCase c;
        std::string key; // the metric the run must carry
    };
    const std::vector<Fallback> cases = {
        {{"avg pool ceil_mode with pads counted",
          "AveragePool",
          {1, 2, 8, 8},
          {1, 2, 4, 4},
          {{"kernel_shape", {Ints{3, 3}}},
           {"strides", {Ints{2, 2}}},
           {"ceil_mode", {std::int64_t{1}}},
           {"count_include_pad", {std::int64_t{1}}}}},
         "fallback/AveragePool: a ceil_mode window past the end padding with count_include_pad"},
        {{"layer norm with a broadcast scale",
          "LayerNormalization",
          {2, 5, 8},
          {2, 5, 8},
          {{"axis", {std::int64_t{1}}}},
          {{8}, {8}}},
         "fallback/LayerNormalization: a scale or bias broadcast over the normalised dims"},
        {{"reduce over nothing", "ReduceSum", {2, 3}, {2, 3}, {{"noop_with_empty_axes", {std::int64_t{1}}}}},
         "fallback/ReduceSum: no axes with noop_with_empty_axes (a copy)"},
        {{"hardmax (no primitive)", "Hardmax", {2, 5}, {2, 5}}, "fallback/Hardmax"},
    };
    for (const Fallback &f : cases) {
        const Graph g = oneNode(f.c.opType, f.c.in, f.c.out, f.c.attrs, f.c.extra, f.c.opset);
        RunResult r = nativeMatchesReference(*cpu, *reference, g, f.c.what);
        EXPECT_EQ(r.metrics["ops/onednn"], 0) << f.c.what;
        EXPECT_EQ(r.metrics["ops/reference"], 1) << f.c.what;
        EXPECT_EQ(r.metrics.count(f.key), 1u) << f.c.what;
    }

    // InstanceNormalization whose scale is computed at run time (its scale and
    // B are tiled per image at compile time).
    {
        Graph g;
        const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4, 4}, Tensor::Kind::Input);
        const TensorId scale = testgraphs::tensor(g, "scale", {3}, Tensor::Kind::Input);
        g.inputs = {x, scale};
        g.outputs = {op(g, "norm", "InstanceNormalization", {x, scale, testgraphs::weight(g, "b", {3})}, {2, 3, 4, 4})};
        RunResult r = nativeMatchesReference(*cpu, *reference, g, "instance norm, run-time scale");
        EXPECT_EQ(r.metrics["ops/reference"], 1);
        EXPECT_EQ(r.metrics.count("fallback/InstanceNormalization: scale or B computed at run time"), 1u);
    }

    // MaxPool whose Indices output is read: the reference kernel computes both.
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 2, 4, 4}, Tensor::Kind::Input);
    g.inputs = {x};
    Node n;
    n.name = "pool";
    n.opType = "MaxPool";
    n.attrs = {{"kernel_shape", {Ints{2, 2}}}, {"strides", {Ints{2, 2}}}};
    n.inputs = {x};
    n.outputs = {testgraphs::tensor(g, "y", {1, 2, 2, 2}), testgraphs::tensor(g, "i", {1, 2, 2, 2})};
    g.tensor(n.outputs[1]).dtype = DType::Int64;
    g.addNode(n);
    g.outputs = n.outputs;
    RunResult r = nativeMatchesReference(*cpu, *reference, g, "max pool with indices");
    EXPECT_EQ(r.metrics["ops/reference"], 1);
    EXPECT_EQ(r.metrics.count("fallback/MaxPool: the Indices output is used"), 1u);
}

// Inference BatchNormalization on its own (not after a convolution) is one
// generated JIT kernel (a per-channel multiply-add with the constants folded).
// Twin: a mean computed at run time cannot be folded: the reference kernel
// runs it, reported, still matching.
TEST_F(CpuBackendTest, StandaloneBatchNormIsJitCompiledUnlessItsStatisticsVary)
{
    for (bool runtimeMean : {false, true}) {
        Graph g;
        const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4, 4}, Tensor::Kind::Input);
        g.inputs = {x};
        const TensorId scale = testgraphs::weight(g, "scale", {3}), bias = testgraphs::weight(g, "bias", {3});
        const TensorId mean =
            runtimeMean ? testgraphs::tensor(g, "mean", {3}, Tensor::Kind::Input) : testgraphs::weight(g, "mean", {3});
        if (runtimeMean)
            g.inputs.push_back(mean);
        const TensorId var = testgraphs::weight(g, "var", {3});
        auto positive = std::make_shared<TensorData>(*g.tensor(var).data);
        for (int c = 0; c < 3; ++c) {
            const float v = 0.5f + 0.25f * static_cast<float>(c);
            std::memcpy(positive->bytes.data() + 4 * c, &v, 4);
        }
        g.tensor(var).data = positive;
        g.outputs = {op(g, "bn", "BatchNormalization", {x, scale, bias, mean, var}, {2, 3, 4, 4})};
        RunResult r = nativeMatchesReference(*cpu, *reference, g, runtimeMean ? "runtime mean" : "constant stats");
        EXPECT_EQ(r.metrics["ops/llvm-jit"], runtimeMean ? 0 : 1);
        EXPECT_EQ(r.metrics["fallback/BatchNormalization"], runtimeMean ? 1 : 0);
    }
}

// Every kernel is reported with the engine of each of its ops and its time.
TEST_F(CpuBackendTest, RunReportsTheEngineOfEveryKernel)
{
    const Graph g = sample("squeezenet", 0, false);
    auto fused = plan(g, "layer-fusion");
    ASSERT_TRUE(fused.isOk());
    auto r = planutil::compileAndRun(*cpu, g, *fused, planutil::makeInputs(g, 8));
    ASSERT_TRUE(r.isOk()) << r.status().str();
    int kernels = 0, onednn = 0, pools = 0;
    for (const auto &[key, value] : r->metrics) {
        if (!key.starts_with("kernel/") || !key.ends_with("/wall_ms")) // also /gflops, /gbps
            continue;
        ++kernels;
        EXPECT_GE(value, 0) << key;
        onednn += key.find("]:Conv") != std::string::npos;
        pools += key.find("]:MaxPool") != std::string::npos && key.find(" onednn[") != std::string::npos;
    }
    EXPECT_EQ(kernels, static_cast<int>(fused->tasks.size()));
    EXPECT_GT(onednn, 20);
    EXPECT_GT(pools, 0);
    // Negative twin: with oneDNN disabled the kernel names the reference
    // kernel, and the run says why the pool was not compiled.
    const PrimCase &c = primCases().front();
    const Graph pool = oneNode(c.opType, c.in, c.out, c.attrs);
    ::setenv("TESSERA_CPU_ENGINES", "llvm-jit", 1);
    RunResult restricted = nativeMatchesReference(*cpu, *reference, pool, "restricted engines");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(restricted.metrics.count("kernel/0 reference:MaxPool/wall_ms"), 1u);
    EXPECT_EQ(restricted.metrics["fallback/MaxPool: oneDNN disabled by TESSERA_CPU_ENGINES"], 1);
}

// The run's workers are kept across runs (their OpenMP teams and scratch with
// them): five runs of three lanes start two threads in all.
TEST(CpuWorkerPool, KeepsItsThreadsAcrossRuns)
{
    cpu::WorkerPool pool;
    std::mutex mutex;
    std::vector<int> calls(3, 0);
    for (int r = 0; r < 5; ++r)
        pool.run(3, [&](int lane) {
            std::lock_guard lock(mutex);
            ++calls[static_cast<std::size_t>(lane)];
        });
    EXPECT_EQ(pool.threadsStarted(), 2);
    EXPECT_EQ(calls, (std::vector<int>{5, 5, 5}));
}

// Negative twin: a run that finds the pool in use runs on threads of its own
// (every lane once, none added to the pool); an exception on a pool lane
// reaches the caller and leaves the pool usable.
TEST(CpuWorkerPool, BusyPoolStartsOwnThreadsAndRethrows)
{
    cpu::WorkerPool pool;
    std::atomic<int> inner{0};
    pool.run(2, [&](int lane) {
        if (lane == 0)
            pool.run(3, [&](int) { ++inner; });
    });
    EXPECT_EQ(inner.load(), 3);
    EXPECT_EQ(pool.threadsStarted(), 1);
    EXPECT_THROW(pool.run(2,
                          [](int lane) {
                              if (lane == 1)
                                  throw std::runtime_error("lane 1 failed");
                          }),
                 std::runtime_error);
    std::atomic<int> after{0};
    pool.run(2, [&](int) { ++after; });
    EXPECT_EQ(after.load(), 2);
}

// A plan whose buffers cannot fit in the host's memory fails at compile time,
// naming its largest buffer and the size, before anything is allocated. Twin:
// the same chain at a small shape compiles and runs.
TEST_F(CpuBackendTest, BuffersBeyondHostMemoryFailBeforeRunning)
{
    for (std::int64_t side : {std::int64_t{64}, std::int64_t{1} << 20}) {
        Graph g;
        const TensorId x = testgraphs::tensor(g, "x", {side, side}, Tensor::Kind::Input);
        g.inputs = {x};
        const TensorId r = op(g, "relu", "Relu", {x}, {side, side});
        g.outputs = {op(g, "sigmoid", "Sigmoid", {r}, {side, side})};
        auto compiled = cpu->compile(g, planutil::wholePlan(g, {{0}, {1}}));
        if (side == 64) {
            ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
            EXPECT_TRUE(cpu->run(**compiled, planutil::makeInputs(g, 2)).isOk());
            continue;
        }
        ASSERT_FALSE(compiled.isOk());
        EXPECT_EQ(compiled.status().code(), ErrorCode::Unsupported);
        EXPECT_NE(compiled.status().message().find("4.0 TiB"), std::string::npos) << compiled.status().str();
        EXPECT_NE(compiled.status().message().find("this host allows"), std::string::npos);
        EXPECT_FALSE(compiled.status().location().tensor.empty());
    }
}

// x -> Relu -> Sigmoid, all of `shape`; planned a task per node, the Relu's
// output lives in the plan's arena, the Sigmoid's in the run's result.
Graph reluSigmoid(const Shape &shape)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", shape, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId r = op(g, "relu", "Relu", {x}, shape);
    g.outputs = {op(g, "sigmoid", "Sigmoid", {r}, shape)};
    return g;
}

// Issue 13 item 2: every run reports each event counter (L1D and LLC read
// misses, instructions, page faults) or, once, why it is not counted (no PMU,
// perf_event_paranoid, seccomp) — never neither, never both.
TEST_F(CpuBackendTest, RunReportsEachEventCounterOrWhyNot)
{
    const Graph g = reluSigmoid({256, 256});
    auto compiled = cpu->compile(g, planutil::wholePlan(g, {{0}, {1}}));
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    auto run = cpu->run(**compiled, planutil::makeInputs(g, 2));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    for (const char *event : {"l1d_read_misses", "llc_read_misses", "instructions", "page_faults"}) {
        const bool counted = run->metrics.count(std::string("counters/") + event) > 0;
        int reasons = 0;
        for (const auto &[key, value] : run->metrics)
            if (key.starts_with("counters/unavailable: ") && key.find(event) != std::string::npos)
                ++reasons;
        EXPECT_NE(counted, reasons == 1) << event;
        if (counted && std::string(event) == "instructions") {
            EXPECT_GT(run->metrics.at("counters/instructions"), 0);
        }
    }
}

// `bytes` of fresh pages from the kernel, not from malloc (which may hand back
// pages an earlier test of this process already faulted in), each written once.
void touchFreshPages(std::size_t bytes)
{
    void *pages = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(pages, MAP_FAILED);
    std::memset(pages, 1, bytes);
    EXPECT_EQ(static_cast<const char *>(pages)[bytes / 2], 1);
    ::munmap(pages, bytes);
}

// One start()..stop() of `counters` around `body`: its metrics.
template <class Body> std::map<std::string, double> counted(cpu::PerfCounters &counters, Body &&body)
{
    std::map<std::string, double> metrics;
    counters.start();
    body();
    counters.stop();
    counters.report(metrics);
    return metrics;
}

constexpr std::size_t kFreshBytes = 8 << 20; // 2048 pages of 4 KiB
constexpr const char *kNoSoftwareEvents =
    "perf_event_open refuses even software events here (kernel.perf_event_paranoid or seccomp)";

// The counters themselves, kept open across runs: a run touching 8 MiB of
// fresh pages faults at least once per 4 KiB page; the run before it, touching
// nothing, faults (almost) never; the events were opened once.
TEST(CpuPerfCounters, PageFaultsCountTheRunsFreshPages)
{
    cpu::PerfCounters counters;
    const auto quiet = counted(counters, [] {});
    if (!quiet.count("counters/page_faults"))
        GTEST_SKIP() << kNoSoftwareEvents;
    const auto touched = counted(counters, [] { touchFreshPages(kFreshBytes); });
    EXPECT_LT(quiet.at("counters/page_faults"), 64);
    EXPECT_GE(touched.at("counters/page_faults"), static_cast<double>(kFreshBytes / 4096) * 0.9);
    EXPECT_EQ(counters.opens(), 1);
}

// Twin, the other order: after a run whose thread, started after the counters
// were opened (it inherits them), touched 8 MiB of fresh pages, the next run,
// touching nothing, reports (almost) no faults, not the sum of both.
TEST(CpuPerfCounters, AQuietRunAfterAFaultingOneCountsOnlyItsOwn)
{
    cpu::PerfCounters counters;
    const auto touched = counted(counters, [] { std::thread([] { touchFreshPages(kFreshBytes); }).join(); });
    if (!touched.count("counters/page_faults"))
        GTEST_SKIP() << kNoSoftwareEvents;
    const auto quiet = counted(counters, [] {});
    EXPECT_GE(touched.at("counters/page_faults"), static_cast<double>(kFreshBytes / 4096) * 0.9);
    EXPECT_LT(quiet.at("counters/page_faults"), 64);
    EXPECT_EQ(counters.opens(), 1);
}

// reluSigmoid with a 37.7 MB arena: above glibc's largest mmap threshold
// (32 MiB), so a fresh arena is fresh pages.
Graph bigArenaChain()
{
    return reluSigmoid({2304, 4096});
}

// Issue 13 item 2, counters kept across runs: two consecutive runs of one
// compiled plan each report their own page faults — the first faults its
// fresh arena in, the second reuses that arena and faults (almost) nothing.
TEST_F(CpuBackendTest, ConsecutiveRunsOfOnePlanReportTheirOwnPageFaults)
{
    const Graph g = bigArenaChain();
    auto compiled = cpu->compile(g, planutil::wholePlan(g, {{0}, {1}}));
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    const auto inputs = planutil::makeInputs(g, 2);
    auto first = cpu->run(**compiled, inputs);
    ASSERT_TRUE(first.isOk()) << first.status().str();
    if (!first->metrics.count("counters/page_faults"))
        GTEST_SKIP() << kNoSoftwareEvents;
    auto second = cpu->run(**compiled, inputs);
    ASSERT_TRUE(second.isOk()) << second.status().str();
    const double arenaPages = first->metrics.at("arena_bytes") / 4096;
    ASSERT_GT(arenaPages, 8000);
    EXPECT_GE(first->metrics.at("counters/page_faults"), arenaPages * 0.9);
    EXPECT_LT(second->metrics.at("counters/page_faults"), arenaPages * 0.1);
}

// Twin: a second compiled plan of the same graph, run after the first plan's
// runs on the same backend (its counters already open), has no arena to reuse:
// its run faults a fresh one in and reports it.
TEST_F(CpuBackendTest, AnotherPlansFirstRunOnTheKeptCountersReportsItsFreshArena)
{
    const Graph g = bigArenaChain();
    const ExecutionPlan plan = planutil::wholePlan(g, {{0}, {1}});
    auto a = cpu->compile(g, plan);
    ASSERT_TRUE(a.isOk()) << a.status().str();
    const auto inputs = planutil::makeInputs(g, 2);
    for (int i = 0; i < 2; ++i)
        ASSERT_TRUE(cpu->run(**a, inputs).isOk());
    auto b = cpu->compile(g, plan);
    ASSERT_TRUE(b.isOk()) << b.status().str();
    auto run = cpu->run(**b, inputs);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    if (!run->metrics.count("counters/page_faults"))
        GTEST_SKIP() << kNoSoftwareEvents;
    EXPECT_GE(run->metrics.at("counters/page_faults"), run->metrics.at("arena_bytes") / 4096 * 0.9);
}

// Two runs of one compiled plan at once (whichever finds the backend's
// counters taken opens its own): every round both succeed, match, and report
// the page faults or why not.
TEST_F(CpuBackendTest, TwoRunsOfOnePlanAtOnceBothReportCounters)
{
    const Graph g = reluSigmoid({512, 512});
    auto compiled = cpu->compile(g, planutil::wholePlan(g, {{0}, {1}}));
    ASSERT_TRUE(compiled.isOk()) << compiled.status().str();
    const auto inputs = planutil::makeInputs(g, 2);
    std::vector<Expected<RunResult>> runs(2, Status::error(ErrorCode::Internal, "not run"));
    for (int round = 0; round < 20; ++round) {
        std::thread other([&] { runs[1] = cpu->run(**compiled, inputs); });
        runs[0] = cpu->run(**compiled, inputs);
        other.join();
        for (const auto &run : runs) {
            ASSERT_TRUE(run.isOk()) << run.status().str();
            EXPECT_TRUE(planutil::bitEqual(run->outputs[0], runs[0]->outputs[0]));
            bool page = run->metrics.count("counters/page_faults") > 0;
            for (const auto &[key, value] : run->metrics)
                page =
                    page || (key.starts_with("counters/unavailable: ") && key.find("page_faults") != std::string::npos);
            EXPECT_TRUE(page) << "round " << round;
        }
    }
}

TEST_F(CpuBackendTest, ReportsMeasuredFunctionalCapabilities)
{
    const BackendInfo &info = cpu->info();
    EXPECT_EQ(info.name, "cpu");
    EXPECT_TRUE(info.capabilities.functional);
    EXPECT_TRUE(info.capabilities.measured);
    EXPECT_FALSE(info.capabilities.timing);
    EXPECT_NE(info.summary.find("oneDNN"), std::string::npos);
}

TEST_F(CpuBackendTest, MissingInputIsAnErrorNotACrash)
{
    const Graph g = sample("squeezenet", 0, false);
    auto p = plan(g, "sequential");
    ASSERT_TRUE(p.isOk());
    auto compiled = cpu->compile(g, *p);
    ASSERT_TRUE(compiled.isOk());
    auto r = cpu->run(**compiled, {});
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(r.status().message().find("missing input"), std::string::npos);
}

} // namespace

// --- activation layouts (backends/cpu/layout.h) and compiled data movement ---

namespace {

AttrMap convAttrs(std::int64_t k, std::int64_t pad)
{
    return {{"kernel_shape", {std::vector<std::int64_t>{k, k}}},
            {"pads", {std::vector<std::int64_t>{pad, pad, pad, pad}}}};
}

// x[1,16,14,14] -> conv3x3 (32) -> Relu -> conv3x3 (32) -> conv1x1 (16) -> y;
// `plainConsumer`: the second convolution's result is also read by a
// Transpose (plain layouts only) that is a graph output.
Graph convChain(bool plainConsumer)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 16, 14, 14}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a =
        op(g, "a", "Conv", {x, testgraphs::weight(g, "a/w", {32, 16, 3, 3})}, {1, 32, 14, 14}, convAttrs(3, 1));
    const TensorId r = op(g, "r", "Relu", {a}, {1, 32, 14, 14});
    const TensorId b =
        op(g, "b", "Conv", {r, testgraphs::weight(g, "b/w", {32, 32, 3, 3})}, {1, 32, 14, 14}, convAttrs(3, 1));
    const TensorId c =
        op(g, "c", "Conv", {b, testgraphs::weight(g, "c/w", {16, 32, 1, 1})}, {1, 16, 14, 14}, convAttrs(1, 0));
    g.outputs = {c};
    if (plainConsumer)
        g.outputs.push_back(
            op(g, "t", "Transpose", {b}, {1, 14, 14, 32}, {{"perm", {std::vector<std::int64_t>{0, 2, 3, 1}}}}));
    return g;
}

// A chain of convolutions (and the Relu kernel between two of them, a plan
// with one kernel per node) passes blocked activations along: the three
// intermediates are blocked and the only reorders left are at the graph's
// input and output.
TEST_F(CpuBackendTest, ActivationsStayBlockedBetweenConvolutions)
{
    if (!cpu::blockedLayoutsEnabled())
        GTEST_SKIP() << "no blocked activation layout on this host";
    RunResult r = nativeMatchesReference(*cpu, *reference, convChain(false), "conv chain");
    EXPECT_EQ(r.metrics["ops/onednn"], 3);
    EXPECT_EQ(r.metrics["blocked_tensors"], 3);
    EXPECT_GE(r.metrics["reorders"], 1); // y out
    EXPECT_LE(r.metrics["reorders"], 2); // and x in, unless oneDNN reads a plain source
}

// Negative twin: a plain-only consumer (a Transpose, compiled as a copy)
// of the second convolution's result reads a plain copy made for it: exactly
// one reorder more than the chain alone, and the convolutions' tensors stay
// blocked.
TEST_F(CpuBackendTest, PlainConsumerForcesExactlyOneReorder)
{
    if (!cpu::blockedLayoutsEnabled())
        GTEST_SKIP() << "no blocked activation layout on this host";
    RunResult chain = nativeMatchesReference(*cpu, *reference, convChain(false), "conv chain");
    RunResult forked = nativeMatchesReference(*cpu, *reference, convChain(true), "conv chain + Transpose");
    EXPECT_EQ(forked.metrics["ops/copy"], 1); // the Transpose, a plain copy
    EXPECT_EQ(forked.metrics["blocked_tensors"], 3);
    EXPECT_EQ(forked.metrics["reorders"], chain.metrics["reorders"] + 1);
}

// x -> {a: conv3x3 (16), b: conv1x1 (32 or 16)} -> Concat -> Pad (1 on H, W)
// -> conv3x3 without padding -> y. Along the channels (`channelAxis`) or,
// for the twin, along H.
Graph concatPad(bool channelAxis)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 16, 14, 14}, Tensor::Kind::Input);
    g.inputs = {x};
    const std::int64_t cb = channelAxis ? 32 : 16, c = channelAxis ? 48 : 16, h = channelAxis ? 14 : 28;
    const TensorId a =
        op(g, "a", "Conv", {x, testgraphs::weight(g, "a/w", {16, 16, 3, 3})}, {1, 16, 14, 14}, convAttrs(3, 1));
    const TensorId b =
        op(g, "b", "Conv", {x, testgraphs::weight(g, "b/w", {cb, 16, 1, 1})}, {1, cb, 14, 14}, convAttrs(1, 0));
    const TensorId cat = op(g, "cat", "Concat", {a, b}, {1, c, h, 14}, {{"axis", {std::int64_t{channelAxis ? 1 : 2}}}});
    const TensorId pad = op(g, "pad", "Pad", {cat}, {1, c, h + 2, 16},
                            {{"pads", {std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1}}}, {"value", {0.5}}});
    g.outputs = {
        op(g, "y", "Conv", {pad, testgraphs::weight(g, "y/w", {16, c, 3, 3})}, {1, 16, h, 14}, convAttrs(3, 0))};
    return g;
}

// Concat and Pad are compiled copies (no reference kernel); a channel
// Concat of blocked branches and the Pad after it stay blocked, so the
// convolutions around them reorder only at the graph's input and output.
TEST_F(CpuBackendTest, ChannelConcatAndPadAreCompiledCopiesOnBlockedTensors)
{
    RunResult r = nativeMatchesReference(*cpu, *reference, concatPad(true), "channel concat + pad");
    EXPECT_EQ(r.metrics["ops/copy"], 2);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    // Both over 4 KB: LLVM-generated for the layout they run in ("llvm", "blocked:llvm", "nhwc:llvm").
    int generated = 0;
    for (const auto &[key, value] : r.metrics)
        generated += key.starts_with("kernel/") && key.ends_with("/wall_ms") && key.find("llvm]:") != std::string::npos;
    EXPECT_EQ(generated, 2);
    if (cpu::blockedLayoutsEnabled()) {
        EXPECT_EQ(r.metrics["blocked_tensors"], 4); // a, b, the Concat's and the Pad's results
        EXPECT_LE(r.metrics["reorders"], 3);        // x into a and b, y out
    }
}

// Negative twin: a Concat along H cannot take the blocked layout; it and the
// Pad stay plain copies, and the convolutions reorder around them: a and b
// out, y in, three reorders more than the channel Concat.
TEST_F(CpuBackendTest, ConcatAlongHeightStaysPlainAndCostsReorders)
{
    RunResult channel = nativeMatchesReference(*cpu, *reference, concatPad(true), "channel concat + pad");
    RunResult height = nativeMatchesReference(*cpu, *reference, concatPad(false), "height concat + pad");
    EXPECT_EQ(height.metrics["ops/copy"], 2);
    EXPECT_EQ(height.metrics["ops/reference"], 0);
    EXPECT_EQ(height.metrics["blocked_tensors"], 0);
    if (cpu::blockedLayoutsEnabled()) {
        EXPECT_EQ(height.metrics["reorders"], channel.metrics["reorders"] + 3);
    }
}

// Transpose (merged dims, a moved last dim, the default reversal), Slice
// (rows, from the end, the last dim), the reshapes and Pad run as compiled
// copies and match the reference kernels.
TEST_F(CpuBackendTest, DataMovementIsCompiledAsCopiesAndMatches)
{
    using Ints = std::vector<std::int64_t>;
    struct Case {
        std::string what, opType;
        Shape in, out;
        AttrMap attrs;
    };
    const std::vector<Case> cases = {
        {"transpose heads", "Transpose", {1, 6, 3, 8}, {1, 3, 6, 8}, {{"perm", {Ints{0, 2, 1, 3}}}}},
        {"transpose last dim moved", "Transpose", {2, 3, 4, 5}, {5, 3, 2, 4}, {{"perm", {Ints{3, 1, 0, 2}}}}},
        {"transpose reversed", "Transpose", {2, 3, 4}, {4, 3, 2}, {}},
        {"flatten", "Flatten", {2, 3, 4, 5}, {2, 60}, {{"axis", {std::int64_t{1}}}}},
        {"pad", "Pad", {1, 2, 3, 4}, {1, 3, 6, 5}, {{"pads", {Ints{0, 1, 2, 0, 0, 0, 1, 1}}}, {"value", {-2.0}}}},
        {"slice rows", "Slice", {4, 6, 5}, {2, 6, 5}, {{"starts", {Ints{1}}}, {"ends", {Ints{3}}}}},
        {"slice from the end",
         "Slice",
         {4, 6, 5},
         {2, 4, 5},
         {{"starts", {Ints{1, -4}}}, {"ends", {Ints{3, 100}}}, {"axes", {Ints{0, 1}}}}},
        {"slice last dim",
         "Slice",
         {4, 6, 5},
         {4, 6, 2},
         {{"starts", {Ints{2}}}, {"ends", {Ints{4}}}, {"axes", {Ints{-1}}}}},
    };
    for (const Case &c : cases) {
        // Slice's attribute form (starts/ends/axes) is opset 9's.
        const std::int64_t opset = c.opType == "Slice" ? 9 : 17;
        RunResult r =
            nativeMatchesReference(*cpu, *reference, oneNode(c.opType, c.in, c.out, c.attrs, {}, opset), c.what);
        EXPECT_EQ(r.metrics["ops/copy"], 1) << c.what;
        EXPECT_EQ(r.metrics["ops/reference"], 0) << c.what;
    }
}

// Negative twin: a Pad mode other than constant is not a fill-and-copy; it
// stays on the reference kernel, reported, and still matches.
TEST_F(CpuBackendTest, ReflectPadStaysOnTheReferenceKernel)
{
    const Graph g =
        oneNode("Pad", {1, 2, 3, 4}, {1, 2, 5, 6},
                {{"pads", {std::vector<std::int64_t>{0, 0, 1, 1, 0, 0, 1, 1}}}, {"mode", {std::string("reflect")}}});
    RunResult r = nativeMatchesReference(*cpu, *reference, g, "reflect pad");
    EXPECT_EQ(r.metrics["ops/copy"], 0);
    EXPECT_EQ(r.metrics["ops/reference"], 1);
    EXPECT_EQ(r.metrics["fallback/Pad"], 1);
}

// An int32 initializer holding `values`.
TensorId int32Constant(Graph &g, const std::string &name, Shape shape, const std::vector<std::int32_t> &values)
{
    auto data = std::make_shared<TensorData>();
    data->dtype = DType::Int32;
    data->shape = shape;
    data->bytes.resize(values.size() * 4);
    std::memcpy(data->bytes.data(), values.data(), data->bytes.size());
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.dtype = DType::Int32;
    t.kind = Tensor::Kind::Initializer;
    t.data = std::move(data);
    return g.addTensor(std::move(t));
}

// An int64 initializer "sizes" holding `sizes` (a Split's input).
TensorId int64Sizes(Graph &g, const std::vector<std::int64_t> &sizes)
{
    auto data = std::make_shared<TensorData>();
    data->dtype = DType::Int64;
    data->shape = {static_cast<std::int64_t>(sizes.size())};
    data->bytes.resize(sizes.size() * 8);
    std::memcpy(data->bytes.data(), sizes.data(), data->bytes.size());
    Tensor t;
    t.name = "sizes";
    t.shape = data->shape;
    t.dtype = DType::Int64;
    t.kind = Tensor::Kind::Initializer;
    t.data = std::move(data);
    return g.addTensor(std::move(t));
}

// A Split node of `in` along `axis` into tensors of `parts`' shapes (and the
// sizes input `sizes` when valid); its outputs.
std::vector<TensorId> addSplit(Graph &g, TensorId in, std::int64_t axis, const std::vector<Shape> &parts,
                               TensorId sizes = kInvalidId)
{
    Node n;
    n.name = "split";
    n.opType = "Split";
    n.attrs = {{"axis", {axis}}};
    n.inputs = {in};
    if (sizes != kInvalidId)
        n.inputs.push_back(sizes);
    for (std::size_t i = 0; i < parts.size(); ++i)
        n.outputs.push_back(testgraphs::tensor(g, "part" + std::to_string(i), parts[i]));
    std::vector<TensorId> out = n.outputs;
    g.addNode(std::move(n));
    return out;
}

// A Gather of x[rows, 6] by an int64 graph input `ids` [2, 3] (BERT's word
// embedding: rows of the table per token, read at run time) and of that
// result along its last dim by constant int32 indices, one of them
// negative; `rows` is the table's row count.
Graph gathers(std::int64_t rows)
{
    Graph g;
    g.opsetVersion = 17;
    const TensorId table = testgraphs::tensor(g, "table", {rows, 6}, Tensor::Kind::Input);
    const TensorId ids = testgraphs::tensor(g, "ids", {2, 3}, Tensor::Kind::Input);
    g.tensor(ids).dtype = DType::Int64;
    g.inputs = {table, ids};
    const TensorId emb = op(g, "emb", "Gather", {table, ids}, {2, 3, 6});
    const TensorId cols = int32Constant(g, "cols", {4}, {5, 0, -2, 1});
    g.outputs = {op(g, "pick", "Gather", {emb, cols}, {2, 3, 4}, {{"axis", {std::int64_t{-1}}}})};
    return g;
}

// x[1,4,6,5] split along `axis` into `sizes` (opset 13: the sizes as an
// input), each part through a Relu so the Split's outputs are intermediates.
Graph split(std::int64_t axis, const std::vector<std::int64_t> &sizes)
{
    Graph g;
    g.opsetVersion = 13;
    const Shape in{1, 4, 6, 5};
    const TensorId x = testgraphs::tensor(g, "x", in, Tensor::Kind::Input);
    g.inputs = {x};
    std::vector<Shape> shapes;
    for (std::int64_t size : sizes) {
        shapes.push_back(in);
        shapes.back()[static_cast<std::size_t>(axis)] = size;
    }
    const std::vector<TensorId> parts = addSplit(g, x, axis, shapes, int64Sizes(g, sizes));
    for (std::size_t i = 0; i < parts.size(); ++i)
        g.outputs.push_back(op(g, "relu" + std::to_string(i), "Relu", {parts[i]}, g.tensor(parts[i]).shape));
    return g;
}

// Gather (run-time and constant indices, a negative one, along the last
// dim) and Split (along channels and along the last dim, unequal parts) are
// compiled copies and match the reference kernels.
TEST_F(CpuBackendTest, GatherAndSplitAreCompiledCopiesAndMatch)
{
    RunResult r = nativeMatchesReference(*cpu, *reference, gathers(10), "gathers");
    EXPECT_EQ(r.metrics["ops/copy"], 2);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    for (const auto &[axis, sizes] :
         std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>>{{1, {1, 3}}, {3, {2, 2, 1}}}) {
        const std::string what = "split along " + std::to_string(axis);
        RunResult s = nativeMatchesReference(*cpu, *reference, split(axis, sizes), what);
        EXPECT_EQ(s.metrics["ops/copy"], 1) << what;
        EXPECT_EQ(s.metrics["ops/reference"], 0) << what;
    }
}

// Data movement large enough for generated code (over 4 KB a move), each
// node's result a graph output: x [48,40,36] transposed by (2,0,1) (the
// output's last dim strided in x, x's last dim contiguous: blocks with
// remainders, 36 and 40 not multiples of 16), sliced backwards with steps
// (-2, 3, 1), concatenated with itself along the last dim (rows of 36
// floats), split there into 4 and 32, padded with -2; and an int64 [64,30]
// transposed (8-byte elements).
Graph largeMoves()
{
    Graph g;
    g.opsetVersion = 13;
    const TensorId x = testgraphs::tensor(g, "x", {48, 40, 36}, Tensor::Kind::Input);
    const TensorId ids = testgraphs::tensor(g, "ids", {64, 30}, Tensor::Kind::Input);
    g.tensor(ids).dtype = DType::Int64;
    g.inputs = {x, ids};
    g.outputs.push_back(op(g, "transpose", "Transpose", {x}, {36, 48, 40}, {{"perm", {Ints{2, 0, 1}}}}));
    g.outputs.push_back(
        op(g, "slice", "Slice",
           {x, int32Constant(g, "starts", {3}, {47, 1, 0}), int32Constant(g, "ends", {3}, {-100, 40, 36}),
            int32Constant(g, "axes", {3}, {0, 1, 2}), int32Constant(g, "steps", {3}, {-2, 3, 1})},
           {24, 13, 36}));
    g.outputs.push_back(op(g, "concat", "Concat", {x, x}, {48, 40, 72}, {{"axis", {std::int64_t{2}}}}));
    for (TensorId part : addSplit(g, x, 2, {{48, 40, 4}, {48, 40, 32}}, int64Sizes(g, {4, 32})))
        g.outputs.push_back(part);
    g.outputs.push_back(
        op(g, "pad", "Pad", {x}, {48, 41, 41}, {{"pads", {Ints{0, 1, 2, 0, 0, 3}}}, {"value", {-2.0}}}));
    const TensorId idsT = op(g, "ids_t", "Transpose", {ids}, {30, 64}, {{"perm", {Ints{1, 0}}}});
    g.tensor(idsT).dtype = DType::Int64;
    g.outputs.push_back(idsT);
    return g;
}

// Transpose, Slice, Concat, Split and Pad over 4 KB run as LLVM-generated
// kernels (jit.h MoveProgram; "copy[llvm]" in the run's kernel names) and
// match the reference kernels bit for bit.
TEST_F(CpuBackendTest, LargeDataMovementIsGeneratedByLlvmAndMatches)
{
    const Graph g = largeMoves();
    RunResult r = nativeMatchesReference(*cpu, *reference, g, "large moves");
    EXPECT_EQ(r.metrics["ops/copy"], 6);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    int generated = 0;
    for (const auto &[key, value] : r.metrics)
        if (key.starts_with("kernel/") && key.ends_with("/wall_ms"))
            generated += key.find(" copy[llvm]:") != std::string::npos;
    EXPECT_EQ(generated, 6);
    // Negative twin: without the JIT (TESSERA_CPU_ENGINES) the same moves
    // are the C++ copies, and match too.
    ::setenv("TESSERA_CPU_ENGINES", "onednn,copy", 1);
    RunResult plain = nativeMatchesReference(*cpu, *reference, g, "large moves, no JIT");
    ::unsetenv("TESSERA_CPU_ENGINES");
    EXPECT_EQ(plain.metrics["ops/copy"], 6);
    for (const auto &[key, value] : plain.metrics)
        EXPECT_EQ(key.find("[llvm]"), std::string::npos) << key;
}

// Moves under 4 KB are not worth a compile: they stay the C++ copies.
TEST_F(CpuBackendTest, SmallDataMovementStaysACppCopy)
{
    RunResult r = nativeMatchesReference(*cpu, *reference, oneNode("Transpose", {2, 3, 4}, {4, 3, 2}), "small");
    EXPECT_EQ(r.metrics["ops/copy"], 1);
    EXPECT_EQ(r.metrics.count("kernel/0 copy:Transpose/wall_ms"), 1u);
}

// ShuffleNetV2's channel split: x -> conv (32 channels) -> Split into two
// halves along `axis` -> a convolution on each half.
Graph convSplitConv(bool channelAxis)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {1, 16, 14, 14}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a =
        op(g, "a", "Conv", {x, testgraphs::weight(g, "a/w", {32, 16, 1, 1})}, {1, 32, 14, 14}, convAttrs(1, 0));
    const Shape half = channelAxis ? Shape{1, 16, 14, 14} : Shape{1, 32, 7, 14};
    const std::vector<TensorId> parts = addSplit(g, a, channelAxis ? 1 : 2, {half, half});
    for (std::size_t i = 0; i < 2; ++i) {
        const std::string name = "c" + std::to_string(i);
        Shape out = half;
        out[1] = 16;
        g.outputs.push_back(op(g, name, "Conv", {parts[i], testgraphs::weight(g, name + "/w", {16, half[1], 3, 3})},
                               out, convAttrs(3, 1)));
    }
    return g;
}

// A channel Split of a blocked convolution output hands each half on
// blocked, so the convolutions around it reorder only at the graph's input
// and outputs.
TEST_F(CpuBackendTest, ChannelSplitOfBlockedTensorsStaysBlocked)
{
    RunResult r = nativeMatchesReference(*cpu, *reference, convSplitConv(true), "channel split");
    EXPECT_EQ(r.metrics["ops/copy"], 1);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    if (cpu::blockedLayoutsEnabled()) {
        EXPECT_EQ(r.metrics["blocked_tensors"], 3); // a and its two halves
        EXPECT_LE(r.metrics["reorders"], 3);        // x in, the two outputs out
    }
}

// Negative twin: split along H, the halves cannot take the blocked layout:
// the convolution's output and both halves reorder.
TEST_F(CpuBackendTest, SplitAlongHeightStaysPlainAndCostsReorders)
{
    RunResult channel = nativeMatchesReference(*cpu, *reference, convSplitConv(true), "channel split");
    RunResult height = nativeMatchesReference(*cpu, *reference, convSplitConv(false), "height split");
    EXPECT_EQ(height.metrics["ops/copy"], 1);
    EXPECT_EQ(height.metrics["blocked_tensors"], 0);
    if (cpu::blockedLayoutsEnabled()) {
        EXPECT_GT(height.metrics["reorders"], channel.metrics["reorders"]);
    }
}

// Negative twin: an index past the table's end fails the run on the
// compiled Gather as on the reference kernel, naming the index, instead of
// reading past the table. makeInputs draws ids in [0, 8): a table of 4 rows
// gets some out of range.
TEST_F(CpuBackendTest, GatherIndexOutOfRangeFailsTheRunNamingIt)
{
    const Graph g = gathers(4);
    const ExecutionPlan p = planutil::wholePlan(g, perNode(g));
    const auto inputs = planutil::makeInputs(g, 13, 8);
    bool outOfRange = false;
    for (std::size_t i = 0; i < 6; ++i)
        outOfRange = outOfRange || reinterpret_cast<const std::int64_t *>(inputs[1].bytes.data())[i] >= 4;
    ASSERT_TRUE(outOfRange) << "seed 13 draws no id past 3";
    auto got = planutil::compileAndRun(*cpu, g, p, inputs);
    auto expected = planutil::compileAndRun(*reference, g, p, inputs);
    ASSERT_FALSE(got.isOk());
    ASSERT_FALSE(expected.isOk());
    EXPECT_NE(got.status().message().find("is out of range for an axis of extent 4"), std::string::npos)
        << got.status().str();
    // In range, the same graph runs.
    EXPECT_TRUE(planutil::compileAndRun(*cpu, g, p, planutil::makeInputs(g, 13, 4)).isOk());
}

// RandWire's node: `opType` over three inputs of x's shape (two of them
// graph inputs, one a constant), then an Identity that ends the graph.
Graph variadic(const std::string &opType)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {2, 3, 4, 5}, Tensor::Kind::Input);
    const TensorId y = testgraphs::tensor(g, "y", {2, 3, 4, 5}, Tensor::Kind::Input);
    g.inputs = {x, y};
    const TensorId v = op(g, "v", opType, {x, y, testgraphs::weight(g, "w", {2, 3, 4, 5})}, {2, 3, 4, 5});
    g.outputs = {op(g, "id", "Identity", {v}, {2, 3, 4, 5})};
    return g;
}

// Sum, Max and Min of three inputs are LLVM chains of two binary steps; an
// Identity no chain took is a copy: nothing on reference kernels.
TEST_F(CpuBackendTest, VariadicElementwiseOpsAreJitChainsAndIdentityACopy)
{
    for (const char *type : {"Sum", "Max", "Min"}) {
        RunResult r = nativeMatchesReference(*cpu, *reference, variadic(type), type);
        EXPECT_EQ(r.metrics["ops/llvm-jit"], 1) << type;
        EXPECT_EQ(r.metrics["ops/copy"], 1) << type; // the Identity, a kernel of its own
        EXPECT_EQ(r.metrics["ops/reference"], 0) << type;
    }
}

// MobileNetV3's activations: x / -0.125 (to [-8, 8], past both clamps) ->
// HardSwish -> HardSigmoid(alpha 0.3, beta 0.4), one LLVM chain matching the
// reference kernels, the upper clamp reached.
TEST_F(CpuBackendTest, HardSwishAndHardSigmoidAreJitChains)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {2, 8, 5, 5}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId wide = op(g, "wide", "Div", {x, testgraphs::weight(g, "w", {1})}, {2, 8, 5, 5});
    const TensorId swish = op(g, "swish", "HardSwish", {wide}, {2, 8, 5, 5});
    g.outputs = {op(g, "gate", "HardSigmoid", {swish}, {2, 8, 5, 5}, {{"alpha", {0.3}}, {"beta", {0.4}}})};
    const ExecutionPlan p = planutil::wholePlan(g, {{0, 1, 2}});
    const auto inputs = planutil::makeInputs(g, 3);
    auto got = planutil::compileAndRun(*cpu, g, p, inputs);
    auto expected = planutil::compileAndRun(*reference, g, p, inputs);
    ASSERT_TRUE(got.isOk() && expected.isOk()) << got.status().str();
    EXPECT_EQ(got->metrics["ops/llvm-jit"], 1);
    EXPECT_EQ(got->metrics["ops/reference"], 0);
    EXPECT_LT(relativeL2(got->outputs[0], expected->outputs[0]), kTolerance);
    const auto *y = reinterpret_cast<const float *>(got->outputs[0].bytes.data());
    EXPECT_TRUE(std::count(y, y + g.tensor(g.outputs[0]).elements(), 1.0f) > 0);
}

// Negative twin: Mean (a Sum scaled by 1/n, no instruction for it) stays on
// the reference kernel, reported, and still matches.
TEST_F(CpuBackendTest, MeanStaysOnTheReferenceKernel)
{
    RunResult r = nativeMatchesReference(*cpu, *reference, variadic("Mean"), "Mean");
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
    EXPECT_EQ(r.metrics["ops/reference"], 1);
    EXPECT_EQ(r.metrics["fallback/Mean"], 1);
}

// x[8,1,16] x W[16,12] + bias + r: one constant matrix for every batch, so
// the batches are folded into the rows of one product (PyTorch's
// in-projection shape); `residual` is r's shape.
Graph batchedRows(const Shape &residual)
{
    Graph g;
    const TensorId x = testgraphs::tensor(g, "x", {8, 1, 16}, Tensor::Kind::Input);
    const TensorId r = testgraphs::tensor(g, "r", residual, Tensor::Kind::Input);
    g.inputs = {x, r};
    const TensorId mm = op(g, "mm", "MatMul", {x, testgraphs::weight(g, "w", {16, 12})}, {8, 1, 12});
    const TensorId biased = op(g, "bias", "Add", {mm, testgraphs::weight(g, "b", {12})}, {8, 1, 12});
    g.outputs = {op(g, "res", "Add", {biased, r}, {8, 1, 12})};
    return g;
}

// The three nodes as one kernel on both backends; the cpu run.
RunResult fusedMatchesReference(IBackend &cpu, IBackend &reference, const Graph &g)
{
    const ExecutionPlan p = planutil::wholePlan(g, {{0, 1, 2}});
    const auto inputs = planutil::makeInputs(g, 6);
    auto got = planutil::compileAndRun(cpu, g, p, inputs);
    auto expected = planutil::compileAndRun(reference, g, p, inputs);
    EXPECT_TRUE(got.isOk() && expected.isOk()) << got.status().str();
    if (!got.isOk() || !expected.isOk())
        return {};
    EXPECT_LT(relativeL2(got->outputs[0], expected->outputs[0]), kTolerance);
    return std::move(*got);
}

// Folded into rows, the product keeps its bias and a full-size residual as
// post-ops (one oneDNN op) and matches the reference.
TEST_F(CpuBackendTest, BatchesOfOneMatrixAreRowsOfOneProduct)
{
    RunResult r = fusedMatchesReference(*cpu, *reference, batchedRows({8, 1, 12}));
    EXPECT_EQ(r.metrics["ops/onednn"], 1);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 0);
}

// Negative twin: an operand broadcast along the folded batches ([8,1,1])
// does not fold with the rows: that post-op is refused and the Add runs as
// an LLVM chain after the product, still matching.
TEST_F(CpuBackendTest, OperandBroadcastAcrossFoldedBatchesIsNotAPostOp)
{
    RunResult r = fusedMatchesReference(*cpu, *reference, batchedRows({8, 1, 1}));
    EXPECT_EQ(r.metrics["ops/onednn"], 1);
    EXPECT_EQ(r.metrics["ops/llvm-jit"], 1);
}

// Swin-V2's attention scores: q·kᵀ [4,3,8,8] (batched runtime operands) times
// a per-head scale [3,1,1] plus a relative-position bias [3,8,8], one kernel.
Graph scaledScores()
{
    Graph g;
    const TensorId q = testgraphs::tensor(g, "q", {4, 3, 8, 16}, Tensor::Kind::Input);
    const TensorId kt = testgraphs::tensor(g, "kt", {4, 3, 16, 8}, Tensor::Kind::Input);
    g.inputs = {q, kt};
    const TensorId mm = op(g, "scores", "MatMul", {q, kt}, {4, 3, 8, 8});
    const TensorId scaled = op(g, "scale", "Mul", {mm, testgraphs::weight(g, "logit_scale", {3, 1, 1})}, {4, 3, 8, 8});
    g.outputs = {op(g, "bias", "Add", {scaled, testgraphs::weight(g, "rel_bias", {3, 8, 8})}, {4, 3, 8, 8})};
    return g;
}

// Post-ops oneDNN 2.6 has only its reference code for (a per-head scale over
// a batched product: Swin-V2's 22 attention MatMuls ran so) are dropped from
// the primitive and run as an LLVM chain after it: nothing on oneDNN's
// reference code, and the result matches.
TEST_F(CpuBackendTest, PostOpsThatWouldNeedOneDnnsReferenceCodeRunAfterTheProduct)
{
    RunResult r = fusedMatchesReference(*cpu, *reference, scaledScores());
    EXPECT_EQ(r.metrics["ops/onednn"], 1);
    EXPECT_EQ(r.metrics["ops/reference"], 0);
    for (const auto &[key, value] : r.metrics)
        EXPECT_NE(key.rfind("slow_path/", 0), 0u) << key;
}

// DenseNet-121's dense blocks (Concat of every earlier layer, BatchNorm+Relu
// chains before the convolutions, transition poolings) under every
// scheduler, blocked end to end.
TEST_F(CpuBackendTest, DenseNet121MatchesReferenceUnderEveryScheduler)
{
    const Graph g = sample("densenet121", 64, false);
    matchesReference(g, {"sequential", "greedy", "layer-fusion", "ios"});
    auto p = plan(g, "layer-fusion");
    ASSERT_TRUE(p.isOk());
    auto r = planutil::compileAndRun(*cpu, g, *p, planutil::makeInputs(g, 5));
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(r->metrics["ops/reference"], 0);
    if (cpu::blockedLayoutsEnabled()) {
        EXPECT_GT(r->metrics["blocked_tensors"], 100);
        EXPECT_LE(r->metrics["reorders"], 2);
    }
}

} // namespace
