// Welder's fast paths give the plan a cold run gives (issue 15: "replay after an override under
// 500 ms", §4.2 "candidates evaluated in parallel on the available cores"):
//  - a replay after an override that starts from the last schedule's tilings, lowered kernels and
//    SetConnect trials (option reuse) has the decisions (choices, options, costs), kernels, tasks, buffers and
//    latency of a cold run with the same override; twin: two different overrides do differ, so
//    the comparison can fail;
//  - one thread and four threads (concurrent SetConnect trials and candidates) give the same plan;
//    twin: one thread searches no trial concurrently, four do;
//  - a cancelled run stops and keeps nothing for the next one, which gives the cold plan.
#include <cmath>
#include <sstream>

#include "tests/plugins/welder/welderrun.h"

using namespace tessera;
using namespace tessera::weldertest;

namespace {

std::string regionText(const ops::Region &r)
{
    std::string s;
    for (const ops::Interval &iv : r)
        s += std::to_string(iv.begin) + ":" + std::to_string(iv.end) + ",";
    return s;
}

// The first difference between two runs' decisions and plans; empty when they are the same.
std::string firstDifference(const ScheduleRun &a, const ScheduleRun &b)
{
    std::ostringstream d;
    const auto &ra = a.decisions.records(), &rb = b.decisions.records();
    if (ra.size() != rb.size())
        return "decision count " + std::to_string(ra.size()) + " vs " + std::to_string(rb.size());
    for (std::size_t i = 0; i < ra.size(); ++i) {
        if (ra[i].key != rb[i].key || ra[i].chosen != rb[i].chosen || ra[i].options.size() != rb[i].options.size())
            return "decision " + ra[i].key + " vs " + rb[i].key;
        for (std::size_t o = 0; o < ra[i].options.size(); ++o) {
            const DecisionOption &x = ra[i].options[o], &y = rb[i].options[o];
            const bool sameCost = x.cost == y.cost || (std::isnan(x.cost) && std::isnan(y.cost));
            if (x.id != y.id || !sameCost || x.illegalReason != y.illegalReason || x.detail != y.detail)
                return "option " + x.id + " of " + ra[i].key;
        }
    }
    const ExecutionPlan &p = a.result.plan, &q = b.result.plan;
    if (p.kernels.size() != q.kernels.size())
        return "kernel count " + std::to_string(p.kernels.size()) + " vs " + std::to_string(q.kernels.size());
    for (std::size_t k = 0; k < p.kernels.size(); ++k)
        if (p.kernels[k].nodes != q.kernels[k].nodes || p.kernels[k].strategy != q.kernels[k].strategy ||
            p.kernels[k].name != q.kernels[k].name)
            return "kernel " + p.kernels[k].name;
    if (p.tasks.size() != q.tasks.size())
        return "task count";
    for (std::size_t t = 0; t < p.tasks.size(); ++t) {
        const Task &x = p.tasks[t], &y = q.tasks[t];
        if (x.kind != y.kind || x.kernel != y.kernel || x.label != y.label || x.deps != y.deps || x.reads != y.reads ||
            x.writes != y.writes || x.cost.timeNs != y.cost.timeNs || x.cost.bytesByLevel != y.cost.bytesByLevel ||
            x.tiles.size() != y.tiles.size())
            return "task " + x.label;
        for (std::size_t i = 0; i < x.tiles.size(); ++i)
            if (x.tiles[i].node != y.tiles[i].node || x.tiles[i].output != y.tiles[i].output ||
                regionText(x.tiles[i].region) != regionText(y.tiles[i].region))
                return "tile of task " + x.label;
    }
    if (p.buffers.size() != q.buffers.size())
        return "buffer count";
    for (std::size_t i = 0; i < p.buffers.size(); ++i)
        if (p.buffers[i].tensor != q.buffers[i].tensor || p.buffers[i].level != q.buffers[i].level ||
            p.buffers[i].bytes != q.buffers[i].bytes)
            return "buffer " + std::to_string(i);
    if (p.estimatedLatencyNs() != q.estimatedLatencyNs())
        return "latency";
    return {};
}

} // namespace

// Replay after an override from the last schedule's tilings and lowered kernels = a cold run.
TEST(WelderFastReplay, ReplayFromTheLastScheduleGivesTheColdPlan)
{
    const Graph g = mobileNetV2Small();
    ScheduleSetup warm;
    warm.options = {{"reuse", "true"}};
    auto first = welder(g, "nvidia-v100", warm);
    ASSERT_TRUE(first.isOk()) << first.status().str();
    const ForcedChoices o = overridesOf(*first);
    ASSERT_FALSE(o.connectKey.empty());
    ASSERT_FALSE(o.tileKey.empty());
    for (const auto &[key, to] : {std::pair{o.tileKey, o.tileTo}, std::pair{o.connectKey, o.connectTo}}) {
        ScheduleSetup fast = warm;
        fast.overrides[key] = to;
        auto replay = welder(g, "nvidia-v100", fast);
        ASSERT_TRUE(replay.isOk()) << replay.status().str();
        EXPECT_EQ(replay->result.stats.at("reused_tilings"), 1.0);
        EXPECT_GT(replay->result.stats.at("lowering_reused"), 0.0); // the fast path was taken
        // The tile override changes no connection: every edge's trials come from the journal; the
        // connection override replays the trials of the edges after it.
        double edges = 0;
        for (const DecisionRecord &r : first->decisions.records())
            edges += r.role == "welder.connect";
        if (key == o.tileKey)
            EXPECT_EQ(replay->result.stats.at("journalled_edges"), edges);
        else
            EXPECT_LT(replay->result.stats.at("journalled_edges"), edges);
        ASSERT_EQ(replay->overrideReports.size(), 1u);
        EXPECT_EQ(replay->overrideReports[0].outcome, OverrideReport::Outcome::Applied);
        ScheduleSetup cold = fast;
        cold.options["reuse"] = "false";
        auto fresh = welder(g, "nvidia-v100", cold);
        ASSERT_TRUE(fresh.isOk()) << fresh.status().str();
        EXPECT_EQ(fresh->result.stats.at("reused_tilings"), 0.0);
        EXPECT_EQ(firstDifference(*replay, *fresh), "") << key;
        // Back to no override: the first plan again, from the caches.
        auto again = welder(g, "nvidia-v100", warm);
        ASSERT_TRUE(again.isOk());
        EXPECT_EQ(firstDifference(*again, *first), "") << key;
    }
}

