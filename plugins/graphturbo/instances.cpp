#include "plugins/graphturbo/instances.h"

#include "core/plan/tiles.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/graphturbo/binding.h"
#include "plugins/graphturbo/splitinfo.h"

#include <algorithm>
#include <map>
#include <set>

namespace tessera::graphturbo {

namespace {

std::string splitId(int dim, std::int64_t factor)
{
    return dim < 0 || factor <= 1 ? std::string("whole") : "d" + std::to_string(dim) + "/f" + std::to_string(factor);
}

// U_d of a sub-graph (0 when unknown or whole).
std::int64_t unsplitOf(const SubGraph &sg, int d)
{
    return d >= 0 && static_cast<std::size_t>(d) < sg.unsplitBytes.size() ? sg.unsplitBytes[static_cast<std::size_t>(d)]
                                                                          : 0;
}

// S1: the split of one sub-graph.
void decideSplit(Context &ctx, SubGraph &sg)
{
    const Graph &g = ctx.graph;
    const std::int64_t peak = clusterPeak(sg);
    const bool wholeFits = peak <= ctx.lbBytes;
    std::vector<DecisionOption> options;
    std::vector<std::pair<int, std::int64_t>> splits;
    const bool anyFit = sg.best.factor != kNoFit;
    options.push_back({"whole", "one instance", 1.0, "peak " + std::to_string(peak) + " B",
                       wholeFits || !anyFit || !ctx.split()
                           ? std::string()
                           : "peak " + std::to_string(peak) + " B exceeds LB " + std::to_string(ctx.lbBytes) + " B"});
    splits.push_back({-1, 1});
    std::int32_t preferred = 0;
    if (sg.splittable) {
        const Shape shape = clusterShape(g.tensor(outputOf(g, sg)).shape, sg.clusterParts);
        std::map<int, int> opsOfDim; // n_d of the best tuple per dim
        for (const SplitTuple &s : sg.splitInfo)
            opsOfDim[s.dim] = std::max(opsOfDim[s.dim], s.ops);
        for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
            int listed = 0;
            std::vector<std::int64_t> candidates = splitFactorCandidates(shape[static_cast<std::size_t>(d)]);
            if (sg.best.dim == d && sg.best.factor != kNoFit &&
                std::find(candidates.begin(), candidates.end(), sg.best.factor) == candidates.end())
                candidates.insert(std::upper_bound(candidates.begin(), candidates.end(), sg.best.factor),
                                  sg.best.factor); // a ragged best split (splitinfo.h)
            for (std::int64_t v : candidates) {
                if (v < 2)
                    continue;
                const std::int64_t share =
                    instanceFootprint(peak, unsplitOf(sg, d), v, shape[static_cast<std::size_t>(d)]);
                const bool fits = share <= ctx.lbBytes;
                const bool isBest = sg.best.dim == d && sg.best.factor == v;
                if (!isBest && listed >= 6)
                    continue;
                ++listed;
                const int n = opsOfDim.count(d) ? opsOfDim[d] : 0;
                options.push_back({splitId(d, v), "split dim " + std::to_string(d) + " into " + std::to_string(v),
                                   double(v),
                                   "n_d=" + std::to_string(n) + ", instance footprint " + std::to_string(share) + " B",
                                   fits ? std::string()
                                        : "instance footprint " + std::to_string(share) + " B exceeds LB " +
                                              std::to_string(ctx.lbBytes) + " B"});
                splits.push_back({d, v});
                if (isBest)
                    preferred = static_cast<std::int32_t>(options.size() - 1);
            }
        }
        if ((sg.best.factor == 1 && sg.best.dim >= 0) || !ctx.split())
            preferred = 0; // f = 1, or a §5.3 variant without instance split: one instance
    }
    std::int32_t pick = preferred;
    if (options.size() > 1)
        pick = ctx.decisions.decide(decisionKey("graphturbo.split", nodeNames(g, sg.nodes)), "graphturbo.split",
                                    options, preferred);
    sg.splitDim = splits[static_cast<std::size_t>(pick)].first;
    sg.splitFactor = splits[static_cast<std::size_t>(pick)].second;
    auto &step = ctx.trace.add(
        "S3: split into instances (§3.3)", "sub-graph " + subgraphLabel(g, sg),
        sg.splitFactor > 1 ? std::to_string(sg.splitFactor) + " instances along dim " + std::to_string(sg.splitDim)
                           : "one instance",
        !ctx.split() ? "§5.3 variant without instance split"
        : sg.best.factor == kNoFit
            ? "no factor fits LB: whole, working set in GB"
            : "Eq. (1) lexmax (n_d, -f_d, -d) over " + std::to_string(sg.splitInfo.size()) + " SplitInfo tuples");
    step.numbers = {{"peak_bytes", double(peak)},
                    {"lb_bytes", double(ctx.lbBytes)},
                    {"n_d", double(sg.best.ops)},
                    {"factor", double(sg.splitFactor)}};
    step.touched = sg.nodes;
    if (options.size() > 1)
        ctx.trace.linkLastDecision(ctx.decisions);
}

// S1b: the core binding of a sub-graph's instances (§3.4, Algo. 4 line 5):
// the plain binding over all of the cluster's cores (preferred) or over fewer.
void decideBinding(Context &ctx, SubGraph &sg, const ops::Region &tile)
{
    const Graph &g = ctx.graph;
    std::vector<std::vector<int>> bindings;
    std::vector<DecisionOption> options;
    for (int c = ctx.cores; c >= 1; c /= 2) {
        const std::vector<int> b = plainBinding(tile, c);
        const int n = boundCores(b);
        if (std::any_of(bindings.begin(), bindings.end(), [&](const auto &x) { return boundCores(x) == n; }))
            continue;
        options.push_back({"cores" + std::to_string(n),
                           std::to_string(n) + " cores " + bindingStr(b),
                           double(-n),
                           "binding factors per output dim " + bindingStr(b),
                           {}});
        bindings.push_back(b);
    }
    std::int32_t pick = 0;
    if (options.size() > 1)
        pick =
            ctx.decisions.decide(decisionKey("graphturbo.bind", nodeNames(g, sg.nodes)), "graphturbo.bind", options, 0);
    sg.binding = bindings[static_cast<std::size_t>(pick)];
    if (options.size() > 1) {
        auto &step = ctx.trace.add("S3: split into instances (§3.3)", "binding of " + subgraphLabel(g, sg),
                                   options[static_cast<std::size_t>(pick)].label,
                                   "plain binding: 8, 4, 2, 1 cores per dim, outermost first, dividing the slice");
        step.touched = sg.nodes;
        ctx.trace.linkLastDecision(ctx.decisions);
    }
}

} // namespace

