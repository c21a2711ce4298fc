// The "welder" scheduler end to end (plugins/welder): plans verify, the reference backend
// computes the same outputs as the sequential plan (test graphs, the paper's examples and a
// real sample at small resolution), the §5.2 ablation variants connect less, overrides of a
// connection or a tile replay and still verify, an override beyond a capacity is rejected with
// the reason, runs are deterministic, and a backend's measurements replace the model's estimates (§3.2).
#include "backends/reference/reference.h"
#include "core/cost/measuredcost.h"
#include "core/plan/verify.h"
#include "plugins/sequential/sequential.h"

#include <cmath>
#include <limits>

#include "tests/backends/planutil.h"
#include "tests/common/onenodemeter.h"
#include "tests/common/testsamples.h"
#include "tests/plugins/welder/welderrun.h"

using namespace tessera;
using namespace tessera::weldertest;

namespace {

// Max |a - b| / (1 + |b|) over every output element.
double maxRelDiff(const std::vector<HostTensor> &a, const std::vector<HostTensor> &b)
{
    double worst = 0;
    EXPECT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
        EXPECT_EQ(a[i].shape, b[i].shape);
        if (a[i].dtype != DType::Float32 || a[i].bytes.size() != b[i].bytes.size())
            continue;
        for (std::int64_t k = 0; k < a[i].elements(); ++k)
            worst = std::max(worst, std::abs(double(a[i].f32()[k]) - b[i].f32()[k]) / (1.0 + std::abs(b[i].f32()[k])));
    }
    return worst;
}

// Schedules g with welder on `dev`, runs the plan and the sequential plan on the reference
// backend and compares.
void expectSameOutputs(const Graph &g, const std::string &dev, const ScheduleSetup &setup = {})
{
    auto run = welder(g, dev, setup);
    ASSERT_TRUE(run.isOk()) << g.name << " on " << dev << ": " << run.status().str();
    const ExecutionPlan &plan = run->result.plan;
    EXPECT_TRUE(verifyPlan(plan, g, &device(dev)).isOk());
    auto seq = scheduleGraph(g, device(dev), *createSequentialScheduler(), {});
    ASSERT_TRUE(seq.isOk()) << seq.status().str();
    auto backend = createReferenceBackend();
    const auto inputs = planutil::makeInputs(g, 7);
    auto a = planutil::compileAndRun(*backend, g, plan, inputs);
    ASSERT_TRUE(a.isOk()) << g.name << ": " << a.status().str();
    auto b = planutil::compileAndRun(*backend, g, seq->result.plan, inputs);
    ASSERT_TRUE(b.isOk()) << b.status().str();
    EXPECT_LE(maxRelDiff(a->outputs, b->outputs), 1e-5) << g.name << " on " << dev;
}

std::size_t computeTasks(const ExecutionPlan &p)
{
    return static_cast<std::size_t>(
        std::count_if(p.tasks.begin(), p.tasks.end(), [](const Task &t) { return t.kind == TaskKind::Compute; }));
}

} // namespace

TEST(WelderSchedule, TestGraphsComputeTheSequentialOutputs)
{
    for (const std::string dev : {"nvidia-v100", "stcp920"}) {
        expectSameOutputs(testgraphs::residualChain(2), dev);
        expectSameOutputs(testgraphs::diamond(), dev);
        expectSameOutputs(testgraphs::fan(3), dev);
        expectSameOutputs(matmulSoftmax(512), dev);
        expectSameOutputs(convReluPool(4, 8, 16), dev);
    }
}

