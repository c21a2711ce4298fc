// The IOS search's DP tables as the DP explorer's SearchSpace (ios thesis
// §3.2, Fig. 3.4 (2), Algorithm 1; core/sched/searchspace.h).
//
// One table per recorded part (IosSearchLog): a state S is the set of units
// still to schedule, labelled by unit names ("{a, b, c}"; a big state near V is
// labelled by what is already scheduled, "V − {a, b}"), with cost[S] and the
// number of schedules from S; a transition S → S − S' is a stage S' with its
// StageLatency (stepCost) and cost[S − S'] + StageLatency (totalCost). Kinds:
// "concurrent" (groups on streams, label "a,b | c"), "merge" (label "a + b"),
// "single" (a one-unit stage: the search lists it under both strategies, the
// walk runs it once at the lower latency, so the explorer shows it once), and
// "forced" (a stage an override forced outside the pruned space, L16: not in
// the table, added so the walked path stays connected).
//
// The path is the walk of L8–11 as it ran (overrides included); a path
// state's `choice` is the transition the walk took (its strategy read from the
// schedule), any other state's the DP's choice[S]. Only a path state asks a
// decision, so only its transitions carry one: key iosEndingKey(S), option
// iosStageId(S'), plus iosStrategyKey(S') → "merge"/"concurrent" when S' could
// run either way — forcing exactly these makes the walk take that transition.
//
// Limits come from the SearchSpaceRequest (per part, and transitions over all
// parts); a part over them keeps what IosSearchLog kept (states and path
// without transitions, or only its counts) and says so in its note. The request's scope names one block
// ("block3"); an unknown name leaves no tables and a note listing the blocks.
#pragma once

#include "core/sched/searchspace.h"
#include "plugins/ios/iossearch.h"

namespace tessera {

// The log to hand iosSearch() for `request`: its limits and scope.
IosSearchLog iosSearchLogFor(const SearchSpaceRequest &request);

// `result` is the search that filled `log` (its stages give the walked
// strategies; its part statistics the sizes of parts not kept).
SearchSpace iosSearchSpace(const Graph &g, const IosUnitSet &units, const IosSearchLog &log,
                           const IosSearchResult &result, const SearchSpaceRequest &request);

} // namespace tessera
