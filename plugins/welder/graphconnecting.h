// GraphConnecting: the first step of Welder's two-step scheduling (welder-osdi23 Fig. 7 lines
// 1–11, §3.2 "Scheduling policy").
//
// For every node in topological order and every out-edge of it (consumers in topological
// order), every allowed level is tried with SetConnect; the level-0 sub-graph around the node
// (ExtractSubgraph(node, 0)) is tiled (SubGraphTiling over its top-k) and costed, and the
// cheapest level kept. The paper compares the sub-graph's best latency across levels; level 0
// leaves producer and consumer in separate kernels, so its cost here is the sum of the two
// kernels' costs (the only comparable quantity — an unconnected edge does not make one
// sub-graph). Ties keep the lower level.
//
// A level is illegal, with the reason shown on the decision, when an endpoint is opaque (no index
// map), when the merged sub-graph would not be convex (a path leaves it and re-enters), or when
// no tile of the merged sub-graph fits the level above / aligns its outputs. Each edge is one
// decision "welder.connect" (options: the level names; the cost each trial found) and one trace
// step listing every trial; overriding a decision replays the rest of the connecting.
// §4.2 "evaluated in parallel": the tilings the trials above level 0 need and nobody searched yet
// are searched concurrently before the trials are compared (KernelCoster::searchTrials); the
// comparison itself is sequential, in level order, so decisions do not depend on the threads.
#pragma once

#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/welder/kernelcost.h"

#include <atomic>
#include <functional>
#include <vector>

namespace tessera::welder {

struct ConnectStats {
    int trials = 0;
    int journalled = 0;       // edges whose trials came from the journal
    int concurrentTrials = 0; // tilings of trials searched concurrently (KernelCoster::searchTrials)
    std::vector<int> edgesAt; // per level
};

// Connects tg's edges in place; `allowed` lists the levels tried (0 always included). `journal`
// (optional, kernelcost.h ConnectJournal): while every level chosen so far is the one it records
// (same `allowed`), an edge's trials are taken from it — the same options, costs and trace numbers
// a new trial would find — and once a choice differs (an override) the trials run again; on
// success the journal holds this run's trials.
Expected<ConnectStats> graphConnecting(TileGraph &tg, KernelCoster &coster, const std::vector<int> &allowed,
                                       DecisionContext &decisions, Trace &trace,
                                       const std::atomic<bool> *cancel = nullptr,
                                       const std::function<void(double)> &progress = {},
                                       ConnectJournal *journal = nullptr);

} // namespace tessera::welder
