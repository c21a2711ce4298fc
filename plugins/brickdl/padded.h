// Padded bricks (brickdl-icpp24 §3.2.1, Fig. 4): for every brick of every
// sub-graph output, a reverse traversal of the sub-graph grows the brick by
// the halo each op needs — through core/ops' index maps, so a k×k
// convolution adds (k−1)/2 per side, a pooling window scales by its stride,
// element-wise ops add nothing — giving, per member node, the enlarged
// (padded) region that brick's chain computes: B, B + 2p, B + 4p ... for a
// chain of convolutions. Regions are clipped to the tensor, so the growth
// depends on the brick's position (corner, edge, centre). The chains are
// independent: halos are recomputed, never exchanged.
// Δ = (Σ padded elements − Σ exact elements) / Σ exact elements over the
// members whose output is stored as bricks (subgraph.h materialised(): an
// element-wise op fused into its producer stores nothing), the "percentage of
// data growth due to padding" of §3.3.2. Choice where the paper is vague: Δ
// counts the bricks' data, not the fused epilogues' (a conv → BN → ReLU chain
// grows once, not three times).
// Assumes the members are brickable (subgraph.h) and listed topologically.
#pragma once

#include "core/ops/ops.h"
#include "core/support/status.h"
#include "plugins/brickdl/subgraph.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace tessera::brickdl {

struct PaddedChain {
    NodeId sink = kInvalidId;                            // the sub-graph output whose brick this is
    std::int64_t brick = 0;                              // logical index in the sink's grid
    std::vector<std::pair<NodeId, ops::Region>> steps;   // members it computes, topological, clipped
    std::vector<std::pair<TensorId, ops::Region>> reads; // activations read from outside, clipped
};

struct PaddedBricks {
    std::vector<PaddedChain> chains;
    std::int64_t exactElements = 0;  // every stored member's output once (Δ)
    std::int64_t paddedElements = 0; // Σ over chains and stored members' steps (Δ)
    std::int64_t paddedBytes = 0;    // Σ over chains and all steps, in bytes (footprint)
    double delta() const
    {
        return exactElements > 0 ? double(paddedElements - exactElements) / double(exactElements) : 0.0;
    }
};

Expected<PaddedBricks> padBricks(const Graph &g, const SubGraph &sub, std::int64_t brick);

} // namespace tessera::brickdl
