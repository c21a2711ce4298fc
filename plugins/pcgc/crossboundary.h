// PCGC cross-boundary optimisation (pcgc §3.4, item 1 "Cross-boundary
// optimization"): "Traverse the computational graph using topological
// sorting. First, select a node with a degree of 0 to execute, then delete the
// node and its connected edges, and then find the next node with a degree of
// 0 to execute. In the process of traversal, constant folding, inline
// optimization and common sub-expression extraction are optimized."
//
// crossBoundary() is that traversal (Kahn's algorithm, ties by node id:
// core/ir/analysis.h topologicalOrder). At each node it asks, in this order,
//   constant folding        (constfold.h, §3.4 item 2),
//   common-subexpression    (cse.h,       §3.4 item 4) when not folded,
// and once the last node of a sub-graph has been visited
//   inlining                (inlining.h,  §3.4 item 3) of that sub-graph.
// The rewrites act on the fused sub-graphs ("across fusion boundaries"), not
// on the graph: the model stays as imported, the partition records what each
// rewrite changed and the lowering (lowering.h) turns it into the plan —
// folded nodes into one kernel computed once, a common subexpression into a
// Kernel::assigned copy (verified: core/plan/verify.h), an inlined sub-graph
// into its consumer's kernel.
// Every application is a decision (pcgc.fold, pcgc.cse, pcgc.inline; an
// override of "keep" leaves the node or sub-graph as it was) and a trace step.
// Where: after the re-cutting (§3.6), before the parallel processing's waves.
// The paper lists it before the re-cutting (§3.1); our choice: after, so the
// re-cutting's split points stay the records of static fusion, and the waves
// see the final sub-graphs. Assumes: the partition covers every node once and
// its groups form a DAG; every rewrite keeps both (each checks the cycle).
#pragma once

#include "core/cost/costmodel.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/pcgc/partition.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace tessera::pcgc {

struct CrossBoundaryResult {
    std::int32_t folded = 0;   // nodes folded into constants
    std::int32_t assigned = 0; // common subexpressions computed once
    std::int32_t inlined = 0;  // small sub-graphs expanded into their consumer
};

// The state the three rewrites share while the traversal runs.
struct RewriteState {
    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

    RewriteState(const Graph &graph, const CostModel &model, Partition &p, DecisionContext &ctx, Trace &t);

    const Graph &g;
    const CostModel &cost;
    Partition &partition;
    DecisionContext &decisions;
    Trace &trace;
    std::vector<std::int32_t> rank;                  // topological rank per node
    std::vector<std::size_t> groupOf;                // node -> index into partition.groups
    std::vector<bool> visited;                       // the traversal has passed the node
    std::size_t foldedGroup = kNone;                 // the group of folded nodes, once there is one
    std::map<std::string, std::vector<NodeId>> seen; // cse.h: computations met so far, by signature
    CrossBoundaryResult result;

    // Moves node n into group `to` (kept in rank order); the group it leaves may become empty.
    void moveNode(NodeId n, std::size_t to);
    // True when the groups, with node n moved into group `to`, still form a DAG.
    bool acyclicWith(NodeId n, std::size_t to) const;
    // True when these groups (empty ones ignored) form a DAG.
    bool acyclic(std::vector<std::vector<NodeId>> groups) const;
    // Each group's nodes (empty groups included).
    std::vector<std::vector<NodeId>> groupNodes() const;
    // The cost model's time of `nodes` as one kernel alone.
    double timeNs(const std::vector<NodeId> &nodes) const;
};

CrossBoundaryResult crossBoundary(const Graph &g, const CostModel &cost, Partition &partition,
                                  DecisionContext &decisions, Trace &trace);

} // namespace tessera::pcgc
