// The IOS search space for the DP explorer (plugins/ios/iossearchspace.h):
// Fig. 3.4's states, transitions and path through the scheduler end to end,
// decision keys of path transitions that force exactly that transition (also
// the merge-or-concurrent pair), limits that keep tables bounded, the scope,
// and no search space unless asked.
#include "core/sched/session.h"
#include "plugins/ios/ios.h"
#include "plugins/ios/iossearch.h"
#include "plugins/ios/iossearchspace.h"
#include "plugins/ios/iosunits.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <set>
#include <tuple>

#include "tests/common/testgraphs.h"
#include "tests/plugins/iostest.h"

using namespace tessera;
using namespace tessera::iostest;
using testgraphs::conv28;
using testgraphs::fig34;
using testgraphs::op;
using testgraphs::tensor;
using testgraphs::weight;

namespace {

// Two convolutions reading x: the stage {a, c} runs merged or concurrently.
Graph twoConvs()
{
    Graph g;
    g.name = "two_convs";
    const TensorId x = tensor(g, "x", {1, 32, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    g.outputs = {conv28(g, "a", x, 32, 32, 1), conv28(g, "c", x, 32, 64, 3)};
    return g;
}

Expected<ScheduleRun> schedule(const Graph &g, std::map<std::string, std::string> options,
                               std::optional<SearchSpaceRequest> request, Overrides overrides = {})
{
    static const auto ios = createIosScheduler();
    ScheduleSetup setup;
    setup.options = std::move(options);
    setup.overrides = std::move(overrides);
    setup.searchSpace = std::move(request);
    return scheduleGraph(g, v100(), *ios, setup);
}

const SearchSpace::State &state(const SearchSpace::Table &t, std::int32_t i)
{
    return t.states.at(static_cast<std::size_t>(i));
}

using Edge = std::tuple<std::string, std::string, std::string>; // from, to, stage

std::set<Edge> edges(const SearchSpace::Table &t)
{
    std::set<Edge> out;
    for (const SearchSpace::Transition &tr : t.transitions)
        out.insert({state(t, tr.from).label, state(t, tr.to).label, tr.label});
    return out;
}

// The overrides that force `tr`.
Overrides forcing(const SearchSpace::Transition &tr)
{
    Overrides o{{tr.decisionKey, tr.optionId}};
    for (const auto &[key, id] : tr.extraDecisions)
        o[key] = id;
    return o;
}

const SearchSpace::Transition &chosenAtStart(const SearchSpace::Table &t)
{
    const SearchSpace::State &v = state(t, t.path.front());
    EXPECT_GE(v.choice, 0);
    return t.transitions.at(static_cast<std::size_t>(v.choice));
}

} // namespace

TEST(IosSearchSpace, Fig34StatesTransitionsAndPath)
{
    const Graph g = fig34();
    auto run = schedule(g, {{"strategy", "parallel"}}, SearchSpaceRequest{});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    ASSERT_TRUE(run->result.searchSpace);
    const SearchSpace &space = *run->result.searchSpace;
    EXPECT_EQ(space.algorithm, "ios");
    EXPECT_EQ(space.nodeNames.size(), g.nodeCount());
    ASSERT_EQ(space.tables.size(), 1u);
    const SearchSpace::Table &t = space.tables[0];
    EXPECT_EQ(t.title, "block0 (3 units)");
    EXPECT_TRUE(t.complete);
    EXPECT_TRUE(t.note.empty()) << t.note;

    // Fig. 3.4 (2): six states and the twelve transitions ① to ⑫.
    std::set<std::string> labels;
    for (const SearchSpace::State &s : t.states)
        labels.insert(s.label);
    EXPECT_EQ(labels, (std::set<std::string>{"{a, b, c}", "{a, b}", "{a, c}", "{a}", "{c}", "∅"}));
    const std::set<Edge> expected{{"{a, b, c}", "∅", "a,b | c"},
                                  {"{a, b, c}", "{c}", "a,b"},
                                  {"{a, b, c}", "{a, c}", "b"},
                                  {"{a, b, c}", "{a}", "b | c"},
                                  {"{a, b, c}", "{a, b}", "c"},
                                  {"{a, b}", "∅", "a,b"},
                                  {"{a, b}", "{a}", "b"},
                                  {"{a, c}", "{c}", "a"},
                                  {"{a, c}", "{a}", "c"},
                                  {"{a, c}", "∅", "a | c"},
                                  {"{a}", "∅", "a"},
                                  {"{c}", "∅", "c"}};
    EXPECT_EQ(edges(t), expected);
    EXPECT_EQ(t.searchedStates, 6);
    EXPECT_EQ(t.searchedTransitions, 12);
    for (const SearchSpace::Transition &tr : t.transitions) {
        EXPECT_EQ(tr.kind, tr.label.size() == 1 ? "single" : "concurrent") << tr.label;
        EXPECT_DOUBLE_EQ(tr.totalCost, tr.stepCost + state(t, tr.to).cost);
        EXPECT_GE(tr.totalCost, state(t, tr.from).cost - 1e-9); // cost[S] is the minimum
    }

    // The path is the optimal schedule: V → ... → ∅ along choice[·], one stage per step.
    ASSERT_GE(t.path.size(), 2u);
    EXPECT_EQ(state(t, t.path.front()).label, "{a, b, c}");
    EXPECT_EQ(state(t, t.path.back()).label, "∅");
    EXPECT_EQ(static_cast<double>(t.path.size() - 1), run->result.stats.at("stages"));
    EXPECT_NEAR(state(t, t.path.front()).cost, run->result.stats.at("dp_latency_ms") * 1e6, 1e-6);
    for (std::size_t k = 0; k + 1 < t.path.size(); ++k) {
        const SearchSpace::State &s = state(t, t.path[k]);
        EXPECT_TRUE(s.onPath);
        ASSERT_GE(s.choice, 0);
        const SearchSpace::Transition &tr = t.transitions[static_cast<std::size_t>(s.choice)];
        EXPECT_EQ(tr.to, t.path[k + 1]);
        EXPECT_DOUBLE_EQ(tr.totalCost, s.cost); // no override: the cheapest way on
    }
    EXPECT_EQ(std::count_if(t.states.begin(), t.states.end(), [](const auto &s) { return s.onPath; }),
              static_cast<std::ptrdiff_t>(t.path.size()));
    // States carry their units' nodes; 8 schedules lead from V to ∅ (Table 3.1's count).
    EXPECT_EQ(state(t, t.path.front()).nodes.size(), 3u);
    EXPECT_DOUBLE_EQ(state(t, t.path.front()).count, 8);
}

TEST(IosSearchSpace, PathTransitionsCarryTheWalksDecision)
{
    const Graph g = fig34();
    auto run = schedule(g, {{"strategy", "parallel"}}, SearchSpaceRequest{});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const SearchSpace::Table &t = run->result.searchSpace->tables.at(0);
    const std::string keyV = run->decisions.records().front().key;
    EXPECT_EQ(keyV, iosEndingKey(iosUnitsForGraph(g).value(), {0, 1, 2}));
    for (const SearchSpace::Transition &tr : t.transitions) {
        if (!state(t, tr.from).onPath || tr.from == t.path.back()) {
            EXPECT_TRUE(tr.decisionKey.empty()) << "only path states ask a decision: " << tr.label;
            continue;
        }
        if (tr.from == t.path.front()) {
            EXPECT_EQ(tr.decisionKey, keyV);
        }
        // The same id the walk offers for that stage.
        const DecisionRecord *rec = run->decisions.find(tr.decisionKey);
        ASSERT_NE(rec, nullptr) << tr.decisionKey;
        EXPECT_TRUE(std::any_of(rec->options.begin(), rec->options.end(), [&](const DecisionOption &o) {
            return o.id == tr.optionId;
        })) << tr.optionId;
    }

    // Forcing each other transition of V makes it the chosen one, and the walk continues from its state.
    const SearchSpace::State &v = state(t, t.path.front());
    int forced = 0;
    for (const SearchSpace::Transition &tr : t.transitions) {
        if (tr.from != t.path.front() || &tr == &t.transitions[static_cast<std::size_t>(v.choice)])
            continue;
        auto again = schedule(g, {{"strategy", "parallel"}}, SearchSpaceRequest{}, forcing(tr));
        ASSERT_TRUE(again.isOk()) << again.status().str();
        ASSERT_EQ(again->overrideReports.size(), 1u);
        EXPECT_EQ(again->overrideReports[0].outcome, OverrideReport::Outcome::Applied)
            << again->overrideReports[0].reason;
        const SearchSpace::Table &t2 = again->result.searchSpace->tables.at(0);
        const SearchSpace::Transition &chosen = chosenAtStart(t2);
        EXPECT_EQ(chosen.label, tr.label);
        EXPECT_EQ(chosen.kind, tr.kind);
        EXPECT_EQ(state(t2, t2.path.at(1)).label, state(t, tr.to).label);
        EXPECT_NEAR(again->result.stats.at("chosen_latency_ms") * 1e6, tr.totalCost, 1e-6);
        ++forced;
    }
    EXPECT_EQ(forced, 4);

    // Negative twin: a key of a state off the path is never asked — the override is stale.
    const auto off = std::find_if(t.states.begin(), t.states.end(), [](const auto &s) { return !s.onPath; });
    ASSERT_NE(off, t.states.end());
    const IosUnitSet units = iosUnitsForGraph(g).value();
    std::vector<std::int32_t> offUnits;
    for (NodeId n : off->nodes)
        offUnits.push_back(units.unitOfNode[static_cast<std::size_t>(n)]);
    auto stale = schedule(g, {{"strategy", "parallel"}}, SearchSpaceRequest{}, {{iosEndingKey(units, offUnits), "c"}});
    ASSERT_TRUE(stale.isOk());
    ASSERT_EQ(stale->overrideReports.size(), 1u);
    EXPECT_EQ(stale->overrideReports[0].outcome, OverrideReport::Outcome::Stale);
}

TEST(IosSearchSpace, MergeOrConcurrentNeedsTheStrategyDecisionToo)
{
    const Graph g = twoConvs();
    auto run = schedule(g, {}, SearchSpaceRequest{});
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const SearchSpace::Table &t = run->result.searchSpace->tables.at(0);
    // {a, c}: a alone, c alone, a | c and a + c, all straight to ∅ or a one-unit state.
    std::set<std::pair<std::string, std::string>> kinds;
    for (const SearchSpace::Transition &tr : t.transitions)
        if (tr.from == t.path.front())
            kinds.insert({tr.label, tr.kind});
    EXPECT_EQ(kinds, (std::set<std::pair<std::string, std::string>>{
                         {"a", "single"}, {"c", "single"}, {"a | c", "concurrent"}, {"a + c", "merge"}}));

    int checked = 0;
    for (const SearchSpace::Transition &tr : t.transitions) {
        if (tr.from != t.path.front())
            continue;
        const bool pair = tr.kind == "merge" || tr.kind == "concurrent";
        EXPECT_EQ(tr.extraDecisions.size(), pair ? 1u : 0u) << tr.label;
        if (pair) {
            EXPECT_EQ(tr.optionId, "a | c"); // both answer the same ending; the strategy tells them apart
        }
        auto again = schedule(g, {}, SearchSpaceRequest{}, forcing(tr));
        ASSERT_TRUE(again.isOk()) << again.status().str();
        const SearchSpace::Transition &chosen = chosenAtStart(again->result.searchSpace->tables.at(0));
        EXPECT_EQ(chosen.label, tr.label);
        EXPECT_EQ(chosen.kind, tr.kind);
        ++checked;
    }
    EXPECT_EQ(checked, 4);

    // Negative twin: the ending alone picks the faster strategy, so the slower one is not chosen.
    const SearchSpace::Transition &best = chosenAtStart(t);
    ASSERT_TRUE(best.kind == "merge" || best.kind == "concurrent") << best.kind;
    const auto slower = std::find_if(t.transitions.begin(), t.transitions.end(), [&](const auto &tr) {
        return tr.from == t.path.front() && tr.to == best.to && tr.kind != best.kind;
    });
    ASSERT_NE(slower, t.transitions.end());
    auto endingOnly = schedule(g, {}, SearchSpaceRequest{}, {{slower->decisionKey, slower->optionId}});
    ASSERT_TRUE(endingOnly.isOk());
    EXPECT_EQ(chosenAtStart(endingOnly->result.searchSpace->tables.at(0)).kind, best.kind);
}

TEST(IosSearchSpace, LimitsKeepTablesBounded)
{
    const Graph g = fig34();
    SearchSpaceRequest fewStates;
    fewStates.maxStates = 3;
    auto run = schedule(g, {{"strategy", "parallel"}}, fewStates);
    ASSERT_TRUE(run.isOk()) << run.status().str();
    const SearchSpace::Table &t = run->result.searchSpace->tables.at(0);
    EXPECT_FALSE(t.complete);
    EXPECT_TRUE(t.states.empty());
    EXPECT_TRUE(t.transitions.empty());
    EXPECT_EQ(t.searchedStates, 6);
    EXPECT_NE(t.note.find("6 dp states: over the explorer's limit of 3"), std::string::npos) << t.note;

    SearchSpaceRequest fewTransitions;
    fewTransitions.maxTransitions = 5;
    auto run2 = schedule(g, {{"strategy", "parallel"}}, fewTransitions);
    ASSERT_TRUE(run2.isOk());
    const SearchSpace::Table &t2 = run2->result.searchSpace->tables.at(0);
    EXPECT_FALSE(t2.complete);
    EXPECT_EQ(t2.states.size(), 6u);
    EXPECT_NE(t2.note.find("12 transitions: over the explorer's limit of 5"), std::string::npos) << t2.note;
    // Only the walked path's transitions, so the path stays drawable.
    EXPECT_EQ(t2.transitions.size(), t2.path.size() - 1);
    for (std::size_t k = 0; k + 1 < t2.path.size(); ++k)
        EXPECT_EQ(t2.transitions.at(static_cast<std::size_t>(state(t2, t2.path[k]).choice)).to, t2.path[k + 1]);

    // A wide network: the tables together stay within the total (plus their paths), however many parts.
    const ImportResult &randwire = iosNetwork("randwire");
    SearchSpaceRequest total;
    total.maxTotalTransitions = 50'000;
    static const auto ios = createIosScheduler();
    ScheduleSetup setup;
    setup.modelProperties = randwire.metadata.properties;
    setup.searchSpace = total;
    auto wide = scheduleGraph(randwire.graph, v100(), *ios, setup);
    ASSERT_TRUE(wide.isOk()) << wide.status().str();
    std::size_t kept = 0, paths = 0;
    int past = 0;
    for (const SearchSpace::Table &tt : wide->result.searchSpace->tables) {
        kept += tt.transitions.size();
        paths += tt.path.size();
        if (!tt.complete) {
            EXPECT_NE(tt.note.find("past the explorer's total of 50,000 over all parts"), std::string::npos) << tt.note;
            EXPECT_FALSE(tt.states.empty()) << tt.title;
            ++past;
        }
    }
    EXPECT_LE(kept, static_cast<std::size_t>(total.maxTotalTransitions) + paths);
    EXPECT_GT(past, 0);

    // Negative twin: within the limits nothing is dropped.
    auto full = schedule(g, {{"strategy", "parallel"}}, SearchSpaceRequest{});
    ASSERT_TRUE(full.isOk());
    EXPECT_TRUE(full->result.searchSpace->tables.at(0).complete);
    EXPECT_EQ(full->result.searchSpace->tables.at(0).transitions.size(), 12u);
}

TEST(IosSearchSpace, OnlyWhenAskedAndOnlyTheScope)
{
    const Graph g = fig34();
    auto plain = schedule(g, {}, std::nullopt);
    ASSERT_TRUE(plain.isOk()) << plain.status().str();
    EXPECT_EQ(plain->result.searchSpace, nullptr);

    SearchSpaceRequest scoped;
    scoped.scope = "block0";
    auto in = schedule(g, {}, scoped);
    ASSERT_TRUE(in.isOk());
    EXPECT_EQ(in->result.searchSpace->tables.size(), 1u);

    scoped.scope = "block7"; // negative twin: an unknown block says which exist
    auto out = schedule(g, {}, scoped);
    ASSERT_TRUE(out.isOk());
    EXPECT_TRUE(out->result.searchSpace->tables.empty());
    EXPECT_EQ(out->result.searchSpace->note, "no block 'block7'; blocks: block0");
    // The schedule itself does not depend on the explorer.
    EXPECT_EQ(out->result.stats.at("dp_latency_ms"), plain->result.stats.at("dp_latency_ms"));
}
