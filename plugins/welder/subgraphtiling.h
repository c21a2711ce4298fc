// SubGraphTiling: the tile-shape search of one sub-graph at one memory level (welder-osdi23
// Fig. 7 lines 12–25, with the hardware-aligned search of §4.1).
//
// EnumerateSubtiles (line 14) is best-first over enlargements of one axis at a time (Roller's
// tile expansion; reference/welder README): start from the all-ones output tile (16 on the last
// two axes when a GEMM runs on a matrix unit: §4.1 "Support TensorCore"), pop the
// candidate with the smallest key, double each axis in turn (clipped to the domain). Each new
// tile is propagated (line 15), dropped when its footprint exceeds the capacity of the level
// above (line 16, the "infinite penalty" of §4.1) or when its outputs cannot be aligned, else
// keyed by (traffic + 1) × penalty (line 18), where traffic is MemTraffic with transaction
// rounding (the coalescing penalty of §4.1) and the penalty is the parallelism penalty of §4.1:
// max(1, P / tiles) for fewer tiles than the hardware runs at once (P = SMs or cores at level 0,
// warp size × warp schedulers, §4.1's "128", above it) times the last wave's waste
// ⌈tiles/P⌉ / (tiles/P). The search stops after `budget` evaluated tiles.
//
// Lines 20–24: each of the top-k tiles is refined one level up: every sub-graph connected above
// this level (ExtractSubgraph(node, level+1)) is tiled inside this tile (its domain is this
// tile's region of its output) and its best tile kept — top-k at the kernel level, the best
// one at upper levels (a choice: the paper keeps k everywhere and profiles; k^levels kernels
// would be profiled here for nothing, the analytic cost ranks them the same way).
//
// Line 8's "Profile": each top-k candidate at level 0 is costed as one fused launch by the
// shared CostModel (CostModel::estimateShapedKernel): one block per tile, the footprint as
// shared memory, FLOPs of every node over the regions it computes (recomputed halos included),
// the traffic at level 0 and at level 1. With host memory at level 0 (§5.4) the blocks are the
// level-1 tiles inside each chunk and their footprint the shared memory; the chunks' traffic
// moves at host memory, the level-1 traffic at device memory. Threads per block follow §4.1: the
// greatest common divisor of the register-level tile counts of the sub-graphs when it lies in
// [warp × schedulers, max threads per block], else warp × schedulers. A backend that measures
// can replace the estimate through the same interface (MeasuredCostModel forwards it).
// Candidates are returned best (lowest estimated time) first.
//
// Cancel: TilingContext::cancel is read between tiles and between candidates.
// Reuse (§4.2): tilings above level 0 are looked up in TilingContext::innerCache, propagations
// through TilingContext::regionMemo, and level-0 configurations of the sub-graph tiled last in
// TilingContext::lastConfigs (the trials of one edge at each level tile the same merge); all are
// optional and change no result.
#pragma once

#include "core/cost/costmodel.h"
#include "plugins/welder/propagate.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tessera::welder {

struct SearchParams {
    int topk = 20;
    int budget = 128;
    int threads = 1; // level-0 candidates evaluated at once (§4.2 "parallel compilations")
};

struct TileChoice {
    TileConfig config;
    Traffic traffic;     // at this level
    Footprint footprint; // at the level above
    double key = 0;
    std::vector<TileChoice> inner; // best tiling of each sub-graph one level up (inside one tile)
    double innerTraffic = 0;       // bytes at level+1 over the whole sub-graph
    KernelEstimate estimate;       // level 0 only: the fused launch
    double costNs = 0;             // level 0: estimate time; above: key
    std::string label() const;     // "16x128"
};

struct Tiling {
    int level = 0;
    std::vector<NodeId> nodes;
    std::vector<TileChoice> candidates; // best first
    int evaluated = 0, overCapacity = 0, unaligned = 0;
    std::int64_t smallestFootprint = -1; // of the tiles that did not fit
    Shape start;                         // the first tile tried (TensorCore-aligned for GEMMs on a matrix unit)
    std::string failure;                 // why there is no candidate
};

struct Tiling;

// Tilings of sub-graphs above level 0 (the refinement inside a candidate tile, lines 20–24),
// shared by every SetConnect trial of a schedule (§4.2 "sub-graph caching" applied level by
// level): keyed by the sub-graph's signature, its level and the domain it tiles (exact offsets:
// clipping at tensor borders depends on them). Thread-safe; a Tiling once stored never changes.
class InnerTilingCache
{
public:
    const Tiling *find(const std::string &key) const;
    const Tiling &insert(std::string key, Tiling tiling); // keeps the first stored on a race
    // Lookups answered from the cache and tilings stored: both independent of the thread count
    // (two threads missing the same key at once both search, one result is kept).
    std::int64_t hits() const;
    std::int64_t stored() const;

private:
    mutable std::mutex m_mutex;
    std::map<std::string, std::unique_ptr<Tiling>> m_map;
    mutable std::int64_t m_lookups = 0;
};

// The level-0 configurations of the last sub-graph tiled (propagate's results by tile shape).
struct LastConfigs {
    std::vector<NodeId> nodes;
    ops::Region domain;
    std::map<Shape, Expected<TileConfig>> configs;
    std::optional<PropagatedRegions> wholeDomain;
};

struct TilingContext {
    const TileGraph *tg = nullptr;
    const WelderLevels *levels = nullptr;
    const Device *device = nullptr;
    const CostModel *cost = nullptr;
    SearchParams params;
    InnerTilingCache *innerCache = nullptr; // optional (null: no reuse above level 0)
    RegionMemo *regionMemo = nullptr;       // optional (null: every propagation from scratch)
    LastConfigs *lastConfigs = nullptr;     // optional, level 0 only (one thread)
    // Optional: when set, the search stops early (no more tiles, no more candidates refined); a
    // tiling searched while cancelling is incomplete and must not be kept (welder.cpp drops the
    // caches of a cancelled run).
    const std::atomic<bool> *cancel = nullptr;
    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

// The signature of a sub-graph (§4.2): per node in topological order its op type, attributes,
// input and output shapes and dtypes, which sub-graph node (and output) each input comes from or
// that it is external (constant inputs of at most 16 elements with their values), which outputs
// escape, and the connection level of every internal edge. Equal signatures tile alike.
std::string subgraphSignature(const TileGraph &tg, const std::vector<NodeId> &nodes);

// Fig. 7 SubGraphTiling(nodes, level, domain) keeping `k` candidates.
Tiling subGraphTiling(const TilingContext &ctx, const std::vector<NodeId> &nodes, int level, const ops::Region &domain,
                      int k);

// The whole-tensor domain of a sub-graph's primary output.
ops::Region primaryDomain(const Graph &g, const std::vector<NodeId> &nodes);

} // namespace tessera::welder
