// Brick data layout (brickdl-icpp24 §3.1, §3.3.4, Fig. 6): a tensor cut into
// small fixed-size blocks ("bricks") along its blocked dimensions, with
//   - a brick grid: bricks per blocked dim, ⌈D_i / B⌉ (BrickGrid);
//   - a brick map: logical grid position → storage index, a layer of
//     indirection so bricks need not be stored in row-major order (BrickMap);
//   - brick info: per stored brick, the storage indices of its 3^d logical
//     neighbours (-1 past the edge), d = blocked dims (BrickInfo, Fig. 6(c));
//   - masking: a brick at the far edge of a dim that is not a multiple of B
//     covers fewer elements; the rest of its B^n storage is zero (masked).
// DNN activations are blocked along batch and spatial dims, never channels
// (§3.2: "bricks ... along the batch and spatial dimensions ... avoiding the
// channel dimension"); activationDims() names those dims of an NC(D)HW shape.
// Choice where the paper is silent: a blocked dim of extent 1 (batch 1) gets
// bricks of extent 1 rather than a masked B, so it adds neither parallelism
// nor masked storage, and it does not count towards n in ρ = ΠD_i / B^n.
#pragma once

#include "core/ir/graph.h"
#include "core/ops/ops.h"
#include "core/support/status.h"

#include <cstdint>
#include <vector>

namespace tessera::brickdl {

// Batch and spatial dims of an activation [N, C, S1, S2, ...]: {0, 2, 3, ...};
// empty for rank < 3 (no spatial structure).
std::vector<int> activationDims(const Shape &shape);

class BrickGrid
{
public:
    BrickGrid() = default;
    // `dims` (ascending, each < rank) are blocked with brick extent `brick` (> 0).
    BrickGrid(Shape shape, std::vector<int> dims, std::int64_t brick);

    const Shape &shape() const { return m_shape; }
    const std::vector<int> &dims() const { return m_dims; }
    std::int64_t brick() const { return m_brick; }
    // Brick extent along blocked dim i (B, or 1 where the dim has extent 1).
    std::int64_t extent(std::size_t i) const { return m_extent[i]; }
    // Bricks along blocked dim i.
    std::int64_t count(std::size_t i) const { return m_count[i]; }
    std::int64_t brickCount() const;
    // Blocked dims of extent > 1: the n of ρ = ΠD_i / B^n.
    int blockedRank() const;

    // Row-major logical index ↔ grid coordinates.
    std::vector<std::int64_t> coords(std::int64_t logical) const;
    std::int64_t logical(const std::vector<std::int64_t> &coords) const; // -1 outside the grid

    // Elements a brick covers in the tensor (masked to the bounds); unblocked dims whole.
    ops::Region region(std::int64_t logical) const;
    // Elements a brick stores (unmasked B^n × unblocked extents) and of those
    // the masked, zero-filled ones.
    std::int64_t storedElements() const;
    std::int64_t maskedElements(std::int64_t logical) const;
    // Logical indices of the bricks overlapping `r` (clipped to the bounds), ascending.
    std::vector<std::int64_t> overlapping(const ops::Region &r) const;

private:
    Shape m_shape;
    std::vector<int> m_dims;
    std::int64_t m_brick = 1;
    std::vector<std::int64_t> m_extent, m_count;
};

// Logical grid position → storage index (Fig. 6(b)).
class BrickMap
{
public:
    // Storage in logical (row-major) order.
    explicit BrickMap(const BrickGrid &grid);
    // Storage in the given order: storageOrder[s] is the logical brick stored
    // at index s (a permutation of the grid, asserted).
    BrickMap(const BrickGrid &grid, std::vector<std::int64_t> storageOrder);

    std::int64_t storage(std::int64_t logical) const { return m_storage[static_cast<std::size_t>(logical)]; }
    std::int64_t logical(std::int64_t storage) const { return m_logical[static_cast<std::size_t>(storage)]; }
    std::size_t size() const { return m_logical.size(); }

private:
    std::vector<std::int64_t> m_storage, m_logical;
};

// Adjacency lists (Fig. 6(c)): for each storage index, the storage indices of
// its 3^d neighbours in row-major order of the offsets (-1, 0, +1)^d, the
// brick itself in the middle; -1 where the neighbour is outside the grid.
struct BrickInfo {
    int dims = 0;
    std::vector<std::vector<std::int64_t>> neighbours;
    // Index into a neighbour list of the offset vector (each -1, 0 or +1).
    static std::size_t direction(const std::vector<int> &offset);
};
BrickInfo brickInfo(const BrickGrid &grid, const BrickMap &map);

} // namespace tessera::brickdl
