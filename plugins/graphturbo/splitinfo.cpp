#include "plugins/graphturbo/splitinfo.h"

#include "core/cost/costmodel.h"
#include "core/plan/tiles.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace tessera::graphturbo {

std::vector<std::int64_t> splitFactorCandidates(std::int64_t size)
{
    std::vector<std::int64_t> v;
    for (std::int64_t c : {1, 2, 4})
        if (c <= size && size % c == 0)
            v.push_back(c);
    for (std::int64_t c = 8; c <= size; ++c)
        if (size % c == 0)
            v.push_back(c);
    return v;
}

bool raggedSplitOk(std::int64_t size, std::int64_t factor)
{
    if (factor < 2 || factor > size)
        return false;
    const std::int64_t step = (size + factor - 1) / factor;
    return (factor - 1) * step < size; // the last instance keeps at least one row
}

std::vector<std::int64_t> raggedFactorCandidates(std::int64_t size)
{
    std::vector<std::int64_t> v;
    for (std::int64_t c = 8; c <= size; ++c)
        if (size % c != 0 && raggedSplitOk(size, c))
            v.push_back(c);
    return v;
}

ops::Region instanceTile(const Shape &shape, int dim, std::int64_t factor, std::int64_t index)
{
    ops::Region r = ops::fullRegion(shape);
    if (dim < 0 || factor <= 1)
        return r;
    const std::int64_t size = shape[static_cast<std::size_t>(dim)];
    const std::int64_t step = (size + factor - 1) / factor; // size / factor for a divisor
    r[static_cast<std::size_t>(dim)] = {std::min(size, index * step), std::min(size, (index + 1) * step)};
    return r;
}

namespace {

// Regions of every tensor the sub-graph produces when its exit computes `tile`.
Expected<TaskRegions> regionsFor(const Graph &g, const std::vector<NodeId> &nodes, NodeId exit, const ops::Region &tile)
{
    Kernel k;
    k.nodes = nodes;
    return taskRegions(g, k, {NodeTile{exit, 0, tile}});
}

// Line 10's match_dim: the one dim of t a split narrows; -1 if none or several.
int matchedDim(const Tensor &t, const ops::Region &r)
{
    if (r.size() != t.shape.size())
        return -1;
    int dim = -1;
    for (std::size_t e = 0; e < r.size(); ++e)
        if (r[e].size() < t.shape[e]) {
            if (dim >= 0)
                return -1;
            dim = static_cast<int>(e);
        }
    return dim;
}

} // namespace

std::int64_t unsplitInputBytes(const Graph &g, const std::vector<NodeId> &nodes, NodeId exit, int dim, int clusterParts)
{
    const TensorId out = g.node(exit).outputs.empty() ? kInvalidId : g.node(exit).outputs.front();
    if (out == kInvalidId || dim < 0 || dim >= static_cast<int>(g.tensor(out).shape.size()))
        return 0;
    const Shape &shape = g.tensor(out).shape;
    if (shape[static_cast<std::size_t>(dim)] < 2)
        return 0;
    ops::Region tile = ops::fullRegion(shape);
    auto whole = regionsFor(g, nodes, exit, tile);
    tile[static_cast<std::size_t>(dim)] = {0, (shape[static_cast<std::size_t>(dim)] + 1) / 2};
    auto half = regionsFor(g, nodes, exit, tile);
    if (!whole || !half)
        return 0;
    // A read the split leaves as the whole output reads it (a strided convolution reads less
    // than its whole input, the same in every instance).
    std::int64_t bytes = 0;
    for (const auto &[t, r] : half->read) {
        const Tensor &tt = g.tensor(t);
        auto w = whole->read.find(t);
        if (tt.isConstant() || tt.shape.empty() || w == whole->read.end() || r != w->second)
            continue;
        const std::int64_t parts = std::max(1, clusterParts);
        bytes += (regionBytes(tt, r) + parts - 1) / parts;
    }
    return bytes;
}

