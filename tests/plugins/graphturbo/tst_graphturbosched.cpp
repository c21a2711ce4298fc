// GraphTurbo's Algo. 4 and data-movement ops (graphturbo-osdi23 §3.4, §3.5,
// Fig. 9), across-layer instruction scheduling on the simulator (§4.4,
// Fig. 13) and the §5.3 variants (Fig. 15), each beside a negative twin.
// Every plan passes verifyPlan; the reference backend computes the sequential
// plan's outputs from the f32 ones.
#include "backends/reference/reference.h"
#include "backends/sim/sim.h"
#include "core/hw/deviceregistry.h"
#include "core/plan/verify.h"
#include "core/sched/session.h"
#include "plugins/graphturbo/graphturbo.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>

#include "tests/backends/planutil.h"
#include "tests/common/testgraphs.h"

using namespace tessera;
namespace tg = tessera::testgraphs;

namespace {

const Device &stcp920()
{
    static const Device d = *DeviceRegistry::standard().lookup("stcp920");
    return d;
}

const std::map<std::string, std::string> kOneCluster{{"clusters", "1"}};

Expected<ScheduleRun> schedule(const Graph &g, const Device &d, Overrides overrides = {},
                               std::map<std::string, std::string> options = kOneCluster)
{
    static const auto scheduler = createGraphTurboScheduler();
    ScheduleSetup setup;
    setup.overrides = std::move(overrides);
    setup.options = std::move(options);
    return scheduleGraph(g, d, *scheduler, setup);
}

// Schedules with every merge of Algo. 2 kept apart (one sub-graph per node), replaying until
// no new merge question comes up: the figures below are about edges between sub-graphs.
Expected<ScheduleRun> scheduleApart(const Graph &g, const Device &d,
                                    std::map<std::string, std::string> options = kOneCluster)
{
    Overrides keep;
    for (int round = 0; round < 16; ++round) {
        auto run = schedule(g, d, keep, options);
        if (!run)
            return run;
        bool added = false;
        for (const DecisionRecord &r : run->decisions.records())
            if (r.role == "graphturbo.merge" && !keep.count(r.key)) {
                keep[r.key] = "keep";
                added = true;
            }
        if (!added)
            return run;
    }
    return Status::invalid("merges did not settle");
}

int countKind(const ExecutionPlan &p, TaskKind k)
{
    return static_cast<int>(std::count_if(p.tasks.begin(), p.tasks.end(), [&](const Task &t) { return t.kind == k; }));
}

void expectSameOutputs(const Graph &g, const ExecutionPlan &plan)
{
    auto backend = createReferenceBackend();
    const Status same = planutil::sameOutputsAsSequential(*backend, g, plan, 7);
    EXPECT_TRUE(same.isOk()) << same.str();
}

// A plan run on the simulator (timing only).
Expected<RunResult> simRun(const Graph &g, const ExecutionPlan &p, const Device &d = stcp920(),
                           std::map<std::string, std::string> options = {})
{
    auto sim = createSimBackend(nullptr);
    CompileContext ctx{&d, std::move(options)};
    auto c = sim->compileFor(g, p, ctx);
    if (!c)
        return c.status();
    return sim->run(**c, planutil::makeInputs(g, 1));
}

// Simulated time of a plan on STCP920.
double simMs(const Graph &g, const ExecutionPlan &p, const Device &d = stcp920(),
             std::map<std::string, std::string> options = {})
{
    auto r = simRun(g, p, d, std::move(options));
    EXPECT_TRUE(r.isOk()) << r.status().str();
    return r ? r->metrics.at("sim_time_ms") : -1;
}

// Fig. 9: P = Relu(x) [1, 8, 16, 16] read by `consumers` (graph outputs): "transpose" swaps
// channels and rows (a consumer bound along its channels infers P bound along rows),
// "sigmoid" is element-wise (it infers P's own plain binding).
Graph fig9(const std::vector<std::string> &consumers)
{
    Graph g;
    g.name = "fig9";
    const TensorId x = tg::tensor(g, "x", {1, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId p = tg::op(g, "p", "Relu", {x}, {1, 8, 16, 16});
    for (const std::string &c : consumers) {
        if (c == "transpose")
            g.outputs.push_back(tg::op(g, "transpose", "Transpose", {p}, {1, 16, 8, 16},
                                       {{"perm", {std::vector<std::int64_t>{0, 2, 1, 3}}}}));
        else
            g.outputs.push_back(tg::op(g, c, "Sigmoid", {p}, {1, 8, 16, 16}));
    }
    return g;
}

// --- §3.4 Algo. 4 and §3.5 Fig. 9 ------------------------------------------

TEST(GraphTurboFig9, BindingMismatchPutsTheProducerInGbAndCopiesItBack)
{
    // Fig. 9 left: the two consumers infer [1,8,1,1] and [1,1,8,1] for P (line 12).
    const Graph g = fig9({"sigmoid", "transpose"});
    auto run = scheduleApart(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    ASSERT_EQ(p.kernels.size(), 3u);
    EXPECT_EQ(run->result.stats.at("gb_scopes"), 1);
    // P's output buffer lives in LLB, and a copy LLB → L1 feeds each consumer.
    const TensorId pt = g.node(0).outputs[0];
    int inGb = 0;
    for (const Buffer &b : p.buffers)
        inGb += b.tensor == pt && b.level == "LLB";
    EXPECT_EQ(inGb, 1);
    int copiesFromGb = 0;
    for (const Task &t : p.tasks)
        if (t.kind == TaskKind::Copy && t.label.find("LLB→L1") != std::string::npos) {
            ++copiesFromGb;
            EXPECT_FALSE(t.writes.empty()) << "a copy writes the consumer's working set: " << t.label;
        }
    EXPECT_EQ(copiesFromGb, 2);
    EXPECT_TRUE(verifyPlan(p, g, &stcp920()).isOk()) << verifyPlan(p, g, &stcp920()).str();
    expectSameOutputs(g, p);
}

TEST(GraphTurboFig9, PlainBindingReplacingTheInferredOneInsertsARedistribution)
{
    // Fig. 9 right: the transpose infers P bound along rows [1,1,8,1]; at P (line 16) the plain
    // binding [1,8,1,1] uses as many cores, so it wins, and the slice is exchanged between cores.
    const Graph g = fig9({"transpose"});
    auto run = scheduleApart(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_EQ(run->result.stats.at("gb_scopes"), 0);
    ASSERT_EQ(countKind(p, TaskKind::Redistribute), 1);
    const auto it =
        std::find_if(p.tasks.begin(), p.tasks.end(), [](const Task &t) { return t.kind == TaskKind::Redistribute; });
    EXPECT_FALSE(it->reads.empty());
    ASSERT_FALSE(it->writes.empty());
    for (BufferId b : it->writes)
        EXPECT_EQ(p.buffers[static_cast<std::size_t>(b)].level, "L1");
    EXPECT_GT(it->cost.syncNs, 0) << "a redistribution synchronises the cores";
    EXPECT_TRUE(verifyPlan(p, g, &stcp920()).isOk());
    EXPECT_GT(simMs(g, p), 0) << "the simulator runs the exchange";
    expectSameOutputs(g, p);
}

TEST(GraphTurboFig9, MatchingBindingsNeedNoDataMovement)
{
    // Negative twin: element-wise consumers infer P's own binding, so P stays in L1 and is read
    // in place: no GB scope, no copy of P, no redistribution.
    const Graph g = fig9({"sigmoid", "sigmoid2"});
    auto run = scheduleApart(g, stcp920());
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_EQ(run->result.stats.at("gb_scopes"), 0);
    EXPECT_EQ(countKind(p, TaskKind::Redistribute), 0);
    for (const Task &t : p.tasks)
        EXPECT_EQ(t.label.find("slices of sg0"), std::string::npos) << t.label;
    EXPECT_TRUE(verifyPlan(p, g, &stcp920()).isOk());
    expectSameOutputs(g, p);
}

// --- §4.4 across-layer instruction scheduling (Fig. 13) ---------------------

// A chain of `layers` MatMul + Relu layers on [64, 384] with 384 × 384 weights (576 KiB each,
// which fit LLB beside the activations it holds).
Graph fcChain(int layers)
{
    Graph g;
    g.name = "fc";
    TensorId x = tg::tensor(g, "x", {64, 384}, Tensor::Kind::Input);
    g.inputs = {x};
    for (int i = 0; i < layers; ++i) {
        const std::string p = "fc" + std::to_string(i);
        x = tg::op(g, p + "/mm", "MatMul", {x, tg::weight(g, p + "/w", {384, 384})}, {64, 384});
        x = tg::op(g, p + "/relu", "Relu", {x}, {64, 384});
    }
    g.outputs = {x};
    return g;
}

int aheadPromotions(const ExecutionPlan &p)
{
    return static_cast<int>(std::count_if(p.tasks.begin(), p.tasks.end(), [](const Task &t) {
        return t.kind == TaskKind::Copy && t.label.find("(ahead)") != std::string::npos;
    }));
}

TEST(GraphTurboFig13, WeightPromotionOverlapsThePreviousLayerOnTheSimulator)
{
    const Graph g = fcChain(6);
    auto full = scheduleApart(g, stcp920(), {{"clusters", "1"}, {"variant", "full"}});
    auto split = scheduleApart(g, stcp920(), {{"clusters", "1"}, {"variant", "split"}});
    ASSERT_TRUE(full.isOk()) << full.status().str();
    ASSERT_TRUE(split.isOk()) << split.status().str();
    const ExecutionPlan &pf = full->result.plan;
    const ExecutionPlan &ps = split->result.plan;
    // Same work: the same sub-graphs, instances and weight promotions ...
    EXPECT_EQ(pf.kernels.size(), ps.kernels.size());
    EXPECT_EQ(full->result.stats.at("weight_promotions"), 6);
    EXPECT_EQ(split->result.stats.at("weight_promotions"), 6);
    // ... but five of them are issued while the layer before computes, bound to no core.
    EXPECT_EQ(aheadPromotions(pf), 5);
    for (const Task &t : pf.tasks)
        if (t.label.find("(ahead)") != std::string::npos) {
            EXPECT_EQ(t.binding.core, -1);
            EXPECT_EQ(t.binding.cluster, 0);
        }
    EXPECT_TRUE(verifyPlan(pf, g, &stcp920()).isOk()) << verifyPlan(pf, g, &stcp920()).str();
    EXPECT_TRUE(verifyPlan(ps, g, &stcp920()).isOk());
    const double tf = simMs(g, pf), ts = simMs(g, ps);
    EXPECT_LT(tf, ts) << "full " << tf << " ms, split " << ts << " ms";
    expectSameOutputs(g, pf);
}

TEST(GraphTurboFig13, WithoutWeightsThereIsNothingToHide)
{
    // Negative twin: a chain of element-wise layers has no weights to promote, so across-layer
    // scheduling issues nothing ahead.
    Graph g;
    g.name = "relus";
    TensorId x = tg::tensor(g, "x", {64, 384}, Tensor::Kind::Input);
    g.inputs = {x};
    for (int i = 0; i < 4; ++i)
        x = tg::op(g, "r" + std::to_string(i), i % 2 ? "Relu" : "Sigmoid", {x}, {64, 384});
    g.outputs = {x};
    auto full = scheduleApart(g, stcp920(), {{"clusters", "1"}, {"variant", "full"}});
    ASSERT_TRUE(full.isOk()) << full.status().str();
    EXPECT_EQ(full->result.stats.at("weight_promotions"), 0);
    EXPECT_EQ(aheadPromotions(full->result.plan), 0);
    EXPECT_TRUE(verifyPlan(full->result.plan, g, &stcp920()).isOk());
}

TEST(GraphTurboFig13, ComputeUnitsGetTheirOwnQueues)
{
    // Fig. 13's "CUs execute different computation tasks": in f16 the MatMuls run on the MME and
    // the Relus on the VME; the full variant queues them per unit (one stream each), so the
    // simulator runs a Relu of one layer beside the MatMul of the next where no edge forbids it.
    Graph g = fcChain(4);
    for (std::size_t t = 0; t < g.tensorCount(); ++t)
        g.tensor(static_cast<TensorId>(t)).dtype = DType::Float16;
    auto full = scheduleApart(g, stcp920(), {{"clusters", "1"}, {"variant", "full"}});
    auto split = scheduleApart(g, stcp920(), {{"clusters", "1"}, {"variant", "split"}});
    ASSERT_TRUE(full.isOk()) << full.status().str();
    ASSERT_TRUE(split.isOk()) << split.status().str();
    std::set<std::int32_t> streams;
    for (const Task &t : full->result.plan.tasks)
        if (t.kind == TaskKind::Compute) {
            streams.insert(t.binding.stream);
            EXPECT_EQ(t.binding.unit, -1) << "every node runs on its own unit";
        }
    EXPECT_EQ(streams.size(), 2u);
    for (const Task &t : split->result.plan.tasks)
        EXPECT_EQ(t.binding.stream, -1) << "negative twin: no per-unit queues without §4.4";
    EXPECT_TRUE(verifyPlan(full->result.plan, g, &stcp920()).isOk());
    EXPECT_LE(simMs(g, full->result.plan), simMs(g, split->result.plan));
}

// §4.4's overlap within a layer: one MatMul on x [768, 256] (768 KiB) with a 256 × 256 weight,
// whose 1.5 MiB footprint splits into four instances along the rows on STCP920's 512 KiB LB;
// each instance copies its slice of x from DDR into its working set.
Graph oneLayer()
{
    Graph g;
    g.name = "fc1";
    const TensorId x = tg::tensor(g, "x", {768, 256}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {tg::op(g, "mm", "MatMul", {x, tg::weight(g, "w", {256, 256})}, {768, 256})};
    return g;
}

// Pairs (load, compute) of the simulated timeline that ran at the same time: a copy into an
// instance's working set beside another instance's compute.
int loadsBesideCompute(const Graph &g, const ExecutionPlan &p)
{
    auto r = simRun(g, p);
    EXPECT_TRUE(r.isOk()) << r.status().str();
    if (!r)
        return -1;
    int pairs = 0;
    for (const TaskTiming &a : r->timeline)
        for (const TaskTiming &b : r->timeline) {
            const Task &ta = p.tasks[static_cast<std::size_t>(a.task)];
            const Task &tb = p.tasks[static_cast<std::size_t>(b.task)];
            if (ta.kind == TaskKind::Copy && ta.label.rfind("copy input", 0) == 0 && tb.kind == TaskKind::Compute &&
                a.startNs < b.endNs && b.startNs < a.endNs) {
                ++pairs;
            }
        }
    return pairs;
}

TEST(GraphTurboFig13, InstanceLoadsRunBesideThePreviousInstancesCompute)
{
    const Graph g = oneLayer();
    auto full = schedule(g, stcp920(), {}, {{"clusters", "1"}, {"variant", "full"}});
    ASSERT_TRUE(full.isOk()) << full.status().str(); // scheduleGraph verifies the plan
    const ExecutionPlan &p = full->result.plan;
    ASSERT_EQ(full->result.stats.at("instances"), 4);
    // Instance i + 1's load does not wait for instance i's compute (it reuses the space of
    // instance i - 1's working set, not of i's) ...
    TaskId previous = -1;
    int loads = 0;
    for (const Task &t : p.tasks) {
        if (t.kind == TaskKind::Compute)
            previous = t.id;
        if (t.kind != TaskKind::Copy || t.label.rfind("copy input", 0) != 0)
            continue;
        ++loads;
        EXPECT_EQ(std::count(t.deps.begin(), t.deps.end(), previous), 0) << t.label;
    }
    EXPECT_EQ(loads, 4);
    // ... so the simulator runs three of the four loads beside an instance's compute.
    EXPECT_GE(loadsBesideCompute(g, p), 3);
    expectSameOutputs(g, p);
}

TEST(GraphTurboFig13, WithoutAcrossLayerSchedulingEachLoadWaitsForTheComputeBefore)
{
    // Negative twin: the split variant (no §4.4) runs loads and compute in turn on the cores.
    const Graph g = oneLayer();
    auto split = schedule(g, stcp920(), {}, {{"clusters", "1"}, {"variant", "split"}});
    ASSERT_TRUE(split.isOk()) << split.status().str();
    ASSERT_EQ(split->result.stats.at("instances"), 4);
    EXPECT_EQ(loadsBesideCompute(g, split->result.plan), 0);
    expectSameOutputs(g, split->result.plan);
}

// --- §5.3 variants (Fig. 15) -------------------------------------------------

TEST(GraphTurboVariants, EachVariantIsAValidPlan)
{
    const Graph g = fcChain(3);
    for (const std::string v : {"llb", "l1", "split", "full"}) {
        auto run = schedule(g, stcp920(), {}, {{"clusters", "1"}, {"variant", v}});
        ASSERT_TRUE(run.isOk()) << v << ": " << run.status().str();
        EXPECT_TRUE(verifyPlan(run->result.plan, g, &stcp920()).isOk()) << v;
        expectSameOutputs(g, run->result.plan);
        EXPECT_GT(simMs(g, run->result.plan), 0) << v;
    }
    // Negative twin: an unknown variant is a usage error naming the choices.
    auto bad = schedule(g, stcp920(), {}, {{"variant", "fast"}});
    ASSERT_FALSE(bad.isOk());
    EXPECT_NE(bad.status().str().find("full"), std::string::npos) << bad.status().str();
}

} // namespace

namespace {

// --- Each instance's binding is a decision (issue 14, "Decisions") ----------------

const DecisionRecord *instanceBinding(const ScheduleRun &run, bool needAlternative)
{
    for (const DecisionRecord &r : run.decisions.records()) {
        if (r.role != "graphturbo.instance_bind")
            continue;
        if (!needAlternative)
            return &r;
        for (std::size_t i = 0; i < r.options.size(); ++i)
            if (static_cast<std::int32_t>(i) != r.chosen && r.options[i].legal())
                return &r;
    }
    return nullptr;
}

std::vector<std::pair<std::string, int>> computeCores(const ExecutionPlan &p)
{
    std::vector<std::pair<std::string, int>> out;
    for (const Task &t : p.tasks)
        if (t.kind == TaskKind::Compute)
            out.emplace_back(t.label, t.binding.coreCount);
    return out;
}

TEST(GraphTurboInstanceBinding, ForcingAnInstanceBindingReplaysAndStillVerifies)
{
    const Graph g = tg::residualChain(2);
    auto base = schedule(g, stcp920());
    ASSERT_TRUE(base.isOk()) << base.status().str();
    const DecisionRecord *r = instanceBinding(*base, true);
    ASSERT_NE(r, nullptr) << "an instance with another legal binding";
    std::string other;
    int otherCores = 0;
    for (std::size_t i = 0; i < r->options.size() && other.empty(); ++i)
        if (static_cast<std::int32_t>(i) != r->chosen && r->options[i].legal()) {
            other = r->options[i].id;
            otherCores = std::stoi(r->options[i].label);
        }
    const std::string key = r->key;
    auto forced = schedule(g, stcp920(), {{key, other}});
    ASSERT_TRUE(forced.isOk()) << forced.status().str();
    const DecisionRecord *again = forced->decisions.find(key);
    ASSERT_NE(again, nullptr);
    EXPECT_TRUE(again->overridden);
    EXPECT_EQ(again->options[static_cast<std::size_t>(again->chosen)].id, other);
    EXPECT_NE(computeCores(forced->result.plan), computeCores(base->result.plan)) << "the plan changed";
    bool found = false;
    for (const Task &t : forced->result.plan.tasks)
        found |= t.kind == TaskKind::Compute && t.label.find("bind " + other) != std::string::npos &&
                 t.binding.coreCount == otherCores;
    EXPECT_TRUE(found) << "a compute task runs on the forced " << other;
    EXPECT_TRUE(verifyPlan(forced->result.plan, g, &stcp920()).isOk());
    expectSameOutputs(g, forced->result.plan);
}

TEST(GraphTurboInstanceBinding, AnOverrideExceedingLbIsRejectedWithTheReason)
{
    // Relu of [1, 64, 32, 32] f32: input and output take 512 KiB, L1 holds 64 KiB per core, so
    // the instance needs all eight cores; one core would need all of it.
    Graph g;
    g.name = "wide_relu";
    const TensorId x = tg::tensor(g, "x", {1, 64, 32, 32}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {tg::op(g, "relu", "Relu", {x}, {1, 64, 32, 32})};
    auto base = schedule(g, stcp920());
    ASSERT_TRUE(base.isOk()) << base.status().str();
    const DecisionRecord *r = instanceBinding(*base, false);
    ASSERT_NE(r, nullptr);
    const auto one = std::find_if(r->options.begin(), r->options.end(),
                                  [](const DecisionOption &o) { return std::stoi(o.label) == 1; });
    ASSERT_NE(one, r->options.end());
    EXPECT_FALSE(one->legal());
    const std::string key = r->key;
    const std::string oneId = one->id;
    auto forced = schedule(g, stcp920(), {{key, oneId}});
    ASSERT_TRUE(forced.isOk()) << forced.status().str();
    const auto reports = forced->decisions.overrideReports();
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports.front().outcome, OverrideReport::Outcome::Rejected);
    EXPECT_NE(reports.front().reason.find("LB holds 65536 B per core"), std::string::npos) << reports.front().reason;
    EXPECT_FALSE(forced->decisions.find(key)->overridden);
    EXPECT_EQ(computeCores(forced->result.plan), computeCores(base->result.plan)) << "Algo. 4's binding kept";
}

} // namespace

namespace {

// --- §4.1 hoisting promoted weights GB → LB as tasks (option hoist) ---------------

int hoists(const ExecutionPlan &p)
{
    int n = 0;
    for (const Task &t : p.tasks)
        n += t.kind == TaskKind::Copy && t.label.rfind("hoist weights", 0) == 0;
    return n;
}

TEST(GraphTurboHoist, PromotedWeightsAreHoistedIntoLbBeforeTheirInstances)
{
    std::map<std::string, std::string> options = kOneCluster;
    options["hoist"] = "true";
    const Graph g = tg::residualChain(2);
    auto run = schedule(g, stcp920(), {}, options);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const ExecutionPlan &p = run->result.plan;
    EXPECT_GT(hoists(p), 0);
    EXPECT_EQ(run->result.stats.at("weight_hoists"), hoists(p));
    for (const Task &t : p.tasks) {
        if (t.kind != TaskKind::Copy || t.label.rfind("hoist weights", 0) != 0)
            continue;
        ASSERT_EQ(t.reads.size(), 1u);
        EXPECT_EQ(p.buffers[static_cast<std::size_t>(t.reads.front())].level, "LLB") << t.label;
        for (BufferId b : t.writes)
            EXPECT_EQ(p.buffers[static_cast<std::size_t>(b)].level, "L1") << t.label;
        // The compute task it feeds depends on it and reads what it wrote.
        bool fed = false;
        for (const Task &c : p.tasks)
            if (c.kind == TaskKind::Compute && std::count(c.deps.begin(), c.deps.end(), t.id))
                fed |= std::find(c.reads.begin(), c.reads.end(), t.writes.front()) != c.reads.end();
        EXPECT_TRUE(fed) << t.label;
    }
    EXPECT_TRUE(verifyPlan(p, g, &stcp920()).isOk());
    expectSameOutputs(g, p);
    // Off (the default): no hoist task, the same promotions.
    auto off = schedule(g, stcp920());
    ASSERT_TRUE(off.isOk()) << off.status().str();
    EXPECT_EQ(hoists(off->result.plan), 0);
    EXPECT_EQ(off->result.stats.at("weight_promotions"), run->result.stats.at("weight_promotions"));
}

TEST(GraphTurboHoist, WeightsThatDoNotFitBesideTheWorkingSetStayInGb)
{
    // Twin: 256 B of L1 per core cannot take a convolution's 2304 B of weights over 8 cores
    // (288 B each): the kernels read them from LLB, no hoist task.
    Device d = stcp920();
    d.levels.front().capacityBytes = 256;
    std::map<std::string, std::string> options = kOneCluster;
    options["hoist"] = "true";
    const Graph g = tg::residualChain(2);
    auto run = schedule(g, d, {}, options);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_GT(run->result.stats.at("weight_promotions"), 0);
    EXPECT_EQ(hoists(run->result.plan), 0);
    EXPECT_TRUE(verifyPlan(run->result.plan, g, &d).isOk());
}

} // namespace
