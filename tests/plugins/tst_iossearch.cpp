// The IOS search (plugins/ios): the thesis' worked examples (Fig. 3.4, the
// sequential and greedy schedules of §4.2, Table 3.1's largest blocks),
// pruning, overrides of choice[S], the too-wide message, the analytic stage
// latency model's §2.3 effects, unit formation and the scheduler end to end.
#include "core/cost/devicecost.h"
#include "core/plan/verify.h"
#include "core/sched/session.h"
#include "plugins/greedy/greedy.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/iosnetworks.h"
#include "plugins/ios/iossearch.h"
#include "plugins/ios/iosunits.h"
#include "plugins/sequential/sequential.h"

#include <cmath>
#include <numeric>

#include "tests/common/testgraphs.h"
#include "tests/plugins/iostest.h"

using namespace tessera;
using namespace tessera::iostest;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

// Fig. 3.4 (1): a → b, and c independent of both.
Graph fig34()
{
    Graph g;
    g.name = "fig34";
    const TensorId x = tensor(g, "x", {1, 8, 8, 8}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = op(g, "a", "Relu", {x}, {1, 8, 8, 8});
    const TensorId b = op(g, "b", "Relu", {a}, {1, 8, 8, 8});
    const TensorId c = op(g, "c", "Relu", {x}, {1, 8, 8, 8});
    g.outputs = {b, c};
    return g;
}

IosSearchOptions unpruned(bool merge = false)
{
    IosSearchOptions o;
    o.merge = merge;
    o.maxGroupSize = 64;
    o.maxGroups = 64;
    return o;
}

// An Inception-like block of bare convolutions (one node per unit):
// x → {1x1 a; 1x1 b → 3x3 b2; maxpool p → 1x1 p2} → concat.
Graph convBlock()
{
    Graph g;
    g.name = "conv_block";
    const TensorId x = tensor(g, "x", {1, 64, 17, 17}, Tensor::Kind::Input);
    g.inputs = {x};
    auto conv = [&](const std::string &name, TensorId in, std::int64_t cin, std::int64_t cout, std::int64_t k) {
        const std::int64_t p = k / 2;
        return op(
            g, name, "Conv", {in, weight(g, name + "/w", {cout, cin, k, k})}, {1, cout, 17, 17},
            {{"kernel_shape", {std::vector<std::int64_t>{k, k}}}, {"pads", {std::vector<std::int64_t>{p, p, p, p}}}});
    };
    const TensorId a = conv("a", x, 64, 64, 1);
    const TensorId b = conv("b", x, 64, 48, 1);
    const TensorId b2 = conv("b2", b, 48, 64, 3);
    const TensorId p =
        op(g, "p", "MaxPool", {x}, {1, 64, 17, 17},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    const TensorId p2 = conv("p2", p, 64, 32, 1);
    g.outputs = {op(g, "cat", "Concat", {a, b2, p2}, {1, 160, 17, 17}, {{"axis", {std::int64_t{1}}}})};
    return g;
}

double scheduleNs(const StageLatencyModel &m, const IosSchedule &s)
{
    double total = 0;
    for (const IosStage &st : s.stages)
        total += m.stageNs(st.strategy, st.groups);
    return total;
}

// The unit names of a stage, sorted, whatever its grouping.
std::vector<std::string> stageUnits(const IosUnitSet &units, const IosStage &stage)
{
    std::vector<std::string> out;
    for (const auto &g : stage.groups)
        for (std::int32_t u : g)
            out.push_back(units.units[static_cast<std::size_t>(u)].name);
    std::sort(out.begin(), out.end());
    return out;
}

// The unit names of a stage id "a,b | c", sorted.
std::vector<std::string> idUnits(const std::string &id)
{
    std::vector<std::string> out;
    std::string cur;
    for (char ch : id + ",") {
        if (ch == ',' || ch == '|') {
            if (!cur.empty())
                out.push_back(cur);
            cur.clear();
        } else if (ch != ' ') {
            cur += ch;
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

// ---- Fig. 3.4 -------------------------------------------------------------------

TEST(IosFig34, SixStatesTwelveTransitionsAndTheSchedule)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs = {1, 2, 2}; // a, b, c
    lat.gapNs = 5;          // running two operators in one group costs a gap
    auto r = iosSearch(g, units, lat, unpruned());
    ASSERT_TRUE(r.isOk()) << r.status().str();
    ASSERT_EQ(r->parts.size(), 1u);
    EXPECT_EQ(r->parts[0].states, 6);       // {a,b,c} {a,b} {a,c} {a} {c} ∅
    EXPECT_EQ(r->parts[0].transitions, 12); // steps ① to ⑫
    EXPECT_EQ(r->parts[0].schedules, 8);    // paths from {a,b,c} to ∅
    EXPECT_EQ(r->parts[0].width, 2);
    // Two concurrent stages: {a}, then b and c side by side.
    EXPECT_EQ(scheduleText(units, r->schedule), "a ; b | c");
    EXPECT_DOUBLE_EQ(r->optimumNs, 5);
    for (const IosStage &s : r->schedule.stages)
        EXPECT_EQ(s.strategy, IosStrategy::Concurrent);
}

TEST(IosFig34, OneGroupPerStageLeavesOnlySequentialSchedules)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs = {1, 2, 2};
    IosSearchOptions o = unpruned();
    o.maxGroups = 1;
    o.maxGroupSize = 1;
    auto r = iosSearch(g, units, lat, o);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(r->parts[0].states, 6); // pruning removes stages, not states
    EXPECT_EQ(r->parts[0].transitions, 7);
    EXPECT_EQ(r->parts[0].schedules, 3); // a b c, a c b, c a b
    EXPECT_EQ(r->schedule.stages.size(), 3u);
}

TEST(IosFig34, SearchLogExposesTheDpTable)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs = {1, 2, 2};
    lat.gapNs = 5;
    IosSearchLog log;
    IosSearchContext ctx;
    ctx.log = &log;
    ASSERT_TRUE(iosSearch(g, units, lat, unpruned(), ctx).isOk());
    ASSERT_EQ(log.parts.size(), 1u);
    const IosDpTable &t = log.parts[0];
    EXPECT_TRUE(t.complete);
    ASSERT_EQ(t.states.size(), 6u);
    EXPECT_EQ(t.transitions.size(), 12u);
    EXPECT_TRUE(t.states[0].units.empty()); // ∅ first
    ASSERT_EQ(t.path.size(), 3u);           // {a,b,c} -> {a} -> ∅
    EXPECT_EQ(t.states[static_cast<std::size_t>(t.path[1])].units, std::vector<std::int32_t>{0});
    const IosDpTable::State &v = t.states[static_cast<std::size_t>(t.path[0])];
    EXPECT_DOUBLE_EQ(v.costNs, 5);
    ASSERT_GE(v.choice, 0);
    const IosDpTable::Transition &choice = t.transitions[static_cast<std::size_t>(v.choice)];
    EXPECT_EQ(choice.to, t.path[1]);
    EXPECT_DOUBLE_EQ(choice.totalNs, 5);
    EXPECT_EQ(choice.groups.size(), 2u);

    IosSearchLog small;
    small.maxTransitions = 5;
    ctx.log = &small;
    ASSERT_TRUE(iosSearch(g, units, lat, unpruned(), ctx).isOk());
    EXPECT_FALSE(small.parts[0].complete);
    EXPECT_TRUE(small.parts[0].transitions.empty());
    EXPECT_EQ(small.parts[0].states.size(), 6u);
}

// ---- §4.2: sequential and greedy as special cases ---------------------------------

TEST(IosSpecialCases, ROneSOneIsTheSequentialSchedule)
{
    const ImportResult &model = iosNetwork("inception_v3");
    const IosUnitSet units = iosUnits("inception_v3");
    const ModelStageLatency lat(model.graph, units, v100Cost());
    IosSearchOptions o;
    o.merge = false;
    o.maxGroupSize = 1;
    o.maxGroups = 1;
    auto r = iosSearch(model.graph, units, lat, o);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(r->schedule.stages.size(), 119u);
    for (const IosStage &s : r->schedule.stages)
        EXPECT_EQ(s.groups.size() * s.groups[0].size(), 1u);

    o.maxGroups = 8; // negative twin: with groups, fewer stages
    auto wide = iosSearch(model.graph, units, lat, o);
    ASSERT_TRUE(wide.isOk());
    EXPECT_LT(wide->schedule.stages.size(), 119u);
    EXPECT_LT(wide->optimumNs, r->optimumNs);
}

TEST(IosSpecialCases, GreedyAndSequentialPlansAreInTheSearchSpace)
{
    const Graph g = convBlock();
    const IosUnitSet units = unitsPerNode(g);
    const ModelStageLatency lat(g, units, v100Cost());
    const DeviceCostModel cost(v100());

    ScheduleRequest req;
    req.graph = &g;
    req.device = &v100();
    req.cost = &cost;
    auto greedy = runSchedule(*createGreedyScheduler(), req);
    ASSERT_TRUE(greedy.isOk()) << greedy.status().str();
    auto greedySchedule = iosScheduleFromPlan(greedy->result.plan, g, units);
    ASSERT_TRUE(greedySchedule.isOk()) << greedySchedule.status().str();
    EXPECT_EQ(static_cast<double>(greedySchedule->stages.size()), greedy->result.stats.at("stages"));
    EXPECT_EQ(scheduleText(units, *greedySchedule), "a | b | p ; b2 | p2 ; cat");

    auto sequential = runSchedule(*createSequentialScheduler(), req);
    ASSERT_TRUE(sequential.isOk());
    auto sequentialSchedule = iosScheduleFromPlan(sequential->result.plan, g, units);
    ASSERT_TRUE(sequentialSchedule.isOk()) << sequentialSchedule.status().str();
    EXPECT_EQ(sequentialSchedule->stages.size(), g.nodeCount());

    auto ios = iosSearch(g, units, lat, unpruned(true));
    ASSERT_TRUE(ios.isOk()) << ios.status().str();
    EXPECT_LE(ios->optimumNs, scheduleNs(lat, *greedySchedule) + 1e-6);
    EXPECT_LE(ios->optimumNs, scheduleNs(lat, *sequentialSchedule) + 1e-6);
    EXPECT_NEAR(ios->optimumNs, scheduleNs(lat, ios->schedule), 1e-6);

    // IOS-Parallel with r=1 and s=3 still contains greedy's stages here.
    IosSearchOptions narrow;
    narrow.merge = false;
    narrow.maxGroupSize = 1;
    narrow.maxGroups = 3;
    auto pruned = iosSearch(g, units, lat, narrow);
    ASSERT_TRUE(pruned.isOk());
    EXPECT_LE(pruned->optimumNs, scheduleNs(lat, *greedySchedule) + 1e-6);
    // ...but not with one group per stage (negative twin).
    narrow.maxGroups = 1;
    auto serial = iosSearch(g, units, lat, narrow);
    ASSERT_TRUE(serial.isOk());
    EXPECT_EQ(serial->schedule.stages.size(), g.nodeCount());
}

// ---- Table 3.1 and pruning -----------------------------------------------------------

TEST(IosTable31, LargestBlocksMatchTheThesis)
{
    // Thesis Table 3.1, largest block of each network: n, d, #(S,S') and
    // #schedules, for the unpruned concurrent-execution search, to the two
    // significant digits it prints.
    struct Row {
        const char *network;
        std::size_t n;
        int d;
        double transitions, schedules;
    };
    auto digits = [](double v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%.2g", v);
        return std::string(buf);
    };
    for (const Row &row : {Row{"inception_v3", 11, 6, 4.9e3, 3.8e6}, Row{"squeezenet", 6, 3, 51, 1.3e2},
                           Row{"nasnet", 18, 8, 3.1e5, 7.2e12}, Row{"randwire", 33, 8, 1.2e6, 9.2e22}}) {
        const ImportResult &model = iosNetwork(row.network);
        const IosUnitSet units = iosUnits(row.network);
        const ModelStageLatency lat(model.graph, units, v100Cost());
        auto r = iosSearch(model.graph, units, lat, unpruned(false));
        ASSERT_TRUE(r.isOk()) << row.network;
        const IosPartStats *largest = &r->parts.front();
        for (const IosPartStats &p : r->parts) {
            EXPECT_LE(static_cast<double>(p.transitions), p.transitionBound) << row.network; // §3.3
            EXPECT_LE(static_cast<double>(p.states), p.stateBound) << row.network;
            if (p.transitions > largest->transitions)
                largest = &p;
        }
        std::printf("%-13s n=%zu d=%d states=%lld transitions=%lld schedules=%.3g bound=%.3g\n", row.network,
                    largest->units.size(), largest->width, static_cast<long long>(largest->states),
                    static_cast<long long>(largest->transitions), largest->schedules, largest->transitionBound);
        EXPECT_EQ(largest->units.size(), row.n) << row.network;
        EXPECT_EQ(largest->width, row.d) << row.network;
        EXPECT_EQ(digits(static_cast<double>(largest->transitions)), digits(row.transitions)) << row.network;
        EXPECT_EQ(digits(largest->schedules), digits(row.schedules)) << row.network;
    }
}

TEST(IosTable31, CountsAreDeterministicAndMergeAddsStages)
{
    for (const char *network : {"inception_v3", "squeezenet", "nasnet"}) {
        const ImportResult &model = iosNetwork(network);
        const IosUnitSet units = iosUnits(network);
        const ModelStageLatency lat(model.graph, units, v100Cost());
        auto both = iosSearch(model.graph, units, lat, unpruned(true));
        auto again = iosSearch(model.graph, units, lat, unpruned(true));
        auto parallel = iosSearch(model.graph, units, lat, unpruned(false));
        ASSERT_TRUE(both.isOk() && again.isOk() && parallel.isOk()) << network;
        double added = 0;
        for (std::size_t i = 0; i < both->parts.size(); ++i) {
            EXPECT_EQ(both->parts[i].states, again->parts[i].states);
            EXPECT_EQ(both->parts[i].transitions, again->parts[i].transitions);
            EXPECT_EQ(both->parts[i].schedules, again->parts[i].schedules);
            EXPECT_EQ(both->parts[i].states, parallel->parts[i].states); // strategies change stages, not states
            EXPECT_GT(both->parts[i].transitions, parallel->parts[i].transitions); // single-unit merges at least
            added += static_cast<double>(both->parts[i].transitions - parallel->parts[i].transitions);
        }
        EXPECT_EQ(scheduleText(units, both->schedule), scheduleText(units, again->schedule));
        EXPECT_LE(both->optimumNs, parallel->optimumNs * (1 + 1e-12)) << network; // a superset of stages
        std::printf("%-13s merge stages add %.0f transitions\n", network, added);
    }
}

TEST(IosPruning, SmallerRAndSShrinkTheSpaceMonotonically)
{
    const ImportResult &model = iosNetwork("inception_v3");
    const IosUnitSet units = iosUnits("inception_v3");
    const ModelStageLatency lat(model.graph, units, v100Cost());
    double lastTransitions = 0, lastOptimum = 1e300;
    for (auto [r, s] : {std::pair{1, 1}, {1, 3}, {1, 8}, {2, 8}, {3, 8}, {64, 64}}) {
        IosSearchOptions o;
        o.maxGroupSize = r;
        o.maxGroups = s;
        auto res = iosSearch(model.graph, units, lat, o);
        ASSERT_TRUE(res.isOk()) << res.status().str();
        double transitions = 0;
        for (const auto &p : res->parts)
            transitions += static_cast<double>(p.transitions);
        EXPECT_GE(transitions, lastTransitions) << "r=" << r << " s=" << s;
        EXPECT_LE(res->optimumNs, lastOptimum * (1 + 1e-12)) << "r=" << r << " s=" << s;
        lastTransitions = transitions;
        lastOptimum = res->optimumNs;
    }
}

TEST(IosPruning, OptionsOutOfRangeAreUsageErrors)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs = {1, 1, 1};
    IosSearchOptions o;
    o.maxGroupSize = 0;
    auto bad = iosSearch(g, units, lat, o);
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.status().code(), ErrorCode::Usage);
    EXPECT_NE(bad.status().message().find("r must be in [1, 64]"), std::string::npos);
    o.maxGroupSize = 3;
    o.maxGroups = 65;
    EXPECT_EQ(iosSearch(g, units, lat, o).status().code(), ErrorCode::Usage);
    o.maxGroups = 8;
    EXPECT_TRUE(iosSearch(g, units, lat, o).isOk());

    auto scheduler = createIosScheduler();
    auto resolved = OptionValues::resolve(scheduler->info().options, {{"s", "0"}});
    ASSERT_FALSE(resolved.isOk());
    EXPECT_EQ(resolved.status().code(), ErrorCode::Usage);
    EXPECT_TRUE(OptionValues::resolve(scheduler->info().options, {{"s", "64"}, {"r", "1"}}).isOk());
}

