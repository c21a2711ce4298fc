// Padded or memoized bricks per sub-graph (brickdl-icpp24 §3.3.2): padded
// bricks recompute halos, memoized bricks pay atomics; "when Δ > 15 % for a
// subgraph, BrickDL chooses to apply memoized bricks instead of padded
// bricks". The options carry both variants' estimates from the shared
// device cost model (each as the merged kernel of mergedcost.h), and
// with rule "cost" the cheaper estimate is preferred instead of the Δ rule.
// A variant whose footprint overflows the on-chip level is illegal; when
// both are, the sub-graph falls back to library kernels.
// Decision: "brickdl.strategy" per sub-graph, options padded / memoized / library.
#pragma once

#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/brickdl/memoized.h"
#include "plugins/brickdl/padded.h"
#include "plugins/brickdl/subgraph.h"

#include <string>

namespace tessera::brickdl {

struct StrategyOptions {
    double deltaThreshold = 0.15;
    bool byCost = false;
    std::string level;
    std::int64_t capacityBytes = 0;
};

struct StrategyEstimates {
    double paddedNs = 0;
    double memoizedNs = 0;
};

// Fills sub.delta, sub.paddedFootprintBytes and the atomics; returns the chosen strategy.
Strategy chooseStrategy(const Graph &g, SubGraph &sub, const PaddedBricks &padded, const MemoizedBricks &memo,
                        const StrategyEstimates &estimates, const StrategyOptions &options, DecisionContext &decisions,
                        Trace &trace);

} // namespace tessera::brickdl
