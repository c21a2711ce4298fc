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
// A single node without a tile (opaque, or too large for every level) is one whole task.
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
#include "plugins/welder/propagate.h"

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

// `kernels` in any order; they are issued in a topological order of the kernel graph.
Expected<ExecutionPlan> lowerTileGraph(const TileGraph &tg, const WelderLevels &levels,
                                       std::vector<LoweredKernel> kernels, int maxTasks);

} // namespace tessera::welder