TEST(IosPruning, TooWideBlockGetsAClearMessageWithoutAutoCut)
{
    const Graph g = testgraphs::fan(40); // 40 independent units: 2^40 states
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs.assign(units.units.size(), 1);
    IosSearchOptions o;
    o.maxStates = 100000;
    o.autoCut = false;
    auto r = iosSearch(g, units, lat, o);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::Unsupported);
    const std::string m = r.status().message();
    EXPECT_NE(m.find("block 'block0' part 0 (41 units) has width 40"), std::string::npos) << m;
    EXPECT_NE(m.find("more than 100000 dp states"), std::string::npos) << m;
    EXPECT_NE(m.find("--option part_size="), std::string::npos) << m;
    EXPECT_NE(m.find("--option auto_cut=true"), std::string::npos) << m;

    o.partSize = 12; // negative twin: parts of 12 units fit
    auto parts = iosSearch(g, units, lat, o);
    ASSERT_TRUE(parts.isOk()) << parts.status().str();
    EXPECT_EQ(parts->parts.size(), 4u);
    EXPECT_EQ(parts->cuts, 0);
}

// 2^16 = 65536 down-sets fit under 100000, 2^17 do not: the 41 units are
// halved to 20 + 21, then 10 + 10 + 10 + 11 (widths 10 and 11), each searched
// optimally; every unit is scheduled exactly once, in list order of the parts.
TEST(IosPruning, TooWidePartIsCutInHalvesUntilEachFits)
{
    const Graph g = testgraphs::fan(40);
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs.assign(units.units.size(), 1);
    IosSearchOptions o;
    o.maxStates = 100000;
    Trace trace;
    IosSearchContext ctx;
    ctx.trace = &trace;
    auto r = iosSearch(g, units, lat, o, ctx);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(r->cuts, 3); // 41 → 20 + 21 → 10 + 10 + 10 + 11
    ASSERT_EQ(r->parts.size(), 4u);
    std::vector<std::size_t> sizes;
    std::vector<std::int32_t> seen;
    for (std::size_t i = 0; i < r->parts.size(); ++i) {
        EXPECT_EQ(r->parts[i].part, static_cast<std::int32_t>(i));
        EXPECT_LE(r->parts[i].states, o.maxStates);
        sizes.push_back(r->parts[i].units.size());
        seen.insert(seen.end(), r->parts[i].units.begin(), r->parts[i].units.end());
    }
    EXPECT_EQ(sizes, (std::vector<std::size_t>{10, 10, 10, 11}));
    std::vector<std::int32_t> all(units.units.size());
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(seen, all);
    int cutSteps = 0;
    for (const auto &step : trace.steps())
        cutSteps += step.phase == "S1: cut";
    EXPECT_EQ(cutSteps, 3);

    const Graph narrow = testgraphs::fan(12); // negative twin: 2^12 states fit, nothing is cut
    const IosUnitSet narrowUnits = unitsPerNode(narrow);
    lat.unitNs.assign(narrowUnits.units.size(), 1);
    auto whole = iosSearch(narrow, narrowUnits, lat, o);
    ASSERT_TRUE(whole.isOk()) << whole.status().str();
    EXPECT_EQ(whole->cuts, 0);
    EXPECT_EQ(whole->parts.size(), 1u);
}