// Twin: the comparison sees a difference — the two overrides give different plans, and each
// differs from the plan without override.
TEST(WelderFastReplay, DifferentOverridesGiveDifferentPlans)
{
    const Graph g = mobileNetV2Small();
    ScheduleSetup s;
    s.options = {{"reuse", "true"}};
    auto first = welder(g, "nvidia-v100", s);
    ASSERT_TRUE(first.isOk());
    const ForcedChoices o = overridesOf(*first);
    ScheduleSetup tile = s, connect = s;
    tile.overrides[o.tileKey] = o.tileTo;
    connect.overrides[o.connectKey] = o.connectTo;
    auto a = welder(g, "nvidia-v100", tile);
    auto b = welder(g, "nvidia-v100", connect);
    ASSERT_TRUE(a.isOk() && b.isOk());
    EXPECT_NE(firstDifference(*a, *b), "");
    EXPECT_NE(firstDifference(*a, *first), "");
    EXPECT_NE(firstDifference(*b, *first), "");
}

// §4.2 "evaluated in parallel": one thread and four give the same decisions and plan.
TEST(WelderParallel, OneAndFourThreadsGiveTheSamePlan)
{
    const Graph g = mobileNetV2Small();
    ScheduleSetup one, four;
    one.options = {{"threads", "1"}, {"reuse", "false"}};
    four.options = {{"threads", "4"}, {"reuse", "false"}};
    for (const char *dev : {"nvidia-v100", "stcp920"}) {
        auto a = welder(g, dev, one);
        auto b = welder(g, dev, four);
        ASSERT_TRUE(a.isOk() && b.isOk());
        EXPECT_EQ(firstDifference(*a, *b), "") << dev;
        for (const char *stat : {"signature_hits", "tilings_searched", "tilings_searched_level0", "connect_trials"})
            EXPECT_EQ(a->result.stats.at(stat), b->result.stats.at(stat)) << stat << " on " << dev;
    }
}

// Twin: one thread searches every trial in turn; four search the trials of an edge at once.
TEST(WelderParallel, OnlySeveralThreadsSearchTrialsConcurrently)
{
    const Graph g = testgraphs::residualChain(2);
    ScheduleSetup one, four;
    one.options = {{"threads", "1"}, {"reuse", "false"}};
    four.options = {{"threads", "4"}, {"reuse", "false"}};
    auto a = welder(g, "nvidia-v100", one);
    auto b = welder(g, "nvidia-v100", four);
    ASSERT_TRUE(a.isOk() && b.isOk());
    EXPECT_EQ(a->result.stats.at("concurrent_trials"), 0.0);
    EXPECT_GT(b->result.stats.at("concurrent_trials"), 0.0);
    EXPECT_EQ(firstDifference(*a, *b), "");
}

// Cancel is honoured during the (concurrent) search, and a cancelled run leaves nothing behind:
// the next run with reuse searches afresh and gives the cold plan.
TEST(WelderParallel, CancelStopsTheSearchAndKeepsNothing)
{
    const Graph g = mobileNetV2Small();
    std::atomic<bool> cancel{false};
    ScheduleSetup s;
    s.options = {{"threads", "4"}, {"reuse", "true"}};
    s.cancel = &cancel;
    s.progress = [&](double f) {
        if (f > 0.2)
            cancel = true;
    };
    auto cancelled = welder(g, "nvidia-v100", s);
    ASSERT_FALSE(cancelled.isOk());
    EXPECT_EQ(cancelled.status().code(), ErrorCode::Cancelled);
    ScheduleSetup next;
    next.options = {{"threads", "4"}, {"reuse", "true"}};
    auto after = welder(g, "nvidia-v100", next);
    ASSERT_TRUE(after.isOk()) << after.status().str();
    EXPECT_EQ(after->result.stats.at("reused_tilings"), 0.0);
    ScheduleSetup cold;
    cold.options = {{"threads", "1"}, {"reuse", "false"}};
    auto fresh = welder(g, "nvidia-v100", cold);
    ASSERT_TRUE(fresh.isOk());
    EXPECT_EQ(firstDifference(*after, *fresh), "");
}
