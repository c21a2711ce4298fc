#include "plugins/graphturbo/batching.h"

namespace tessera::graphturbo {

std::string BatchAllocation::id() const
{
    return std::to_string(perCluster) + "x" + std::to_string(iterations) + "@" + std::to_string(clusters);
}

std::int64_t graphBatch(const Graph &g)
{
    for (TensorId t : g.inputs) {
        const Tensor &tt = g.tensor(t);
        if (tt.kind == Tensor::Kind::Input && !tt.shape.empty() && tt.shape.front() > 0)
            return tt.shape.front();
    }
    return 1;
}

Expected<BatchAllocation> allocateBatches(std::int64_t batch, std::int64_t perCluster, int maxClusters)
{
    BatchAllocation a;
    a.batch = batch;
    maxClusters = std::max(1, maxClusters);
    if (perCluster <= 0) {
        a.clusters = batch % maxClusters == 0 ? maxClusters : 1;
        a.perCluster = batch / a.clusters;
        return a;
    }
    if (perCluster > batch || batch % perCluster != 0)
        return Status::invalid("batch allocation: " + std::to_string(perCluster) +
                               " batches per cluster do not divide the batch of " + std::to_string(batch));
    const std::int64_t chunks = batch / perCluster;
    a.perCluster = perCluster;
    for (int c = maxClusters; c >= 1; --c)
        if (chunks % c == 0) {
            a.clusters = c;
            break;
        }
    a.iterations = static_cast<int>(chunks / a.clusters);
    return a;
}

std::vector<BatchAllocation> batchCandidates(std::int64_t batch, int maxClusters)
{
    std::vector<BatchAllocation> out;
    for (std::int64_t b = batch; b >= 1; --b)
        if (batch % b == 0)
            if (auto a = allocateBatches(batch, b, maxClusters))
                out.push_back(*a);
    return out;
}

Status checkLoopable(const Context &ctx, const std::vector<SubGraph> &subgraphs)
{
    if (ctx.iterations <= 1)
        return Status::ok();
    for (const SubGraph &sg : subgraphs)
        if (sg.alive && !sg.nodes.empty() && sg.clusterParts != ctx.batchParts()) {
            const TensorId out = outputOf(ctx.graph, sg);
            const std::string dim0 = out != kInvalidId && !ctx.graph.tensor(out).shape.empty()
                                         ? std::to_string(ctx.graph.tensor(out).shape.front())
                                         : "none";
            return Status::invalid("batch allocation: " + std::to_string(ctx.iterations) +
                                   " in-cluster iterations need every sub-graph cut into " +
                                   std::to_string(ctx.batchParts()) + " parts along dim 0, but sub-graph " +
                                   subgraphLabel(ctx.graph, sg) + " (dim 0 = " + dim0 + ") is not");
        }
    return Status::ok();
}

} // namespace tessera::graphturbo