TEST(IosPruning, TooManyTransitionsSuggestsRAndS)
{
    const Graph g = testgraphs::fan(12);
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs.assign(units.units.size(), 1);
    IosSearchOptions o = unpruned();
    o.maxTransitions = 1000;
    o.autoCut = false;
    auto r = iosSearch(g, units, lat, o);
    ASSERT_FALSE(r.isOk());
    EXPECT_NE(r.status().message().find("--option r=2 --option s=4"), std::string::npos) << r.status().str();
    EXPECT_NE(r.status().message().find("--option auto_cut=true"), std::string::npos) << r.status().str();
    o.maxTransitions = 10'000'000; // negative twin
    EXPECT_TRUE(iosSearch(g, units, lat, o).isOk());
}

// ViT-H/14's case: a part within max_states (2^12 + 1 states) but over
// max_transitions is cut too; every part of the result stays under the limit.
TEST(IosPruning, TooManyTransitionsCutsThePart)
{
    const Graph g = testgraphs::fan(12);
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs.assign(units.units.size(), 1);
    IosSearchOptions o = unpruned();
    o.maxTransitions = 1000;
    auto r = iosSearch(g, units, lat, o);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_GE(r->cuts, 1);
    std::size_t scheduled = 0;
    for (const IosPartStats &p : r->parts) {
        EXPECT_LE(p.transitions, o.maxTransitions);
        scheduled += p.units.size();
    }
    EXPECT_EQ(scheduled, units.units.size());
    EXPECT_EQ(r->parts.size(), static_cast<std::size_t>(r->cuts) + 1);
}

