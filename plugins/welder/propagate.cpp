#include "plugins/welder/propagate.h"

#include "core/plan/tiles.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <unordered_set>

namespace tessera::welder {

namespace {

void hullInto(std::map<TensorId, ops::Region> &m, TensorId key, const ops::Region &r)
{
    auto [it, inserted] = m.try_emplace(key, r);
    if (!inserted)
        it->second = regionHull(it->second, r);
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

// The tensors of `nodes` held at `level`+1 while a level-`level` tile runs: those whose nearest
// internal connection is level+1 (or that escape). Tensors connected only higher up live above it.
bool heldAt(const TileGraph &tg, const std::vector<NodeId> &sortedInside, TensorId t, int level)
{
    const Graph &g = tg.graph();
    const Tensor &tt = g.tensor(t);
    int nearest = 1 << 20;
    bool escapes = std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
    for (NodeId c : tt.consumers) {
        if (!std::binary_search(sortedInside.begin(), sortedInside.end(), c)) {
            escapes = true;
            continue;
        }
        const int e = tg.edgeIndex(tt.producer, c);
        if (e >= 0)
            nearest = std::min(nearest, tg.connectLevel(e));
    }
    return escapes || nearest <= level + 1;
}

} // namespace

std::size_t RegionMemo::KeyHash::operator()(const Key &k) const
{
    auto mix = [](std::uint64_t x) { // splitmix64's finaliser
        x += 0x9e3779b97f4a7c15ull;
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    };
    std::uint64_t h = mix(static_cast<std::uint64_t>(k.node) << 8 | static_cast<std::uint64_t>(k.output & 0xff));
    for (const ops::Interval &i : k.region)
        h = mix(h ^ mix(static_cast<std::uint64_t>(i.begin) << 32 ^ static_cast<std::uint64_t>(i.end)));
    return static_cast<std::size_t>(h);
}

Expected<const std::vector<ops::InputRegion> *> RegionMemo::inputRegions(const Graph &g, const Node &n, NodeId id,
                                                                         int outputIndex, const ops::Region &outTile,
                                                                         std::vector<ops::InputRegion> &scratch)
{
    Key key{id, outputIndex, outTile};
    Shard &shard = m_shards[(KeyHash()(key) >> 7) % kShards];
    {
        std::lock_guard lock(shard.mutex);
        auto it = shard.map.find(key);
        if (it != shard.map.end()) {
            ++shard.hits;
            return &it->second; // elements of an unordered_map never move
        }
    }
    auto r = ops::inputRegions(g, n, outputIndex, outTile);
    if (!r)
        return r.status();
    std::lock_guard lock(shard.mutex);
    if (shard.map.size() >= m_max / kShards) {
        scratch = std::move(*r);
        return &scratch;
    }
    return &shard.map.emplace(std::move(key), std::move(*r)).first->second;
}

void RegionMemo::clear()
{
    for (Shard &s : m_shards) {
        std::lock_guard lock(s.mutex);
        s.map = {};
    }
}

std::int64_t RegionMemo::size() const
{
    std::int64_t n = 0;
    for (const Shard &s : m_shards)
        n += static_cast<std::int64_t>(s.map.size()); // read after the search's threads joined
    return n;
}

std::int64_t RegionMemo::hits() const
{
    std::int64_t h = 0;
    for (const Shard &s : m_shards)
        h += s.hits; // read after the search's threads joined
    return h;
}

std::vector<TensorId> escapingTensors(const Graph &g, const std::vector<NodeId> &nodes)
{
    const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
    std::vector<TensorId> out;
    for (NodeId n : nodes)
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tt = g.tensor(t);
            const bool escapes =
                std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end() ||
                std::any_of(tt.consumers.begin(), tt.consumers.end(), [&](NodeId c) { return !inside.count(c); });
            if (escapes)
                out.push_back(t);
        }
    // Primary: a tensor no node inside reads (a sink, so the walk back from it reaches the others),
    // the one with the most elements, the latest on ties (nodes are topological).
    auto readInside = [&](TensorId t) {
        const auto &cs = g.tensor(t).consumers;
        return std::any_of(cs.begin(), cs.end(), [&](NodeId c) { return inside.count(c) > 0; });
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < out.size(); ++i) {
        const bool sinkI = !readInside(out[i]), sinkB = !readInside(out[best]);
        if (sinkI != sinkB ? sinkI : g.tensor(out[i]).elements() >= g.tensor(out[best]).elements())
            best = i;
    }
    if (!out.empty())
        std::rotate(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(best),
                    out.begin() + static_cast<std::ptrdiff_t>(best) + 1);
    return out;
}

Expected<PropagatedRegions> propagateRegions(const Graph &g, const std::vector<NodeId> &nodes,
                                             const std::map<TensorId, ops::Region> &seeds, RegionMemo *memo)
{
    PropagatedRegions out;
    out.computed = seeds;
    const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
        const Node &n = g.node(*it);
        for (std::size_t oi = 0; oi < n.outputs.size(); ++oi) {
            const TensorId t = n.outputs[oi];
            if (t == kInvalidId || !out.computed.count(t) || regionEmpty(out.computed[t]))
                continue;
            if (n.opaque)
                return Status::invalid("opaque operator has no index map to propagate a tile through",
                                       {.node = n.name});
            const std::vector<ops::InputRegion> *regions = nullptr;
            std::vector<ops::InputRegion> scratch;
            if (memo) {
                auto r = memo->inputRegions(g, n, *it, static_cast<int>(oi), out.computed[t], scratch);
                if (!r)
                    return r.status();
                regions = *r;
            } else {
                auto r = ops::inputRegions(g, n, static_cast<int>(oi), out.computed[t]);
                if (!r)
                    return r.status();
                scratch = std::move(*r);
                regions = &scratch;
            }
            for (std::size_t ii = 0; ii < n.inputs.size() && ii < regions->size(); ++ii) {
                const TensorId in = n.inputs[ii];
                if (in == kInvalidId || !(*regions)[ii].used)
                    continue;
                const Tensor &src = g.tensor(in);
                const bool internal = src.producer != kInvalidId && inside.count(src.producer);
                hullInto(internal ? out.computed : out.loaded, in, (*regions)[ii].clipped);
            }
        }
    }
    return out;
}