Expected<InstanceGraph> splitInstances(Context &ctx, std::vector<SubGraph> &subgraphs, const std::vector<int> &ofNode)
{
    const Graph &g = ctx.graph;
    InstanceGraph ig;
    ig.ofSubgraph.resize(subgraphs.size());
    // S1, S2: splits and instance tiles.
    for (std::size_t s = 0; s < subgraphs.size(); ++s) {
        SubGraph &sg = subgraphs[s];
        sg.unit = dominantUnit(g, ctx.device, sg);
        decideSplit(ctx, sg);
        const TensorId out = outputOf(g, sg);
        for (std::int64_t i = 0; i < sg.splitFactor; ++i) {
            Instance inst;
            inst.subgraph = static_cast<int>(s);
            inst.index = static_cast<int>(i);
            if (out != kInvalidId) {
                inst.tile = instanceTile(clusterShape(g.tensor(out).shape, sg.clusterParts), sg.splitDim,
                                         sg.splitFactor, i); // cluster 0's coordinates
                inst.outputBytes = regionBytes(g.tensor(out), inst.tile);
            }
            inst.footprint = instanceFootprint(
                clusterPeak(sg), unsplitOf(sg, sg.splitDim), sg.splitFactor,
                out != kInvalidId && sg.splitDim >= 0
                    ? clusterShape(g.tensor(out).shape, sg.clusterParts)[static_cast<std::size_t>(sg.splitDim)]
                    : 0);
            ig.ofSubgraph[s].push_back(static_cast<int>(ig.instances.size()));
            ig.instances.push_back(std::move(inst));
        }
        decideBinding(ctx, sg, ig.instances[static_cast<std::size_t>(ig.ofSubgraph[s].front())].tile);
    }
    // S3: inherited edges minus the redundant ones.
    ig.reads.resize(ig.instances.size());
    for (std::size_t s = 0; s < subgraphs.size(); ++s) {
        const SubGraph &sg = subgraphs[s];
        Kernel k;
        k.nodes = sg.nodes;
        const auto prods = producersOf(g, subgraphs, ofNode, static_cast<int>(s));
        for (int p : prods)
            ig.inheritedEdges +=
                static_cast<std::int64_t>(ig.ofSubgraph[static_cast<std::size_t>(p)].size() * ig.ofSubgraph[s].size());
        for (int c : ig.ofSubgraph[s]) {
            Instance &ci = ig.instances[static_cast<std::size_t>(c)];
            std::vector<NodeTile> tiles;
            if (sg.splitFactor > 1 || sg.clusterParts > 1)
                tiles.push_back({sg.exit, 0, ci.tile});
            auto regions = taskRegions(g, k, tiles);
            if (!regions)
                return regions.status();
            ig.reads[static_cast<std::size_t>(c)] = regions->read;
            std::map<int, std::int64_t> producerBytes; // producer instance -> bytes of its slice read
            for (const auto &[tensor, region] : regions->read) {
                const NodeId pn = g.tensor(tensor).producer;
                if (pn == kInvalidId || regionEmpty(region))
                    continue;
                const int p = ofNode[static_cast<std::size_t>(pn)];
                const SubGraph &psg = subgraphs[static_cast<std::size_t>(p)];
                const bool sliced = (psg.splitFactor > 1 || psg.clusterParts > 1) && tensor == outputOf(g, psg);
                // The producer's instances tile its output in equal steps along its split dim: only
                // those whose step range meets the region can overlap it.
                const auto &candidates = ig.ofSubgraph[static_cast<std::size_t>(p)];
                // A producer spread over clusters whose dim 0 is not the batch this consumer is
                // spread over (BERT's position embeddings, [seq, hidden], read whole by every
                // image) is read beyond cluster 0's share: its parts on other clusters hold the
                // rest, so an instance is a producer when its slice in any part meets the region.
                const std::int64_t share = sliced ? g.tensor(tensor).shape.front() / psg.clusterParts : 0;
                const bool beyondShare =
                    sliced && psg.clusterParts > 1 && !region.empty() && region.front().end > share;
                std::size_t lo = 0, hi = candidates.size();
                if (sliced && !beyondShare && psg.splitFactor > 1 && psg.splitDim >= 0 &&
                    static_cast<std::size_t>(psg.splitDim) < region.size()) {
                    const ops::Interval &first = ig.instances[static_cast<std::size_t>(candidates.front())]
                                                     .tile[static_cast<std::size_t>(psg.splitDim)];
                    const std::int64_t step = std::max<std::int64_t>(1, first.size());
                    const ops::Interval &want = region[static_cast<std::size_t>(psg.splitDim)];
                    lo = static_cast<std::size_t>(std::clamp<std::int64_t>(want.begin / step, 0, psg.splitFactor));
                    hi = static_cast<std::size_t>(
                        std::clamp<std::int64_t>((want.end + step - 1) / step, 0, psg.splitFactor));
                }
                for (std::size_t ci2 = lo; ci2 < hi; ++ci2) {
                    const int pi = candidates[ci2];
                    const Instance &inst = ig.instances[static_cast<std::size_t>(pi)];
                    if (beyondShare) {
                        std::int64_t bytes = 0;
                        for (int k = 0; k < psg.clusterParts; ++k) {
                            ops::Region tile = inst.tile;
                            tile.front().begin += k * share;
                            tile.front().end += k * share;
                            if (regionsOverlap(tile, region))
                                bytes += regionBytes(g.tensor(tensor), regionIntersect(tile, region));
                        }
                        if (bytes > 0)
                            producerBytes[pi] += bytes;
                        continue;
                    }
                    if (sliced && !regionsOverlap(inst.tile, region))
                        continue;
                    producerBytes[pi] +=
                        regionBytes(g.tensor(tensor), sliced ? regionIntersect(inst.tile, region) : region);
                }
            }
            for (const auto &[pi, bytes] : producerBytes) {
                ci.producers.push_back(pi);
                ci.producerBytes.push_back(bytes);
                ig.instances[static_cast<std::size_t>(pi)].consumers.push_back(c);
            }
        }
    }
    std::int64_t kept = 0;
    for (const Instance &i : ig.instances)
        kept += static_cast<std::int64_t>(i.producers.size());
    ig.redundantEdges = ig.inheritedEdges - kept;
    auto &step = ctx.trace.add("S3: split into instances (§3.3)", std::to_string(ig.instances.size()) + " instances",
                               std::to_string(ig.redundantEdges) + " of " + std::to_string(ig.inheritedEdges) +
                                   " inherited edges redundant, eliminated",
                               "a consumer instance depends only on producer instances whose slice it reads");
    step.numbers = {{"instances", double(ig.instances.size())},
                    {"inherited_edges", double(ig.inheritedEdges)},
                    {"redundant_edges", double(ig.redundantEdges)}};
    return ig;
}

} // namespace tessera::graphturbo
