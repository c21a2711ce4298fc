// Brick size model (brickdl-icpp24 §3.3.3): for n blocked dims of sizes
// D_1..D_n the parallelism is ρ = ΠD_i / B^n for B ∈ {4, 8, 16, 32}; the
// model picks the B with the largest ρ such that ρ ≤ τ (τ = 2^12). When that
// ρ < B^n the layer is too small for merged execution and runs as library
// kernels (the paper's cuDNN fallback). A brick must be larger than the
// largest kernel/window of its sub-graph (§3.3.4), so smaller B are illegal.
// Decision: chooseBrickSize() below.
// Choices where the paper is vague: D_i are the blocked dims (batch and
// spatial, extent > 1) of the sub-graph's largest output; when no B has
// ρ ≤ τ the largest legal B (smallest ρ) is taken; the fallback test
// ρ < B^n is made with the smallest legal B — read literally for the chosen
// B it would send §4.5.2's 224³ layer with 16³ bricks (ρ = 2744 < 16^3 =
// 4096 = τ) to the library, though the paper runs it merged as its best case;
// with the smallest B it keeps that layer and still drops 7×7 and 14×14
// maps (ρ = 3 and 12.25 < 4^2).
#pragma once

#include "core/ir/graph.h"
#include "core/sched/decision.h"
#include "core/sched/trace.h"
#include "plugins/brickdl/subgraph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::brickdl {

struct BrickSizeChoice {
    std::int64_t brick = 0; // 0: the library option
    double rho = 0;         // ρ for this B
    std::string illegalReason;
};

struct BrickSizeModel {
    int n = 0;                            // blocked dims of extent > 1
    std::vector<BrickSizeChoice> choices; // B = 4, 8, 16, 32, then library
    std::int32_t preferred = 0;           // index into choices
};

// `shape` is the activation whose parallelism counts; `window` the largest
// kernel or pooling window of the sub-graph; `tau` the threshold τ.
BrickSizeModel brickSizeModel(const Shape &shape, std::int64_t window, double tau);

// Decision "brickdl.brick" for a merged sub-graph (options "4", "8", "16",
// "32", "library"); `forced` (> 0) replaces the model's preference when
// legal. Fills sub.brick, sub.rho and sub.blockedRank, or turns the
// sub-graph into a library segment.
void chooseBrickSize(const Graph &g, SubGraph &sub, double tau, std::int64_t forced, DecisionContext &decisions,
                     Trace &trace);

} // namespace tessera::brickdl