// §2: Matmul and Softmax become one kernel whose tiles run as several tasks; C never goes to HBM,
// and each task allocates its tile-graph's workspace (MemFootprint) in shared memory (Fig. 8).
TEST(WelderSchedule, MatmulSoftmaxIsOneTiledKernelWithASharedMemoryWorkspace)
{
    const Graph g = matmulSoftmax(4096);
    auto run = welder(g, "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    ASSERT_EQ(p.kernels.size(), 1u);
    EXPECT_GT(computeTasks(p), 1u);
    const TensorId c = g.node(g.findNode("matmul")).outputs[0];
    EXPECT_FALSE(std::any_of(p.buffers.begin(), p.buffers.end(), [&](const Buffer &b) { return b.tensor == c; }));
    for (const Task &t : p.tasks) {
        EXPECT_FALSE(t.tiles.empty());
        const auto ws = std::find_if(t.writes.begin(), t.writes.end(), [&](BufferId b) {
            return p.buffers[static_cast<std::size_t>(b)].tensor == kInvalidId;
        });
        ASSERT_NE(ws, t.writes.end());
        const Buffer &w = p.buffers[static_cast<std::size_t>(*ws)];
        EXPECT_EQ(w.level, "SMEM");
        EXPECT_GT(w.bytes, 0);
        EXPECT_LE(w.bytes, 48 * 1024);
    }
}

// Twin (§5.2 ablation): welder-none connects nothing — two kernels, C through HBM.
TEST(WelderSchedule, VariantNoneConnectsNothing)
{
    const Graph g = matmulSoftmax(4096);
    ScheduleSetup s;
    s.options["variant"] = "none";
    auto run = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.plan.kernels.size(), 2u);
    EXPECT_EQ(run->result.stats.at("edges_at_HBM"), 1.0);
    const TensorId c = g.node(g.findNode("matmul")).outputs[0];
    EXPECT_TRUE(std::any_of(run->result.plan.buffers.begin(), run->result.plan.buffers.end(),
                            [&](const Buffer &b) { return b.tensor == c && b.level == "HBM"; }));
    auto full = welder(g, "nvidia-v100");
    ASSERT_TRUE(full.isOk());
    EXPECT_LT(full->result.stats.at("global_traffic_bytes"), run->result.stats.at("global_traffic_bytes"));
}

// welder-base connects at the register level only (offers no SMEM option).
TEST(WelderSchedule, VariantBaseOffersTheTopLevelOnly)
{
    const Graph g = convReluPool(4, 8, 16);
    ScheduleSetup s;
    s.options["variant"] = "base";
    auto run = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    for (const DecisionRecord &r : run->decisions.records())
        if (r.role == "welder.connect") {
            ASSERT_EQ(r.options.size(), 2u);
            EXPECT_EQ(r.options[1].id, "REG");
        }
    EXPECT_EQ(run->result.stats.at("edges_at_SMEM"), 0.0);
}

