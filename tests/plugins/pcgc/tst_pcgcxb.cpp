// PCGC cross-boundary optimisation (pcgc §3.4 items 1–4; plugins/pcgc/
// crossboundary.h, constfold.h, cse.h, inlining.h). The paper has no worked
// example for these rewrites, so each test builds the smallest graph its
// sentence describes, beside a negative twin where the rewrite must not fire.
// Every plan verifies (including Kernel::assigned, core/plan/verify.h) and
// computes the sequential plan's outputs bit for bit on the reference backend.
#include "backends/reference/reference.h"
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/analysis.h"
#include "core/onnx/importer.h"
#include "core/plan/verify.h"
#include "plugins/pcgc/pcgc.h"

#include <algorithm>
#include <cstdio>
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"
#include "tests/common/testsamples.h"
#include "tests/plugins/pcgc/pcgctestutil.h"

using namespace tessera;
using namespace tessera::pcgctest;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

// stcp920 with 256 B on every on-chip level: basic criterion B3 refuses to
// keep a 50 KB intermediate on chip.
Device smallChip()
{
    Device d = device("stcp920");
    for (std::size_t i = 0; i + 1 < d.levels.size(); ++i)
        d.levels[i].capacityBytes = 256;
    return d;
}

std::size_t assignedCount(const ExecutionPlan &plan)
{
    std::size_t n = 0;
    for (const Kernel &k : plan.kernels)
        n += k.assigned.size();
    return n;
}

const Kernel *kernelWith(const Graph &g, const ExecutionPlan &plan, const std::string &node)
{
    const NodeId id = g.findNode(node);
    for (const Kernel &k : plan.kernels)
        if (std::find(k.nodes.begin(), k.nodes.end(), id) != k.nodes.end())
            return &k;
    return nullptr;
}