std::int64_t instanceFootprint(std::int64_t peakBytes, std::int64_t unsplitBytes, std::int64_t factor,
                               std::int64_t extent)
{
    const std::int64_t u = std::clamp<std::int64_t>(unsplitBytes, 0, peakBytes);
    const std::int64_t v = std::max<std::int64_t>(1, factor);
    if (extent > 0 && v > 1 && extent % v != 0) { // ragged: the largest instance has ceil(extent / v) rows
        const std::int64_t step = (extent + v - 1) / v;
        return u + static_cast<std::int64_t>(std::ceil(double(peakBytes - u) * double(step) / double(extent)));
    }
    return u + (peakBytes - u + v - 1) / v;
}

std::vector<SplitTuple> computeSplitInfo(const Context &ctx, const std::vector<NodeId> &nodes, NodeId exit,
                                         std::int64_t peakBytes, int clusterParts, std::vector<std::int64_t> *unsplit)
{
    const Graph &g = ctx.graph;
    std::vector<SplitTuple> info;
    const TensorId out = g.node(exit).outputs.empty() ? kInvalidId : g.node(exit).outputs.front();
    if (out == kInvalidId)
        return info;
    const Shape &shape = g.tensor(out).shape;
    const Shape share = clusterShape(shape, clusterParts);
    if (unsplit)
        unsplit->assign(shape.size(), 0);
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
        // S1 (lines 3-6): the smallest v whose instance fits LB.
        const std::int64_t u = unsplitInputBytes(g, nodes, exit, d, clusterParts);
        if (unsplit)
            (*unsplit)[static_cast<std::size_t>(d)] = u;
        const std::int64_t extent = share[static_cast<std::size_t>(d)];
        std::int64_t f = 0;
        for (std::int64_t v : splitFactorCandidates(extent))
            if (instanceFootprint(peakBytes, u, v) <= ctx.lbBytes) {
                f = v;
                break;
            }
        // A ragged split (the last instance smaller) where the extent's divisors force more than
        // twice its instances (ViT's 197 tokens: 197 one-row instances or none).
        for (std::int64_t v : raggedFactorCandidates(extent))
            if (instanceFootprint(peakBytes, u, v, extent) <= ctx.lbBytes) {
                if (f == 0 || f > 2 * v)
                    f = v;
                break;
            }
        if (f == 0)
            continue; // split_d = 0
        int n = 1;
        info.push_back({true, n, f, d});
        // S2 (lines 7-11): propagate to intermediates. A probe split into
        // max(f, 2) pieces tells which dim of each intermediate d reaches.
        const std::int64_t probe = std::max<std::int64_t>(f, 2);
        if (shape[static_cast<std::size_t>(d)] < probe)
            continue;
        ops::Region tile = ops::fullRegion(shape);
        tile[static_cast<std::size_t>(d)] = {0, (shape[static_cast<std::size_t>(d)] + probe - 1) / probe};
        auto regions = regionsFor(g, nodes, exit, tile);
        if (!regions)
            continue;
        for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
            if (*it == exit || g.node(*it).outputs.empty() || g.node(*it).outputs.front() == kInvalidId)
                continue;
            const TensorId t = g.node(*it).outputs.front();
            auto r = regions->computed.find(t);
            if (r == regions->computed.end())
                continue;
            const int e = matchedDim(g.tensor(t), r->second);
            const std::int64_t extent =
                g.tensor(t).shape.empty() || e < 0 ? 0 : g.tensor(t).shape[static_cast<std::size_t>(e)];
            const std::int64_t parts = e == 0 ? clusterParts : 1;
            // Line 10; a ragged f matches an intermediate cut the same way (the same extent).
            const bool ragged = share[static_cast<std::size_t>(d)] % f != 0;
            if (e >= 0 && extent % parts == 0 &&
                (ragged ? extent / parts == share[static_cast<std::size_t>(d)] : (extent / parts) % f == 0))
                info.push_back({true, ++n, f, d});
        }
    }
    return info;
}