// ---- overrides of choice[S] -------------------------------------------------------------

TEST(IosOverrides, ForcedStageReoptimisesTheRest)
{
    const Graph g = convBlock();
    const IosUnitSet units = unitsPerNode(g);
    const ModelStageLatency lat(g, units, v100Cost());
    const IosSearchOptions o = unpruned(true);
    DecisionContext plain;
    IosSearchContext ctx;
    ctx.decisions = &plain;
    auto best = iosSearch(g, units, lat, o, ctx);
    ASSERT_TRUE(best.isOk());
    // The decision at V offers alternatives; force the second cheapest.
    const DecisionRecord &first = plain.records().front();
    EXPECT_EQ(first.role, "ios.ending");
    ASSERT_GE(first.options.size(), 2u);
    const std::int32_t other = first.preferred == 0 ? 1 : 0;

    const std::string forced = first.options[static_cast<std::size_t>(other)].id;

    DecisionContext overridden(Overrides{{first.key, forced}});
    ctx.decisions = &overridden;
    auto r = iosSearch(g, units, lat, o, ctx);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    const auto reports = overridden.overrideReports();
    ASSERT_EQ(reports.size(), 1u);
    EXPECT_EQ(reports[0].outcome, OverrideReport::Outcome::Applied);
    EXPECT_GE(r->chosenNs, best->optimumNs);
    EXPECT_NEAR(r->chosenNs, first.options[static_cast<std::size_t>(other)].cost, 1e-6);
    // The forced stage is the last one; the rest is optimal for what remains.
    EXPECT_EQ(stageUnits(units, r->schedule.stages.back()), idUnits(forced));
    const DeviceCostModel cost(v100());
    auto plan = lowerIosSchedule(g, units, r->schedule, cost);
    ASSERT_TRUE(plan.isOk()) << plan.status().str();
    EXPECT_TRUE(verifyPlan(*plan, g, &v100()).isOk());
}