// x → conv c1(w) → relu r1 (output); x → conv c2(w or w2) → sigmoid s2 (output).
// Static fusion makes {c1, r1} and {c2, s2} (S1); P2 keeps them apart.
Graph twinConvs(bool sharedWeight)
{
    Graph g;
    g.name = sharedWeight ? "twin-convs" : "twin-convs-distinct";
    const TensorId x = tensor(g, "x", {1, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId w = weight(g, "w", {8, 8, 3, 3});
    const TensorId c1 = op(g, "c1", "Conv", {x, w}, {1, 8, 16, 16}, convAttrs(3));
    const TensorId w2 = sharedWeight ? w : weight(g, "w2", {8, 8, 3, 3});
    const TensorId c2 = op(g, "c2", "Conv", {x, w2}, {1, 8, 16, 16}, convAttrs(3));
    g.outputs = {op(g, "r1", "Relu", {c1}, {1, 8, 16, 16}), op(g, "s2", "Sigmoid", {c2}, {1, 8, 16, 16})};
    return g;
}

// y = MatMul(x, Transpose(W0)) + Mul(b0, b1): the Transpose and the Mul have
// only constant inputs. With varyingWeight W0 is a graph input instead.
Graph constantChain(bool varyingWeight)
{
    Graph g;
    g.name = varyingWeight ? "varying-chain" : "constant-chain";
    const TensorId x = tensor(g, "x", {4, 8}, Tensor::Kind::Input);
    const TensorId w0 = varyingWeight ? tensor(g, "w0", {6, 8}, Tensor::Kind::Input) : weight(g, "w0", {6, 8});
    g.inputs = {x};
    if (varyingWeight)
        g.inputs.push_back(w0);
    const TensorId wt = op(g, "wt", "Transpose", {w0}, {8, 6}, {{"perm", {std::vector<std::int64_t>{1, 0}}}});
    const TensorId y = op(g, "mm", "MatMul", {x, wt}, {4, 6});
    const TensorId b = op(g, "bias", "Mul", {weight(g, "b0", {6}), weight(g, "b1", {6})}, {6});
    g.outputs = {op(g, "add", "Add", {y, b}, {4, 6})};
    return g;
}

// x → relu → conv3x3 (→ conv3x3 b, when twoConsumers). On smallChip() B3
// keeps relu apart from the one convolution; read by two, relu's values go
// to memory anyway and it may fuse with one of them.
Graph reluThenConv(bool twoConsumers)
{
    Graph g;
    g.name = twoConsumers ? "relu-two-convs" : "relu-conv";
    const TensorId x = tensor(g, "x", {1, 16, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId r = op(g, "relu", "Relu", {x}, {1, 16, 28, 28});
    g.outputs = {op(g, "conv", "Conv", {r, weight(g, "w", {16, 16, 3, 3})}, {1, 16, 28, 28}, convAttrs(3))};
    if (twoConsumers)
        g.outputs.push_back(
            op(g, "conv_b", "Conv", {r, weight(g, "wb", {16, 16, 3, 3})}, {1, 16, 28, 28}, convAttrs(3)));
    return g;
}

} // namespace

// §3.4 4): c2 has c1's type, parameters and inputs — it is obtained by
// assignment, across the boundary between {c1, r1} and {c2, s2}.
TEST(PcgcCse, SameTypeParametersAndInputsAssigned)
{
    const Graph g = twinConvs(true);
    ASSERT_TRUE(sameComputation(g, g.findNode("c1"), g.findNode("c2")));
    auto run = schedule(g, device("stcp920"));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &plan = run->result.plan;
    EXPECT_EQ(run->result.stats.at("assigned"), 1);
    ASSERT_EQ(assignedCount(plan), 1u);
    const Kernel *k = kernelWith(g, plan, "c2");
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(k->assigned.size(), 1u);
    EXPECT_EQ(k->assigned[0].node, g.findNode("c2"));
    EXPECT_EQ(k->assigned[0].from, g.findNode("c1"));
    EXPECT_EQ(kernelWith(g, plan, "c1"), k); // moved into c1's sub-graph
    EXPECT_NE(kernelWith(g, plan, "s2"), k);
    EXPECT_TRUE(traceHas(run->trace, "common subexpression: c2 = c1", "assigned across the fusion boundary"));
    const DecisionRecord *d = findRole(run->decisions, "pcgc.cse");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->options[static_cast<std::size_t>(d->chosen)].id, "assign");
    const Device dev = device("stcp920");
    EXPECT_TRUE(verifyPlan(plan, g, &dev).isOk());
    expectSameOutputs(g, plan, 21);

    // Without the rewrite both convolutions are computed, and the estimate is longer.
    auto off = schedule(g, device("stcp920"), {{"cross_boundary", "false"}});
    ASSERT_TRUE(off.isOk());
    EXPECT_EQ(assignedCount(off->result.plan), 0u);
    EXPECT_LT(plan.totalCost().timeNs, off->result.plan.totalCost().timeNs);
}

// Twin: the same values from a different weight tensor are not the same input.
TEST(PcgcCse, DifferentInputsComputedTwice)
{
    const Graph g = twinConvs(false);
    EXPECT_FALSE(sameComputation(g, g.findNode("c1"), g.findNode("c2")));
    auto run = schedule(g, device("stcp920"));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("assigned"), 0);
    EXPECT_EQ(assignedCount(run->result.plan), 0u);
    EXPECT_EQ(findRole(run->decisions, "pcgc.cse"), nullptr);
    expectSameOutputs(g, run->result.plan, 22);

    // Different parameters (an attribute) are not the same computation either.
    Graph h = twinConvs(true);
    h.node(h.findNode("c2")).attrs["dilations"] = Attribute{std::vector<std::int64_t>{1, 1}};
    EXPECT_FALSE(sameComputation(h, h.findNode("c1"), h.findNode("c2")));
}

// The verifier refuses an assignment from a node that computes something else,
// and one whose source is computed by a task it does not depend on.
TEST(PcgcCse, VerifierRefusesWrongAssignments)
{
    const Graph g = twinConvs(true);
    auto run = schedule(g, device("stcp920"));
    ASSERT_TRUE(run.isOk());
    ASSERT_TRUE(verifyPlan(run->result.plan, g).isOk());
    ExecutionPlan wrong = run->result.plan;
    for (Kernel &k : wrong.kernels)
        for (NodeAssignment &a : k.assigned)
            a.from = g.findNode("r1");
    const Status s = verifyPlan(wrong, g);
    ASSERT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("does not compute the same values"), std::string::npos) << s.str();

    // Twin pair on the sequential plan: c2 assigned from c1 in its own kernel
    // needs its task to depend on c1's (the sequential plan orders them only
    // by data, so without that dependency it is refused, with it accepted).
    auto seq = planutil::baselinePlan(g, "sequential");
    ASSERT_TRUE(seq.isOk());
    ExecutionPlan late = *seq;
    TaskId c1Task = -1, c2Task = -1;
    for (const Task &t : late.tasks)
        if (t.kind == TaskKind::Compute) {
            const NodeId first = late.kernels[static_cast<std::size_t>(t.kernel)].nodes.front();
            if (first == g.findNode("c1"))
                c1Task = t.id;
            if (first == g.findNode("c2"))
                c2Task = t.id;
        }
    ASSERT_GE(c1Task, 0);
    ASSERT_GT(c2Task, c1Task);
    late.kernels[static_cast<std::size_t>(late.tasks[static_cast<std::size_t>(c2Task)].kernel)].assigned.push_back(
        {g.findNode("c2"), g.findNode("c1")});
    const Status l = verifyPlan(late, g);
    ASSERT_FALSE(l.isOk());
    EXPECT_NE(l.message().find("without depending on a task that computes it whole"), std::string::npos) << l.str();
    ExecutionPlan ok = late;
    ok.tasks[static_cast<std::size_t>(c2Task)].deps.push_back(c1Task);
    EXPECT_TRUE(verifyPlan(ok, g).isOk()) << verifyPlan(ok, g).str();
    expectSameOutputs(g, ok, 23);
}