Expected<PropagatedRegions> propagateOutputTile(const Graph &g, const std::vector<NodeId> &nodes,
                                                const std::vector<TensorId> &escaping, const ops::Region &primaryRegion,
                                                RegionMemo *memo)
{
    const Shape &primaryShape = g.tensor(escaping.front()).shape;
    std::map<TensorId, ops::Region> seeds{{escaping.front(), primaryRegion}};
    for (;;) {
        auto p = propagateRegions(g, nodes, seeds, memo);
        if (!p)
            return p;
        bool added = false;
        for (TensorId t : escaping)
            if (!p->computed.count(t) && g.tensor(t).shape == primaryShape) {
                seeds[t] = primaryRegion;
                added = true;
            }
        if (!added)
            return p;
    }
}

ops::Region tileRegion(const ops::Region &domain, const Shape &tile, const std::vector<std::int64_t> &index)
{
    ops::Region r(domain.size());
    for (std::size_t d = 0; d < domain.size(); ++d) {
        const std::int64_t b = domain[d].begin + index[d] * tile[d];
        r[d] = {b, std::min(b + tile[d], domain[d].end)};
    }
    return r;
}

Expected<TileConfig> propagate(const TileGraph &tg, const std::vector<NodeId> &nodes, const ops::Region &domain,
                               const Shape &tile, RegionMemo *memo, std::optional<PropagatedRegions> *wholeDomain)
{
    const Graph &g = tg.graph();
    TileConfig c;
    c.nodes = nodes;
    c.escaping = escapingTensors(g, nodes);
    if (c.escaping.empty())
        return Status::invalid("sub-graph has no output", {.node = g.node(nodes.front()).name});
    c.primary = c.escaping.front();
    c.domain = domain;
    c.tile = tile;
    c.tileCount = 1;
    std::vector<std::int64_t> mid(domain.size()), last(domain.size());
    for (std::size_t d = 0; d < domain.size(); ++d) {
        c.grid.push_back(ceilDiv(domain[d].size(), std::max<std::int64_t>(1, tile[d])));
        c.tileCount *= c.grid.back();
        mid[d] = (c.grid[d] - 1) / 2;
        last[d] = c.grid[d] - 1;
    }
    // One propagation for the tile at `index`, aligning escaping outputs the walk does not reach.
    auto walk = [&](const std::vector<std::int64_t> &index) {
        return propagateOutputTile(g, nodes, c.escaping, tileRegion(domain, tile, index), memo);
    };
    auto rep = walk(mid);
    if (!rep)
        return rep.status();
    c.computed = std::move(rep->computed);
    c.loaded = std::move(rep->loaded);
    if (c.escaping.size() == 1)
        return c;

    // Alignment of the other escaping outputs (§3.1): every one reached, tiles partition it.
    for (TensorId t : c.escaping)
        if (!c.computed.count(t)) {
            c.aligned = false;
            c.why = "output " + g.tensor(t).name + " is not aligned with " + g.tensor(c.primary).name;
            return c;
        }
    std::vector<std::int64_t> zero(domain.size(), 0);
    auto first = walk(zero);
    auto end = walk(last);
    if (!first || !end)
        return !first ? first.status() : end.status();
    // The domain of each output: what the whole primary domain needs of it.
    std::optional<PropagatedRegions> local;
    std::optional<PropagatedRegions> &whole = wholeDomain ? *wholeDomain : local;
    if (!whole) {
        auto w = propagateOutputTile(g, nodes, c.escaping, domain, memo);
        if (!w)
            return w.status();
        whole = std::move(*w);
    }
    for (TensorId t : c.escaping) {
        if (t == c.primary)
            continue;
        const ops::Region span = regionHull(first->computed[t], end->computed[t]);
        // A whole sub-graph (its primary's whole tensor) must compute the other outputs whole too
        // (a sink reading one row of an escaping tensor leaves the rest to no one).
        if (domain == ops::fullRegion(g.tensor(c.primary).shape) &&
            whole->computed[t] != ops::fullRegion(g.tensor(t).shape)) {
            c.aligned = false;
            c.why = "output " + g.tensor(t).name + " is only partly computed for " + g.tensor(c.primary).name;
            return c;
        }
        if (whole->computed[t] != span) {
            c.aligned = false;
            c.why = "tiles of output " + g.tensor(t).name + " do not span it";
            return c;
        }
        for (std::size_t d = 0; d < domain.size(); ++d) {
            if (c.grid[d] < 2)
                continue;
            std::vector<std::int64_t> next = mid;
            next[d] = mid[d] + 1 < c.grid[d] ? mid[d] + 1 : mid[d] - 1;
            auto nb = walk(next);
            if (!nb)
                return nb.status();
            if (!regionEmpty(regionIntersect(nb->computed[t], c.computed[t]))) {
                c.aligned = false;
                c.why = "tiles of output " + g.tensor(t).name + " overlap (halo) along axis " + std::to_string(d);
                return c;
            }
        }
    }
    return c;
}