TEST(IosOverrides, StageOutsideThePrunedSpaceIsComputed)
{
    const Graph g = convBlock();
    const IosUnitSet units = unitsPerNode(g);
    const ModelStageLatency lat(g, units, v100Cost());
    IosSearchOptions o;
    o.merge = false;
    o.maxGroupSize = 1;
    o.maxGroups = 1;
    DecisionContext plain;
    IosSearchContext ctx;
    ctx.decisions = &plain;
    ASSERT_TRUE(iosSearch(g, units, lat, o, ctx).isOk());
    // All units in one stage, one group — r=1 and s=1 prune it from the search.
    DecisionContext forced(Overrides{{plain.records().front().key, "a,b,b2,p,p2,cat"}});
    ctx.decisions = &forced;
    auto r = iosSearch(g, units, lat, o, ctx);
    ASSERT_TRUE(r.isOk()) << r.status().str();
    EXPECT_EQ(forced.overrideReports().at(0).outcome, OverrideReport::Outcome::Applied);
    EXPECT_EQ(r->schedule.stages.size(), 1u);
    const DeviceCostModel cost(v100());
    auto plan = lowerIosSchedule(g, units, r->schedule, cost);
    ASSERT_TRUE(plan.isOk()) << plan.status().str();
    EXPECT_TRUE(verifyPlan(*plan, g, &v100()).isOk());
}

