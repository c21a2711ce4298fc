// Splitting sub-graphs into instances and eliminating redundant edges
// (graphturbo-osdi23 §3.3, Fig. 6).
//
// S1: each sub-graph's split is the decision "graphturbo.split" keyed by its
//     nodes: one option per output dim and factor of Algo. 1's sequence, the
//     preferred one Eq. (1)'s BestSplit. A factor whose ceil(peak / v) exceeds
//     LB is listed as illegal with that reason (an override asking for it is
//     rejected); "whole" (one instance) is legal when the peak fits LB or when
//     nothing fits (the fallback to GB, §3.6).
// S2: instance i of a split (d, f) computes the i-th of f equal slices of the
//     output along d (§3.3: instances of one sub-graph are homogeneous) — of
//     cluster 0's share of the batch when the sub-graph is spread over
//     clusters (the lowering runs each instance once per cluster); edges and
//     sizes below are in cluster 0's coordinates.
// S2b: the instances' core binding (binding.h) is the decision "graphturbo.bind"
//     keyed by the sub-graph's nodes: the plain binding over the cluster's
//     cores (preferred) or over 4, 2, 1 of them.
// S3: edges are inherited from the sub-graphs (every producer instance to
//     every consumer instance); an edge is redundant, and dropped, when the
//     region the consumer instance reads (core/ops index maps through the
//     consumer's nodes) does not overlap the producer instance's slice — the
//     paper's check "combining SplitInfo and the shape of an output tensor".
//     A producer spread over clusters whose dim 0 is not the batch (a consumer
//     in cluster 0 reads beyond its cluster-0 share, e.g. position embeddings
//     [seq, hidden]) is matched in every cluster's coordinates: its instance is a
//     producer when the slice of any of its parts meets the region (the lowering
//     then waits for exactly those parts).
#pragma once

#include "core/support/status.h"
#include "plugins/graphturbo/subgraph.h"

#include <map>

namespace tessera::graphturbo {

struct InstanceGraph {
    std::vector<Instance> instances;
    std::vector<std::vector<int>> ofSubgraph; // sub-graph -> its instance ids
    // Per instance: the regions of the tensors from outside its sub-graph it reads (cluster 0's
    // part; core/plan taskRegions), kept for the lowering.
    std::vector<std::map<TensorId, ops::Region>> reads;
    std::int64_t inheritedEdges = 0;
    std::int64_t redundantEdges = 0;
};

Expected<InstanceGraph> splitInstances(Context &ctx, std::vector<SubGraph> &subgraphs, const std::vector<int> &ofNode);

} // namespace tessera::graphturbo
