#include "plugins/welder/subgraphtiling.h"

#include "core/plan/tiles.h"

#include <queue>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <thread>
#include <unordered_map>

namespace tessera::welder {

std::string TileChoice::label() const
{
    std::string s;
    for (std::size_t i = 0; i < config.tile.size(); ++i)
        s += (i ? "x" : "") + std::to_string(config.tile[i]);
    return s.empty() ? "scalar" : s;
}

ops::Region primaryDomain(const Graph &g, const std::vector<NodeId> &nodes)
{
    const auto esc = escapingTensors(g, nodes);
    return esc.empty() ? ops::Region{} : ops::fullRegion(g.tensor(esc.front()).shape);
}

std::string subgraphSignature(const TileGraph &tg, const std::vector<NodeId> &nodes)
{
    const Graph &g = tg.graph();
    const TileGraph::SignatureParts &parts = tg.signatureParts();
    // Position of each node in `nodes`: a linear scan for small sub-graphs, else a sorted index.
    std::vector<std::pair<NodeId, std::ptrdiff_t>> sorted;
    if (nodes.size() > 32) {
        for (std::size_t i = 0; i < nodes.size(); ++i)
            sorted.emplace_back(nodes[i], static_cast<std::ptrdiff_t>(i));
        std::sort(sorted.begin(), sorted.end());
    }
    auto localIndex = [&](NodeId n) -> std::ptrdiff_t {
        if (sorted.empty()) {
            const auto it = std::find(nodes.begin(), nodes.end(), n);
            return it == nodes.end() ? -1 : it - nodes.begin();
        }
        const auto it = std::lower_bound(sorted.begin(), sorted.end(), std::pair<NodeId, std::ptrdiff_t>{n, -1});
        return it != sorted.end() && it->first == n ? it->second : -1;
    };
    const auto escaping = escapingTensors(g, nodes);
    std::string sig;
    sig.reserve(nodes.size() * 64);
    for (NodeId n : nodes) {
        const Node &node = g.node(n);
        sig += parts.nodeHead[static_cast<std::size_t>(n)];
        for (TensorId t : node.inputs) {
            if (t == kInvalidId) {
                sig += "_,";
                continue;
            }
            const Tensor &tt = g.tensor(t);
            const std::ptrdiff_t local = tt.producer != kInvalidId ? localIndex(tt.producer) : -1;
            if (local >= 0) {
                const Node &p = g.node(tt.producer);
                const auto oi = std::find(p.outputs.begin(), p.outputs.end(), t) - p.outputs.begin();
                const int e = tg.edgeIndex(tt.producer, n);
                sig += "n" + std::to_string(local) + "." + std::to_string(oi) + "@" +
                       std::to_string(e >= 0 ? tg.connectLevel(e) : 0);
            } else {
                sig += parts.externalText[static_cast<std::size_t>(t)];
            }
            sig += ",";
        }
        sig += ")->";
        for (TensorId t : node.outputs) {
            if (t == kInvalidId) {
                sig += "_";
                continue;
            }
            sig += parts.shapeText[static_cast<std::size_t>(t)];
            if (std::find(escaping.begin(), escaping.end(), t) != escaping.end())
                sig += t == escaping.front() ? "P" : "E";
        }
        sig += "|";
    }
    return sig;
}

const Tiling *InnerTilingCache::find(const std::string &key) const
{
    std::lock_guard lock(m_mutex);
    ++m_lookups;
    auto it = m_map.find(key);
    return it == m_map.end() ? nullptr : it->second.get();
}

std::int64_t InnerTilingCache::hits() const
{
    std::lock_guard lock(m_mutex);
    return m_lookups - static_cast<std::int64_t>(m_map.size());
}

std::int64_t InnerTilingCache::stored() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<std::int64_t>(m_map.size());
}

const Tiling &InnerTilingCache::insert(std::string key, Tiling tiling)
{
    std::lock_guard lock(m_mutex);
    auto [it, added] = m_map.try_emplace(std::move(key), nullptr);
    if (added)
        it->second = std::make_unique<Tiling>(std::move(tiling));
    return *it->second;
}