TEST(IosOverrides, StaleAndIllegalOverridesAreReported)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs = {1, 2, 2};
    lat.gapNs = 5;
    DecisionContext plain;
    IosSearchContext ctx;
    ctx.decisions = &plain;
    ASSERT_TRUE(iosSearch(g, units, lat, unpruned(), ctx).isOk());
    const std::string keyV = plain.records().front().key;
    EXPECT_EQ(keyV, decisionKey("ios.ending", {"a", "b", "c"}));

    DecisionContext bad(Overrides{{keyV, "a"}, // a is read by b, which stays
                                  {decisionKey("ios.ending", {"a", "zzz"}), "a"}});
    ctx.decisions = &bad;
    auto r = iosSearch(g, units, lat, unpruned(), ctx);
    ASSERT_TRUE(r.isOk());
    EXPECT_EQ(scheduleText(units, r->schedule), "a ; b | c"); // the optimum stands
    const auto reports = bad.overrideReports();
    ASSERT_EQ(reports.size(), 2u);
    int rejected = 0, stale = 0;
    for (const OverrideReport &rep : reports) {
        if (rep.outcome == OverrideReport::Outcome::Rejected) {
            ++rejected;
            EXPECT_NE(rep.reason.find("'b' reads 'a' but is not in the stage"), std::string::npos) << rep.reason;
        }
        stale += rep.outcome == OverrideReport::Outcome::Stale;
    }
    EXPECT_EQ(rejected, 1);
    EXPECT_EQ(stale, 1);

    DecisionContext unknown(Overrides{{keyV, "a,b | q"}});
    ctx.decisions = &unknown;
    ASSERT_TRUE(iosSearch(g, units, lat, unpruned(), ctx).isOk());
    EXPECT_NE(unknown.overrideReports().at(0).reason.find("'q' is not an operator of this part"), std::string::npos);
}

// ---- the stage latency on the device cost model (core/cost/devicecost.h) -------------------
// The model's own formulas are tested in tests/sched/tst_devicecost.cpp.

