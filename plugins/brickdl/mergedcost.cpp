#include "plugins/brickdl/mergedcost.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

namespace tessera::brickdl {

Expected<MergedKernel> mergedKernel(const Graph &g, const SubGraph &sub, const std::vector<BrickWork> &work,
                                    std::int64_t blocks, double atomics, const CostModel &cost,
                                    const std::string &onChipLevel)
{
    MergedKernel out;
    ShapedLaunch &s = out.launch;
    const std::unordered_set<NodeId> members(sub.nodes.begin(), sub.nodes.end());
    const std::unordered_set<NodeId> outputs(sub.outputs.begin(), sub.outputs.end());
    std::unordered_map<NodeId, double> flopsPerElement;
    int heaviest = -1;
    for (NodeId n : sub.nodes) {
        const Node &node = g.node(n);
        const auto elements = static_cast<double>(g.tensor(node.outputs[0]).elements());
        flopsPerElement[n] = elements > 0 ? ops::opCost(g, node).flops / elements : 0.0;
        const OpClass c = opClassOf(node.opType);
        if (opClassWeight(c) > heaviest) {
            heaviest = opClassWeight(c);
            s.opClass = c;
        }
    }
    const DType dt = g.tensor(g.node(sub.nodes.front()).outputs[0]).dtype;
    s.dtype = isFloat(dt) ? dt : DType::Float32;
    s.blocks = std::max<std::int64_t>(1, blocks);
    s.atomics = atomics;
    // One library call per brick computation; a fused point-wise epilogue rides in its producer's call (§3.3.4).
    const std::vector<bool> stored = materialised(g, sub);
    std::unordered_set<NodeId> callers;
    for (std::size_t i = 0; i < sub.nodes.size(); ++i)
        if (stored[i])
            callers.insert(sub.nodes[i]);
    s.deviceCalls = static_cast<double>(
        std::count_if(work.begin(), work.end(), [&](const BrickWork &w) { return callers.count(w.node) > 0; }));

    std::unordered_map<TensorId, double> outsideRead; // external activations and weights: bytes read in all
    double onChip = 0, mainMemory = 0;
    std::vector<double> weight(work.size(), 0.0);
    double flops = 0, elementsTotal = 0, largestBrick = 0;
    for (std::size_t i = 0; i < work.size(); ++i) {
        const Node &node = g.node(work[i].node);
        const Tensor &out = g.tensor(node.outputs[0]);
        const auto elements = static_cast<double>(ops::regionElements(*work[i].region));
        const double f = elements * flopsPerElement[work[i].node];
        flops += f;
        elementsTotal += elements;
        largestBrick = std::max(largestBrick, elements);
        weight[i] = f;
        const double written = elements * static_cast<double>(dtypeSize(out.dtype));
        (outputs.count(work[i].node) ? mainMemory : onChip) += written;
        auto in = ops::inputRegions(g, node, 0, *work[i].region);
        if (!in)
            return in.status();
        for (std::size_t k = 0; k < node.inputs.size(); ++k) {
            const TensorId t = node.inputs[k];
            if (t == kInvalidId || !(*in)[k].used)
                continue;
            const Tensor &tt = g.tensor(t);
            const double bytes = tt.isConstant() ? static_cast<double>(tt.bytes())
                                                 : static_cast<double>(ops::regionElements((*in)[k].clipped)) *
                                                       static_cast<double>(dtypeSize(tt.dtype));
            if (!tt.isConstant() && members.count(tt.producer))
                onChip += bytes;
            else
                outsideRead[t] += bytes;
        }
    }
    // Outside data: once from main memory, every further read from the on-chip level.
    for (const auto &[t, bytes] : outsideRead) {
        const double once = std::min(bytes, static_cast<double>(g.tensor(t).bytes()));
        mainMemory += once;
        onChip += bytes - once;
    }
    s.flops = flops;
    // One thread per output element of the largest brick, in whole warps, at most 1024 (CUDA's limit).
    s.threadsPerBlock = static_cast<int>(std::clamp(std::ceil(largestBrick / 32.0) * 32.0, 32.0, 1024.0));
    s.bytesByLevel[""] = mainMemory;
    if (!onChipLevel.empty())
        s.bytesByLevel[onChipLevel] = onChip;
    else
        s.bytesByLevel[""] += onChip;
    out.estimate = cost.estimateShapedKernel({s});
    out.shares.resize(work.size());
    for (std::size_t i = 0; i < work.size(); ++i)
        out.shares[i] = flops > 0           ? weight[i] / flops
                        : elementsTotal > 0 ? static_cast<double>(ops::regionElements(*work[i].region)) / elementsTotal
                                            : 1.0 / static_cast<double>(work.size());
    return out;
}

Expected<MergedKernel> paddedKernel(const Graph &g, const SubGraph &sub, const PaddedBricks &bricks,
                                    const CostModel &cost, const std::string &onChipLevel)
{
    std::vector<BrickWork> work;
    for (const PaddedChain &c : bricks.chains)
        for (const auto &[n, region] : c.steps)
            work.push_back({n, &region});
    return mergedKernel(g, sub, work, static_cast<std::int64_t>(bricks.chains.size()), 0.0, cost, onChipLevel);
}

Expected<MergedKernel> memoizedKernel(const Graph &g, const SubGraph &sub, const MemoizedBricks &bricks,
                                      const CostModel &cost, const std::string &onChipLevel)
{
    std::vector<BrickWork> work;
    work.reserve(bricks.order.size());
    std::int32_t roots = 0;
    for (const MemoBrick &b : bricks.order) {
        work.push_back({b.node, &b.region});
        roots = std::max(roots, b.root + 1);
    }
    return mergedKernel(g, sub, work, roots, static_cast<double>(bricks.compulsoryAtomics + bricks.conflictAtomics),
                        cost, onChipLevel);
}

} // namespace tessera::brickdl
