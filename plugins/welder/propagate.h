// Propagate, MemFootprint and MemTraffic: the tile half of the scheduling interface
// (welder-osdi23 Fig. 6, §3.1 "Tile propagation" and "Memory traffic and footprint").
//
// Propagate(sub-graph, output tile): the output tile of the sub-graph's primary output (among
// the escaping tensors no node inside reads, the one with the most elements, the latest on ties) is walked back through
// every node with core/ops' index maps (ops::inputRegions: exact for affine maps, the conservative hull for strided,
// windowed or irregular access), giving the reuse-tile of every tensor produced inside and the tile loaded of every
// tensor read from outside. Other escaping outputs are aligned with it (§3.1 "multiple output nodes"): one the walk did
// not reach takes the primary's tile when their shapes are equal; every escaping tile must partition its tensor (the
// representative tile and its grid neighbours are disjoint, the first and last tiles span the domain, the whole primary
// needs all of it), else the configuration is not aligned and the caller leaves it unconnected. The representative tile
// is the interior one at grid index ⌊(g−1)/2⌋ per axis, so padding at the borders does not shrink it (the paper's tiles
// are interior ones).
//
// MemTraffic(level l): per tile, every loaded tile and every escaping output tile, each access
// rounded up to whole transactions of level l over the contiguous innermost run of the tile
// (reference/welder README: read 128 B, write 32 B on GPUs), times the number of tiles;
// intermediates inside the sub-graph cost nothing.
//
// MemFootprint(level l): the tiles held at level l+1 — loaded tiles, tiles of tensors whose
// nearest internal connection is l+1, escaping tiles — allocated best-fit with 32-byte
// alignment in topological order (freed after their last reader; escaping tiles kept to the
// end); the peak. Loaded tiles that a node reduces over (Conv's C_in·kh·kw, MatMul's K) are split
// along the reduced axes (the reduction step `rstep`, §3.1 "footprint optimization"); the
// largest step in {whole, 128, 64, 32, 16, 8} that fits is chosen. Splitting changes no traffic.
#pragma once

#include "core/ops/ops.h"
#include "plugins/welder/memlevels.h"
#include "plugins/welder/tilegraph.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace tessera::welder {

struct TileConfig {
    std::vector<NodeId> nodes; // the sub-graph, topological
    TensorId primary = kInvalidId;
    ops::Region domain;             // region of the primary tensor being tiled (whole tensor, or the parent tile)
    Shape tile;                     // the output tile's shape
    std::vector<std::int64_t> grid; // tiles per axis over the domain
    std::int64_t tileCount = 0;
    // The representative tile:
    std::map<TensorId, ops::Region> computed; // every tensor produced inside (reuse tiles, output tiles)
    std::map<TensorId, ops::Region> loaded;   // tensors read from outside, clipped to their bounds
    std::vector<TensorId> escaping;           // outputs of the sub-graph (primary first)
    bool aligned = true;
    std::string why; // when not aligned
};

// A memo of ops::inputRegions per (node, output, output region), shared by every propagation of
// one schedule (§4.2 "compilation speedup": the same operators are propagated through with the
// same tiles over and over as SetConnect trials re-tile growing sub-graphs). The index maps are
// pure functions of the graph, so a stored answer is the answer. Thread-safe (sharded locks);
// only successes are stored, at most `maxEntries` (then it stops growing).
class RegionMemo
{
public:
    explicit RegionMemo(std::size_t maxEntries = 1u << 20) : m_max(maxEntries) {}
    // ops::inputRegions of node `id` (= n): points into the memo, or at `scratch` when the memo is
    // full; valid while the memo lives.
    Expected<const std::vector<ops::InputRegion> *> inputRegions(const Graph &g, const Node &n, NodeId id,
                                                                 int outputIndex, const ops::Region &outTile,
                                                                 std::vector<ops::InputRegion> &scratch);
    std::int64_t hits() const;
    std::int64_t size() const; // entries stored
    void clear();

private:
    struct Key {
        NodeId node;
        int output;
        ops::Region region;
        bool operator==(const Key &o) const { return node == o.node && output == o.output && region == o.region; }
    };
    struct KeyHash {
        std::size_t operator()(const Key &k) const;
    };
    struct Shard {
        std::mutex mutex;
        std::unordered_map<Key, std::vector<ops::InputRegion>, KeyHash> map;
        std::int64_t hits = 0;
    };
    static constexpr std::size_t kShards = 16;
    Shard m_shards[kShards];
    std::size_t m_max;
};

// The primary output tensor of a sub-graph and its escaping tensors (primary first).
std::vector<TensorId> escapingTensors(const Graph &g, const std::vector<NodeId> &nodes);

// Regions every tensor needs when the sub-graph computes `seeds` (tensor -> region of it);
// errors from the index maps (an opaque node, a bad shape) are returned.
struct PropagatedRegions {
    std::map<TensorId, ops::Region> computed, loaded;
};
Expected<PropagatedRegions> propagateRegions(const Graph &g, const std::vector<NodeId> &nodes,
                                             const std::map<TensorId, ops::Region> &seeds, RegionMemo *memo = nullptr);

// The regions when the sub-graph computes `primaryRegion` of its primary output (escaping[0]),
// escaping outputs the walk does not reach aligned with it when their shapes are equal.
Expected<PropagatedRegions> propagateOutputTile(const Graph &g, const std::vector<NodeId> &nodes,
                                                const std::vector<TensorId> &escaping, const ops::Region &primaryRegion,
                                                RegionMemo *memo = nullptr);

// `wholeDomain` (optional) keeps the propagation of the whole domain, which the alignment check of
// several outputs needs and which does not depend on the tile: pass the same one for every tile
// of one (nodes, domain).
// Fig. 6 Propagate: the configuration of `nodes` for output tile `tile` over `domain` of the primary.
Expected<TileConfig> propagate(const TileGraph &tg, const std::vector<NodeId> &nodes, const ops::Region &domain,
                               const Shape &tile, RegionMemo *memo = nullptr,
                               std::optional<PropagatedRegions> *wholeDomain = nullptr);

// The region of tile `index` (per-axis grid indices) of `domain`.
ops::Region tileRegion(const ops::Region &domain, const Shape &tile, const std::vector<std::int64_t> &index);

// Bytes moved for `region` of a tensor of `shape`: contiguous innermost runs rounded up to `transaction`.
std::int64_t accessBytes(const Shape &shape, const ops::Region &region, std::size_t elementBytes, int transaction);

struct Traffic {
    double perTile = 0;                      // bytes
    double total = 0;                        // perTile × tileCount
    double loadBytes = 0, storeBytes = 0;    // per tile
    std::map<TensorId, double> loadsPerTile; // per loaded tensor
};
// Fig. 6 MemTraffic at level `level` (loads from it, stores to it).
Traffic memTraffic(const TileGraph &tg, const TileConfig &c, const WelderLevels &levels, int level);

struct Footprint {
    std::int64_t bytes = 0; // peak at level+1 with the chosen reduction step
    std::int64_t rstep = 0; // 0: reduced axes whole
    bool fits = false;
};
// Fig. 6 MemFootprint: the peak held at level+1 while one tile runs (see the header comment).
Footprint memFootprint(const TileGraph &tg, const TileConfig &c, const WelderLevels &levels, int level);

} // namespace tessera::welder
