// Scheduling framework: options, decisions and overrides, baselines, replay.
#include "core/cost/devicecost.h"
#include "core/hw/device.h"
#include "core/plan/verify.h"
#include "core/sched/scheduler.h"
#include "plugins/greedy/greedy.h"
#include "plugins/layerfusion/layerfusion.h"
#include "plugins/sequential/sequential.h"

#include <gtest/gtest.h>

#include "tests/common/testgraphs.h"

using namespace tessera;

namespace {

Device smallDsa()
{
    Device d;
    d.id = "test-dsa";
    d.name = "Test DSA";
    d.kind = DeviceKind::Dsa;
    d.topology = {2, 4, 2};
    d.levels = {{"L1", MemoryScope::PerCore, 64 << 10, 1e12, 32, 32, 1, 0.5},
                {"DDR", MemoryScope::Shared, std::int64_t(8) << 30, 1e11, 64, 64, 100, 20}};
    ComputeUnit v;
    v.kind = UnitKind::Vector;
    v.name = "VEC";
    v.peakOpsPerSec = {{DType::Float32, 1e12}};
    v.opClasses = {OpClass::Gemm, OpClass::Elementwise, OpClass::Reduction, OpClass::Movement, OpClass::Other};
    d.units = {v};
    d.overheads.kernelLaunchNs = 1000;
    d.overheads.syncNs = 2000;
    return d;
}

struct Fixture {
    Device device = smallDsa();
    DeviceCostModel cost{device};
    ScheduleRequest request(const Graph &g)
    {
        ScheduleRequest r;
        r.graph = &g;
        r.device = &device;
        r.cost = &cost;
        return r;
    }
};

} // namespace

TEST(Options, ResolveDefaultsAndUserValues)
{
    std::vector<OptionSpec> specs{
        {"r", OptionSpec::Kind::Int, std::int64_t{3}, "ops per group", 1, 64, {}},
        {"strategy", OptionSpec::Kind::Enum, std::string("both"), "", 0, 0, {"merge", "parallel", "both"}}};
    auto v = OptionValues::resolve(specs, {{"r", "5"}});
    ASSERT_TRUE(v.isOk()) << v.status().str();
    EXPECT_EQ(v->getInt("r"), 5);
    EXPECT_EQ(v->getString("strategy"), "both");
}

TEST(Options, RejectsUnknownKeysBadValuesAndRanges)
{
    std::vector<OptionSpec> specs{
        {"r", OptionSpec::Kind::Int, std::int64_t{3}, "", 1, 64, {}},
        {"strategy", OptionSpec::Kind::Enum, std::string("both"), "", 0, 0, {"merge", "both"}}};
    auto unknown = OptionValues::resolve(specs, {{"q", "1"}});
    ASSERT_FALSE(unknown.isOk());
    EXPECT_NE(unknown.status().message().find("valid: r, strategy"), std::string::npos);
    EXPECT_EQ(unknown.status().code(), ErrorCode::Usage);
    EXPECT_FALSE(OptionValues::resolve(specs, {{"r", "x"}}).isOk());
    EXPECT_FALSE(OptionValues::resolve(specs, {{"r", "0"}}).isOk());
    auto choice = OptionValues::resolve(specs, {{"strategy", "fast"}});
    ASSERT_FALSE(choice.isOk());
    EXPECT_NE(choice.status().message().find("valid: merge, both"), std::string::npos);
    EXPECT_FALSE(parseOptionAssignment("noequals").isOk());
}

TEST(Decisions, KeysAreSortedAndBounded)
{
    EXPECT_EQ(decisionKey("role", {"b", "a"}), decisionKey("role", {"a", "b"}));
    EXPECT_EQ(decisionKey("role", {"a", "b"}), "role:a|b");
    std::vector<std::string> many;
    for (int i = 0; i < 100; ++i)
        many.push_back("layer" + std::to_string(i) + "/conv");
    const std::string k = decisionKey("ios.ending", many);
    EXPECT_LT(k.size(), 120u);
    many.back() = "other";
    EXPECT_NE(decisionKey("ios.ending", many), k);
}

TEST(Decisions, OverrideAppliedRejectedAndStale)
{
    DecisionContext ctx({{"k1", "b"}, {"k2", "zz"}, {"k3", "c"}, {"gone", "x"}});
    std::vector<DecisionOption> opts{
        {"a", "A", 1, {}, {}}, {"b", "B", 2, {}, {}}, {"c", "C", 3, {}, "exceeds L1 capacity"}};
    EXPECT_EQ(ctx.decide("k1", "r", opts, 0), 1);
    EXPECT_EQ(ctx.decide("k2", "r", opts, 0), 0);
    EXPECT_EQ(ctx.decide("k3", "r", opts, 0), 0);
    EXPECT_EQ(ctx.decide("k4", "r", opts, 1), 1);
    auto reports = ctx.overrideReports();
    ASSERT_EQ(reports.size(), 4u);
    EXPECT_EQ(reports[0].outcome, OverrideReport::Outcome::Applied);
    EXPECT_EQ(reports[1].outcome, OverrideReport::Outcome::Rejected);
    EXPECT_NE(reports[1].reason.find("no longer exists"), std::string::npos);
    EXPECT_EQ(reports[2].outcome, OverrideReport::Outcome::Rejected);
    EXPECT_NE(reports[2].reason.find("exceeds L1 capacity"), std::string::npos);
    EXPECT_EQ(reports[3].outcome, OverrideReport::Outcome::Stale);
    EXPECT_EQ(reports[3].key, "gone");
    EXPECT_TRUE(ctx.find("k1")->overridden);
    EXPECT_FALSE(ctx.find("k4")->overridden);
}