SplitTuple bestSplit(const std::vector<SplitTuple> &splitInfo)
{
    SplitTuple best{false, 0, kNoFit, -1};
    bool any = false;
    for (const SplitTuple &s : splitInfo) {
        if (!any || std::make_tuple(s.ops, -s.factor, -s.dim) > std::make_tuple(best.ops, -best.factor, -best.dim))
            best = s;
        any = true;
    }
    return best;
}

void analyseSubGraph(const Context &ctx, SubGraph &sg)
{
    const Graph &g = ctx.graph;
    sg.peakBytes = peakFootprint(g, sg.nodes);
    sg.opaque = std::any_of(sg.nodes.begin(), sg.nodes.end(), [&](NodeId n) { return g.node(n).opaque; });
    const Node &exit = g.node(sg.exit);
    const auto outs = kernelOutputNodes(g, sg.nodes);
    const bool singleOutput =
        std::count_if(exit.outputs.begin(), exit.outputs.end(), [](TensorId t) { return t != kInvalidId; }) == 1 &&
        exit.outputs.front() != kInvalidId;
    sg.splittable = !sg.opaque && singleOutput && outs.size() == 1 && outs.front() == sg.exit &&
                    !g.tensor(exit.outputs.front()).shape.empty();
    sg.clusterParts = 1;
    const int parts = ctx.batchParts();
    if (sg.splittable && parts > 1 && g.tensor(exit.outputs.front()).shape.front() % parts == 0)
        sg.clusterParts = parts;
    sg.splitInfo.clear();
    sg.unsplitBytes.clear();
    if (sg.splittable)
        sg.splitInfo = computeSplitInfo(ctx, sg.nodes, sg.exit, clusterPeak(sg), sg.clusterParts, &sg.unsplitBytes);
    else if (sg.peakBytes <= ctx.lbBytes)
        sg.splitInfo.push_back({true, static_cast<int>(sg.nodes.size()), 1, -1}); // whole, fits
    sg.best = bestSplit(sg.splitInfo);
}

std::int64_t clusterPeak(const SubGraph &sg)
{
    return (sg.peakBytes + sg.clusterParts - 1) / sg.clusterParts;
}

namespace {

// The instances of a sub-graph as §3.3 will cut it (one cluster's share): its best factor
// when instances are split (§5.3 variants without split run it whole).
std::int64_t instancesOf(const Context &ctx, const SubGraph &sg)
{
    const std::int64_t f = sg.best.factor;
    return !ctx.split() || !sg.splittable || f <= 1 || f == kNoFit ? 1 : f;
}

// The instances recomputeCheck samples: all of them up to 16, else the first, second and
// last with the second weighed by f - 2 (interior instances are alike).
std::vector<std::pair<std::int64_t, double>> sampledInstances(std::int64_t f)
{
    std::vector<std::pair<std::int64_t, double>> picks;
    if (f <= 16)
        for (std::int64_t i = 0; i < f; ++i)
            picks.push_back({i, 1.0});
    else
        picks = {{0, 1.0}, {1, double(f - 2)}, {f - 1, 1.0}};
    return picks;
}

} // namespace