// §3.4 2): the Transpose of a weight and the Mul of two constants are
// calculated once; the MatMul and the Add (a graph input each) are not.
TEST(PcgcConstantFolding, ConstantInputsFolded)
{
    const Graph g = constantChain(false);
    auto run = schedule(g, device("stcp920"));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &plan = run->result.plan;
    EXPECT_EQ(run->result.stats.at("folded"), 2);
    const Kernel *k = kernelWith(g, plan, "wt");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->strategy, "pcgc-folded");
    EXPECT_EQ(kernelWith(g, plan, "bias"), k);
    EXPECT_NE(kernelWith(g, plan, "mm"), k);
    EXPECT_NE(kernelWith(g, plan, "add"), k);
    for (const Task &t : plan.tasks)
        if (t.kind == TaskKind::Compute && t.kernel == k->id) {
            EXPECT_EQ(t.cost.timeNs, 0.0);
        }
    EXPECT_TRUE(traceHas(run->trace, "constant folding: wt", "folded"));
    const Device d = device("stcp920");
    EXPECT_TRUE(verifyPlan(plan, g, &d).isOk());
    expectSameOutputs(g, plan, 31);
}

// Twin: a Transpose of a graph input varies per inference and is not folded.
TEST(PcgcConstantFolding, VaryingInputNotFolded)
{
    const Graph g = constantChain(true);
    auto run = schedule(g, device("stcp920"));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("folded"), 1); // only the Mul of b0 and b1
    const Kernel *k = kernelWith(g, run->result.plan, "wt");
    ASSERT_NE(k, nullptr);
    EXPECT_NE(k->strategy, "pcgc-folded");
    EXPECT_EQ(kernelWith(g, run->result.plan, "bias")->strategy, "pcgc-folded");
    expectSameOutputs(g, run->result.plan, 32);
}

// §3.4 3): B3 left relu apart from the convolution (its 50 KB output does not
// fit on the small chip); relu is small and simple, read by one sub-graph, so
// it is expanded into the convolution's kernel.
TEST(PcgcInlining, SmallSimpleNodeInlinedIntoItsConsumer)
{
    const Graph g = reluThenConv(false);
    const Device d = smallChip();
    auto off = schedule(g, d, {{"cross_boundary", "false"}});
    ASSERT_TRUE(off.isOk()) << off.status().str();
    ASSERT_EQ(off->result.plan.kernels.size(), 2u);
    auto run = schedule(g, d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("inlined"), 1);
    ASSERT_EQ(run->result.plan.kernels.size(), 1u);
    EXPECT_TRUE(traceHas(run->trace, "inline relu into conv", "inlined"));
    const DecisionRecord *dr = findRole(run->decisions, "pcgc.inline");
    ASSERT_NE(dr, nullptr);
    EXPECT_LE(dr->options[0].cost, dr->options[1].cost);
    EXPECT_TRUE(verifyPlan(run->result.plan, g, &d).isOk());
    expectSameOutputs(g, run->result.plan, 41);
}

// Twin: relu read by two sub-graphs is not duplicated into both.
TEST(PcgcInlining, ReadByTwoSubgraphsNotInlined)
{
    const Graph g = reluThenConv(true);
    const Device d = smallChip();
    auto run = schedule(g, d);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("inlined"), 0);
    EXPECT_EQ(findRole(run->decisions, "pcgc.inline"), nullptr);
    std::size_t holding = 0; // relu is computed by one kernel, not copied into both consumers'
    for (const Kernel &k : run->result.plan.kernels)
        holding += std::count(k.nodes.begin(), k.nodes.end(), g.findNode("relu"));
    EXPECT_EQ(holding, 1u);
    expectSameOutputs(g, run->result.plan, 42);
}