TEST(IosLatencyModel, MergedConvolutionCostsItsPaddedFlops)
{
    // x → 1×1 conv (64) and 3×3 conv (128): merged is one 3×3 conv of 192 kernels.
    Graph g;
    const TensorId x = tensor(g, "x", {1, 32, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = op(g, "a", "Conv", {x, weight(g, "wa", {64, 32, 1, 1})}, {1, 64, 16, 16},
                          {{"kernel_shape", {std::vector<std::int64_t>{1, 1}}}});
    const TensorId b =
        op(g, "b", "Conv", {x, weight(g, "wb", {128, 32, 3, 3})}, {1, 128, 16, 16},
           {{"kernel_shape", {std::vector<std::int64_t>{3, 3}}}, {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}});
    g.outputs = {a, b};
    const IosUnitSet units = unitsPerNode(g);
    const ModelStageLatency m(g, units, v100Cost());
    const KernelEstimate mergedKernel = m.mergedKernel({0, 1});
    ASSERT_EQ(mergedKernel.launches.size(), 1u); // one launch: the model merges the convolutions
    const Launch &merged = mergedKernel.launches[0];
    EXPECT_DOUBLE_EQ(merged.flops, 2.0 * 16 * 16 * 192 * 32 * 9);
    EXPECT_GT(merged.flops, m.unitKernel(0).launches[0].flops + m.unitKernel(1).launches[0].flops);
    EXPECT_EQ(merged.blocks, 4 * 3); // ⌈256/64⌉ × ⌈192/64⌉
    EXPECT_TRUE(std::isfinite(m.stageNs(IosStrategy::Merge, {{0, 1}})));

    // A unit that is not a plain convolution cannot be merged.
    const Graph fig = fig34();
    const IosUnitSet relus = unitsPerNode(fig);
    const ModelStageLatency r(fig, relus, v100Cost());
    EXPECT_TRUE(std::isinf(r.stageNs(IosStrategy::Merge, {{0, 2}})));
}

class FakeRunner final : public StageRunner
{
public:
    int calls = 0;
    bool fail = false;
    std::string deviceId() const override { return "fake-gpu"; }
    Expected<double> measureNs(IosStrategy, const std::vector<std::vector<NodeId>> &groups) override
    {
        ++calls;
        if (fail)
            return Status::error(ErrorCode::Unavailable, "no gpu here");
        double longest = 0;
        for (const auto &g : groups)
            longest = std::max(longest, 100.0 * static_cast<double>(g.size()));
        return longest;
    }
};

TEST(IosLatencyModel, MeasuredLatenciesAreCachedPerOperatorSet)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    FakeRunner runner;
    const MeasuredStageLatency measured(g, units, runner);
    EXPECT_EQ(measured.name(), "measured:fake-gpu");
    EXPECT_DOUBLE_EQ(measured.stageNs(IosStrategy::Concurrent, {{0, 1}, {2}}), 200);
    EXPECT_DOUBLE_EQ(measured.stageNs(IosStrategy::Concurrent, {{0, 1}, {2}}), 200);
    EXPECT_EQ(runner.calls, 1);
    EXPECT_EQ(measured.cache().count("concurrent:a,b|c"), 1u);
    auto r = iosSearch(g, units, measured, unpruned());
    ASSERT_TRUE(r.isOk());
    EXPECT_EQ(measured.measurements(), 7); // the distinct stages among Fig. 3.4's 12 transitions
    EXPECT_TRUE(measured.firstFailure().isOk());

    // Negative twin: a failing runner falls back, and says why.
    FakeRunner broken;
    broken.fail = true;
    TableLatency table;
    table.unitNs = {1, 2, 2};
    const MeasuredStageLatency fallback(g, units, broken, &table);
    EXPECT_DOUBLE_EQ(fallback.stageNs(IosStrategy::Concurrent, {{0}}), 2);
    EXPECT_EQ(fallback.firstFailure().message(), "no gpu here");
    EXPECT_TRUE(fallback.cache().empty());
    const MeasuredStageLatency none(g, units, broken);
    EXPECT_TRUE(std::isinf(none.stageNs(IosStrategy::Concurrent, {{0}})));
    auto r2 = iosSearch(g, units, none, unpruned());
    ASSERT_FALSE(r2.isOk());
    EXPECT_NE(r2.status().message().find("'measured:fake-gpu' gave no finite latency"), std::string::npos);
}

TEST(IosPruning, CancelStopsTheSearch)
{
    const Graph g = fig34();
    const IosUnitSet units = unitsPerNode(g);
    TableLatency lat;
    lat.unitNs = {1, 2, 2};
    std::atomic<bool> cancel{true};
    IosSearchContext ctx;
    ctx.cancel = &cancel;
    auto r = iosSearch(g, units, lat, unpruned(), ctx);
    ASSERT_FALSE(r.isOk());
    EXPECT_EQ(r.status().code(), ErrorCode::Cancelled);
    cancel = false;
    double progress = 0;
    ctx.progress = [&](double f) { progress = f; };
    EXPECT_TRUE(iosSearch(g, units, lat, unpruned(), ctx).isOk());
    EXPECT_DOUBLE_EQ(progress, 1.0);
}

// ---- units and the scheduler --------------------------------------------------------------

TEST(IosUnits, StructuralUnitsAttachFollowersAndCutBlocks)
{
    const Graph g = testgraphs::residualChain(2);
    auto units = formIosUnits(g);
    ASSERT_TRUE(units.isOk()) << units.status().str();
    ASSERT_EQ(units->units.size(), 4u);
    EXPECT_EQ(units->units[0].name, "block0/conv1");
    EXPECT_EQ(units->units[0].nodes.size(), 2u); // conv1 + relu1
    EXPECT_EQ(units->units[1].nodes.size(), 3u); // conv2 + add + relu2
    // Blocks: conv1 alone (nothing precedes it), then conv2, then block 1's pair
    // (both read block 0's output).
    EXPECT_EQ(units->blocks.size(), 3u);
    auto viaGraph = iosUnitsForGraph(g);
    ASSERT_TRUE(viaGraph.isOk());
    EXPECT_EQ(viaGraph->source, "structure");

    // Negative twin: a branch point ends a unit (diamond's a and b read x).
    auto diamond = formIosUnits(testgraphs::diamond());
    ASSERT_TRUE(diamond.isOk());
    ASSERT_EQ(diamond->units.size(), 3u); // a ; b+c ; d
    EXPECT_EQ(diamond->units[1].nodes.size(), 2u);
    EXPECT_EQ(diamond->blocks.size(), 1u);
}

TEST(IosScheduler, SchedulesIosNetworksAndPlainGraphs)
{
    auto scheduler = createIosScheduler();
    const ImportResult &model = iosNetwork("inception_v3");
    auto both = scheduleGraph(model.graph, v100(), *scheduler, {{{"r", "3"}, {"s", "8"}}, {}, nullptr, {}});
    ASSERT_TRUE(both.isOk()) << both.status().str();
    const auto &stats = both->result.stats;
    EXPECT_EQ(stats.at("parts"), 13);
    EXPECT_LT(stats.at("stages"), 119);
    EXPECT_EQ(stats.at("width"), 6);
    EXPECT_GE(stats.at("chosen_latency_ms"), stats.at("dp_latency_ms") - 1e-9);
    EXPECT_FALSE(both->decisions.records().empty());

    auto parallel = scheduleGraph(model.graph, v100(), *scheduler, {{{"strategy", "parallel"}}, {}, nullptr, {}});
    ASSERT_TRUE(parallel.isOk());
    EXPECT_EQ(parallel->result.stats.at("merged_stages"), 0);
    EXPECT_LE(both->result.stats.at("dp_latency_ms"), parallel->result.stats.at("dp_latency_ms"));
    auto merge = scheduleGraph(model.graph, v100(), *scheduler, {{{"strategy", "merge"}}, {}, nullptr, {}});
    ASSERT_TRUE(merge.isOk());
    EXPECT_GT(merge->result.stats.at("merged_stages"), 0); // e.g. block 1's 1x1 convolutions 8, 9, 11
    for (const Task &t : merge->result.plan.tasks)
        EXPECT_LE(t.binding.stream, 0);
    // IOS-Both searches a superset of both.
    EXPECT_LE(both->result.stats.at("dp_latency_ms"), merge->result.stats.at("dp_latency_ms"));

    // A plain graph on a device without GPU parameters.
    const Graph plain = testgraphs::residualChain(3);
    auto dsa = DeviceRegistry::standard().lookup("stcp920");
    ASSERT_TRUE(dsa.isOk());
    auto r = scheduleGraph(plain, *dsa, *scheduler, {});
    ASSERT_TRUE(r.isOk()) << r.status().str();
    // A chain of six units: one group per stage (a group may run several in order).
    EXPECT_LE(r->result.stats.at("stages"), 6);
    for (const Task &t : r->result.plan.tasks)
        EXPECT_LE(t.binding.stream, 0);
    auto bad = scheduleGraph(plain, *dsa, *scheduler, {{{"r", "0"}}, {}, nullptr, {}});
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.status().code(), ErrorCode::Usage);
}

