// AncestorBits (see ancestry.h).
#include "core/plan/ancestry.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <map>

namespace tessera {

AncestorBits::AncestorBits(std::size_t n, const std::function<std::span<const std::int32_t>(std::size_t)> &depsOf)
    : m_n(n), m_words((n + 63) / 64), m_bits(n * m_words, 0)
{
    std::vector<std::int32_t> deps;
    std::map<std::vector<std::int32_t>, std::size_t> firstWithDeps; // a sorted list -> the first task with it
    for (std::size_t t = 0; t < n; ++t) {
        const std::span<const std::int32_t> direct = depsOf(t);
        if (direct.empty())
            continue;
        deps.assign(direct.begin(), direct.end());
        std::sort(deps.begin(), deps.end(), std::greater<>());
        std::uint64_t *row = &m_bits[t * m_words];
        if (auto [it, fresh] = firstWithDeps.try_emplace(deps, t); !fresh) {
            std::memcpy(row, &m_bits[it->second * m_words], m_words * sizeof(std::uint64_t));
            continue;
        }
        for (std::int32_t d : deps) {
            assert(d >= 0 && static_cast<std::size_t>(d) < t);
            const auto bit = static_cast<std::size_t>(d);
            if ((row[bit / 64] >> (bit % 64)) & 1ULL)
                continue;
            const std::uint64_t *__restrict from = &m_bits[bit * m_words];
            std::uint64_t *__restrict to = row;
            for (std::size_t w = 0; w <= bit / 64; ++w)
                to[w] |= from[w];
            row[bit / 64] |= 1ULL << (bit % 64);
        }
    }
}

} // namespace tessera