// Every edge is a decision and every decision has a trace step.
TEST(WelderSchedule, EveryEdgeIsADecisionWithATraceStep)
{
    const Graph g = testgraphs::residualChain(2);
    auto run = welder(g, "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    std::size_t connects = 0, tiles = 0;
    for (const DecisionRecord &r : run->decisions.records()) {
        connects += r.role == "welder.connect";
        tiles += r.role == "welder.tile";
        EXPECT_GE(r.step, 0) << r.key;
    }
    EXPECT_EQ(connects, g.edgeCount());
    EXPECT_GE(tiles, 1u);
    EXPECT_GE(run->result.stats.at("signature_hits"), 1.0); // the two blocks share tilings (§4.2)
}

// Stepping (issue 15 views): every SetConnect trial of an edge is in its trace step with the cost it
// found — one number per level, the same as the decision's options — and the level chosen is the
// cheapest legal trial.
TEST(WelderFig7, EverySetConnectTrialIsSteppedWithItsCost)
{
    const Graph g = matmulSoftmax(512);
    auto run = welder(g, "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const TraceStep *step = nullptr;
    for (const TraceStep &s : run->trace.steps())
        if (s.title == "SetConnect matmul→softmax")
            step = &s;
    ASSERT_NE(step, nullptr);
    ASSERT_GE(step->decision, 0);
    const DecisionRecord &d = run->decisions.records()[static_cast<std::size_t>(step->decision)];
    EXPECT_EQ(d.key, decisionKey("welder.connect", {"matmul", "softmax"}));
    ASSERT_EQ(step->numbers.size(), 3u); // HBM, SMEM, REG
    ASSERT_EQ(d.options.size(), 3u);
    double cheapest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(step->numbers[i].first, d.options[i].id + " ns");
        if (d.options[i].legal()) {
            EXPECT_EQ(step->numbers[i].second, d.options[i].cost);
            cheapest = std::min(cheapest, d.options[i].cost);
        } else {
            EXPECT_TRUE(std::isnan(step->numbers[i].second));
        }
    }
    EXPECT_EQ(d.options[static_cast<std::size_t>(d.chosen)].cost, cheapest);
    EXPECT_NE(d.chosen, 0); // connecting wins (§2)
}

// Twin: an edge to an opaque operator steps its connecting trials as illegal (no number), with
// the reason on the decision, and leaves the edge unconnected.
TEST(WelderFig7, IllegalTrialsAreSteppedWithoutACost)
{
    Graph g = matmulSoftmax(512);
    g.node(g.findNode("softmax")).opaque = true;
    auto run = welder(g, "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const DecisionRecord *d = run->decisions.find(decisionKey("welder.connect", {"matmul", "softmax"}));
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->chosen, 0);
    const TraceStep &step = run->trace.steps()[static_cast<std::size_t>(d->step)];
    ASSERT_EQ(step.numbers.size(), 3u);
    EXPECT_FALSE(std::isnan(step.numbers[0].second));
    for (std::size_t i = 1; i < 3; ++i) {
        EXPECT_TRUE(std::isnan(step.numbers[i].second));
        EXPECT_NE(d->options[i].illegalReason.find("softmax is opaque"), std::string::npos)
            << d->options[i].illegalReason;
    }
}

// Override a connection: forcing Matmul–Softmax through global memory splits the kernel; the
// replayed plan still verifies and computes the same outputs.
TEST(WelderOverride, ForcedConnectionLevelReplays)
{
    const Graph g = matmulSoftmax(512);
    ScheduleSetup s;
    s.overrides[decisionKey("welder.connect", {"matmul", "softmax"})] = "HBM";
    auto run = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    ASSERT_EQ(run->overrideReports.size(), 1u);
    EXPECT_EQ(run->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
    EXPECT_EQ(run->result.plan.kernels.size(), 2u);
    expectSameOutputs(g, "nvidia-v100", s);
}

// Override a tile: the second candidate of the fused kernel; the tasks' regions change.
TEST(WelderOverride, ForcedTileReplaysAndVerifies)
{
    const Graph g = matmulSoftmax(512);
    auto first = welder(g, "nvidia-v100");
    ASSERT_TRUE(first.isOk());
    const ForcedChoices o = overridesOf(*first);
    ASSERT_FALSE(o.tileKey.empty()); // the fused kernel has a second candidate
    ScheduleSetup s;
    s.overrides[o.tileKey] = o.tileTo;
    auto second = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(second.isOk()) << second.status().str();
    EXPECT_EQ(second->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
    EXPECT_NE(first->result.plan.tasks[0].tiles[0].region, second->result.plan.tasks[0].tiles[0].region);
    expectSameOutputs(g, "nvidia-v100", s);
}

// Twin: an override that exceeds a capacity is rejected with the reason; the plan is the default.
TEST(WelderOverride, OverrideBeyondCapacityIsRejectedWithTheReason)
{
    const Graph g = hugeWindowPool();
    ScheduleSetup s;
    s.overrides[decisionKey("welder.connect", {"relu", "pool"})] = "SMEM";
    auto run = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    ASSERT_EQ(run->overrideReports.size(), 1u);
    EXPECT_EQ(run->overrideReports[0].outcome, OverrideReport::Outcome::Rejected);
    EXPECT_NE(run->overrideReports[0].reason.find("no tile fits SMEM"), std::string::npos)
        << run->overrideReports[0].reason;
    EXPECT_EQ(run->result.plan.kernels.size(), 2u);
}

// Bad input: an opaque operator has no index map — connecting to it is offered but illegal with
// the reason, it stays a whole-tensor kernel, and the plan still verifies.
TEST(WelderSchedule, OpaqueOperatorIsNeverConnected)
{
    using namespace testgraphs;
    Graph g;
    g.name = "opaque_middle";
    const TensorId x = tensor(g, "x", {1, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = op(g, "a", "Relu", {x}, {1, 8, 16, 16});
    const TensorId b = op(g, "mystery", "Relu", {a}, {1, 8, 16, 16});
    g.node(g.findNode("mystery")).opaque = true;
    g.outputs = {op(g, "c", "Relu", {b}, {1, 8, 16, 16})};
    auto run = welder(g, "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const DecisionRecord *r = run->decisions.find(decisionKey("welder.connect", {"a", "mystery"}));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->options[static_cast<std::size_t>(r->chosen)].id, "HBM");
    ASSERT_GE(r->options.size(), 2u);
    EXPECT_NE(r->options[1].illegalReason.find("mystery is opaque"), std::string::npos) << r->options[1].illegalReason;
    EXPECT_EQ(run->result.plan.kernels.size(), 3u);
    const auto whole = std::find_if(run->result.plan.kernels.begin(), run->result.plan.kernels.end(),
                                    [](const Kernel &k) { return k.strategy == "welder:whole"; });
    ASSERT_NE(whole, run->result.plan.kernels.end());
    EXPECT_EQ(whole->nodes, std::vector<NodeId>{g.findNode("mystery")});
}

// Bad input (issue 15): a shape that makes propagation undefined — a Relu whose output is
// declared 8×16 over an 8×8 input, so no output tile maps back to its input — is refused with the
// index map's message and the node named, not lowered into a plan the verifier would reject.
TEST(WelderSchedule, UndefinedPropagationIsRefusedNamingTheNode)
{
    using namespace testgraphs;
    auto build = [](std::int64_t declared) {
        Graph g;
        g.name = "misshapen";
        const TensorId x = tensor(g, "x", {8, 8}, Tensor::Kind::Input);
        g.inputs = {x};
        const TensorId b = op(g, "bad", "Relu", {x}, {8, declared});
        g.outputs = {op(g, "c", "Relu", {b}, {8, declared})};
        return g;
    };
    auto run = welder(build(16), "nvidia-v100");
    ASSERT_FALSE(run.isOk());
    EXPECT_EQ(run.status().location().node, "bad") << run.status().str();
    EXPECT_NE(run.status().message().find("does not fit"), std::string::npos) << run.status().str();
    // Twin: declared as inferred, the same graph schedules and verifies.
    auto fine = welder(build(8), "nvidia-v100");
    ASSERT_TRUE(fine.isOk()) << fine.status().str();
    EXPECT_TRUE(verifyPlan(fine->result.plan, build(8), &device("nvidia-v100")).isOk());
}

// Deterministic, also across the number of threads evaluating candidates (§4.2).
TEST(WelderSchedule, Deterministic)
{
    const Graph g = testgraphs::residualChain(2);
    ScheduleSetup one, four;
    one.options["threads"] = "1";
    four.options["threads"] = "4";
    one.options["reuse"] = four.options["reuse"] = "false"; // both search
    auto a = welder(g, "stcp920", one);
    auto b = welder(g, "stcp920", four);
    ASSERT_TRUE(a.isOk() && b.isOk());
    ASSERT_EQ(a->decisions.records().size(), b->decisions.records().size());
    for (std::size_t i = 0; i < a->decisions.records().size(); ++i)
        EXPECT_EQ(a->decisions.records()[i].chosen, b->decisions.records()[i].chosen);
    EXPECT_EQ(a->result.plan.tasks.size(), b->result.plan.tasks.size());
    EXPECT_EQ(a->result.plan.estimatedLatencyNs(), b->result.plan.estimatedLatencyNs());
}

// Plans verify against each kind of device's capacities (a DSA's L1 and LLB, a GPU's shared
// memory, the host's caches): SqueezeNet, as the simulator's conformance test runs it.
TEST(WelderSchedule, SqueezeNetVerifiesOnEveryKindOfDevice)
{
    auto model = test::buildRegisteredSample("squeezenet"); // an IOS network (plugins/ios)
    ASSERT_TRUE(model.isOk()) << model.status().str();
    auto imported = importModelFromBytes((*model)->SerializeAsString(), "squeezenet.onnx");
    ASSERT_TRUE(imported.isOk()) << imported.status().str();
    for (const std::string dev : {"stcp920", "nvidia-v100", "host"}) {
        auto run = welder(imported->graph, dev);
        ASSERT_TRUE(run.isOk()) << dev << ": " << run.status().str();
        EXPECT_LT(run->result.plan.kernels.size(), imported->graph.nodeCount()) << dev;
    }
}

// A real sample at small resolution: MobileNetV2 at 32×32, imported, scheduled, run.
TEST(WelderSchedule, MobileNetV2SmallComputesTheSequentialOutputs)
{
    expectSameOutputs(mobileNetV2Small(), "nvidia-v100");
}

// §5.2: "on the top layers where the feature maps are large and the number of channels is small,
// Welder constructs a DWConv+PWConv fusion group ... on the bottom layers, Welder constructs a
// PWConv+DWConv fusion group ... as the feature map becomes smaller."
std::string levelOf(const ScheduleRun &run, const char *p, const char *c)
{
    const DecisionRecord *r = run.decisions.find(decisionKey("welder.connect", {p, c}));
    return r ? r->options[static_cast<std::size_t>(r->chosen)].id : std::string("?");
}

TEST(WelderSection52, LargeMapsFewChannelsFuseDepthwiseIntoPointwise)
{
    auto run = welder(separable(16, 112), "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_NE(levelOf(*run, "dw1", "pw1"), "HBM");
}

// Twin: small maps with many channels flip the order: PW+DW is a group, DW→PW is not connected.
TEST(WelderSection52, SmallMapsManyChannelsFusePointwiseIntoDepthwise)
{
    auto run = welder(separable(512, 7), "nvidia-v100");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(levelOf(*run, "dw1", "pw1"), "HBM");
    EXPECT_NE(levelOf(*run, "pw1", "dw2"), "HBM");
}

// §3.1 multiple outputs, found on BERT's pooler: a sink that reads one row of a tensor that is
// itself an output must not take that tensor into its kernel with only the row computed. The
// plan verifies (every output covered once) and computes the sequential outputs.
TEST(WelderSchedule, SinkReadingOneRowOfAnOutputDoesNotSwallowIt)
{
    using namespace testgraphs;
    Graph g;
    g.name = "pooler";
    const TensorId x = tensor(g, "x", {1, 16, 32}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId r = op(g, "relu", "Relu", {x}, {1, 16, 32});
    auto index = std::make_shared<TensorData>();
    index->dtype = DType::Int64;
    index->bytes.assign(8, 0); // scalar 0
    Tensor it;
    it.name = "row";
    it.dtype = DType::Int64;
    it.kind = Tensor::Kind::Initializer;
    it.data = index;
    const TensorId row = g.addTensor(it);
    const TensorId first = op(g, "first", "Gather", {r, row}, {1, 32}, {{"axis", {std::int64_t{1}}}});
    g.outputs = {r, op(g, "tanh", "Tanh", {first}, {1, 32})};
    expectSameOutputs(g, "nvidia-v100");
    expectSameOutputs(g, "stcp920");
}

// §4.2 sub-graph caching across runs (option reuse): a replay of the same model on the same device
// starts from the last run's tilings — nothing is searched again, and the plan is the same.
TEST(WelderSection42, ReplayReusesTheLastTilingsAndGivesTheSamePlan)
{
    const Graph g = testgraphs::residualChain(2);
    ScheduleSetup s;
    s.options["reuse"] = "true";
    auto first = welder(g, "nvidia-v100", s);
    auto second = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(first.isOk() && second.isOk());
    EXPECT_EQ(second->result.stats.at("reused_tilings"), 1.0);
    EXPECT_EQ(second->result.stats.at("tilings_searched"), 0.0);
    EXPECT_GT(first->result.stats.at("tilings_searched"), 0.0);
    ASSERT_EQ(first->decisions.records().size(), second->decisions.records().size());
    for (std::size_t i = 0; i < first->decisions.records().size(); ++i)
        EXPECT_EQ(first->decisions.records()[i].chosen, second->decisions.records()[i].chosen);
    EXPECT_EQ(first->result.plan.estimatedLatencyNs(), second->result.plan.estimatedLatencyNs());
    // A tile override replays from the same tilings and still verifies.
    const ForcedChoices forced = overridesOf(*first);
    ASSERT_FALSE(forced.tileKey.empty());
    ScheduleSetup o = s;
    o.overrides[forced.tileKey] = forced.tileTo;
    auto replay = welder(g, "nvidia-v100", o);
    ASSERT_TRUE(replay.isOk()) << replay.status().str();
    EXPECT_EQ(replay->result.stats.at("reused_tilings"), 1.0);
    EXPECT_EQ(replay->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
}

// Twin: another device, other search parameters or reuse off start afresh.
TEST(WelderSection42, OtherDeviceOrSearchDoesNotReuse)
{
    const Graph g = testgraphs::residualChain(2);
    ScheduleSetup s;
    s.options["reuse"] = "true";
    ASSERT_TRUE(welder(g, "nvidia-v100", s).isOk());
    auto dsa = welder(g, "stcp920", s);
    ASSERT_TRUE(dsa.isOk());
    EXPECT_EQ(dsa->result.stats.at("reused_tilings"), 0.0);
    ScheduleSetup k = s;
    k.options["topk"] = "3";
    auto topk = welder(g, "stcp920", k);
    ASSERT_TRUE(topk.isOk());
    EXPECT_EQ(topk->result.stats.at("reused_tilings"), 0.0);
    ScheduleSetup off;
    off.options["reuse"] = "false";
    auto fresh = welder(g, "stcp920", off);
    ASSERT_TRUE(fresh.isOk());
    EXPECT_EQ(fresh->result.stats.at("reused_tilings"), 0.0);
    EXPECT_GT(fresh->result.stats.at("tilings_searched"), 0.0);
}

// §3.2 "costs from the analytic model, or measured by a backend that can measure": with a meter
// in the schedule setup, a kernel the backend times (here the opaque Softmax, a whole kernel) is
// costed by the measurement — in its SetConnect trial and in the plan — and the rest by the model.
TEST(WelderSection32, MeasuredKernelsReplaceTheModelsEstimates)
{
    Graph g = matmulSoftmax(512);
    g.node(g.findNode("softmax")).opaque = true;
    test::OneNodeMeter meter;
    meter.node = "softmax";
    meter.ns = 1e6; // 1 ms: far slower than the model's estimate
    ScheduleSetup s;
    s.meter = &meter;
    auto run = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_GE(meter.calls, 1);
    const DecisionRecord *d = run->decisions.find(decisionKey("welder.connect", {"matmul", "softmax"}));
    ASSERT_NE(d, nullptr);
    EXPECT_GE(d->options[0].cost, 1e6); // the unconnected trial: Matmul's kernel + the measured Softmax
    int measured = 0;
    for (const Task &t : run->result.plan.tasks)
        if (t.cost.kind == CostKind::Measured) {
            ++measured;
            EXPECT_EQ(run->result.plan.kernels[static_cast<std::size_t>(t.kernel)].nodes,
                      std::vector<NodeId>{g.findNode("softmax")});
            EXPECT_NEAR(t.cost.computeNs + t.cost.memoryNs, 1e6, 1);
        }
    EXPECT_EQ(measured, 1);
    EXPECT_GT(run->result.plan.estimatedLatencyNs(), 1e6);

    // Twin: the same schedule from the analytic model alone is all estimates, far below 1 ms.
    auto modelled = welder(g, "nvidia-v100");
    ASSERT_TRUE(modelled.isOk());
    for (const Task &t : modelled->result.plan.tasks)
        EXPECT_EQ(t.cost.kind, CostKind::Estimated);
    const DecisionRecord *m = modelled->decisions.find(decisionKey("welder.connect", {"matmul", "softmax"}));
    ASSERT_NE(m, nullptr);
    EXPECT_LT(m->options[0].cost, 1e6);
    EXPECT_LT(modelled->result.plan.estimatedLatencyNs(), 1e6);
}