// The scheduler reads the model's "ios.units"/"ios.blocks" metadata through
// ScheduleSetup::modelProperties, so an ONNX file of NasNet keeps the
// artifact's per-cell parts; broken metadata is an error, not a fallback.
TEST(IosScheduler, ModelPropertiesCarryTheArtifactsUnitsAndParts)
{
    auto scheduler = createIosScheduler();
    const ImportResult &model = iosNetwork("nasnet");
    const IosUnitSet units = iosUnits("nasnet");
    std::size_t parts = 0;
    for (const IosBlock &block : units.blocks)
        parts += iosParts(block, 50).size();

    ScheduleSetup setup{{{"r", "3"}, {"s", "8"}}, {}, nullptr, {}};
    setup.modelProperties = model.metadata.properties;
    auto withMetadata = scheduleGraph(model.graph, v100(), *scheduler, setup);
    ASSERT_TRUE(withMetadata.isOk()) << withMetadata.status().str();
    EXPECT_EQ(withMetadata->result.stats.at("parts"), double(parts));

    // Without the metadata the units come from node names: the same units,
    // but the cells' explicit parts are gone and runs of 50 units are far
    // wider — the search stops with its pruning suggestion, or (auto_cut,
    // the default) cuts those parts until each fits.
    setup.modelProperties.clear();
    setup.options["max_transitions"] = "2000000";
    setup.options["auto_cut"] = "false";
    auto withoutMetadata = scheduleGraph(model.graph, v100(), *scheduler, setup);
    ASSERT_FALSE(withoutMetadata.isOk());
    EXPECT_NE(withoutMetadata.status().message().find("part_size"), std::string::npos);
    setup.options.erase("auto_cut");
    auto cut = scheduleGraph(model.graph, v100(), *scheduler, setup);
    ASSERT_TRUE(cut.isOk()) << cut.status().str();
    EXPECT_GT(cut->result.stats.at("cuts"), 0);

    setup.modelProperties = model.metadata.properties;
    setup.modelProperties[kIosUnitsKey] = "[{\"name\": \"nope\"";
    auto broken = scheduleGraph(model.graph, v100(), *scheduler, setup);
    ASSERT_FALSE(broken.isOk());
    EXPECT_NE(broken.status().message().find("ios.units"), std::string::npos) << broken.status().str();
}

// The plan's estimated timeline agrees with the DP: the search and the plan
// ask the same cost model, so each stage spans in the plan what it cost in the
// search — without scaling anything. A schedule without estimates (as
// imported from the artifact) lowered with the same model gets the same number.
TEST(IosScheduler, PlanTimelineAgreesWithTheStageLatencies)
{
    auto scheduler = createIosScheduler();
    const ImportResult &model = iosNetwork("inception_v3");
    auto run = scheduleGraph(model.graph, v100(), *scheduler, {{{"r", "3"}, {"s", "8"}}, {}, nullptr, {}});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const double chosenNs = run->result.stats.at("chosen_latency_ms") * 1e6;
    EXPECT_NEAR(run->result.plan.estimatedLatencyNs(), chosenNs, chosenNs * 1e-9);

    const IosUnitSet units = iosUnits("inception_v3");
    auto schedule = iosScheduleFromPlan(run->result.plan, model.graph, units);
    ASSERT_TRUE(schedule.isOk()) << schedule.status().str();
    for (const IosStage &stage : schedule->stages)
        EXPECT_TRUE(std::isnan(stage.latencyNs));
    auto relowered = lowerIosSchedule(model.graph, units, *schedule, v100Cost());
    ASSERT_TRUE(relowered.isOk()) << relowered.status().str();
    EXPECT_EQ(relowered->tasks.size(), run->result.plan.tasks.size());
    EXPECT_NEAR(relowered->estimatedLatencyNs(), chosenNs, chosenNs * 1e-9);

    // Negative twin: another device's model gives another number.
    auto a100 = DeviceRegistry::standard().lookup("nvidia-a100");
    ASSERT_TRUE(a100.isOk());
    const DeviceCostModel other(*a100);
    auto elsewhere = lowerIosSchedule(model.graph, units, *schedule, other);
    ASSERT_TRUE(elsewhere.isOk());
    EXPECT_GT(std::abs(elsewhere->estimatedLatencyNs() - chosenNs), chosenNs * 0.01);
}

// NasNet has 10^334 feasible schedules: beyond a double, so only
// log10_schedules is reported (a JSON number), never an infinity.
TEST(IosScheduler, HugeScheduleCountsStayFinite)
{
    auto scheduler = createIosScheduler();
    const ImportResult &model = iosNetwork("nasnet");
    ScheduleSetup setup;
    setup.modelProperties = model.metadata.properties;
    auto run = scheduleGraph(model.graph, v100(), *scheduler, setup);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    EXPECT_GT(run->result.stats.at("log10_schedules"), 308);
    EXPECT_EQ(run->result.stats.count("schedules"), 0u);
    for (const auto &[key, value] : run->result.stats)
        EXPECT_TRUE(std::isfinite(value)) << key;

    const ImportResult &inception = iosNetwork("inception_v3");
    auto small = scheduleGraph(inception.graph, v100(), *scheduler, {});
    ASSERT_TRUE(small.isOk());
    EXPECT_NEAR(std::log10(small->result.stats.at("schedules")), small->result.stats.at("log10_schedules"), 1e-9);
}
