// Memoized bricks (brickdl-icpp24 §3.2.2, Fig. 5): every brick of every
// member is computed exactly once. Starting from each brick of the sub-graph
// outputs (one thread block each), a recursive backtracking visits the
// bricks it depends on — found through core/ops' index maps and the brick
// grid of the producer, i.e. its 3^d neighbourhood for a 3×3 window — and
// computes those first. Each brick carries a tag with three states: not
// started (0), in progress (1), complete (2). The emitted order is the
// post-order of that backtracking: a dependency chain across layers.
// Atomics: two compulsory per brick (take and release its tag). Conflicts:
// a dependency found complete but finished by another thread block that
// runs concurrently (within `concurrency` roots of this one) may still have
// been in progress at run time, so it costs one failed CAS. Bricks no
// output brick needs (strided layers can skip rows) are visited afterwards
// in storage order, so every member is covered exactly once.
// Choice where the paper is vague: the conflict model above (the paper
// measures conflicts on the GPU; here the count comes from the static order).
#pragma once

#include "core/ops/ops.h"
#include "core/support/status.h"
#include "plugins/brickdl/subgraph.h"

#include <cstdint>
#include <vector>

namespace tessera::brickdl {

enum class BrickState : std::uint8_t { NotStarted = 0, InProgress = 1, Complete = 2 };

struct MemoBrick {
    NodeId node = kInvalidId;
    std::int64_t brick = 0;         // logical index in the node's grid
    ops::Region region;             // clipped (masked) region of the node's output
    std::vector<std::int32_t> deps; // indices of earlier MemoBricks it reads
    std::int32_t root = 0;          // the thread block (output brick) that computed it
    std::int32_t conflicts = 0;     // failed CASes on its dependencies' tags
};

struct MemoizedBricks {
    std::vector<MemoBrick> order; // issue order (backtracking post-order)
    std::int64_t compulsoryAtomics = 0;
    std::int64_t conflictAtomics = 0;
    std::int64_t tagBytes = 0;   // one 32-bit tag per brick
    std::int64_t brickBytes = 0; // storage of all bricks, masked elements included
};

Expected<MemoizedBricks> memoizeBricks(const Graph &g, const SubGraph &sub, std::int64_t brick, int concurrency);

} // namespace tessera::brickdl