std::int64_t accessBytes(const Shape &shape, const ops::Region &region, std::size_t elementBytes, int transaction)
{
    if (regionEmpty(region) && !region.empty())
        return 0;
    const std::int64_t elements = ops::regionElements(region);
    std::int64_t run = 1;
    for (std::size_t i = region.size(); i-- > 0;) {
        run *= region[i].size();
        if (region[i].size() != shape[i])
            break;
    }
    run = std::max<std::int64_t>(run, 1);
    const std::int64_t runs = elements / run;
    const std::int64_t t = std::max(1, transaction);
    return runs * ceilDiv(run * static_cast<std::int64_t>(elementBytes), t) * t;
}

Traffic memTraffic(const TileGraph &tg, const TileConfig &c, const WelderLevels &levels, int level)
{
    const Graph &g = tg.graph();
    const WelderLevel &l = levels.at(level);
    Traffic tr;
    for (const auto &[t, r] : c.loaded) {
        const Tensor &tt = g.tensor(t);
        const auto b = static_cast<double>(accessBytes(tt.shape, r, dtypeSize(tt.dtype), l.readTransactionBytes));
        tr.loadBytes += b;
        tr.loadsPerTile[t] = b;
    }
    for (TensorId t : c.escaping) {
        const Tensor &tt = g.tensor(t);
        tr.storeBytes +=
            static_cast<double>(accessBytes(tt.shape, c.computed.at(t), dtypeSize(tt.dtype), l.writeTransactionBytes));
    }
    tr.perTile = tr.loadBytes + tr.storeBytes;
    tr.total = tr.perTile * static_cast<double>(c.tileCount);
    return tr;
}