namespace {

constexpr std::int64_t kMmaFragment = 16; // M, N of a TensorCore fragment (16×16×16)

// The fused launch of a level-0 candidate (header: line 8's "Profile").
void costCandidate(const TilingContext &ctx, TileChoice &c)
{
    const Graph &g = ctx.tg->graph();
    ShapedLaunch s;
    int best = -1;
    for (NodeId n : c.config.nodes) {
        const Node &node = g.node(n);
        const OpClass cls = opClassOf(node.opType);
        if (opClassWeight(cls) > best) {
            best = opClassWeight(cls);
            s.opClass = cls;
        }
        const Tensor *out = g.output(node, 0);
        if (!out || out->elements() <= 0)
            continue;
        auto it = c.config.computed.find(node.outputs[0]);
        const double share = it == c.config.computed.end()
                                 ? 1.0
                                 : static_cast<double>(ops::regionElements(it->second)) *
                                       static_cast<double>(c.config.tileCount) / static_cast<double>(out->elements());
        s.flops += ops::opCost(g, node).flops * share;
    }
    const Tensor &primary = g.tensor(c.config.primary);
    s.dtype = isFloat(primary.dtype) ? primary.dtype : DType::Float32;
    s.blocks = c.config.tileCount;
    const WelderLevels &L = *ctx.levels;
    // §5.4: with host memory at level 0, a level-0 tile is a chunk held in device memory; the
    // launch is made of the level-1 tiles of the sub-graphs inside it (their blocks, their
    // footprint at level 2 as shared memory), and the chunk's tiles move at host memory.
    const std::vector<TileChoice> *threadLevel = &c.inner; // tilings one level above the blocks'
    std::vector<TileChoice> above;
    if (L.host) {
        std::int64_t innerTiles = 1, innerFootprint = 0;
        for (const TileChoice &in : c.inner) {
            innerTiles = std::max(innerTiles, in.config.tileCount);
            innerFootprint = std::max(innerFootprint, in.footprint.bytes);
            above.insert(above.end(), in.inner.begin(), in.inner.end());
        }
        s.blocks = c.config.tileCount * innerTiles;
        if (L.top() >= 2 && !L.at(2).deviceLevel.empty())
            s.sharedBytesPerBlock = innerFootprint;
        s.bytesByLevel[L.at(1).deviceLevel] += c.innerTraffic;
        threadLevel = &above;
    } else if (L.top() >= 1 && !L.at(1).deviceLevel.empty()) {
        s.sharedBytesPerBlock = c.footprint.bytes;
    }
    // Level-0 traffic: what a tensor's tiles read beyond its own size is re-read, and comes from
    // the device's cache when the tensor fits it (weights read by every tile); the rest, and
    // every store, from level 0.
    double global = c.traffic.storeBytes * static_cast<double>(c.config.tileCount), cached = 0;
    for (const auto &[t, perTile] : c.traffic.loadsPerTile) {
        const double total = perTile * static_cast<double>(c.config.tileCount);
        const double distinct = std::min(total, static_cast<double>(g.tensor(t).bytes()));
        global += distinct;
        if (!L.cacheLevel.empty() && g.tensor(t).bytes() <= L.cacheCapacityBytes)
            cached += total - distinct;
        else
            global += total - distinct;
    }
    s.bytesByLevel[L.at(0).deviceLevel] += global;
    if (cached > 0)
        s.bytesByLevel[L.cacheLevel] += cached;
    if (ctx.device->gpu) {
        const GpuParams &gp = *ctx.device->gpu;
        const int hw = std::max(1, gp.warpSize * gp.smPartitions);
        std::int64_t common = 0;
        std::int64_t innerFootprint = 0;
        for (const TileChoice &in : *threadLevel) {
            common = std::gcd(common, in.config.tileCount);
            innerFootprint = std::max(innerFootprint, in.footprint.bytes);
        }
        s.threadsPerBlock = common >= hw && common <= gp.maxThreadsPerBlock ? static_cast<int>(common) : hw;
        s.registersPerThread = static_cast<int>(std::clamp<std::int64_t>(
            innerFootprint / std::max<std::int64_t>(1, 4 * s.threadsPerBlock) + 16, 32, gp.maxRegistersPerThread));
    }
    c.estimate = ctx.cost->estimateShapedKernel({s});
    c.costNs = c.estimate.cost.timeNs;
}

} // namespace

