#include "core/sched/levelassign.h"

#include "core/hw/device.h"

#include <algorithm>
#include <tuple>

namespace tessera {

namespace {

// One level's sweep: spills the longest-lived item while the live sum exceeds `cap`.
void sweep(const std::vector<LiveItem> &items, int positions, int lvl, std::int64_t capacity, bool perCore,
           LevelAssignment &a, const VictimChooser &choose, const std::vector<std::int64_t> *reserved)
{
    std::vector<std::vector<int>> starting(static_cast<std::size_t>(positions));
    for (std::size_t i = 0; i < items.size(); ++i)
        if (a.level[i] == lvl && items[i].start >= 0 && items[i].start < positions)
            starting[static_cast<std::size_t>(items[i].start)].push_back(static_cast<int>(i));
    std::vector<int> live;
    std::int64_t used = 0;
    auto size = [&](int i) {
        const LiveItem &m = items[static_cast<std::size_t>(i)];
        return perCore ? m.perCore() : m.bytes;
    };
    for (int t = 0; t < positions; ++t) {
        // Release what ended before t, then allocate what starts at t.
        for (auto it = live.begin(); it != live.end();)
            if (items[static_cast<std::size_t>(*it)].end < t) {
                used -= size(*it);
                it = live.erase(it);
            } else {
                ++it;
            }
        for (int i : starting[static_cast<std::size_t>(t)]) {
            live.push_back(i);
            used += size(i);
        }
        const std::int64_t cap = reserved && static_cast<std::size_t>(t) < reserved->size()
                                     ? capacity - (*reserved)[static_cast<std::size_t>(t)]
                                     : capacity;
        while (used > cap && !live.empty()) {
            auto victim = std::max_element(live.begin(), live.end(), [&](int x, int y) {
                const LiveItem &a1 = items[static_cast<std::size_t>(x)];
                const LiveItem &b1 = items[static_cast<std::size_t>(y)];
                return std::make_tuple(a1.end - a1.start, a1.bytes, x) <
                       std::make_tuple(b1.end - b1.start, b1.bytes, y);
            });
            if (choose) {
                const std::size_t pick = choose(live, static_cast<std::size_t>(victim - live.begin()), t, lvl);
                if (pick < live.size())
                    victim = live.begin() + static_cast<std::ptrdiff_t>(pick);
            }
            a.spills.push_back({*victim, t, lvl + 1, used});
            a.level[static_cast<std::size_t>(*victim)] = lvl + 1;
            used -= size(*victim);
            live.erase(victim);
        }
    }
}

} // namespace

int clusterCores(const Device &d, std::int64_t requested)
{
    const int all = std::max(1, d.topology.coresPerCluster);
    return requested <= 0 ? all : static_cast<int>(std::clamp<std::int64_t>(requested, 1, all));
}

std::int64_t fastestLevelPerCore(const Device &d, int cores)
{
    if (d.levels.empty())
        return 0;
    const MemoryLevel &lb = d.levels.front();
    return lb.scope == MemoryScope::PerCore || lb.scope == MemoryScope::PerUnit ? lb.capacityBytes
                                                                                : lb.capacityBytes / std::max(1, cores);
}

std::vector<std::size_t> victimCandidates(const std::vector<LiveItem> &items, const std::vector<int> &live,
                                          std::size_t preferred, std::size_t most)
{
    std::vector<std::size_t> idx(live.size());
    for (std::size_t i = 0; i < idx.size(); ++i)
        idx[i] = i;
    auto liveness = [&](std::size_t i) {
        const LiveItem &m = items[static_cast<std::size_t>(live[i])];
        return m.end - m.start;
    };
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        return a == preferred || (b != preferred && liveness(a) > liveness(b));
    });
    idx.resize(std::min(idx.size(), most));
    return idx;
}

LevelAssignment assignLevels(const std::vector<LiveItem> &items, int positions, std::int64_t lbPerCore,
                             std::int64_t gbBytes, const VictimChooser &choose,
                             const std::vector<std::int64_t> *gbReserved)
{
    LevelAssignment a;
    a.level.resize(items.size());
    for (std::size_t i = 0; i < items.size(); ++i)
        a.level[i] = std::clamp(items[i].minLevel, 0, 2);
    sweep(items, positions, 0, lbPerCore, true, a, choose, nullptr);
    sweep(items, positions, 1, gbBytes, false, a, choose, gbReserved);
    for (std::size_t i = 0; i < items.size(); ++i) {
        a.totalBytes += items[i].bytes;
        if (a.level[i] == 0)
            a.lbBytesKept += items[i].bytes;
    }
    return a;
}

} // namespace tessera
