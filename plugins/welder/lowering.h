// Lowering of the hierarchical tile-graph to an ExecutionPlan (welder-osdi23 §3.3, Fig. 8's
// Allocate / LoadTiles / ComputeTile / StoreTiles routine unrolled into tasks).
//
// Each level-0 sub-graph is one fused kernel (strategy "welder:<levels connected inside>").
// Its primary output is cut into the chosen output tiles; one compute task runs a box of tiles
// and carries a NodeTile for every escaping output (the primary's box and the aligned regions of
// the others, from Propagate), so backends compute it tile by tile and verifyPlan checks the
// coverage. At most `maxTasks` tasks per kernel: when the tile grid is larger, tiles are grouped
// into boxes along the outermost axes first (a task then runs its tiles one after another, as a
// thread block loops over tiles — a choice to keep plans small; the tile shape is unchanged).
// A single node without a tile (opaque, or too large for every level) is one whole task. So is a
// kernel whose boxes do not partition one of its escaping outputs (Propagate checks alignment on
// the representative tile and its neighbours only; hull index maps such as Swin's window-partition
// reshapes can still make other boxes overlap, and each box writes what it computes): a choice
// that keeps the plan valid at the cost of that kernel's parallelism.
//
// With host memory at level 0 (§5.4, memlevels.h) the same rules give Table 7's plan: tensors whole
// in host memory, each task's chunk of tiles in a device-memory workspace.
// Buffers: every tensor leaving a kernel is held whole at level 0 (written by its producer's
// tasks, read by its consumers'); each task allocates the tile-graph's workspace at level 1 (Fig.
// 8 Allocate: one scratch buffer of the chosen tile's MemFootprint, which holds its loaded tiles,
// reuse tiles and output tiles best-fit; a task running several tiles reuses it tile after tile).
// Tiles above level 1 (registers, a DSA's L1) live inside the level-1 tile-graphs that run within
// a task, the finest unit whose buffer liveness a plan shows, so they get no plan buffer (the
// kernel's strategy names the levels its edges are connected at).
// Dependencies: a task depends on every task
// of another kernel that produced a region it reads (regions from core/plan/tiles.h).
// Costs: the kernel's estimate (the chosen candidate's fused launch) shared among its tasks in
// proportion to their tiles.
#pragma once

#include "core/cost/costmodel.h"
#include "core/plan/tiles.h"
#include "plugins/welder/propagate.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera::welder {

struct LoweredKernel {
    std::vector<NodeId> nodes; // topological
    bool whole = false;        // one task, whole tensors
    TileConfig config;         // the chosen level-0 configuration (nodes' own tensors)
    KernelEstimate estimate;
    std::int64_t workspaceBytes = 0; // MemFootprint of the chosen tile at level 1
    std::string tileLabel;
};

// The compute tasks of one kernel before buffers and dependencies: per task its output tiles, its
// share of the kernel's tiles and the regions it reads and computes (core/plan/tiles.h
// taskRegions). A pure function of the graph, the kernel's nodes, its tile configuration (or
// whole) and maxTasks.
struct KernelTasks {
    struct Box {
        std::vector<NodeTile> tiles;
        double share = 1.0;
        TaskRegions regions;
    };
    std::vector<Box> boxes;
};

// Kernels lowered by earlier runs of the same model, device and search (welder.cpp keeps it with
// the tilings, §4.2 "sub-graph caching" applied to lowering): a replay after an override lowers
// again only the kernels the override changed. Also the chosen tile's configuration of each
// kernel (Propagate of the kernel's own nodes). Keyed by nodes, domain, tile and maxTasks; bounded
// (cleared when it would hold more than kMaxEntries kernels). Not thread-safe (one run at a time).
class LoweringCache
{
public:
    static constexpr std::size_t kMaxEntries = 2048;
    // The KernelTasks of `lk`, computed once.
    Expected<std::shared_ptr<const KernelTasks>> tasks(const TileGraph &tg, const LoweredKernel &lk, int maxTasks);
    // propagate(tg, nodes, domain, tile) of a chosen tile, computed once.
    Expected<TileConfig> config(const TileGraph &tg, const std::vector<NodeId> &nodes, const ops::Region &domain,
                                const Shape &tile, RegionMemo *memo);
    std::int64_t hits() const { return m_hits; }

private:
    using Key = std::vector<std::int64_t>; // nodes, -1, domain bounds, -1, tile, -1, maxTasks
    static Key keyOf(const std::vector<NodeId> &nodes, const ops::Region &domain, const Shape &tile, int maxTasks);
    std::map<Key, std::shared_ptr<const KernelTasks>> m_tasks;
    std::map<Key, TileConfig> m_configs;
    std::int64_t m_hits = 0;
};

// `kernels` in any order; they are issued in a topological order of the kernel graph. `cache`
// (optional) holds kernels lowered before.
Expected<ExecutionPlan> lowerTileGraph(const TileGraph &tg, const WelderLevels &levels,
                                       std::vector<LoweredKernel> kernels, int maxTasks,
                                       LoweringCache *cache = nullptr);

} // namespace tessera::welder
