// PCGC (plugins/pcgc): the §3.3 category table and Fig. 4 rule table,
// Example 1 (CONV+BN+RELU stable), Example 3 (the GoogLeNet inception
// fragment), the static-fusion fixed point, Example 5 and the time/energy
// objectives of the re-cutting (Algorithm 2), overrides, and plans that
// verify and compute the sequential plan's outputs on the reference backend.
#include "backends/reference/reference.h"
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/plan/verify.h"
#include "plugins/pcgc/categories.h"
#include "plugins/pcgc/fusionrules.h"
#include "plugins/pcgc/lowering.h"
#include "plugins/pcgc/parallel.h"
#include "plugins/pcgc/pcgc.h"
#include "plugins/pcgc/recut.h"
#include "plugins/pcgc/staticfusion.h"
#include "samples/builder.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <set>
#include <unistd.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"
#include "tests/plugins/pcgc/pcgctestutil.h"

using namespace tessera;
using namespace tessera::pcgc;
using namespace tessera::pcgctest;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

OpCategory categoryOfNode(const Graph &g, const std::string &name)
{
    return categoryOf(g, g.node(g.findNode(name)));
}

// Example 1: conv3x3 → BN → ReLU.
Graph example1()
{
    Graph g;
    g.name = "example1";
    const TensorId x = tensor(g, "x", {1, 16, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId c = conv(g, "conv", x, 16, 16, 3, 28);
    g.outputs = {op(g, "relu", "Relu", {batchNorm(g, "bn", c, 16, 28)}, {1, 16, 28, 28})};
    return g;
}

// Example 3 (Fig. 10): x → {1x1 a; 1x1 b → 3x3 b2 → relu; 1x1 c → 5x5 c2;
// maxpool3x3 p → 1x1 p2} → concat.
Graph inception()
{
    Graph g;
    g.name = "inception";
    const TensorId x = tensor(g, "x", {1, 64, 17, 17}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = conv(g, "a", x, 64, 32, 1, 17);
    const TensorId b2 = conv(g, "b2", conv(g, "b", x, 64, 48, 1, 17), 48, 64, 3, 17);
    const TensorId b2r = op(g, "b2_relu", "Relu", {b2}, {1, 64, 17, 17});
    const TensorId c2 = conv(g, "c2", conv(g, "c", x, 64, 16, 1, 17), 16, 32, 5, 17);
    const TensorId p =
        op(g, "p", "MaxPool", {x}, {1, 64, 17, 17},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    const TensorId p2 = conv(g, "p2", p, 64, 32, 1, 17);
    g.outputs = {op(g, "cat", "Concat", {a, b2r, c2, p2}, {1, 160, 17, 17}, {{"axis", {std::int64_t{1}}}})};
    return g;
}

// Example 5 shape: relu → {conv1x1 a, conv k×k b}, both outputs of the graph;
// static fusion puts all three in one group, the cost model merges a and b
// into one k×k launch (a zero-padded).
Graph siblings(std::int64_t k, std::int64_t cin, std::int64_t coutA, std::int64_t coutB, std::int64_t size)
{
    Graph g;
    g.name = "siblings" + std::to_string(k);
    const TensorId x = tensor(g, "x", {1, cin, size, size}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId r = op(g, "relu0", "Relu", {x}, {1, cin, size, size});
    const TensorId a = conv(g, "conv1", r, cin, coutA, 1, size);
    const TensorId b = conv(g, "conv" + std::to_string(k), r, cin, coutB, k, size);
    g.outputs = {a, b};
    return g;
}

std::vector<std::vector<std::string>> groupNames(const Graph &g, const Partition &p)
{
    std::vector<std::vector<std::string>> out;
    for (const FusedGroup &grp : p.groups) {
        std::vector<std::string> names = nodeNames(g, grp.nodes);
        std::sort(names.begin(), names.end());
        out.push_back(names);
    }
    std::sort(out.begin(), out.end());
    return out;
}

const FusionRecord *findRecord(const Graph &g, const Partition &p, const std::string &producer,
                               const std::string &consumer)
{
    for (const FusionRecord &r : p.records) {
        auto has = [&](const std::vector<NodeId> &side, const std::string &n) {
            return std::any_of(side.begin(), side.end(), [&](NodeId id) { return g.node(id).name == n; });
        };
        if (has(r.producerSide, producer) && has(r.consumerSide, consumer))
            return &r;
    }
    return nullptr;
}

// The first step of the re-cutting (Algorithm 2) that split a group, or null.
const TraceStep *splitStep(const Trace &t)
{
    for (const TraceStep &s : t.steps())
        if (s.phase == "re-cut" && s.conclusion.rfind("split at", 0) == 0)
            return &s;
    return nullptr;
}

// The last decision of that role, or null.
const DecisionRecord *lastRole(const DecisionContext &ctx, const std::string &role)
{
    const DecisionRecord *last = nullptr;
    for (const DecisionRecord &r : ctx.records())
        if (r.role == role)
            last = &r;
    return last;
}

// Static fusion (§3.3) of `g` on `d` with a decision context of its own; its steps go to `trace`.
Partition fuseStatically(const Graph &g, const Device &d, Trace &trace)
{
    DecisionContext ctx;
    return staticFusion(g, d, ctx, trace);
}

Partition fuseStatically(const Graph &g, const Device &d)
{
    Trace trace;
    return fuseStatically(g, d, trace);
}

// The registered sample `name` saved to a temporary file and imported from it, as tessera-cli does.
Expected<ImportResult> importSample(const std::string &name, const SampleOptions &options = {})
{
    auto m = test::buildRegisteredSample(name, options);
    if (!m)
        return m.status();
    const auto dir =
        std::filesystem::temp_directory_path() / ("tessera-pcgc-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / (name + ".onnx")).string();
    const Status saved = samples::saveModel(**m, path, false);
    Expected<ImportResult> imported = saved.isOk() ? importModel(path) : Expected<ImportResult>(saved);
    std::filesystem::remove_all(dir);
    return imported;
}

} // namespace

// §3.3: the six categories, and the parameter-dependent entries.
TEST(PcgcCategories, PaperExamples)
{
    Graph g;
    const TensorId x = tensor(g, "x", {1, 8, 8, 8}, Tensor::Kind::Input);
    conv(g, "conv1x1", x, 8, 8, 1, 8);
    conv(g, "conv3x3", x, 8, 8, 3, 8);
    conv(g, "conv5x5", x, 8, 8, 5, 8);
    op(g, "relu", "Relu", {x}, {1, 8, 8, 8});
    op(g, "add_same", "Add", {x, x}, {1, 8, 8, 8});
    op(g, "add_bias", "Add", {x, weight(g, "bias", {1, 8, 1, 1})}, {1, 8, 8, 8});
    batchNorm(g, "bn", x, 8, 8);
    op(g, "sum", "ReduceSum", {x}, {1, 1, 8, 8});
    op(g, "argmax", "ArgMax", {x}, {1, 1, 8, 8});
    op(g, "fc", "Gemm", {tensor(g, "v", {1, 8}), weight(g, "fc/w", {8, 4})}, {1, 4});
    op(g, "pool", "MaxPool", {x}, {1, 8, 4, 4}, {{"kernel_shape", {std::vector<std::int64_t>{2, 2}}}});
    op(g, "cat", "Concat", {x, x}, {1, 16, 8, 8}, {{"axis", {std::int64_t{1}}}});
    op(g, "mystery", "FooBar", {x}, {1, 8, 8, 8});

    EXPECT_EQ(categoryOfNode(g, "conv1x1"), OpCategory::TwoPhase);
    EXPECT_EQ(categoryOfNode(g, "conv5x5"), OpCategory::Complex);
    EXPECT_EQ(categoryOfNode(g, "conv3x3"), OpCategory::Complex);
    EXPECT_EQ(categoryOfNode(g, "relu"), OpCategory::Algebraic);
    EXPECT_EQ(categoryOfNode(g, "add_same"), OpCategory::Algebraic);
    EXPECT_EQ(categoryOfNode(g, "add_bias"), OpCategory::Broadcast); // twin: same op, broadcasting operand
    EXPECT_EQ(categoryOfNode(g, "bn"), OpCategory::Broadcast);
    EXPECT_EQ(categoryOfNode(g, "sum"), OpCategory::Reduction);
    EXPECT_EQ(categoryOfNode(g, "argmax"), OpCategory::Reduction);
    EXPECT_EQ(categoryOfNode(g, "fc"), OpCategory::Complex);
    EXPECT_EQ(categoryOfNode(g, "pool"), OpCategory::TwoPhase);
    EXPECT_EQ(categoryOfNode(g, "cat"), OpCategory::Infusible);
    EXPECT_EQ(categoryOfNode(g, "mystery"), OpCategory::Infusible);
    g.node(g.findNode("relu")).opaque = true; // twin: an opaque ReLU is never fused
    EXPECT_EQ(categoryOfNode(g, "relu"), OpCategory::Infusible);
}

// Fig. 4 as rebuilt from §3.3: each rule and a pair just outside it.
TEST(PcgcRules, TableCases)
{
    using C = OpCategory;
    EXPECT_EQ(matchRule(C::Complex, C::Broadcast).id, "S1");  // CONV → BN
    EXPECT_EQ(matchRule(C::TwoPhase, C::Algebraic).id, "S1"); // CONV1×1 → RELU
    EXPECT_EQ(matchRule(C::Complex, C::Reduction).id, "D");   // twin: a reduction is no epilogue
    EXPECT_EQ(matchRule(C::Broadcast, C::Algebraic).id, "S2");
    EXPECT_EQ(matchRule(C::Algebraic, C::Reduction).id, "S3");
    EXPECT_EQ(matchRule(C::Reduction, C::Algebraic).id, "D"); // twin: reversed order is not stable
    EXPECT_EQ(matchRule(C::Complex, C::Complex).id, "P2");
    EXPECT_EQ(matchRule(C::TwoPhase, C::Complex).id, "D"); // twin: CONV1×1 → CONV3×3 fuses (Example 3)
    EXPECT_EQ(matchRule(C::Reduction, C::Reduction).id, "P3");
    EXPECT_EQ(matchRule(C::Infusible, C::Algebraic).id, "P1");
    EXPECT_EQ(matchRule(C::Algebraic, C::Infusible).id, "P1");
    EXPECT_EQ(matchRule(C::TwoPhase, C::TwoPhase).kind, RuleKind::CostEvaluated);
    for (const FusionRule &r : fusionRules())
        EXPECT_FALSE(r.text.empty()) << r.id;
}

// Example 1: CONV + BN + RELU fuse by stable rules into one kernel.
TEST(PcgcStaticFusion, Example1ConvBnReluStable)
{
    const Graph g = example1();
    Trace trace;
    const Partition p = fuseStatically(g, device("stcp920"), trace);
    ASSERT_EQ(p.groups.size(), 1u);
    ASSERT_EQ(p.records.size(), 2u);
    EXPECT_TRUE(p.records[0].stable && p.records[1].stable);
    EXPECT_EQ(findRecord(g, p, "bn", "relu")->rule, "S2");
    EXPECT_EQ(findRecord(g, p, "conv", "relu")->rule, "S1");
    EXPECT_TRUE(traceHas(trace, "conv", "rule S1 fires"));

    auto run = schedule(g, "stcp920");
    ASSERT_TRUE(run.isOk()) << run.status().str();
    ASSERT_EQ(run->result.plan.kernels.size(), 1u);
    EXPECT_EQ(run->result.plan.kernels[0].strategy, "pcgc-stable");
    EXPECT_EQ(run->result.stats.at("splits"), 0); // stable fusions are never split
}

// Twin of Example 1: two complex convolutions in a row are refused (P2).
TEST(PcgcStaticFusion, ComplexChainProhibited)
{
    Graph g;
    const TensorId x = tensor(g, "x", {1, 16, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {conv(g, "conv5", conv(g, "conv3", x, 16, 16, 3, 28), 16, 16, 5, 28)};
    Trace trace;
    const Partition p = fuseStatically(g, device("stcp920"), trace);
    EXPECT_EQ(p.groups.size(), 2u);
    EXPECT_TRUE(p.records.empty());
    EXPECT_TRUE(traceHas(trace, "conv3 → conv5", "rule P2 prohibits"));
}

// Example 3 (Fig. 10): which pairs fuse, which are stable, which are refused.
TEST(PcgcStaticFusion, Example3Inception)
{
    const Graph g = inception();
    Trace trace;
    const Partition p = fuseStatically(g, device("stcp920"), trace);
    const std::vector<std::vector<std::string>> expected{
        {"a"}, {"b", "b2", "b2_relu"}, {"c", "c2"}, {"cat"}, {"p", "p2"}};
    EXPECT_EQ(groupNames(g, p), expected);
    ASSERT_NE(findRecord(g, p, "b2", "b2_relu"), nullptr);
    EXPECT_TRUE(findRecord(g, p, "b2", "b2_relu")->stable); // CONV3-RELU: stable
    ASSERT_NE(findRecord(g, p, "b", "b2"), nullptr);
    EXPECT_FALSE(findRecord(g, p, "b", "b2")->stable); // CONV3-CONV1: re-evaluated later
    ASSERT_NE(findRecord(g, p, "c", "c2"), nullptr);
    EXPECT_FALSE(findRecord(g, p, "c", "c2")->stable); // CONV5-CONV1
    ASSERT_NE(findRecord(g, p, "p", "p2"), nullptr);
    EXPECT_FALSE(findRecord(g, p, "p", "p2")->stable); // MaxPool3-CONV1
    EXPECT_EQ(findRecord(g, p, "p", "a"), nullptr);    // no data dependence
    EXPECT_TRUE(traceHas(trace, "→ cat", "rule P1 prohibits"));
}

// B3: the same fusion is refused when the intermediates do not fit on chip.
TEST(PcgcStaticFusion, FitsOnChip)
{
    // conv1x1 → conv3x3: the 3×3 needs the whole 16×28×28 intermediate (50 KB).
    Graph g;
    const TensorId x = tensor(g, "x", {1, 16, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {conv(g, "conv3", conv(g, "conv1", x, 16, 16, 1, 28), 16, 16, 3, 28)};
    Device small = device("stcp920");
    for (std::size_t i = 0; i + 1 < small.levels.size(); ++i)
        small.levels[i].capacityBytes = 256;
    ASSERT_LT(onChipBudget(small), 16 * 28 * 28 * 4);
    Trace trace;
    const Partition p = fuseStatically(g, small, trace);
    EXPECT_EQ(p.groups.size(), 2u);
    EXPECT_TRUE(traceHas(trace, "conv1 → conv3", "basic criterion B3 refuses"));
    EXPECT_EQ(fuseStatically(g, device("stcp920")).groups.size(), 1u); // twin: fits

    // An element-wise epilogue streams: CONV+BN+RELU fuses even on the small device.
    EXPECT_EQ(fuseStatically(example1(), small).groups.size(), 1u);
}

// B2: a fusion that would make a cycle between sub-graphs is refused.
TEST(PcgcStaticFusion, NoCycleBetweenSubgraphs)
{
    // a → cat → d and a → d: fusing a into {d} would leave cat between them.
    Graph g;
    const TensorId x = tensor(g, "x", {1, 8, 8, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = op(g, "a", "Relu", {x}, {1, 8, 8, 8});
    const TensorId c = op(g, "cat", "Concat", {a}, {1, 8, 8, 8}, {{"axis", {std::int64_t{1}}}});
    g.outputs = {op(g, "d", "Add", {a, c}, {1, 8, 8, 8})};
    Trace trace;
    const Partition p = fuseStatically(g, device("stcp920"), trace);
    EXPECT_EQ(p.groups.size(), 3u);
    EXPECT_TRUE(traceHas(trace, "a → d", "basic criterion B2 refuses"));
}

// The passes repeat until one fuses nothing; a graph with nothing to fuse stops after one.
TEST(PcgcStaticFusion, FixedPoint)
{
    const Graph g = testgraphs::residualChain(3);
    Trace trace;
    const Partition p = fuseStatically(g, device("stcp920"), trace);
    std::map<double, std::vector<double>> perPass; // level → fusions per pass
    for (const TraceStep &s : trace.steps())
        if (s.title.rfind("pass ", 0) == 0)
            perPass[s.numbers.at(2).second].push_back(s.numbers.at(0).second);
    ASSERT_EQ(perPass.size(), 3u);
    ASSERT_EQ(perPass[1].size() + perPass[2].size() + perPass[3].size(), static_cast<std::size_t>(p.passes));
    for (const auto &[level, fusions] : perPass) {
        EXPECT_EQ(fusions.back(), 0) << "level " << level;
        for (std::size_t i = 0; i + 1 < fusions.size(); ++i)
            EXPECT_GT(fusions[i], 0) << "level " << level;
    }
    EXPECT_GT(perPass[1].size(), 1u); // the stable rules fused something
    EXPECT_LT(p.groups.size(), g.nodeCount());

    const Graph fan = testgraphs::fan(4); // twin: Relu branches of an input into a Concat
    const Partition q = fuseStatically(fan, device("stcp920"));
    EXPECT_EQ(q.passes, 3); // one pass per level, both at the fixed point at once
    EXPECT_TRUE(q.records.empty());
}

// Example 5 (Fig. 12) on the STCP920 model, objective energy with no cap on
// time (the example compares energy only): the fused CONV1 and CONV3 (one
// merged launch) cost less than apart, so they stay; with CONV5 the
// zero-padded 1×1 costs more than it saves, so the pair is split. Twin: under
// the default cap (time ≤ 1.1 × static fusion's) that split is listed but
// refused — since STCP920's DDR efficiency was fitted (0.35, issue 12 item 6)
// reading the input twice makes the split pair 11 % slower than fused.
TEST(PcgcRecut, Example5Conv3KeptConv5Split)
{
    auto together = [](const ExecutionPlan &plan, const Graph &g, const std::string &a, const std::string &b) {
        for (const Kernel &k : plan.kernels) {
            const bool hasA = std::count(k.nodes.begin(), k.nodes.end(), g.findNode(a)) > 0;
            const bool hasB = std::count(k.nodes.begin(), k.nodes.end(), g.findNode(b)) > 0;
            if (hasA || hasB)
                return hasA && hasB;
        }
        return false;
    };
    const Graph g3 = siblings(3, 64, 64, 32, 28);
    auto r3 = schedule(g3, "stcp920", {{"target", "power"}, {"h", "0"}});
    ASSERT_TRUE(r3.isOk()) << r3.status().str();
    EXPECT_TRUE(together(r3->result.plan, g3, "conv1", "conv3"));
    EXPECT_EQ(r3->result.stats.at("splits"), 0);

    const Graph g5 = siblings(5, 64, 64, 32, 28);
    auto r5 = schedule(g5, "stcp920", {{"target", "power"}, {"h", "0"}});
    ASSERT_TRUE(r5.isOk()) << r5.status().str();
    EXPECT_FALSE(together(r5->result.plan, g5, "conv1", "conv5"));
    EXPECT_GE(r5->result.stats.at("splits"), 1);
    EXPECT_LT(r5->result.stats.at("model_energy_j"), r3->result.stats.at("model_energy_j") * 10); // sanity
    // The split is a trace step with time and energy before and after, linked to its decision.
    const TraceStep *step = splitStep(r5->trace);
    ASSERT_NE(step, nullptr);
    std::map<std::string, double> numbers(step->numbers.begin(), step->numbers.end());
    EXPECT_LT(numbers.at("energy_after_j"), numbers.at("energy_before_j"));
    EXPECT_GT(numbers.at("time_after_ns"), 0);
    EXPECT_GE(step->decision, 0);

    // Twin: the default cap refuses the split (its time would exceed H); the pair stays fused.
    auto capped = schedule(g5, "stcp920", {{"target", "power"}});
    ASSERT_TRUE(capped.isOk()) << capped.status().str();
    EXPECT_TRUE(together(capped->result.plan, g5, "conv1", "conv5"));
    EXPECT_EQ(capped->result.stats.at("splits"), 0);
    bool refused = false;
    for (const DecisionRecord &rec : capped->decisions.records())
        for (const DecisionOption &o : rec.options)
            refused = refused || (rec.role == "pcgc.split" && o.id == "split:relu0+conv5|conv1" &&
                                  o.illegalReason.find("would exceed H") != std::string::npos);
    EXPECT_TRUE(refused);
}

// Example 2 (Fig. 9): one graph, two devices, objective time. The V100 model
// finds the merged 1×1+3×3 launch faster and keeps it; the STCP920 model
// finds it slower and splits.
TEST(PcgcRecut, Example2DependsOnTheHardware)
{
    const Graph g = siblings(3, 256, 256, 128, 28);
    auto a = schedule(g, "nvidia-v100", {{"h", "0"}});
    auto b = schedule(g, "stcp920", {{"h", "0"}});
    ASSERT_TRUE(a.isOk() && b.isOk());
    EXPECT_EQ(a->result.stats.at("splits"), 0);
    EXPECT_EQ(a->result.plan.kernels.size(), 1u);
    EXPECT_GE(b->result.stats.at("splits"), 1);
    EXPECT_EQ(b->result.plan.kernels.size(), 2u);
}

// Time and energy disagree on STCP920 for relu → {1×1, 3×3} at 14×14, 256
// channels: the merged launch is faster, the zero-padded FLOPs cost energy.
// Objective time keeps the group; objective energy splits it; a cap of 1.1
// on time forbids that split (the split is 13 % slower).
TEST(PcgcRecut, TimeAndEnergyObjectivesDiffer)
{
    const Graph g = siblings(3, 256, 256, 128, 14);
    auto t = schedule(g, "stcp920", {{"target", "time"}, {"h", "0"}});
    auto e = schedule(g, "stcp920", {{"target", "power"}, {"h", "0"}});
    auto capped = schedule(g, "stcp920", {{"target", "power"}, {"h", "1.1"}});
    ASSERT_TRUE(t.isOk() && e.isOk() && capped.isOk());
    EXPECT_EQ(t->result.plan.kernels.size(), 1u);
    EXPECT_EQ(e->result.plan.kernels.size(), 2u);
    EXPECT_LT(e->result.stats.at("model_energy_j"), t->result.stats.at("model_energy_j"));
    EXPECT_GT(e->result.stats.at("model_time_ns"), t->result.stats.at("model_time_ns"));
    // Twin: the cap on time makes the energy split illegal.
    EXPECT_EQ(capped->result.plan.kernels.size(), 1u);
    const DecisionRecord *split = lastRole(capped->decisions, "pcgc.split");
    ASSERT_NE(split, nullptr);
    EXPECT_TRUE(std::any_of(split->options.begin(), split->options.end(), [](const DecisionOption &o) {
        return o.illegalReason.find("would exceed H") != std::string::npos;
    }));
}

// The split margin (recut.h): the energy split above gains g %; with a margin
// above g the group stays fused, the trace says the gain is within the
// model's margin and the split stays a legal option; with a margin below g
// it splits as before.
TEST(PcgcRecut, MarginKeepsSplitsWithinTheModelError)
{
    const Graph g = siblings(3, 256, 256, 128, 14);
    auto e = schedule(g, "stcp920", {{"target", "power"}, {"h", "0"}});
    ASSERT_TRUE(e.isOk()) << e.status().str();
    const TraceStep *step = splitStep(e->trace);
    ASSERT_NE(step, nullptr);
    std::map<std::string, double> numbers(step->numbers.begin(), step->numbers.end());
    const double gain = 1 - numbers.at("energy_after_j") / numbers.at("energy_before_j");
    ASSERT_GT(gain, 0.001);
    EXPECT_EQ(e->result.stats.at("split_margin"), 0.0); // analytic model: no margin by default

    auto wide = schedule(g, "stcp920", {{"target", "power"}, {"h", "0"}, {"margin", std::to_string(gain * 1.5)}});
    ASSERT_TRUE(wide.isOk()) << wide.status().str();
    EXPECT_EQ(wide->result.plan.kernels.size(), 1u);
    EXPECT_EQ(wide->result.stats.at("splits"), 0);
    EXPECT_EQ(wide->result.stats.at("kept_within_margin"), 1);
    EXPECT_TRUE(std::any_of(wide->trace.steps().begin(), wide->trace.steps().end(), [](const TraceStep &s) {
        return s.conclusion == "kept fused" && s.why.find("within the cost model's margin") != std::string::npos;
    }));
    const DecisionRecord *split = findRole(wide->decisions, "pcgc.split");
    ASSERT_NE(split, nullptr);
    EXPECT_EQ(split->preferred, 0);
    EXPECT_TRUE(split->options.at(1).legal()); // the user can still force it

    auto narrow = schedule(g, "stcp920", {{"target", "power"}, {"h", "0"}, {"margin", std::to_string(gain * 0.5)}});
    ASSERT_TRUE(narrow.isOk()) << narrow.status().str();
    EXPECT_EQ(narrow->result.plan.kernels.size(), 2u);
    EXPECT_EQ(narrow->result.stats.at("kept_within_margin"), 0);
}

// Bad input: a device without a power model. target=power is refused with a
// message that says why; target=time runs, drops the cap on energy (H would
// be 0 J and refuse every split) and still splits where time says so — the
// Example 2 split on STCP920.
TEST(PcgcBadInput, DeviceWithoutPowerModel)
{
    Device d = device("stcp920");
    d.power = {};
    for (ComputeUnit &u : d.units)
        u.energyPerOpPj.clear();
    for (MemoryLevel &l : d.levels)
        l.energyPerBytePj = 0;
    const Graph g = siblings(3, 256, 256, 128, 28);
    auto power = schedule(g, d, {{"target", "power"}});
    ASSERT_FALSE(power.isOk());
    EXPECT_NE(power.status().message().find("has no power model"), std::string::npos) << power.status().str();
    auto time = schedule(g, d, {{"target", "time"}});
    ASSERT_TRUE(time.isOk()) << time.status().str();
    EXPECT_TRUE(traceHas(time->trace, "no cap on energy", "has no power model"));
    EXPECT_GE(time->result.stats.at("splits"), 1);
    expectSameOutputs(g, time->result.plan, 5);
    // Twin: with the power model, target=power runs.
    EXPECT_TRUE(schedule(g, "stcp920", {{"target", "power"}}).isOk());
}

// Bad input: an h no plan meets. h = 0.5 asks for half the static-fusion
// plan's energy, which no split reaches: refused, naming H and what the
// re-cutting reached. Twin: h = 1 (the static-fusion plan meets it) runs.
TEST(PcgcBadInput, UnreachableThresholdRefused)
{
    const Graph g = siblings(3, 256, 256, 128, 14);
    auto unmet = schedule(g, "stcp920", {{"target", "time"}, {"h", "0.5"}});
    ASSERT_FALSE(unmet.isOk());
    EXPECT_EQ(unmet.status().code(), ErrorCode::InvalidInput);
    EXPECT_NE(unmet.status().message().find("no plan the re-cutting reaches meets H"), std::string::npos)
        << unmet.status().str();
    auto met = schedule(g, "stcp920", {{"target", "time"}, {"h", "1"}});
    ASSERT_TRUE(met.isOk()) << met.status().str();
    EXPECT_TRUE(verifyPlan(met->result.plan, g, &device("stcp920")).isOk());
}

// Overrides of the target and H decisions replay the re-cutting: the time
// target's plan keeps the group (1 kernel); forcing pcgc.target to power
// splits it as target=power does; with target=power and h=1.1 the split is
// illegal, and forcing pcgc.h to none allows it. Twin: an unknown H id is
// rejected and the plan stays.
TEST(PcgcOverrides, TargetAndThresholdReplay)
{
    const Graph g = siblings(3, 256, 256, 128, 14);
    auto t = schedule(g, "stcp920", {{"target", "time"}, {"h", "0"}});
    ASSERT_TRUE(t.isOk()) << t.status().str();
    EXPECT_EQ(t->result.plan.kernels.size(), 1u);
    const DecisionRecord *target = findRole(t->decisions, "pcgc.target");
    const DecisionRecord *h = findRole(t->decisions, "pcgc.h");
    ASSERT_TRUE(target && h);
    EXPECT_EQ(target->options.at(static_cast<std::size_t>(target->chosen)).id, "time");
    EXPECT_EQ(h->options.at(static_cast<std::size_t>(h->chosen)).id, "none");

    auto forced = schedule(g, "stcp920", {{"target", "time"}, {"h", "0"}}, {{target->key, "power"}});
    ASSERT_TRUE(forced.isOk()) << forced.status().str();
    EXPECT_EQ(forced->result.plan.kernels.size(), 2u);
    expectSameOutputs(g, forced->result.plan, 7);

    auto capped = schedule(g, "stcp920", {{"target", "power"}, {"h", "1.1"}});
    ASSERT_TRUE(capped.isOk());
    EXPECT_EQ(capped->result.plan.kernels.size(), 1u);
    const DecisionRecord *cap = findRole(capped->decisions, "pcgc.h");
    ASSERT_NE(cap, nullptr);
    EXPECT_EQ(cap->options.at(0).id, "1.1");
    auto uncapped = schedule(g, "stcp920", {{"target", "power"}, {"h", "1.1"}}, {{cap->key, "none"}});
    ASSERT_TRUE(uncapped.isOk()) << uncapped.status().str();
    EXPECT_EQ(uncapped->result.plan.kernels.size(), 2u);

    auto bad = schedule(g, "stcp920", {{"target", "power"}, {"h", "1.1"}}, {{cap->key, "0.3"}});
    ASSERT_TRUE(bad.isOk());
    EXPECT_EQ(bad->result.plan.kernels.size(), 1u);
    ASSERT_FALSE(bad->overrideReports.empty());
    EXPECT_NE(bad->overrideReports.front().outcome, OverrideReport::Outcome::Applied);
}

// Overrides: keep a stable fusion apart, or force a split; the plan changes,
// still verifies (runSchedule verifies) and computes the same outputs.
TEST(PcgcOverrides, ForceApartAndSplit)
{
    const Graph g = example1();
    auto base = schedule(g, "stcp920");
    ASSERT_TRUE(base.isOk());
    std::string key;
    for (const DecisionRecord &r : base->decisions.records())
        if (r.role == "pcgc.fuse" && r.key.find("conv") != std::string::npos)
            key = r.key;
    ASSERT_FALSE(key.empty());
    auto apart = schedule(g, "stcp920", {}, {{key, "apart"}});
    ASSERT_TRUE(apart.isOk()) << apart.status().str();
    EXPECT_EQ(base->result.plan.kernels.size(), 1u);
    EXPECT_EQ(apart->result.plan.kernels.size(), 2u);
    ASSERT_EQ(apart->overrideReports.size(), 1u);
    EXPECT_EQ(apart->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
    expectSameOutputs(g, apart->result.plan, 5);

    // Force the split the time objective declined.
    const Graph s = siblings(3, 256, 256, 128, 14);
    auto t = schedule(s, "stcp920", {{"h", "0"}});
    ASSERT_TRUE(t.isOk());
    const DecisionRecord *split = lastRole(t->decisions, "pcgc.split");
    ASSERT_NE(split, nullptr);
    ASSERT_EQ(split->chosen, 0);
    const std::string forced = split->options.back().id;
    auto f = schedule(s, "stcp920", {{"h", "0"}}, {{split->key, forced}});
    ASSERT_TRUE(f.isOk()) << f.status().str();
    EXPECT_GT(f->result.plan.kernels.size(), t->result.plan.kernels.size());
    EXPECT_EQ(f->overrideReports.at(0).outcome, OverrideReport::Outcome::Applied);
    expectSameOutputs(s, f->result.plan, 6);
    // Twin: an option id that does not exist is rejected and the plan is the preferred one.
    auto bad = schedule(s, "stcp920", {{"h", "0"}}, {{split->key, "split:nowhere"}});
    ASSERT_TRUE(bad.isOk());
    EXPECT_EQ(bad->overrideReports.at(0).outcome, OverrideReport::Outcome::Rejected);
    EXPECT_EQ(bad->result.plan.kernels.size(), t->result.plan.kernels.size());
}

// Plans verify and compute the sequential plan's outputs, both objectives.
TEST(PcgcLowering, TestGraphsMatchSequential)
{
    const std::vector<Graph> graphs{testgraphs::residualChain(2),
                                    testgraphs::diamond(),
                                    testgraphs::fan(3),
                                    testgraphs::fig34(),
                                    example1(),
                                    inception(),
                                    siblings(5, 16, 16, 8, 8)};
    for (const Graph &g : graphs)
        for (const char *obj : {"time", "power"}) {
            SCOPED_TRACE(g.name + " " + obj);
            auto run = schedule(g, "stcp920", {{"target", obj}});
            ASSERT_TRUE(run.isOk()) << run.status().str();
            EXPECT_TRUE(verifyPlan(run->result.plan, g, &device("stcp920")).isOk());
            EXPECT_EQ(run->result.plan.algorithm, "pcgc");
            expectSameOutputs(g, run->result.plan, 3);
        }
}

// ResNet-50 at 64×64 from the sample catalog: fuses, verifies, matches sequential.
TEST(PcgcLowering, ResNet50MatchesSequential)
{
    SampleOptions o;
    o.imageSize = 64;
    auto imported = importSample("resnet50", o);
    ASSERT_TRUE(imported.isOk()) << imported.status().str();
    const Graph &g = imported->graph;
    for (const char *dev : {"stcp920", "nvidia-v100"}) {
        SCOPED_TRACE(dev);
        auto run = schedule(g, dev);
        ASSERT_TRUE(run.isOk()) << run.status().str();
        const auto &st = run->result.stats;
        EXPECT_LT(st.at("kernels"), double(g.nodeCount()) / 2);
        EXPECT_GT(st.at("stable_fusions"), 0);
        EXPECT_GE(st.at("passes"), 3);
        std::printf("%s resnet50: %zu nodes, %g static groups, %g fusions (%g stable), %g passes, %g splits, "
                    "%g kernels, model %g ns %g J, search %.1f ms\n",
                    dev, g.nodeCount(), st.at("groups_static"), st.at("fusions"), st.at("stable_fusions"),
                    st.at("passes"), st.at("splits"), st.at("kernels"), st.at("model_time_ns"), st.at("model_energy_j"),
                    run->searchMs);
        if (std::string(dev) == "stcp920")
            expectSameOutputs(g, run->result.plan, 12);
    }
}

// RandWire (random DAG): static fusion and re-cutting keep the sub-graphs acyclic.
TEST(PcgcStaticFusion, RandWireStaysAcyclic)
{
    auto imported = importSample("randwire");
    ASSERT_TRUE(imported.isOk()) << imported.status().str();
    const Graph &g = imported->graph;
    const Partition p = fuseStatically(g, device("stcp920"));
    std::vector<std::vector<NodeId>> groups;
    for (const FusedGroup &grp : p.groups)
        groups.push_back(grp.nodes);
    EXPECT_TRUE(groupsAcyclic(g, groups));
    auto run = schedule(g, "stcp920");
    ASSERT_TRUE(run.isOk()) << run.status().str();
}

namespace {

// Example 4's device: `cores` cores, one convolution (matrix) unit and one
// vector unit each, small launch and barrier overheads.
Device example4Device(int cores)
{
    Device d = device("stcp920");
    d.id = "example4-" + std::to_string(cores);
    d.topology = {1, cores, 2};
    ComputeUnit conv{UnitKind::Matrix, "conv unit", 1, 0, {{DType::Float32, 1e12 * cores}}, {OpClass::Gemm}, {}};
    ComputeUnit vec{UnitKind::Vector,
                    "vector unit",
                    1,
                    0,
                    {{DType::Float32, 0.5e12 * cores}},
                    {OpClass::Elementwise, OpClass::Reduction, OpClass::Movement, OpClass::Other},
                    {}};
    d.units = {conv, vec};
    d.overheads.kernelLaunchNs = 100;
    d.overheads.syncNs = 100;
    return d;
}

// Example 4 (Fig. 11): four independent 3×3 convolutions of one input (the
// red box) and a convolution after the first (the blue box: dependent).
Graph example4()
{
    Graph g;
    g.name = "example4";
    const TensorId x = tensor(g, "x", {1, 16, 8, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = conv(g, "a", x, 16, 64, 3, 8);
    g.outputs = {conv(g, "e", a, 64, 64, 3, 8), conv(g, "b", x, 16, 64, 3, 8), conv(g, "c", x, 16, 64, 3, 8),
                 conv(g, "d", x, 16, 64, 3, 8)};
    return g;
}

Partition singleGroups(const Graph &g)
{
    Partition p;
    for (NodeId n = 0; n < NodeId(g.nodeCount()); ++n)
        p.groups.push_back({{n}, categoryOf(g, g.node(n))});
    return p;
}

std::vector<std::vector<std::string>> waveNames(const Graph &g, const Partition &p, const Wave &w)
{
    std::vector<std::vector<std::string>> out;
    for (const auto &stream : w.streams) {
        out.emplace_back();
        for (std::size_t i : stream)
            out.back().push_back(g.node(p.groups[i].nodes.front()).name);
        std::sort(out.back().begin(), out.back().end());
    }
    std::sort(out.begin(), out.end());
    return out;
}

double number(const TraceStep &s, const std::string &name)
{
    for (const auto &[k, v] : s.numbers)
        if (k == name)
            return v;
    ADD_FAILURE() << "no number " << name;
    return 0;
}

const TraceStep *parallelStep(const Trace &t)
{
    for (const TraceStep &s : t.steps())
        if (s.phase == "parallel")
            return &s;
    return nullptr;
}

// Example 4's graph on example4Device(cores), one group per node, planned by §3.4's
// planParallel (`parallel`: the scheduler's option) with a decision context and trace of its own.
struct Example4Plan {
    Example4Plan(int cores, bool parallel)
        : d(example4Device(cores)), cost(d), plan(planParallel(g, d, cost, p, parallel, ctx, trace))
    {}

    const Graph g = example4();
    const Device d;
    const DeviceCostModel cost;
    const Partition p = singleGroups(g);
    DecisionContext ctx;
    Trace trace;
    const ParallelPlan plan;
};

} // namespace

// Example 4 with four convolution units: the red box's four convolutions run
// in parallel (span ≈ the longest one), the dependent one after them, serially.
TEST(PcgcParallel, Example4FourConvUnitsRunInParallel)
{
    const Example4Plan e(4, true);
    const auto &[g, d, cost, p, ctx, trace, plan] = e;
    EXPECT_EQ(virtualUnits(d, OpClass::Gemm, DType::Float32), 4);
    ASSERT_EQ(plan.waves.size(), 2u);
    EXPECT_EQ(waveNames(g, p, plan.waves[0]), (std::vector<std::vector<std::string>>{{"a"}, {"b"}, {"c"}, {"d"}}));
    EXPECT_EQ(waveNames(g, p, plan.waves[1]), (std::vector<std::vector<std::string>>{{"e"}}));
    EXPECT_EQ(plan.parallelWaves, 1);
    const TraceStep *s = parallelStep(trace);
    ASSERT_NE(s, nullptr);
    const double one = cost.kernelCost(g, {g.findNode("b")}, {}).timeNs;
    EXPECT_LT(number(*s, "parallel_ns"), 0.5 * number(*s, "serial_ns"));
    EXPECT_LT(number(*s, "parallel_ns"), 1.5 * one); // "only depends on the operator with the longest time"
    // Lowered: verifies, the four on four streams between barriers.
    const ExecutionPlan lowered = lowerPartition(g, cost, p, plan);
    EXPECT_TRUE(verifyPlan(lowered, g, &d).isOk());
    std::set<std::int32_t> streams;
    for (const Task &t : lowered.tasks)
        if (t.kind == TaskKind::Compute)
            streams.insert(t.binding.stream);
    EXPECT_EQ(streams, (std::set<std::int32_t>{-1, 0, 1, 2, 3}));
}

// Negative twin: one convolution unit — the same four run serially and the wave
// costs the sum; the parallel option is listed but illegal.
TEST(PcgcParallel, Example4OneConvUnitRunsSerially)
{
    const Example4Plan e(1, true);
    const auto &[g, d, cost, p, ctx, trace, plan] = e;
    EXPECT_EQ(virtualUnits(d, OpClass::Gemm, DType::Float32), 1);
    ASSERT_EQ(plan.waves.size(), 2u);
    EXPECT_EQ(waveNames(g, p, plan.waves[0]), (std::vector<std::vector<std::string>>{{"a", "b", "c", "d"}}));
    EXPECT_EQ(plan.parallelWaves, 0);
    const TraceStep *s = parallelStep(trace);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(number(*s, "streams"), 1.0);
    double sum = 0;
    for (const char *n : {"a", "b", "c", "d"})
        sum += cost.kernelCost(g, {g.findNode(n)}, {}).timeNs;
    EXPECT_NEAR(number(*s, "serial_ns"), sum, 0.2 * sum);
    ASSERT_EQ(ctx.records().size(), 1u);
    EXPECT_FALSE(ctx.records()[0].options[1].legal());
    EXPECT_NE(ctx.records()[0].options[1].illegalReason.find("one virtual"), std::string::npos);
    EXPECT_TRUE(verifyPlan(lowerPartition(g, cost, p, plan), g, &d).isOk());
}

// Negative twin: parallel=0 keeps even the four-unit device serial; the
// scheduler's plan verifies and computes the sequential plan's outputs either way.
TEST(PcgcParallel, OptionOffIsSerialAndPlansStayCorrect)
{
    const Example4Plan e(4, false);
    EXPECT_EQ(e.plan.parallelWaves, 0);
    EXPECT_EQ(e.plan.waves[0].streams.size(), 1u);
    const Graph inc = inception();
    for (const char *parallel : {"1", "0"}) {
        auto run = schedule(inc, "stcp920", {{"parallel", parallel}});
        ASSERT_TRUE(run.isOk()) << run.status().str();
        EXPECT_EQ(run->result.stats.at("parallel_waves") > 0, std::string(parallel) == "1");
        expectSameOutputs(inc, run->result.plan, 5);
    }
}

// Override a §3.4 decision: force a parallel wave serial; the later waves are
// judged again against the new plan, which verifies and computes the same
// outputs. Twin: an unknown option id is rejected and nothing changes.
TEST(PcgcOverrides, ForceParallelWaveSerial)
{
    const Graph g = inception();
    auto base = schedule(g, "stcp920");
    ASSERT_TRUE(base.isOk()) << base.status().str();
    const DecisionRecord *wave = nullptr;
    for (const DecisionRecord &r : base->decisions.records())
        if (r.role == "pcgc.parallel" && r.chosen == 1 && !wave)
            wave = &r;
    ASSERT_NE(wave, nullptr);
    auto serial = schedule(g, "stcp920", {}, {{wave->key, "serial"}});
    ASSERT_TRUE(serial.isOk()) << serial.status().str();
    EXPECT_EQ(serial->overrideReports.at(0).outcome, OverrideReport::Outcome::Applied);
    EXPECT_EQ(serial->result.stats.at("parallel_waves"), base->result.stats.at("parallel_waves") - 1);
    EXPECT_GT(serial->result.plan.estimatedLatencyNs(), base->result.plan.estimatedLatencyNs());
    expectSameOutputs(g, serial->result.plan, 7);
    auto bad = schedule(g, "stcp920", {}, {{wave->key, "parallel:nowhere"}});
    ASSERT_TRUE(bad.isOk());
    EXPECT_EQ(bad->overrideReports.at(0).outcome, OverrideReport::Outcome::Rejected);
    EXPECT_EQ(bad->result.stats.at("parallel_waves"), base->result.stats.at("parallel_waves"));
}