// Every rewrite is a decision: overriding it to keep replays the rest, and the
// plan changes and still verifies and computes the same outputs.
TEST(PcgcCrossBoundaryOverrides, KeepReplays)
{
    struct Case {
        Graph g;
        Device d;
        std::string role, keep, stat;
    };
    const std::vector<Case> cases{{twinConvs(true), device("stcp920"), "pcgc.cse", "compute", "assigned"},
                                  {constantChain(false), device("stcp920"), "pcgc.fold", "keep", "folded"},
                                  {reluThenConv(false), smallChip(), "pcgc.inline", "keep", "inlined"}};
    for (const Case &c : cases) {
        SCOPED_TRACE(c.role);
        auto base = schedule(c.g, c.d);
        ASSERT_TRUE(base.isOk());
        const DecisionRecord *r = findRole(base->decisions, c.role);
        ASSERT_NE(r, nullptr);
        auto forced = schedule(c.g, c.d, {}, {{r->key, c.keep}});
        ASSERT_TRUE(forced.isOk()) << forced.status().str();
        ASSERT_EQ(forced->overrideReports.size(), 1u);
        EXPECT_EQ(forced->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
        EXPECT_EQ(forced->result.stats.at(c.stat), base->result.stats.at(c.stat) - 1);
        EXPECT_TRUE(verifyPlan(forced->result.plan, c.g, &c.d).isOk());
        expectSameOutputs(c.g, forced->result.plan, 51);
    }
}

// Plans with the rewrites survive the schedule JSON round trip (Kernel::assigned).
TEST(PcgcCrossBoundary, AssignedSurvivesScheduleJson)
{
    const Graph g = twinConvs(true);
    auto run = schedule(g, device("stcp920"));
    ASSERT_TRUE(run.isOk());
    const std::string json = scheduleToJson(makeScheduleDocument(*run, "twin", {}), g);
    EXPECT_NE(json.find("\"assigned\": ["), std::string::npos);
    auto back = scheduleFromJson(json, g);
    ASSERT_TRUE(back.isOk()) << back.status().str();
    EXPECT_EQ(assignedCount(back->plan), 1u);
    EXPECT_TRUE(verifyPlan(back->plan, g).isOk());
    // Twin: a plan without assignments writes no "assigned" key.
    auto off = schedule(g, device("stcp920"), {{"cross_boundary", "false"}});
    ASSERT_TRUE(off.isOk());
    EXPECT_EQ(scheduleToJson(makeScheduleDocument(*off, "twin", {}), g).find("\"assigned\": ["), std::string::npos);
}

// Sample networks: the rewrites the traversal finds (few: the importer has
// folded the constant shape arithmetic already and the builders write no
// duplicate expressions), and the plans verify and compute the sequential
// plan's outputs.
TEST(PcgcCrossBoundary, SamplesMatchSequential)
{
    const Device d = device("stcp920");
    for (const char *name : {"bert", "resnet50", "vit"}) {
        SCOPED_TRACE(name);
        SampleOptions o;
        const bool text = std::string(name) == "bert";
        o.imageSize = text ? 0 : 64;
        o.seqLen = 16;
        auto m = test::buildRegisteredSample(name, o);
        ASSERT_TRUE(m.isOk()) << m.status().str();
        std::string bytes;
        (*m)->SerializeToString(&bytes);
        auto imported = importModelFromBytes(bytes, std::string(name) + ".onnx");
        ASSERT_TRUE(imported.isOk()) << imported.status().str();
        const Graph &g = imported->graph;
        auto run = schedule(g, d);
        ASSERT_TRUE(run.isOk()) << run.status().str();
        auto off = schedule(g, d, {{"cross_boundary", "false"}});
        ASSERT_TRUE(off.isOk()) << off.status().str();
        const auto &st = run->result.stats;
        std::printf("%s: %zu nodes, folded %g, assigned %g, inlined %g, kernels %g (without rewrites %g), "
                    "estimate %.1f us (without %.1f us), search %.1f ms\n",
                    name, g.nodeCount(), st.at("folded"), st.at("assigned"), st.at("inlined"), st.at("kernels"),
                    off->result.stats.at("kernels"), run->result.plan.estimatedLatencyNs() / 1e3,
                    off->result.plan.estimatedLatencyNs() / 1e3, run->searchMs);
        EXPECT_TRUE(verifyPlan(run->result.plan, g, &d).isOk());
        if (std::string(name) != "vit")
            expectSameOutputs(g, run->result.plan, 61);
    }
}
