// Batch allocation across clusters (graphturbo-osdi23 §5.1, Table 1).
//
// A DSA's clusters each take `perCluster` batches at a time, and a cluster
// runs the network `iterations` times ("a loop execution within each
// cluster") when batch > perCluster × clusters:
//     batch = perCluster × clustersUsed × iterations.
// For a requested perCluster b (option batches_per_cluster; 0 = the batch
// spread over the clusters in one iteration, the plugin's default), the
// clusters used are the most (up to the device's, or the clusters option)
// that divide batch / b, and the iterations the rest: b = 8 of a batch of 32
// on four clusters is one iteration, b = 4 is two (Table 1's rows).
// Option batch_allocation=search tries every divisor b of the batch (the
// paper's "round of beforehand autotuning executions", here the cost model's
// estimate of each verified plan instead of an execution) and keeps the one
// with the highest throughput (ties: lower latency), the decision
// "graphturbo.batch".
// Reported as Table 1 does: batches per cluster, iterations, throughput
// (batch / latency, per second) and latency (the plan's estimated latency).
// The batch is dim 0 of the graph's first activation input. An in-cluster
// loop needs every sub-graph cut into clusters × iterations parts along dim 0
// (checkLoopable); where one is not, the allocation is refused with the
// sub-graph named.
#pragma once

#include "core/support/status.h"
#include "plugins/graphturbo/subgraph.h"

#include <string>

namespace tessera::graphturbo {

struct BatchAllocation {
    std::int64_t batch = 1;
    std::int64_t perCluster = 1; // Table 1 "batches/cluster"
    int clusters = 1;            // clusters used
    int iterations = 1;          // Table 1 "iter."
    std::string id() const;      // "8x1@4": per cluster × iterations @ clusters
};

// dim 0 of the graph's first activation input, 1 if there is none.
std::int64_t graphBatch(const Graph &g);
// The allocation for `perCluster` batches per cluster (0 = the batch spread over
// `maxClusters` clusters in one iteration) on at most `maxClusters` clusters.
Expected<BatchAllocation> allocateBatches(std::int64_t batch, std::int64_t perCluster, int maxClusters);
// The search's candidates: every divisor of the batch as batches per cluster, largest first.
std::vector<BatchAllocation> batchCandidates(std::int64_t batch, int maxClusters);
// With iterations > 1, every sub-graph must be cut into clusters × iterations parts.
Status checkLoopable(const Context &ctx, const std::vector<SubGraph> &subgraphs);

} // namespace tessera::graphturbo
