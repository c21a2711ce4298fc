// The state PCGC's steps pass on: the graph cut into fused groups and the
// fusion records (pcgc §3.3 "record every fusion", §3.6 "according to the
// record of the fusion operator"). Each record is one merge of a producer
// group into a consumer group; the records inside a group are its split
// points for the dynamic re-cutting.
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"
#include "plugins/pcgc/categories.h"

#include <string>
#include <vector>

namespace tessera::pcgc {

struct FusionRecord {
    std::vector<NodeId> producerSide; // the producer group as it was fused (its later split part)
    std::vector<NodeId> consumerSide; // the consumer group as it was fused
    std::string rule;                 // FusionRule::id that allowed it
    bool stable = false;              // stable rule: never split later
    std::int32_t pass = 0;            // static-fusion pass (1-based)
};

struct FusedGroup {
    std::vector<NodeId> nodes; // sorted by topological rank
    OpCategory category = OpCategory::Algebraic;
    bool folded = false; // constant folding (constfold.h): computed once, when the plan is loaded
};

struct Partition {
    std::vector<FusedGroup> groups; // live groups only
    std::vector<FusionRecord> records;
    std::int32_t passes = 0; // static-fusion passes until the fixed point
    // Common subexpressions (cse.h): each node is copied from its equivalent,
    // which the same group computes.
    std::vector<NodeAssignment> assigned;
};

// Topological rank of every node (rank[n] < rank[m] when n precedes m).
std::vector<std::int32_t> nodeRanks(const Graph &g);
// True when the groups, as units, form a DAG (no cycle between sub-graphs).
bool groupsAcyclic(const Graph &g, const std::vector<std::vector<NodeId>> &groups);
// The groups in an order every edge between them respects (asserts acyclic).
std::vector<std::size_t> groupOrder(const Graph &g, const std::vector<std::vector<NodeId>> &groups,
                                    const std::vector<std::int32_t> &rank);
// "conv1+bn1+relu1" (first three names, then "+N").
std::string groupLabel(const Graph &g, const std::vector<NodeId> &nodes);
std::vector<std::string> nodeNames(const Graph &g, const std::vector<NodeId> &nodes);

} // namespace tessera::pcgc