TEST(Baselines, SequentialRunsEveryOperatorOnce)
{
    Fixture f;
    Graph g = testgraphs::residualChain(2); // 10 nodes, 4 operators with their epilogues
    auto run = runSchedule(*createSequentialScheduler(), f.request(g));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.plan.kernels.size(), 4u);
    EXPECT_EQ(run->decisions.records().size(), 4u);
    EXPECT_EQ(run->trace.size(), 4u);
    std::size_t nodes = 0;
    for (const Kernel &k : run->result.plan.kernels)
        nodes += k.nodes.size();
    EXPECT_EQ(nodes, g.nodeCount());
    EXPECT_GT(run->result.plan.estimatedLatencyNs(), 0);
}

TEST(Baselines, GreedyPutsReadyOperatorsInOneStage)
{
    Fixture f;
    Graph g = testgraphs::fan(4);
    auto run = runSchedule(*createGreedyScheduler(), f.request(g));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("stages"), 2);
    EXPECT_EQ(run->result.stats.at("max_stage_width"), 4);
    // Four relus on four streams, then a barrier, the concat, a barrier.
    int barriers = 0;
    for (const Task &t : run->result.plan.tasks)
        barriers += t.kind == TaskKind::Barrier;
    EXPECT_EQ(barriers, 2);
}

TEST(Baselines, GreedyOverrideSerialisesAStage)
{
    Fixture f;
    Graph g = testgraphs::fan(3);
    const std::string key = decisionKey("greedy.stage", {"r0", "r1", "r2"});
    auto run = runSchedule(*createGreedyScheduler(), f.request(g), {{key, "only:r1"}});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.stats.at("max_stage_width"), 2); // r1 alone, then r0 and r2
    ASSERT_EQ(run->overrideReports.size(), 1u);
    EXPECT_EQ(run->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
}

TEST(Baselines, LayerFusionFusesConvReluAndResidualAdd)
{
    Fixture f;
    Graph g = testgraphs::residualChain(3);
    auto run = runSchedule(*createLayerFusionScheduler(), f.request(g));
    ASSERT_TRUE(run.isOk()) << run.status().str();
    // Per block: {conv1, relu1} and {conv2, add, relu2}.
    EXPECT_EQ(run->result.plan.kernels.size(), 6u);
    EXPECT_EQ(run->result.stats.at("fused_ops"), 9);
}

TEST(Baselines, LayerFusionOverrideSplitsAKernelAndStaleKeysAreReported)
{
    Fixture f;
    Graph g = testgraphs::residualChain(1);
    Overrides o{{decisionKey("layer-fusion.fuse", {"block0/relu1"}), "separate"},
                {decisionKey("layer-fusion.fuse", {"no-such-node"}), "separate"}};
    auto run = runSchedule(*createLayerFusionScheduler(), f.request(g), o);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_EQ(run->result.plan.kernels.size(), 3u);
    int applied = 0, stale = 0;
    for (const auto &r : run->overrideReports) {
        applied += r.outcome == OverrideReport::Outcome::Applied;
        stale += r.outcome == OverrideReport::Outcome::Stale;
    }
    EXPECT_EQ(applied, 1);
    EXPECT_EQ(stale, 1);
}

TEST(Replay, SameOverridesGiveTheSamePlan)
{
    Fixture f;
    Graph g = testgraphs::residualChain(4);
    Overrides o{{decisionKey("layer-fusion.fuse", {"block2/add"}), "separate"}};
    auto a = runSchedule(*createLayerFusionScheduler(), f.request(g), o);
    auto b = runSchedule(*createLayerFusionScheduler(), f.request(g), o);
    ASSERT_TRUE(a.isOk() && b.isOk());
    ASSERT_EQ(a->result.plan.tasks.size(), b->result.plan.tasks.size());
    for (std::size_t i = 0; i < a->result.plan.tasks.size(); ++i) {
        EXPECT_EQ(a->result.plan.tasks[i].deps, b->result.plan.tasks[i].deps);
        EXPECT_EQ(a->result.plan.tasks[i].label, b->result.plan.tasks[i].label);
        EXPECT_DOUBLE_EQ(a->result.plan.tasks[i].cost.timeNs, b->result.plan.tasks[i].cost.timeNs);
    }
    ASSERT_EQ(a->decisions.records().size(), b->decisions.records().size());
    for (std::size_t i = 0; i < a->decisions.records().size(); ++i)
        EXPECT_EQ(a->decisions.records()[i].key, b->decisions.records()[i].key);
}

// Issue 18: `--algo IOS` failed although the README writes "IOS".
TEST(Registry, AlgorithmNamesMatchWithoutRegardToCase)
{
    SchedulerRegistry reg;
    reg.add(createGreedyScheduler());
    auto upper = reg.get("GREEDY");
    ASSERT_TRUE(upper.isOk()) << upper.status().str();
    EXPECT_EQ((*upper)->info().name, "greedy"); // the registered spelling
    EXPECT_EQ(reg.find("Greedy"), reg.find("greedy"));
    EXPECT_EQ(reg.find("greedy2"), nullptr); // the same letters, not a prefix
    EXPECT_EQ(reg.find("gready"), nullptr);
}

TEST(Registry, UnknownAlgorithmListsKnownOnes)
{
    SchedulerRegistry reg;
    reg.add(createSequentialScheduler());
    reg.add(createGreedyScheduler());
    EXPECT_TRUE(reg.get("greedy").isOk());
    auto bad = reg.get("magic");
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.status().code(), ErrorCode::Usage);
    EXPECT_NE(bad.status().message().find("known: sequential, greedy"), std::string::npos);
}
