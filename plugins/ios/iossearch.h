// The IOS search: ios thesis §3.2 Algorithm 1 with the artifact's search space
// (reference/README.md "How the IOS artifact enumerates stages").
//
//   cost[S] = min over stages S' of S:  cost[S − S'] + StageLatency[S'],   cost[∅] = 0
//
// S is a state: the set of not-yet-scheduled units of one part, closed under
// predecessors. The network is optimised block by block; a block is cut into
// parts (its explicit parts, else runs of at most `partSize` units in list
// order), and each part is solved on its own with its internal edges only.
// The stages S' considered from S (L16):
//   - parallel (Concurrent): groups, each a unit u together with all of u's
//     successors still in S; groups pairwise disjoint; at most s groups of at
//     most r units (§3.4 pruning). The groups run on one stream each.
//   - merge: a set of sinks of S that pass the merge rule (iosConvUnit:
//     convolutions reading one value, same stride/activation/size, groups 1),
//     at most s of them; a single sink is always a one-unit stage.
// Every DP state is a down-set of the part; all of them are enumerated first
// (bounded by maxStates, so a part too wide never exhausts memory), then solved
// bottom-up by size — the memoised recursion
// of Algorithm 1 visits exactly these states. `transitions` counts the (S, S')
// pairs evaluated, merge and parallel separately as the artifact counts them;
// `schedules` the paths from V to ∅ (the number of feasible schedules).
// Unpruned and with concurrent execution only, these definitions reproduce
// thesis Table 3.1 (n, d, #(S,S'), #schedules of each network's largest
// block) to the digits it prints; merge stages are capped at s convolutions
// (the artifact does not cap them; no difference on its four networks).
//
// Decisions (L8–11, reconstructing the schedule from choice[·]): walking from V,
// each state on the path asks decide("ios.ending", names of S) with the
// `decisionOptions` cheapest stages (cost = cost[S − S'] + StageLatency[S'],
// preferred = choice[S]); an override forces choice[S] to any valid stage —
// also one pruned by r and s — and the walk continues from S − S', whose
// optimum the DP already holds. Option ids are the stage's groups, units by
// name: "a,b | c". A stage that could run merged or concurrently also asks
// decide("ios.strategy", names of S') with options "merge" and "concurrent".
//
// A part over maxStates (known without enumerating when 2^width > maxStates:
// every subset of an antichain closes to its own down-set) or over
// maxTransitions is cut into two runs of its units in list order,
// recursively, until each fits ("S1: cut" in the trace; `cuts` counts them).
// The thesis bounds the search by cutting the network into blocks and parts
// by size (§3.3, the artifact's part size); cutting by the search's own size
// as well is our choice: the default part size stays optimal where it fits
// and very wide blocks still schedule (ViT-H/14: 50-unit parts of width 50,
// 12 cuts). Stages never span two parts, so a cut loses at most the
// concurrency across it. With autoCut off, such a part fails with a message
// naming the block, the part, its size and what to change.
//
// Trace: one summary step per part (units, width, states, transitions,
// schedules, cost[V], time) and one per decision on the walked path — never one
// per state, so the trace stays small on the widest parts. IosSearchLog, when
// asked for, keeps the DP table itself for a DP explorer.
#pragma once

#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/stagelatency.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tessera {

struct IosSearchOptions {
    bool merge = true;    // IOS-Merge / IOS-Both
    bool parallel = true; // IOS-Parallel / IOS-Both
    int maxGroupSize = 3; // r
    int maxGroups = 8;    // s
    int partSize = 50;    // blocks without explicit parts are cut into runs of this many units
    std::int64_t maxStates = 2'000'000;
    bool autoCut = true; // a part over maxStates or maxTransitions is cut in two (list order) until each half fits
    std::int64_t maxTransitions = 20'000'000;
    int decisionOptions = 16; // stages offered per decision (plus the chosen one)
};

struct IosPartStats {
    std::int32_t block = 0;
    std::int32_t part = 0;
    std::vector<std::int32_t> units; // unit ids, list order
    std::int64_t states = 0;         // including ∅
    std::int64_t transitions = 0;
    double schedules = 0;        // paths from the part's V to ∅
    std::int32_t width = 0;      // largest antichain of the part's units
    double stateBound = 0;       // ∏(c_i + 1) over a minimum chain cover
    double transitionBound = 0;  // ∏ C(c_i + 2, 2), thesis §3.3
    double optimumNs = 0;        // cost[V]
    double chosenNs = 0;         // the walked path (differs after overrides)
    double ms = 0;               // search time
    std::int64_t tableBytes = 0; // memory of its dp table and stage latency cache
};

// The DP table of one part, for the DP explorer (read-only).
struct IosDpTable {
    struct State {
        std::vector<std::int32_t> units; // unit ids still to schedule
        double costNs = 0;
        double schedules = 0;
        std::int32_t choice = -1; // index into transitions (-1 for ∅ or when not recorded)
        bool onPath = false;
    };
    struct Transition {
        std::int32_t from = 0, to = 0; // state indices
        IosStrategy strategy = IosStrategy::Concurrent;
        std::vector<std::vector<std::int32_t>> groups; // unit ids
        double stageNs = 0;
        double totalNs = 0; // stageNs + cost[to]
    };
    std::int32_t block = 0, part = 0;
    std::vector<State> states;           // by size, ∅ first
    std::vector<Transition> transitions; // empty when the part has more than the log's limit
    std::vector<std::int32_t> path;      // state indices from V to ∅ as walked
    bool complete = true;                // false: states or transitions were over the limits
};

struct IosSearchLog {
    std::int64_t maxStates = 100'000;        // per part
    std::int64_t maxTransitions = 1'000'000; // per part
    std::int64_t maxTotalTransitions = -1;   // over all parts kept; -1: no cap
    std::string block;                       // only this block ("block3"); empty: all
    std::vector<IosDpTable> parts;
};

struct IosSearchResult {
    IosSchedule schedule;
    std::vector<IosPartStats> parts;
    double optimumNs = 0;  // Σ cost[V] over parts
    double chosenNs = 0;   // Σ of the walked stages' latencies
    std::int32_t cuts = 0; // parts cut in two because they were over maxStates or maxTransitions
};

// Optional collaborators of a search; all may be null/empty.
struct IosSearchContext {
    DecisionContext *decisions = nullptr;
    Trace *trace = nullptr;
    IosSearchLog *log = nullptr;
    const std::atomic<bool> *cancel = nullptr;
    std::function<void(double)> progress;
};

Expected<IosSearchResult> iosSearch(const Graph &g, const IosUnitSet &units, const StageLatencyModel &latency,
                                    const IosSearchOptions &options, const IosSearchContext &context = {});

// The artifact's parts of a block: explicit parts, else runs of `partSize` units.
std::vector<std::vector<std::int32_t>> iosParts(const IosBlock &block, int partSize);

// The decisions of the walk (L8–11), for anyone who wants to force them (the
// DP explorer): the key asked at a state (`state`: the unit ids still to
// schedule), the key of the merge-or-concurrent choice of a stage of several
// units, and a stage's option id — its concurrent groups, units by name,
// "a,b | c" (a merge of sinks a and b is the stage "a | b").
std::string iosEndingKey(const IosUnitSet &units, const std::vector<std::int32_t> &state);
std::string iosStrategyKey(const IosUnitSet &units, const std::vector<std::int32_t> &stage);
std::string iosStageId(const IosUnitSet &units, const std::vector<std::vector<std::int32_t>> &groups);

} // namespace tessera