namespace {

// Best-fit placement of 32-byte-aligned blocks; the peak is the highest end ever used. Blocks are
// kept sorted by start in a flat vector (a sub-graph holds a handful at once); a block starting
// where one already does is not added (a 0-byte tile), and release(start) removes the one there.
class BestFit
{
public:
    // `blocks` is scratch storage (cleared here), kept by the caller across tiles.
    explicit BestFit(std::vector<std::pair<std::int64_t, std::int64_t>> &blocks) : m_blocks(blocks)
    {
        m_blocks.clear();
    }
    std::int64_t alloc(std::int64_t bytes)
    {
        bytes = (bytes + 31) / 32 * 32;
        std::int64_t bestStart = -1, bestGap = -1, prevEnd = 0;
        for (const auto &[start, size] : m_blocks) {
            const std::int64_t gap = start - prevEnd;
            if (gap >= bytes && (bestGap < 0 || gap < bestGap)) {
                bestGap = gap;
                bestStart = prevEnd;
            }
            prevEnd = start + size;
        }
        if (bestStart < 0)
            bestStart = prevEnd;
        const auto at = std::lower_bound(m_blocks.begin(), m_blocks.end(), std::pair{bestStart, std::int64_t{-1}});
        if (at == m_blocks.end() || at->first != bestStart)
            m_blocks.insert(at, {bestStart, bytes});
        m_peak = std::max(m_peak, bestStart + bytes);
        return bestStart;
    }
    void release(std::int64_t start)
    {
        const auto at = std::lower_bound(m_blocks.begin(), m_blocks.end(), std::pair{start, std::int64_t{-1}});
        if (at != m_blocks.end() && at->first == start)
            m_blocks.erase(at);
    }
    std::int64_t peak() const { return m_peak; }

private:
    std::vector<std::pair<std::int64_t, std::int64_t>> &m_blocks; // (start, size), sorted by start
    std::int64_t m_peak = 0;
};

// The tiles one tile of `c` holds, in the order they are allocated, and when each is freed: a
// loaded tile when its first reader runs (split along the axes that reader reduces over), a
// computed tile held at this level when its producer runs; freed after the node that reads it
// last, escaping tiles never. Independent of the reduction step, so made once per MemFootprint.
struct HeldTiles {
    struct Tile {
        TensorId tensor;
        const ops::Region *region;
        NodeId reader; // kInvalidId: a computed tile
        std::size_t inputIndex;
    };
    std::vector<Tile> tiles;
    // Per node of c.nodes: [allocStart, allocEnd) and [releaseStart, releaseEnd) into `order`.
    std::vector<std::size_t> order;
    std::vector<std::array<std::size_t, 4>> steps;
};

// What one MemFootprint works in, kept per thread from tile to tile (the search evaluates tens of
// thousands of tiles; their vectors keep their capacity).
struct FootprintScratch {
    HeldTiles held;
    std::vector<NodeId> inside;
    std::vector<std::pair<TensorId, std::size_t>> reads;
    std::vector<std::size_t> live;
    std::vector<std::int64_t> bytes, previous, where;
    std::vector<std::pair<std::int64_t, std::int64_t>> blocks;
};

void heldTiles(const TileGraph &tg, const TileConfig &c, int level, FootprintScratch &s)
{
    const Graph &g = tg.graph();
    std::vector<NodeId> &inside = s.inside;
    inside.assign(c.nodes.begin(), c.nodes.end());
    std::sort(inside.begin(), inside.end());
    // Last reader (topological position within c.nodes) of each tensor: (tensor, position) sorted,
    // the last entry of a tensor its last reader.
    std::vector<std::pair<TensorId, std::size_t>> &reads = s.reads;
    reads.clear();
    for (std::size_t i = 0; i < c.nodes.size(); ++i)
        for (TensorId t : g.node(c.nodes[i]).inputs)
            if (t != kInvalidId)
                reads.emplace_back(t, i);
    std::sort(reads.begin(), reads.end());
    const auto lastUse = [&](TensorId t) -> std::optional<std::size_t> {
        auto it = std::upper_bound(reads.begin(), reads.end(), std::pair{t, std::numeric_limits<std::size_t>::max()});
        if (it == reads.begin() || std::prev(it)->first != t)
            return std::nullopt;
        return std::prev(it)->second;
    };
    HeldTiles &h = s.held;
    h.tiles.clear();
    h.order.clear();
    h.steps.clear();
    std::vector<std::size_t> &live = s.live; // indices into h.tiles
    live.clear();
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
        const Node &n = g.node(c.nodes[i]);
        std::array<std::size_t, 4> step{};
        step[0] = h.order.size();
        for (std::size_t ii = 0; ii < n.inputs.size(); ++ii) {
            const TensorId t = n.inputs[ii];
            auto it = c.loaded.find(t);
            if (t == kInvalidId || it == c.loaded.end() ||
                std::any_of(live.begin(), live.end(), [&](std::size_t k) { return h.tiles[k].tensor == t; }))
                continue;
            live.push_back(h.tiles.size());
            h.order.push_back(h.tiles.size());
            h.tiles.push_back({t, &it->second, c.nodes[i], ii});
        }
        for (TensorId t : n.outputs) {
            auto it = c.computed.find(t);
            if (t == kInvalidId || it == c.computed.end() || !heldAt(tg, inside, t, level))
                continue;
            live.push_back(h.tiles.size());
            h.order.push_back(h.tiles.size());
            h.tiles.push_back({t, &it->second, kInvalidId, 0});
        }
        step[1] = step[2] = h.order.size();
        std::erase_if(live, [&](std::size_t k) {
            const TensorId t = h.tiles[k].tensor;
            const auto lu = lastUse(t);
            const bool done =
                std::find(c.escaping.begin(), c.escaping.end(), t) == c.escaping.end() && (!lu || *lu <= i);
            if (done)
                h.order.push_back(k);
            return done;
        });
        step[3] = h.order.size();
        h.steps.push_back(step);
    }
}

