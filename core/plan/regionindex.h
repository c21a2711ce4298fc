// RegionIndex: which of many regions of one tensor overlap a query region,
// without testing them all. The plan verifier (is a tile computed twice? who
// produces what a task reads?) and the CPU backend's dependencies (which
// earlier bricks wrote a part of what a brick reads?) both ask it of tensors
// that thousands of bricks write.
#pragma once

#include "core/plan/tiles.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tessera {

// The regions of one tensor bucketed on a coarse grid (cells of about the
// regions' median extent per dim), so an overlap query visits the regions near
// it instead of all of them. Regions spanning many cells, and queries that
// would, fall back to a list scanned every time / to a full scan: the answer is
// always every overlapping region, each once. Refers to `items` (and the
// regions they point to), which must outlive it unchanged; not thread-safe.
class RegionIndex
{
public:
    explicit RegionIndex(const std::vector<const ops::Region *> &items) : m_items(items), m_seen(items.size(), 0)
    {
        if (items.size() < 32 || items.front()->empty())
            return;
        const std::size_t rank = items.front()->size();
        m_cell.assign(rank, 1);
        m_count.assign(rank, 1);
        for (std::size_t d = 0; d < rank; ++d) {
            std::vector<std::int64_t> extents;
            std::int64_t end = 1;
            for (const ops::Region *r : items) {
                if (r->size() != rank)
                    return; // mixed ranks: scan
                extents.push_back(std::max<std::int64_t>(1, (*r)[d].size()));
                end = std::max(end, (*r)[d].end);
            }
            std::nth_element(extents.begin(), extents.begin() + static_cast<std::ptrdiff_t>(extents.size() / 2),
                             extents.end());
            m_cell[d] = extents[extents.size() / 2];
            m_count[d] = (end + m_cell[d] - 1) / m_cell[d];
        }
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (cellsOf(*items[i]) > kMaxCells) {
                m_wide.push_back(i);
                continue;
            }
            forCells(*items[i], [&](std::int64_t c) { m_buckets[c].push_back(i); });
        }
        m_indexed = true;
    }

    // f(i) once for every item overlapping `q`.
    template <class F> void forOverlapping(const ops::Region &q, F f) const
    {
        if (!m_indexed || q.size() != m_cell.size() || cellsOf(q) > kMaxCells) {
            for (std::size_t i = 0; i < m_items.size(); ++i)
                if (overlaps(*m_items[i], q))
                    f(i);
            return;
        }
        if (++m_stamp == 0) {
            std::fill(m_seen.begin(), m_seen.end(), 0);
            m_stamp = 1;
        }
        auto visit = [&](std::size_t i) {
            if (m_seen[i] == m_stamp)
                return;
            m_seen[i] = m_stamp;
            if (overlaps(*m_items[i], q))
                f(i);
        };
        for (std::size_t i : m_wide)
            visit(i);
        forCells(q, [&](std::int64_t c) {
            const auto it = m_buckets.find(c);
            if (it != m_buckets.end())
                for (std::size_t i : it->second)
                    visit(i);
        });
    }

private:
    static constexpr std::int64_t kMaxCells = 4096;
    static bool overlaps(const ops::Region &a, const ops::Region &b)
    {
        if (a.size() != b.size())
            return !regionEmpty(regionIntersect(a, b));
        for (std::size_t d = 0; d < a.size(); ++d)
            if (a[d].begin >= b[d].end || b[d].begin >= a[d].end)
                return false;
        return true;
    }
    // Cell range of `r` along dim d, clamped to the grid ([lo, hi), possibly empty).
    std::pair<std::int64_t, std::int64_t> span(const ops::Region &r, std::size_t d) const
    {
        const std::int64_t lo = std::clamp<std::int64_t>(r[d].begin / m_cell[d], 0, m_count[d]);
        const std::int64_t hi =
            std::clamp<std::int64_t>((std::max(r[d].end, r[d].begin + 1) + m_cell[d] - 1) / m_cell[d], lo, m_count[d]);
        return {lo, hi};
    }
    std::int64_t cellsOf(const ops::Region &r) const
    {
        std::int64_t n = 1;
        for (std::size_t d = 0; d < m_cell.size() && n <= kMaxCells; ++d) {
            const auto [lo, hi] = span(r, d);
            n *= std::max<std::int64_t>(hi - lo, 1);
        }
        return n;
    }
    template <class F> void forCells(const ops::Region &r, F f) const
    {
        const std::size_t rank = m_cell.size();
        std::vector<std::int64_t> lo(rank), hi(rank), at(rank);
        for (std::size_t d = 0; d < rank; ++d) {
            std::tie(lo[d], hi[d]) = span(r, d);
            if (hi[d] <= lo[d])
                return;
            at[d] = lo[d];
        }
        while (true) {
            std::int64_t key = 0;
            for (std::size_t d = 0; d < rank; ++d)
                key = key * m_count[d] + at[d];
            f(key);
            std::size_t d = rank;
            while (d > 0) {
                --d;
                if (++at[d] < hi[d])
                    break;
                at[d] = lo[d];
                if (d == 0)
                    return;
            }
            if (rank == 0)
                return;
        }
    }

    const std::vector<const ops::Region *> &m_items;
    std::vector<std::int64_t> m_cell, m_count;
    std::unordered_map<std::int64_t, std::vector<std::size_t>> m_buckets;
    std::vector<std::size_t> m_wide;
    bool m_indexed = false;
    mutable std::vector<std::uint32_t> m_seen;
    mutable std::uint32_t m_stamp = 0;
};

} // namespace tessera
