#include "plugins/brickdl/bricklayout.h"

#include "core/support/assert.h"

#include <algorithm>

namespace tessera::brickdl {

std::vector<int> activationDims(const Shape &shape)
{
    if (shape.size() < 3)
        return {};
    std::vector<int> dims{0};
    for (int d = 2; d < static_cast<int>(shape.size()); ++d)
        dims.push_back(d);
    return dims;
}

BrickGrid::BrickGrid(Shape shape, std::vector<int> dims, std::int64_t brick)
    : m_shape(std::move(shape)), m_dims(std::move(dims)), m_brick(brick)
{
    TS_ASSERT(brick > 0);
    for (int d : m_dims) {
        TS_ASSERT(d >= 0 && d < static_cast<int>(m_shape.size()));
        const std::int64_t extent = m_shape[static_cast<std::size_t>(d)] == 1 ? 1 : brick;
        m_extent.push_back(extent);
        m_count.push_back((m_shape[static_cast<std::size_t>(d)] + extent - 1) / extent);
    }
}

std::int64_t BrickGrid::brickCount() const
{
    std::int64_t n = 1;
    for (std::int64_t c : m_count)
        n *= c;
    return n;
}

int BrickGrid::blockedRank() const
{
    return static_cast<int>(
        std::count_if(m_dims.begin(), m_dims.end(), [&](int d) { return m_shape[static_cast<std::size_t>(d)] > 1; }));
}

std::vector<std::int64_t> BrickGrid::coords(std::int64_t logical) const
{
    std::vector<std::int64_t> c(m_dims.size());
    for (std::size_t i = m_dims.size(); i-- > 0;) {
        c[i] = logical % m_count[i];
        logical /= m_count[i];
    }
    return c;
}

std::int64_t BrickGrid::logical(const std::vector<std::int64_t> &coords) const
{
    TS_ASSERT(coords.size() == m_dims.size());
    std::int64_t l = 0;
    for (std::size_t i = 0; i < m_dims.size(); ++i) {
        if (coords[i] < 0 || coords[i] >= m_count[i])
            return -1;
        l = l * m_count[i] + coords[i];
    }
    return l;
}

ops::Region BrickGrid::region(std::int64_t logical) const
{
    ops::Region r = ops::fullRegion(m_shape);
    const auto c = coords(logical);
    for (std::size_t i = 0; i < m_dims.size(); ++i) {
        auto &iv = r[static_cast<std::size_t>(m_dims[i])];
        iv.begin = c[i] * m_extent[i];
        iv.end = std::min(iv.begin + m_extent[i], m_shape[static_cast<std::size_t>(m_dims[i])]);
    }
    return r;
}

std::int64_t BrickGrid::storedElements() const
{
    std::int64_t n = 1;
    for (std::size_t d = 0; d < m_shape.size(); ++d) {
        const auto it = std::find(m_dims.begin(), m_dims.end(), static_cast<int>(d));
        n *= it == m_dims.end() ? m_shape[d] : m_extent[static_cast<std::size_t>(it - m_dims.begin())];
    }
    return n;
}

std::int64_t BrickGrid::maskedElements(std::int64_t logical) const
{
    return storedElements() - ops::regionElements(region(logical));
}

std::vector<std::int64_t> BrickGrid::overlapping(const ops::Region &r) const
{
    TS_ASSERT(r.size() == m_shape.size());
    std::vector<std::int64_t> lo(m_dims.size()), hi(m_dims.size());
    for (std::size_t i = 0; i < m_dims.size(); ++i) {
        const auto d = static_cast<std::size_t>(m_dims[i]);
        const std::int64_t b = std::max<std::int64_t>(r[d].begin, 0);
        const std::int64_t e = std::min(r[d].end, m_shape[d]);
        if (e <= b)
            return {};
        lo[i] = b / m_extent[i];
        hi[i] = (e - 1) / m_extent[i];
    }
    std::vector<std::int64_t> out;
    std::vector<std::int64_t> c = lo;
    for (;;) {
        out.push_back(logical(c));
        std::size_t i = c.size();
        while (i > 0) {
            --i;
            if (++c[i] <= hi[i])
                break;
            c[i] = lo[i];
            if (i == 0)
                return out;
        }
        if (c.empty())
            return out;
    }
}

BrickMap::BrickMap(const BrickGrid &grid)
{
    const auto n = static_cast<std::size_t>(grid.brickCount());
    m_storage.resize(n);
    m_logical.resize(n);
    for (std::size_t i = 0; i < n; ++i)
        m_storage[i] = m_logical[i] = static_cast<std::int64_t>(i);
}

BrickMap::BrickMap(const BrickGrid &grid, std::vector<std::int64_t> storageOrder) : m_logical(std::move(storageOrder))
{
    TS_ASSERT(static_cast<std::int64_t>(m_logical.size()) == grid.brickCount());
    m_storage.assign(m_logical.size(), -1);
    for (std::size_t s = 0; s < m_logical.size(); ++s) {
        const auto l = static_cast<std::size_t>(m_logical[s]);
        TS_ASSERT(l < m_storage.size() && m_storage[l] < 0);
        m_storage[l] = static_cast<std::int64_t>(s);
    }
}

std::size_t BrickInfo::direction(const std::vector<int> &offset)
{
    std::size_t idx = 0;
    for (int o : offset)
        idx = idx * 3 + static_cast<std::size_t>(o + 1);
    return idx;
}

BrickInfo brickInfo(const BrickGrid &grid, const BrickMap &map)
{
    BrickInfo info;
    info.dims = static_cast<int>(grid.dims().size());
    std::size_t dirs = 1;
    for (int i = 0; i < info.dims; ++i)
        dirs *= 3;
    info.neighbours.resize(map.size());
    for (std::size_t s = 0; s < map.size(); ++s) {
        const auto c = grid.coords(map.logical(static_cast<std::int64_t>(s)));
        auto &list = info.neighbours[s];
        list.resize(dirs);
        for (std::size_t dir = 0; dir < dirs; ++dir) {
            std::vector<std::int64_t> n = c;
            std::size_t rest = dir;
            for (std::size_t i = c.size(); i-- > 0;) {
                n[i] += static_cast<std::int64_t>(rest % 3) - 1;
                rest /= 3;
            }
            const std::int64_t l = grid.logical(n);
            list[dir] = l < 0 ? -1 : map.storage(l);
        }
    }
    return info;
}

} // namespace tessera::brickdl