// Size of each held tile with reduction step `rstep` (0: whole).
void tileSizes(const TileGraph &tg, const HeldTiles &h, std::int64_t rstep, std::vector<std::int64_t> &bytes)
{
    const Graph &g = tg.graph();
    bytes.resize(h.tiles.size());
    for (std::size_t k = 0; k < h.tiles.size(); ++k) {
        const HeldTiles::Tile &tile = h.tiles[k];
        std::int64_t elements = 1;
        const ops::Region &r = *tile.region;
        const std::vector<int> *reduced = nullptr;
        if (tile.reader != kInvalidId && rstep > 0) {
            const auto &axes = tg.axes(tile.reader);
            if (tile.inputIndex < axes.size() && !axes[tile.inputIndex].opaque)
                reduced = &axes[tile.inputIndex].reducedDims;
        }
        for (std::size_t d = 0; d < r.size(); ++d) {
            // A reduced axis longer than the step is held one step at a time.
            const bool cut = reduced && r[d].size() > rstep &&
                             std::find(reduced->begin(), reduced->end(), static_cast<int>(d)) != reduced->end();
            elements *= cut ? rstep : r[d].size();
        }
        bytes[k] = elements * static_cast<std::int64_t>(dtypeSize(g.tensor(tile.tensor).dtype));
    }
}

std::int64_t peakBytes(const HeldTiles &h, const std::vector<std::int64_t> &bytes, FootprintScratch &s)
{
    BestFit alloc(s.blocks);
    std::vector<std::int64_t> &where = s.where;
    where.assign(h.tiles.size(), 0);
    for (const auto &step : h.steps) {
        for (std::size_t o = step[0]; o < step[1]; ++o)
            where[h.order[o]] = alloc.alloc(bytes[h.order[o]]);
        for (std::size_t o = step[2]; o < step[3]; ++o)
            alloc.release(where[h.order[o]]);
    }
    return alloc.peak();
}

} // namespace

Footprint memFootprint(const TileGraph &tg, const TileConfig &c, const WelderLevels &levels, int level)
{
    const std::int64_t capacity = levels.at(std::min(level + 1, levels.top())).capacityBytes;
    Footprint f;
    thread_local FootprintScratch scratch;
    heldTiles(tg, c, level, scratch);
    const HeldTiles &held = scratch.held;
    std::vector<std::int64_t> &bytes = scratch.bytes, &previous = scratch.previous;
    bytes.clear();
    previous.clear();
    for (std::int64_t rstep :
         {std::int64_t{0}, std::int64_t{128}, std::int64_t{64}, std::int64_t{32}, std::int64_t{16}, std::int64_t{8}}) {
        tileSizes(tg, held, rstep, bytes);
        // The same tile sizes as the step before (no reduced axis longer than this step): the same peak.
        if (rstep == 0 || bytes != previous)
            f.bytes = peakBytes(held, bytes, scratch);
        std::swap(bytes, previous);
        f.rstep = rstep;
        if (f.bytes <= capacity) {
            f.fits = true;
            return f;
        }
    }
    return f;
}

} // namespace tessera::welder