Tiling subGraphTiling(const TilingContext &ctx, const std::vector<NodeId> &nodes, int level, const ops::Region &domain,
                      int k)
{
    const TileGraph &tg = *ctx.tg;
    const Graph &g = tg.graph();
    Tiling out;
    out.level = level;
    out.nodes = nodes;
    if (level == 0 && ctx.lastConfigs && (ctx.lastConfigs->nodes != nodes || ctx.lastConfigs->domain != domain)) {
        ctx.lastConfigs->nodes = nodes;
        ctx.lastConfigs->domain = domain;
        ctx.lastConfigs->configs.clear();
        ctx.lastConfigs->wholeDomain.reset();
    }
    const int rank = static_cast<int>(domain.size());
    if (!domain.empty() && regionEmpty(domain)) {
        out.failure = "the output is empty";
        return out;
    }
    std::int64_t parallel = std::max(1, ctx.device->totalCores());
    if (level > 0)
        parallel = ctx.device->gpu ? std::max(1, ctx.device->gpu->warpSize * ctx.device->gpu->smPartitions)
                                   : std::max(1, ctx.device->topology.unitsPerCore);

    struct Entry {
        double key;
        std::int64_t order;
        Shape tile;
        bool operator>(const Entry &o) const { return key != o.key ? key > o.key : order > o.order; }
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    std::set<Shape> seen;
    std::vector<TileChoice> feasible;
    std::int64_t order = 0;
    std::string lastError;

    std::optional<PropagatedRegions> wholeDomain; // the tile-independent walk (propagate.h)
    auto evaluate = [&](const Shape &tile) {
        if (!seen.insert(tile).second || out.evaluated >= ctx.params.budget)
            return;
        ++out.evaluated;
        // Propagation depends on the nodes and the tile, not on connection levels: the trials of
        // one edge at each level (Fig. 7 lines 3–9) tile the same merged sub-graph, so the last
        // sub-graph's configurations are kept for the next call (level 0 runs on one thread).
        Expected<TileConfig> cfg = Status::invalid("");
        LastConfigs *last = level == 0 ? ctx.lastConfigs : nullptr;
        if (last && last->nodes == nodes && last->domain == domain) {
            if (auto it = last->configs.find(tile); it != last->configs.end())
                cfg = it->second;
            else
                cfg =
                    last->configs.emplace(tile, propagate(tg, nodes, domain, tile, ctx.regionMemo, &last->wholeDomain))
                        .first->second;
        } else {
            cfg = propagate(tg, nodes, domain, tile, ctx.regionMemo, &wholeDomain);
        }
        if (!cfg) {
            lastError = cfg.status().message();
            return;
        }
        if (!cfg->aligned) {
            ++out.unaligned;
            lastError = cfg->why;
            return;
        }
        TileChoice c;
        c.config = std::move(*cfg);
        c.footprint = memFootprint(tg, c.config, *ctx.levels, level);
        if (!c.footprint.fits) {
            ++out.overCapacity;
            if (out.smallestFootprint < 0 || c.footprint.bytes < out.smallestFootprint)
                out.smallestFootprint = c.footprint.bytes;
            return;
        }
        c.traffic = memTraffic(tg, c.config, *ctx.levels, level);
        const double tiles = static_cast<double>(std::max<std::int64_t>(1, c.config.tileCount));
        const double p = static_cast<double>(parallel);
        const double waves = std::ceil(tiles / p);
        const double penalty = std::max(1.0, p / tiles) * (tiles > p ? waves * p / tiles : 1.0);
        c.key = (c.traffic.total + 1.0) * penalty;
        c.costNs = c.key;
        queue.push({c.key, order++, c.config.tile});
        feasible.push_back(std::move(c));
    };

    // §4.1 TensorCore: when a GEMM of the sub-graph runs on the device's matrix unit (its best
    // unit for the dtype), the search starts at the MMA fragment (16) on the output's last two
    // axes, so every enlargement (doubling) stays a multiple of it.
    Shape start(static_cast<std::size_t>(rank), 1);
    if (level == 0 && rank >= 2)
        for (NodeId n : nodes) {
            const Node &node = g.node(n);
            const Tensor *o = g.output(node, 0);
            const ComputeUnit *u =
                o && opClassOf(node.opType) == OpClass::Gemm ? ctx.device->bestUnit(OpClass::Gemm, o->dtype) : nullptr;
            if (u && u->kind == UnitKind::Matrix)
                for (int d = rank - 2; d < rank; ++d)
                    start[static_cast<std::size_t>(d)] =
                        std::min<std::int64_t>(kMmaFragment, domain[static_cast<std::size_t>(d)].size());
        }
    out.start = start;
    evaluate(start);
    while (!queue.empty() && out.evaluated < ctx.params.budget && !ctx.cancelled()) {
        const Entry e = queue.top();
        queue.pop();
        for (int d = rank - 1; d >= 0; --d) {
            Shape next = e.tile;
            const std::int64_t extent = domain[static_cast<std::size_t>(d)].size();
            next[static_cast<std::size_t>(d)] = std::min(extent, next[static_cast<std::size_t>(d)] * 2);
            if (next != e.tile)
                evaluate(next);
        }
    }
    std::stable_sort(feasible.begin(), feasible.end(),
                     [](const TileChoice &a, const TileChoice &b) { return a.key < b.key; });
    if (static_cast<int>(feasible.size()) > k)
        feasible.resize(static_cast<std::size_t>(k));

    // Lines 20–24: refine each candidate one level up; cost level-0 candidates. The candidates are
    // independent (§4.2): at level 0 they are evaluated on ctx.params.threads threads, each writing
    // only its own candidate, so the result does not depend on the thread count.
    const bool refine = level + 1 < ctx.levels->top();
    std::vector<std::string> failures(feasible.size());
    auto evaluateCandidate = [&](std::size_t i) {
        TileChoice &c = feasible[i];
        if (ctx.cancelled()) {
            c.costNs = std::numeric_limits<double>::infinity();
            failures[i] = "cancelled";
            return;
        }
        if (refine) {
            std::set<std::vector<NodeId>> done;
            for (NodeId n : nodes) {
                std::vector<NodeId> sub = tg.extractSubgraph(n, level + 1);
                if (!done.insert(sub).second)
                    continue;
                const auto esc = escapingTensors(g, sub);
                if (esc.empty())
                    continue;
                auto it = c.config.computed.find(esc.front());
                if (it == c.config.computed.end() || regionEmpty(it->second))
                    continue; // not needed by this tile
                TilingContext innerCtx = ctx;
                innerCtx.params.budget = std::max(8, ctx.params.budget / 4);
                innerCtx.params.threads = 1;
                const Tiling *inner = nullptr;
                Tiling local;
                std::string key;
                if (ctx.innerCache) {
                    key = std::to_string(level + 1) + "/" + std::to_string(innerCtx.params.budget) + "/";
                    for (const ops::Interval &iv : it->second)
                        key += std::to_string(iv.begin) + ":" + std::to_string(iv.end) + ",";
                    key += "/" + subgraphSignature(tg, sub);
                    inner = ctx.innerCache->find(key);
                }
                if (!inner) {
                    local = subGraphTiling(innerCtx, sub, level + 1, it->second, 1);
                    inner = ctx.innerCache ? &ctx.innerCache->insert(std::move(key), std::move(local)) : &local;
                }
                if (inner->candidates.empty()) {
                    failures[i] = "inside tile " + c.label() + ": " + inner->failure;
                    c.costNs = std::numeric_limits<double>::infinity();
                    return;
                }
                c.innerTraffic += inner->candidates.front().traffic.total * static_cast<double>(c.config.tileCount);
                c.inner.push_back(inner->candidates.front());
            }
        }
        if (level == 0)
            costCandidate(ctx, c);
    };
    const std::size_t threads =
        level == 0 ? std::min<std::size_t>(feasible.size(), static_cast<std::size_t>(std::max(1, ctx.params.threads)))
                   : 1;
    if (threads <= 1) {
        for (std::size_t i = 0; i < feasible.size(); ++i)
            evaluateCandidate(i);
    } else {
        std::atomic<std::size_t> next{0};
        std::vector<std::thread> pool;
        for (std::size_t t = 0; t < threads; ++t)
            pool.emplace_back([&] {
                for (std::size_t i = next++; i < feasible.size(); i = next++)
                    evaluateCandidate(i);
            });
        for (std::thread &t : pool)
            t.join();
    }
    for (const std::string &f : failures)
        if (!f.empty()) {
            out.failure = f;
            break;
        }
    std::erase_if(feasible, [](const TileChoice &c) { return std::isinf(c.costNs); });
    std::stable_sort(feasible.begin(), feasible.end(), [](const TileChoice &a, const TileChoice &b) {
        return a.costNs != b.costNs ? a.costNs < b.costNs : a.innerTraffic < b.innerTraffic;
    });
    out.candidates = std::move(feasible);
    if (out.candidates.empty() && out.failure.empty()) {
        const WelderLevel &above = ctx.levels->at(std::min(level + 1, ctx.levels->top()));
        if (out.smallestFootprint >= 0)
            out.failure = "no tile fits " + above.name + ": the smallest needs " +
                          std::to_string(out.smallestFootprint) + " B, capacity " +
                          std::to_string(above.capacityBytes) + " B";
        else
            out.failure = lastError.empty() ? "no tile could be propagated" : lastError;
    }
    return out;
}

} // namespace tessera::welder