WeightReads weightReads(const Context &ctx, const SubGraph &sg)
{
    const Graph &g = ctx.graph;
    std::set<TensorId> constants;
    std::int64_t whole = 0;
    for (NodeId n : sg.nodes)
        for (TensorId t : g.node(n).inputs)
            if (t != kInvalidId && g.tensor(t).isConstant() && constants.insert(t).second)
                whole += g.tensor(t).bytes();
    WeightReads out;
    out.level =
        whole <= ctx.weightBudget && ctx.device.levels.size() > 1 ? 1 : static_cast<int>(ctx.device.levels.size()) - 1;
    if (whole == 0)
        return out;
    const std::int64_t f = instancesOf(ctx, sg);
    out.bytes = double(whole); // unsplit: each cluster's part reads them once
    if (f > 1) {
        const Shape shape = clusterShape(g.tensor(outputOf(g, sg)).shape, sg.clusterParts);
        out.bytes = 0;
        for (const auto &[i, w] : sampledInstances(f)) {
            auto r = regionsFor(g, sg.nodes, sg.exit, instanceTile(shape, sg.best.dim, f, i));
            if (!r)
                return {out.level, double(whole)};
            for (const auto &[t, region] : r->read)
                if (constants.count(t))
                    out.bytes += w * double(regionBytes(g.tensor(t), region));
        }
    }
    out.bytes *= sg.clusterParts;
    return out;
}

RecomputeVerdict recomputeCheck(Context &ctx, const SubGraph &sg, const std::vector<const SubGraph *> &parts,
                                std::int64_t stitchedBytes)
{
    const Graph &g = ctx.graph;
    RecomputeVerdict v;
    const MemoryLevel &lb = ctx.device.levels.front();
    const MemoryLevel &gb = ctx.device.levels.size() > 1 ? ctx.device.levels[1] : ctx.device.levels.back();
    v.savedNs = 2 * ctx.cost.transferCost(stitchedBytes, lb.name, gb.name).timeNs;
    // S2: the weights every instance reads again, against what the parts apart read, per level
    // (bytes, so that the transfers' fixed costs do not count once per part).
    std::map<int, double> moreBytes;
    const WeightReads merged = weightReads(ctx, sg);
    moreBytes[merged.level] += merged.bytes;
    for (const SubGraph *part : parts) {
        const WeightReads apart = weightReads(ctx, *part);
        moreBytes[apart.level] -= apart.bytes;
    }
    for (const auto &[level, bytes] : moreBytes) {
        const std::string &from = ctx.device.levels[static_cast<std::size_t>(level)].name;
        const double ns = ctx.cost.transferCost(static_cast<std::int64_t>(std::abs(bytes)), from, lb.name).timeNs;
        v.reloadNs += bytes >= 0.5 ? ns : bytes <= -0.5 ? -ns : 0.0;
    }
    v.reloadNs = std::max(0.0, v.reloadNs);
    v.extraNs = v.reloadNs;
    v.ok = v.extraNs <= v.savedNs;
    const std::int64_t f = sg.best.factor;
    if (!sg.splittable || f <= 1 || f == kNoFit)
        return v;
    // S1: recomputed regions of intermediates (halos, unsplit producers).
    const Shape shape = clusterShape(g.tensor(outputOf(g, sg)).shape, sg.clusterParts);
    std::map<TensorId, double> elems;
    for (const auto &[i, w] : sampledInstances(f)) {
        auto r = regionsFor(g, sg.nodes, sg.exit, instanceTile(shape, sg.best.dim, f, i));
        if (!r)
            return v;
        for (const auto &[t, region] : r->computed)
            elems[t] += w * double(ops::regionElements(region));
    }
    for (NodeId n : sg.nodes) {
        const Node &node = g.node(n);
        if (node.outputs.empty() || node.outputs.front() == kInvalidId)
            continue;
        const Tensor &t = g.tensor(node.outputs.front());
        auto it = elems.find(node.outputs.front());
        if (it == elems.end() || t.elements() == 0)
            continue;
        const double ratio = it->second * sg.clusterParts / double(t.elements()); // one cluster's share
        if (ratio <= 1.0 + 1e-9)
            continue;
        double &c = ctx.nodeComputeNs[static_cast<std::size_t>(n)];
        if (c < 0)
            c = ctx.cost.kernelCost(g, {n}, {}).computeNs;
        v.recomputeNs += (ratio - 1.0) * c;
    }
    v.extraNs = v.recomputeNs + v.reloadNs;
    v.ok = v.extraNs <= v.savedNs;
    return v;
}

} // namespace tessera::graphturbo
