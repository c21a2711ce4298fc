// Algorithm 1 of the ios thesis (§3.2) over the artifact's stage space; see
// iossearch.h. Per part:
//   S1 (L1–2)  enumerate the DP states (down-sets of the part), bounded by maxStates
//   S2 (L13–22) cost[S], choice[S] bottom-up by state size; stage latencies are
//              asked once per (stage, strategy) and cached (L17, GenerateStage)
//   S3 (L6–11) walk choice[·] from V, asking a decision per stage
// States are bitsets over the part's units in list order: one 64-bit word for
// parts of up to 64 units, up to 16 words (1024 units) otherwise.
#include "plugins/ios/iossearch.h"

#include "core/support/assert.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

namespace tessera {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

template <std::size_t W> struct Bits {
    std::array<std::uint64_t, W> w{};

    bool test(int i) const { return (w[static_cast<std::size_t>(i) >> 6] >> (i & 63)) & 1U; }
    void set(int i) { w[static_cast<std::size_t>(i) >> 6] |= std::uint64_t{1} << (i & 63); }
    bool none() const
    {
        for (std::uint64_t x : w)
            if (x)
                return false;
        return true;
    }
    int count() const
    {
        int c = 0;
        for (std::uint64_t x : w)
            c += std::popcount(x);
        return c;
    }
    bool intersects(const Bits &o) const
    {
        for (std::size_t i = 0; i < W; ++i)
            if (w[i] & o.w[i])
                return true;
        return false;
    }
    bool subsetOf(const Bits &o) const
    {
        for (std::size_t i = 0; i < W; ++i)
            if (w[i] & ~o.w[i])
                return false;
        return true;
    }
    Bits operator&(const Bits &o) const
    {
        Bits r;
        for (std::size_t i = 0; i < W; ++i)
            r.w[i] = w[i] & o.w[i];
        return r;
    }
    Bits operator|(const Bits &o) const
    {
        Bits r;
        for (std::size_t i = 0; i < W; ++i)
            r.w[i] = w[i] | o.w[i];
        return r;
    }
    Bits minus(const Bits &o) const
    {
        Bits r;
        for (std::size_t i = 0; i < W; ++i)
            r.w[i] = w[i] & ~o.w[i];
        return r;
    }
    friend bool operator==(const Bits &a, const Bits &b)
    {
        for (std::size_t i = 0; i < W; ++i)
            if (a.w[i] != b.w[i])
                return false;
        return true;
    }
    std::uint64_t hash() const
    {
        std::uint64_t h = 0x9e3779b97f4a7c15ULL;
        for (std::uint64_t x : w) { // splitmix64 finaliser per word
            h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
            h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
            h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
            h ^= h >> 31;
        }
        return h;
    }
    template <class F> void forEach(F &&f) const
    {
        for (std::size_t k = 0; k < W; ++k)
            for (std::uint64_t x = w[k]; x; x &= x - 1)
                f(static_cast<int>(k * 64 + static_cast<std::size_t>(std::countr_zero(x))));
    }
};

// Keys numbered in insertion order, found by open addressing.
template <class Key> class KeyIndex
{
public:
    std::int32_t find(const Key &k) const
    {
        if (m_slots.empty())
            return -1;
        for (std::size_t s = k.hash() & m_mask;; s = (s + 1) & m_mask) {
            const std::int32_t i = m_slots[s];
            if (i < 0 || m_keys[static_cast<std::size_t>(i)] == k)
                return i;
        }
    }
    // (index, inserted)
    std::pair<std::int32_t, bool> insert(const Key &k)
    {
        if (2 * (m_keys.size() + 1) > m_slots.size())
            grow();
        std::size_t s = k.hash() & m_mask;
        for (;; s = (s + 1) & m_mask) {
            const std::int32_t i = m_slots[s];
            if (i < 0)
                break;
            if (m_keys[static_cast<std::size_t>(i)] == k)
                return {i, false};
        }
        m_slots[s] = static_cast<std::int32_t>(m_keys.size());
        m_keys.push_back(k);
        return {m_slots[s], true};
    }
    const Key &key(std::int32_t i) const { return m_keys[static_cast<std::size_t>(i)]; }
    std::size_t size() const { return m_keys.size(); }
    std::size_t bytes() const { return m_keys.capacity() * sizeof(Key) + m_slots.capacity() * sizeof(std::int32_t); }

private:
    void grow()
    {
        const std::size_t cap = std::max<std::size_t>(64, m_slots.size() * 2);
        m_slots.assign(cap, -1);
        m_mask = cap - 1;
        for (std::size_t i = 0; i < m_keys.size(); ++i) {
            std::size_t s = m_keys[i].hash() & m_mask;
            while (m_slots[s] >= 0)
                s = (s + 1) & m_mask;
            m_slots[s] = static_cast<std::int32_t>(i);
        }
    }
    std::vector<Key> m_keys;
    std::vector<std::int32_t> m_slots;
    std::size_t m_mask = 0;
};

std::string fmtMs(double ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f ms", ns / 1e6);
    return buf;
}

std::string fmtCount(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 1e7 ? "%.0f" : "%.3g", v);
    return buf;
}

struct Part {
    std::int32_t block = 0, index = 0;
    std::vector<std::int32_t> units;          // global ids, list order
    std::vector<std::vector<int>> succ, pred; // local, within the part
    std::vector<int> mergeClass;              // -1: not a mergeable convolution
};

// Width and a minimum chain cover (Dilworth via Kuhn's matching on the
// transitive closure); returns the chain lengths.
std::vector<int> chainCover(const std::vector<std::vector<bool>> &reach)
{
    const int n = static_cast<int>(reach.size());
    std::vector<int> matchTo(static_cast<std::size_t>(n), -1), matchFrom(static_cast<std::size_t>(n), -1);
    std::vector<char> seen;
    std::function<bool(int)> augment = [&](int u) {
        for (int v = 0; v < n; ++v) {
            if (!reach[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)] || seen[static_cast<std::size_t>(v)])
                continue;
            seen[static_cast<std::size_t>(v)] = 1;
            if (matchTo[static_cast<std::size_t>(v)] < 0 || augment(matchTo[static_cast<std::size_t>(v)])) {
                matchTo[static_cast<std::size_t>(v)] = u;
                matchFrom[static_cast<std::size_t>(u)] = v;
                return true;
            }
        }
        return false;
    };
    for (int u = 0; u < n; ++u) {
        seen.assign(static_cast<std::size_t>(n), 0);
        augment(u);
    }
    std::vector<int> chains;
    for (int u = 0; u < n; ++u)
        if (matchTo[static_cast<std::size_t>(u)] < 0) { // a chain starts here
            int len = 0;
            for (int v = u; v >= 0; v = matchFrom[static_cast<std::size_t>(v)])
                ++len;
            chains.push_back(len);
        }
    return chains;
}

template <std::size_t W> class PartSearch
{
public:
    using B = Bits<W>;

    PartSearch(const Part &part, const Graph &g, const IosUnitSet &units, const StageLatencyModel &latency,
               const IosSearchOptions &options, const IosSearchContext &context)
        : m_part(part), m_graph(g), m_units(units), m_latency(latency), m_opt(options), m_ctx(context),
          m_n(static_cast<int>(part.units.size()))
    {
        m_succ.resize(static_cast<std::size_t>(m_n));
        m_pred.resize(static_cast<std::size_t>(m_n));
        m_desc.resize(static_cast<std::size_t>(m_n));
        for (int u = 0; u < m_n; ++u) {
            for (int v : part.succ[static_cast<std::size_t>(u)])
                m_succ[static_cast<std::size_t>(u)].set(v);
            for (int v : part.pred[static_cast<std::size_t>(u)])
                m_pred[static_cast<std::size_t>(u)].set(v);
            m_all.set(u);
        }
        for (int u = m_n - 1; u >= 0; --u) { // list order is topological
            B d;
            d.set(u);
            for (int v : part.succ[static_cast<std::size_t>(u)])
                d = d | m_desc[static_cast<std::size_t>(v)];
            m_desc[static_cast<std::size_t>(u)] = d;
        }
    }

    void measure(IosPartStats &stats) const
    {
        std::vector<std::vector<bool>> reach(static_cast<std::size_t>(m_n),
                                             std::vector<bool>(static_cast<std::size_t>(m_n)));
        for (int u = 0; u < m_n; ++u)
            m_desc[static_cast<std::size_t>(u)].forEach([&](int v) {
                if (v != u)
                    reach[static_cast<std::size_t>(u)][static_cast<std::size_t>(v)] = true;
            });
        const std::vector<int> chains = chainCover(reach);
        stats.width = static_cast<std::int32_t>(chains.size());
        stats.stateBound = stats.transitionBound = 1;
        for (int c : chains) {
            stats.stateBound *= c + 1;
            stats.transitionBound *= (c + 2.0) * (c + 1.0) / 2.0;
        }
    }

    // S1: every down-set, breadth-first by size. A part that cannot fit —
    // 2^width down-sets at least, or more than maxStates found — sets tooWide()
    // (as does S2 on more than maxTransitions).
    Status enumerateStates(const IosPartStats &stats)
    {
        if (stats.width >= 62 || (std::int64_t{1} << stats.width) > m_opt.maxStates)
            return overStates(stats);
        m_states.insert(B{});
        for (std::int32_t i = 0; i < static_cast<std::int32_t>(m_states.size()); ++i) {
            const B s = m_states.key(i);
            for (int u = 0; u < m_n; ++u) {
                if (s.test(u) || !m_pred[static_cast<std::size_t>(u)].subsetOf(s))
                    continue;
                B t = s;
                t.set(u);
                m_states.insert(t);
                if (static_cast<std::int64_t>(m_states.size()) > m_opt.maxStates)
                    return overStates(stats);
            }
            if ((i & 4095) == 0 && cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
        }
        return {};
    }

    bool tooWide() const { return m_tooWide; }

    Status overStates(const IosPartStats &stats)
    {
        m_tooWide = true;
        return Status::error(ErrorCode::Unsupported,
                             blockName() + " part " + std::to_string(m_part.index) + " (" + std::to_string(m_n) +
                                 " units) has width " + std::to_string(stats.width) + ": more than " +
                                 std::to_string(m_opt.maxStates) + " dp states (≈" + fmtCount(stats.stateBound) +
                                 " by its chain cover); r and s prune stages, not states: cut the block into "
                                 "smaller parts (--option part_size=" +
                                 std::to_string(std::max(1, m_n / 2)) +
                                 "), raise --option max_states or let ios cut it (--option auto_cut=true)");
    }

    // S2: cost[S] and choice[S] for every state, smallest first.
    Status solve(int width)
    {
        const std::size_t count = m_states.size();
        m_cost.assign(count, kInf);
        m_paths.assign(count, 0);
        m_choice.assign(count, B{});
        m_choiceStrategy.assign(count, IosStrategy::Concurrent);
        m_cost[0] = 0;
        m_paths[0] = 1;
        for (std::size_t i = 1; i < count; ++i) {
            const B s = m_states.key(static_cast<std::int32_t>(i));
            double best = kInf, paths = 0;
            forEachStage(s, [&](const B &e, IosStrategy strategy) {
                const std::int32_t rest = m_states.find(s.minus(e));
                TS_ASSERT(rest >= 0);
                const double total = m_cost[static_cast<std::size_t>(rest)] + stageLatency(e, strategy);
                paths += m_paths[static_cast<std::size_t>(rest)];
                ++m_transitions;
                if (total < best) {
                    best = total;
                    m_choice[i] = e;
                    m_choiceStrategy[i] = strategy;
                }
            });
            if (!std::isfinite(best))
                return Status::error(ErrorCode::Unavailable, blockName() + " part " + std::to_string(m_part.index) +
                                                                 ": the stage latency model '" + m_latency.name() +
                                                                 "' gave no finite latency for any stage of a state");
            m_cost[i] = best;
            m_paths[i] = paths;
            if (m_transitions > m_opt.maxTransitions) {
                m_tooWide = true;
                return Status::error(ErrorCode::Unsupported,
                                     blockName() + " part " + std::to_string(m_part.index) + " (" +
                                         std::to_string(m_n) + " units, width " + std::to_string(width) + ", " +
                                         std::to_string(m_states.size()) + " states): more than " +
                                         std::to_string(m_opt.maxTransitions) +
                                         " stage candidates; prune with smaller r and s (e.g. --option r=2 "
                                         "--option s=4), cut smaller parts (--option part_size=" +
                                         std::to_string(std::max(1, m_n / 2)) +
                                         "), raise --option max_transitions or let ios cut it (--option "
                                         "auto_cut=true)");
            }
            if ((i & 1023) == 0 && cancelled())
                return Status::error(ErrorCode::Cancelled, "cancelled");
        }
        return {};
    }

    struct Step {
        B stage;
        IosStrategy strategy = IosStrategy::Concurrent;
        std::vector<std::vector<int>> groups; // local
        double stageNs = 0;
        std::int32_t state = 0;
    };

    // S3: follow choice[·] from V, one decision per stage.
    std::vector<Step> walk()
    {
        std::vector<Step> steps;
        for (B s = m_all; !s.none();) {
            const std::int32_t si = m_states.find(s);
            TS_ASSERT(si >= 0);
            Step step = decideStage(s, si);
            s = s.minus(step.stage);
            steps.push_back(std::move(step));
        }
        return steps;
    }

    std::int64_t states() const { return static_cast<std::int64_t>(m_states.size()); }
    // Memory held by the dp table and the stage latency cache.
    std::int64_t bytes() const
    {
        std::size_t b = m_states.bytes() + (m_cost.capacity() + m_paths.capacity()) * sizeof(double) +
                        m_choice.capacity() * sizeof(B) + m_choiceStrategy.capacity();
        for (std::size_t k = 0; k < 2; ++k)
            b += m_latencyIndex[k].bytes() + m_latencyValue[k].capacity() * sizeof(double);
        return static_cast<std::int64_t>(b);
    }
    std::int64_t transitions() const { return m_transitions; }
    double optimumNs() const { return m_cost.back(); }
    double schedules() const { return m_paths.back(); }

    std::vector<std::int32_t> globalUnits(const std::vector<int> &local) const
    {
        std::vector<std::int32_t> out;
        for (int u : local)
            out.push_back(m_part.units[static_cast<std::size_t>(u)]);
        return out;
    }

    void record(IosDpTable &table, const std::vector<Step> &steps, const IosSearchLog &log)
    {
        table.block = m_part.block;
        table.part = m_part.index;
        if (static_cast<std::int64_t>(m_states.size()) > log.maxStates) {
            table.complete = false;
            return;
        }
        for (std::size_t i = 0; i < m_states.size(); ++i) {
            IosDpTable::State st;
            m_states.key(static_cast<std::int32_t>(i)).forEach([&](int u) {
                st.units.push_back(m_part.units[static_cast<std::size_t>(u)]);
            });
            st.costNs = m_cost[i];
            st.schedules = m_paths[i];
            table.states.push_back(std::move(st));
        }
        for (const Step &step : steps) {
            table.states[static_cast<std::size_t>(step.state)].onPath = true;
            table.path.push_back(step.state);
        }
        table.path.push_back(0);
        table.states[0].onPath = true;
        std::int64_t kept = 0; // by the parts logged before
        for (const IosDpTable &p : log.parts)
            kept += static_cast<std::int64_t>(p.transitions.size());
        if (m_transitions > log.maxTransitions ||
            (log.maxTotalTransitions >= 0 && kept + m_transitions > log.maxTotalTransitions)) {
            table.complete = false;
            return;
        }
        for (std::size_t i = 1; i < m_states.size(); ++i) {
            const B s = m_states.key(static_cast<std::int32_t>(i));
            forEachStage(s, [&](const B &e, IosStrategy strategy) {
                IosDpTable::Transition t;
                t.from = static_cast<std::int32_t>(i);
                t.to = m_states.find(s.minus(e));
                t.strategy = strategy;
                for (const auto &g : groupsOf(e, strategy))
                    t.groups.push_back(globalUnits(g));
                t.stageNs = stageLatency(e, strategy);
                t.totalNs = t.stageNs + m_cost[static_cast<std::size_t>(t.to)];
                if (table.states[i].choice < 0 && e == m_choice[i] && strategy == m_choiceStrategy[i])
                    table.states[i].choice = static_cast<std::int32_t>(table.transitions.size());
                table.transitions.push_back(std::move(t));
            });
        }
    }

private:
    std::string blockName() const
    {
        return "block '" + m_units.blocks[static_cast<std::size_t>(m_part.block)].name + "'";
    }
    bool cancelled() const { return m_ctx.cancel && m_ctx.cancel->load(std::memory_order_relaxed); }
    const std::string &unitName(int local) const
    {
        return m_units.units[static_cast<std::size_t>(m_part.units[static_cast<std::size_t>(local)])].name;
    }

    // L16: the stages of S — merges of sinks, then parallel endings.
    template <class F> void forEachStage(const B &s, F &&f)
    {
        if (m_opt.merge) {
            std::vector<std::pair<int, int>> sinks; // (class, unit)
            s.forEach([&](int u) {
                if (!m_succ[static_cast<std::size_t>(u)].intersects(s)) {
                    B one;
                    one.set(u);
                    f(one, IosStrategy::Merge);
                    if (m_part.mergeClass[static_cast<std::size_t>(u)] >= 0)
                        sinks.push_back({m_part.mergeClass[static_cast<std::size_t>(u)], u});
                }
            });
            std::stable_sort(sinks.begin(), sinks.end(), [](auto &a, auto &b) { return a.first < b.first; });
            for (std::size_t b = 0; b < sinks.size();) {
                std::size_t e = b;
                while (e < sinks.size() && sinks[e].first == sinks[b].first)
                    ++e;
                if (e - b >= 2)
                    combinations(sinks, e, b, B{}, 0, f);
                b = e;
            }
        }
        if (m_opt.parallel) {
            std::vector<std::pair<int, B>> heads; // candidates: closure within S of at most r units
            s.forEach([&](int u) {
                const B d = m_desc[static_cast<std::size_t>(u)] & s;
                if (d.count() <= m_opt.maxGroupSize)
                    heads.push_back({u, d});
            });
            endings(heads, 0, B{}, 0, f);
        }
    }

    // Merge sets of at least two same-class sinks, at most s of them.
    template <class F>
    void combinations(const std::vector<std::pair<int, int>> &sinks, std::size_t end, std::size_t from, const B &chosen,
                      int size, F &f)
    {
        for (std::size_t i = from; i < end; ++i) {
            B next = chosen;
            next.set(sinks[i].second);
            if (size + 1 >= 2)
                f(next, IosStrategy::Merge);
            if (size + 1 < m_opt.maxGroups)
                combinations(sinks, end, i + 1, next, size + 1, f);
        }
    }

    // Parallel endings: head sets with pairwise disjoint closures, at most s heads.
    template <class F>
    void endings(const std::vector<std::pair<int, B>> &heads, std::size_t from, const B &used, int size, F &f)
    {
        for (std::size_t i = from; i < heads.size(); ++i) {
            if (heads[i].second.intersects(used))
                continue;
            const B next = used | heads[i].second;
            f(next, IosStrategy::Concurrent);
            if (size + 1 < m_opt.maxGroups)
                endings(heads, i + 1, next, size + 1, f);
        }
    }

    // The groups of a stage: Merge one group; Concurrent the closure of each
    // unit of the stage that reads nothing else in it.
    std::vector<std::vector<int>> groupsOf(const B &e, IosStrategy strategy) const
    {
        std::vector<std::vector<int>> groups;
        if (strategy == IosStrategy::Merge) {
            groups.emplace_back();
            e.forEach([&](int u) { groups.back().push_back(u); });
            return groups;
        }
        e.forEach([&](int u) {
            if (m_pred[static_cast<std::size_t>(u)].intersects(e))
                return;
            groups.emplace_back();
            (m_desc[static_cast<std::size_t>(u)] & e).forEach([&](int v) { groups.back().push_back(v); });
        });
        return groups;
    }

    double latencyOf(IosStrategy strategy, const std::vector<std::vector<int>> &groups) const
    {
        std::vector<std::vector<std::int32_t>> global;
        for (const auto &g : groups)
            global.push_back(globalUnits(g));
        return m_latency.stageNs(strategy, global);
    }

    // GenerateStage (L17, L23–33), cached per (stage, strategy). The groups
    // are built in reused buffers: this runs once per distinct stage.
    double stageLatency(const B &e, IosStrategy strategy)
    {
        const auto k = static_cast<std::size_t>(strategy);
        auto [i, inserted] = m_latencyIndex[k].insert(e);
        if (inserted) {
            std::size_t used = 0;
            auto group = [&]() -> std::vector<std::int32_t> & {
                if (m_groups.size() <= used)
                    m_groups.emplace_back();
                m_groups[used].clear();
                return m_groups[used++];
            };
            if (strategy == IosStrategy::Merge) {
                auto &g = group();
                e.forEach([&](int u) { g.push_back(m_part.units[static_cast<std::size_t>(u)]); });
            } else {
                e.forEach([&](int u) {
                    if (m_pred[static_cast<std::size_t>(u)].intersects(e))
                        return;
                    auto &g = group();
                    (m_desc[static_cast<std::size_t>(u)] & e).forEach([&](int v) {
                        g.push_back(m_part.units[static_cast<std::size_t>(v)]);
                    });
                });
            }
            m_groups.resize(used);
            m_latencyValue[k].push_back(m_latency.stageNs(strategy, m_groups));
        }
        return m_latencyValue[k][static_cast<std::size_t>(i)];
    }

    std::string stageId(const std::vector<std::vector<int>> &groups) const
    {
        std::vector<std::vector<std::int32_t>> global;
        for (const auto &g : groups)
            global.push_back(globalUnits(g));
        return iosStageId(m_units, global);
    }

    std::vector<std::int32_t> globalUnits(const B &s) const
    {
        std::vector<std::int32_t> out;
        s.forEach([&](int u) { out.push_back(m_part.units[static_cast<std::size_t>(u)]); });
        return out;
    }

    // The graph nodes of a stage's units: what its decision steps touched.
    std::vector<NodeId> nodesOf(const B &s) const
    {
        std::vector<NodeId> out;
        s.forEach([&](int u) {
            const auto &nodes =
                m_units.units[static_cast<std::size_t>(m_part.units[static_cast<std::size_t>(u)])].nodes;
            out.insert(out.end(), nodes.begin(), nodes.end());
        });
        return out;
    }

    // An override's stage "a,b | c" as local groups, or why it cannot run from s.
    std::string parseForced(const std::string &id, const B &s, std::vector<std::vector<int>> &groups, B &stage) const
    {
        std::vector<int> groupOf(static_cast<std::size_t>(m_n), -1);
        std::size_t start = 0;
        while (start <= id.size()) {
            const std::size_t bar = std::min(id.find('|', start), id.size());
            auto &group = groups.emplace_back();
            std::size_t a = start;
            while (a <= bar) {
                const std::size_t comma = std::min(id.find(',', a), bar);
                std::string name = id.substr(a, comma - a);
                name.erase(0, name.find_first_not_of(' '));
                name.erase(name.find_last_not_of(' ') + 1);
                int local = -1;
                for (int u = 0; u < m_n; ++u)
                    if (unitName(u) == name)
                        local = u;
                if (local < 0)
                    return "'" + name + "' is not an operator of this part";
                if (!s.test(local))
                    return "'" + name + "' is not in this state (already scheduled)";
                if (stage.test(local))
                    return "'" + name + "' is named twice";
                stage.set(local);
                groupOf[static_cast<std::size_t>(local)] = static_cast<int>(groups.size() - 1);
                group.push_back(local);
                a = comma + 1;
            }
            start = bar + 1;
        }
        for (auto &g : groups)
            std::sort(g.begin(), g.end());
        std::string why;
        stage.forEach([&](int u) {
            (m_succ[static_cast<std::size_t>(u)] & s).forEach([&](int v) {
                if (!why.empty())
                    return;
                if (!stage.test(v))
                    why = "'" + unitName(v) + "' reads '" + unitName(u) + "' but is not in the stage";
                else if (groupOf[static_cast<std::size_t>(v)] != groupOf[static_cast<std::size_t>(u)])
                    why = "'" + unitName(v) + "' reads '" + unitName(u) + "' from another group";
            });
        });
        return why;
    }

    bool mergeable(const std::vector<std::vector<int>> &groups, const B &stage, const B &s) const
    {
        if (!m_opt.merge || groups.size() < 2 || static_cast<int>(groups.size()) != stage.count())
            return false;
        int cls = -2;
        bool ok = true;
        stage.forEach([&](int u) {
            const int c = m_part.mergeClass[static_cast<std::size_t>(u)];
            ok = ok && c >= 0 && (cls == -2 || c == cls) && !m_succ[static_cast<std::size_t>(u)].intersects(s);
            cls = c;
        });
        return ok && stage.count() <= m_opt.maxGroups;
    }

    Step decideStage(const B &s, std::int32_t si)
    {
        struct Candidate {
            B stage;
            std::array<double, 2> stageNs{kInf, kInf}; // by strategy
            std::array<double, 2> totalNs{kInf, kInf};
            double best() const { return std::min(totalNs[0], totalNs[1]); }
        };
        KeyIndex<B> index;
        std::vector<Candidate> cands;
        forEachStage(s, [&](const B &e, IosStrategy strategy) {
            auto [i, inserted] = index.insert(e);
            if (inserted)
                cands.push_back(Candidate{e});
            Candidate &c = cands[static_cast<std::size_t>(i)];
            const auto k = static_cast<std::size_t>(strategy);
            c.stageNs[k] = stageLatency(e, strategy);
            c.totalNs[k] = c.stageNs[k] + m_cost[static_cast<std::size_t>(m_states.find(s.minus(e)))];
        });
        std::vector<std::size_t> order(cands.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return cands[a].best() < cands[b].best(); });
        const std::int32_t chosen = index.find(m_choice[static_cast<std::size_t>(si)]);
        TS_ASSERT(chosen >= 0);

        std::vector<std::size_t> offered;
        for (std::size_t i = 0; i < order.size() && static_cast<int>(offered.size()) < m_opt.decisionOptions; ++i)
            offered.push_back(order[i]);
        if (std::find(offered.begin(), offered.end(), static_cast<std::size_t>(chosen)) == offered.end())
            offered.push_back(static_cast<std::size_t>(chosen));

        std::vector<DecisionOption> options;
        std::int32_t preferred = 0;
        for (std::size_t c : offered) {
            const Candidate &cand = cands[c];
            const bool concurrent = cand.totalNs[0] <= cand.totalNs[1];
            const auto groups = groupsOf(cand.stage, IosStrategy::Concurrent);
            const double stageNs = cand.stageNs[concurrent ? 0 : 1];
            if (c == static_cast<std::size_t>(chosen))
                preferred = static_cast<std::int32_t>(options.size());
            options.push_back({stageId(groups),
                               std::to_string(cand.stage.count()) + " units in " + std::to_string(groups.size()) +
                                   (groups.size() == 1 ? " group" : " groups") + (concurrent ? "" : ", merged"),
                               cand.best(),
                               "stage " + fmtMs(stageNs) + " + rest " + fmtMs(cand.best() - stageNs),
                               {}});
        }

        // An override naming a stage outside the offered ones is checked and offered too.
        const std::string key = iosEndingKey(m_units, globalUnits(s));
        std::vector<std::vector<int>> forcedGroups;
        B forcedStage;
        std::array<double, 2> forcedNs{kInf, kInf}; // concurrent, merge
        if (m_ctx.decisions) {
            const auto &ov = m_ctx.decisions->overrides();
            if (auto it = ov.find(key);
                it != ov.end() && std::none_of(options.begin(), options.end(),
                                               [&](const DecisionOption &o) { return o.id == it->second; })) {
                const std::string why = parseForced(it->second, s, forcedGroups, forcedStage);
                DecisionOption o{it->second, "forced stage", kInf, {}, why};
                if (why.empty()) {
                    forcedNs[0] = latencyOf(IosStrategy::Concurrent, forcedGroups);
                    if (mergeable(forcedGroups, forcedStage, s))
                        forcedNs[1] = stageLatency(forcedStage, IosStrategy::Merge);
                    const double stageNs = std::min(forcedNs[0], forcedNs[1]);
                    const double rest = m_cost[static_cast<std::size_t>(m_states.find(s.minus(forcedStage)))];
                    o.cost = rest + stageNs;
                    o.detail = "stage " + fmtMs(stageNs) + " + rest " + fmtMs(rest) +
                               "; outside the offered stages (pruned by r and s, or more expensive)";
                }
                options.push_back(std::move(o));
            }
        }
        const std::int32_t pick =
            m_ctx.decisions ? m_ctx.decisions->decide(key, "ios.ending", options, preferred) : preferred;
        if (m_ctx.trace) {
            auto &t = m_ctx.trace->add("S3: choice",
                                       blockName() + " part " + std::to_string(m_part.index) + ": state of " +
                                           std::to_string(s.count()) + " units",
                                       "last stage " + options[static_cast<std::size_t>(pick)].id,
                                       pick == preferred
                                           ? "choice[S]: the cheapest of " + std::to_string(cands.size()) + " stages"
                                           : "override of choice[S]");
            t.numbers = {{"stages", double(cands.size())}, {"total_ns", options[static_cast<std::size_t>(pick)].cost}};
            t.touched = nodesOf(static_cast<std::size_t>(pick) >= offered.size()
                                    ? forcedStage
                                    : cands[offered[static_cast<std::size_t>(pick)]].stage);
            if (m_ctx.decisions)
                m_ctx.trace->linkLastDecision(*m_ctx.decisions);
        }

        Step step;
        step.state = si;
        const bool forced = static_cast<std::size_t>(pick) >= offered.size();
        std::vector<std::vector<int>> groups;
        std::array<double, 2> stageNs{kInf, kInf}; // concurrent, merge
        if (forced) {
            step.stage = forcedStage;
            groups = forcedGroups;
            stageNs = forcedNs;
        } else {
            const Candidate &cand = cands[offered[static_cast<std::size_t>(pick)]];
            step.stage = cand.stage;
            groups = groupsOf(step.stage, IosStrategy::Concurrent);
            stageNs = cand.stageNs;
        }
        step.strategy = !forced && pick == preferred ? m_choiceStrategy[static_cast<std::size_t>(si)]
                        : stageNs[1] < stageNs[0]    ? IosStrategy::Merge
                                                     : IosStrategy::Concurrent;
        if (step.stage.count() > 1 && std::isfinite(stageNs[0]) && std::isfinite(stageNs[1])) {
            // Operator merge or concurrent execution for this stage (L26–33).
            const std::int32_t pref = step.strategy == IosStrategy::Merge ? 0 : 1;
            const std::vector<DecisionOption> strategies{
                {"merge", "one merged convolution", stageNs[1], fmtMs(stageNs[1]), {}},
                {"concurrent",
                 std::to_string(groups.size()) + " concurrent groups",
                 stageNs[0],
                 fmtMs(stageNs[0]),
                 {}}};
            const std::int32_t which = m_ctx.decisions
                                           ? m_ctx.decisions->decide(iosStrategyKey(m_units, globalUnits(step.stage)),
                                                                     "ios.strategy", strategies, pref)
                                           : pref;
            step.strategy = which == 0 ? IosStrategy::Merge : IosStrategy::Concurrent;
            if (m_ctx.trace) {
                auto &t = m_ctx.trace->add(
                    "S3: strategy", "stage " + stageId(groups), std::string(iosStrategyName(step.strategy)),
                    which == pref ? "the faster of operator merge and concurrent execution" : "override");
                t.numbers = {{"merge_ns", stageNs[1]}, {"concurrent_ns", stageNs[0]}};
                t.touched = nodesOf(step.stage);
                if (m_ctx.decisions)
                    m_ctx.trace->linkLastDecision(*m_ctx.decisions);
            }
        }
        if (step.stage.count() == 1) { // a one-unit stage is the same either way
            step.strategy = IosStrategy::Concurrent;
            stageNs[0] = std::min(stageNs[0], stageNs[1]);
        }
        step.groups = step.strategy == IosStrategy::Merge ? groupsOf(step.stage, IosStrategy::Merge) : groups;
        step.stageNs = stageNs[step.strategy == IosStrategy::Merge ? 1 : 0];
        return step;
    }

    const Part &m_part;
    const Graph &m_graph;
    const IosUnitSet &m_units;
    const StageLatencyModel &m_latency;
    const IosSearchOptions &m_opt;
    const IosSearchContext &m_ctx;
    int m_n = 0;
    B m_all;
    std::vector<B> m_succ, m_pred, m_desc; // m_desc[u]: u and everything after it in the part

    KeyIndex<B> m_states;
    std::vector<double> m_cost, m_paths;
    std::vector<B> m_choice;
    std::vector<IosStrategy> m_choiceStrategy;
    std::int64_t m_transitions = 0;
    std::array<KeyIndex<B>, 2> m_latencyIndex;
    std::array<std::vector<double>, 2> m_latencyValue;
    std::vector<std::vector<std::int32_t>> m_groups; // scratch for stageLatency
    bool m_tooWide = false;
};

// Runs one part; appends its stages to `result`.
template <std::size_t W>
Status searchPart(const Part &part, const Graph &g, const IosUnitSet &units, const StageLatencyModel &latency,
                  const IosSearchOptions &options, const IosSearchContext &ctx, IosSearchResult &result, bool &tooWide)
{
    const auto t0 = std::chrono::steady_clock::now();
    PartSearch<W> search(part, g, units, latency, options, ctx);
    IosPartStats stats;
    stats.block = part.block;
    stats.part = part.index;
    stats.units = part.units;
    search.measure(stats);
    if (Status s = search.enumerateStates(stats); !s) {
        tooWide = search.tooWide();
        return s;
    }
    if (Status s = search.solve(stats.width); !s) {
        tooWide = search.tooWide();
        return s;
    }
    const auto steps = search.walk();

    stats.states = search.states();
    stats.transitions = search.transitions();
    stats.schedules = search.schedules();
    stats.optimumNs = search.optimumNs();
    stats.tableBytes = search.bytes();
    for (const auto &step : steps) {
        IosStage stage;
        stage.strategy = step.strategy;
        stage.block = part.block;
        stage.latencyNs = step.stageNs;
        for (const auto &group : step.groups)
            stage.groups.push_back(search.globalUnits(group));
        stats.chosenNs += step.stageNs;
        result.schedule.stages.push_back(std::move(stage));
    }
    // Algorithm 1 builds Q back to front (L10): the walk found the last stage first.
    std::reverse(result.schedule.stages.end() - static_cast<std::ptrdiff_t>(steps.size()),
                 result.schedule.stages.end());
    stats.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    if (ctx.log &&
        (ctx.log->block.empty() || ctx.log->block == units.blocks[static_cast<std::size_t>(part.block)].name))
        search.record(ctx.log->parts.emplace_back(), steps, *ctx.log);
    if (ctx.trace) {
        auto &t =
            ctx.trace->add("S2: dp",
                           "block '" + units.blocks[static_cast<std::size_t>(part.block)].name + "' part " +
                               std::to_string(part.index) + ": " + std::to_string(part.units.size()) +
                               " units, width " + std::to_string(stats.width),
                           "cost[V] = " + fmtMs(stats.optimumNs) + " in " + std::to_string(steps.size()) + " stages",
                           std::to_string(stats.states) + " states, " + std::to_string(stats.transitions) +
                               " transitions, " + fmtCount(stats.schedules) + " schedules");
        t.numbers = {{"states", double(stats.states)},
                     {"transitions", double(stats.transitions)},
                     {"schedules", stats.schedules},
                     {"width", stats.width},
                     {"transition_bound", stats.transitionBound},
                     {"optimum_ns", stats.optimumNs},
                     {"chosen_ns", stats.chosenNs},
                     {"ms", stats.ms}};
        for (std::int32_t u : part.units)
            for (NodeId n : units.units[static_cast<std::size_t>(u)].nodes)
                t.touched.push_back(n);
    }
    result.optimumNs += stats.optimumNs;
    result.chosenNs += stats.chosenNs;
    result.parts.push_back(std::move(stats));
    return {};
}

} // namespace

namespace {

std::vector<std::string> unitNames(const IosUnitSet &units, const std::vector<std::int32_t> &ids)
{
    std::vector<std::string> out;
    out.reserve(ids.size());
    for (std::int32_t u : ids)
        out.push_back(units.units[static_cast<std::size_t>(u)].name);
    return out;
}

} // namespace

std::string iosEndingKey(const IosUnitSet &units, const std::vector<std::int32_t> &state)
{
    return decisionKey("ios.ending", unitNames(units, state));
}

std::string iosStrategyKey(const IosUnitSet &units, const std::vector<std::int32_t> &stage)
{
    return decisionKey("ios.strategy", unitNames(units, stage));
}

std::string iosStageId(const IosUnitSet &units, const std::vector<std::vector<std::int32_t>> &groups)
{
    std::string id;
    for (const auto &g : groups) {
        id += id.empty() ? "" : " | ";
        for (std::size_t i = 0; i < g.size(); ++i)
            id += (i ? "," : "") + units.units[static_cast<std::size_t>(g[i])].name;
    }
    return id;
}

std::vector<std::vector<std::int32_t>> iosParts(const IosBlock &block, int partSize)
{
    std::vector<std::vector<std::int32_t>> parts;
    std::size_t at = 0;
    auto take = [&](std::size_t n) {
        parts.emplace_back(block.units.begin() + static_cast<std::ptrdiff_t>(at),
                           block.units.begin() + static_cast<std::ptrdiff_t>(at + n));
        at += n;
    };
    if (!block.parts.empty())
        for (std::int32_t p : block.parts)
            take(static_cast<std::size_t>(p));
    else
        while (at < block.units.size())
            take(std::min(block.units.size() - at, static_cast<std::size_t>(std::max(partSize, 1))));
    return parts;
}

Expected<IosSearchResult> iosSearch(const Graph &g, const IosUnitSet &units, const StageLatencyModel &latency,
                                    const IosSearchOptions &options, const IosSearchContext &context)
{
    auto range = [](const char *name, std::int64_t v, std::int64_t lo, std::int64_t hi) -> Status {
        if (v < lo || v > hi)
            return Status::error(ErrorCode::Usage, std::string(name) + " must be in [" + std::to_string(lo) + ", " +
                                                       std::to_string(hi) + "], got " + std::to_string(v));
        return {};
    };
    TS_TRY(range("r", options.maxGroupSize, 1, 64));
    TS_TRY(range("s", options.maxGroups, 1, 64));
    TS_TRY(range("part_size", options.partSize, 1, 1024));
    if (!options.merge && !options.parallel)
        return Status::error(ErrorCode::Usage, "the ios search needs the merge or the parallel strategy");

    // Merge classes: conv units that iosMergeable() pairs, numbered by first member.
    std::vector<int> mergeClass(units.units.size(), -1);
    {
        std::vector<std::pair<IosConvInfo, int>> classes;
        for (std::size_t u = 0; u < units.units.size(); ++u) {
            const auto info = iosConvUnit(g, units.units[u]);
            if (!info || info->groups != 1)
                continue;
            auto it = std::find_if(classes.begin(), classes.end(),
                                   [&](const auto &c) { return iosMergeable(c.first, *info); });
            if (it == classes.end())
                it = classes.insert(classes.end(), {*info, static_cast<int>(classes.size())});
            mergeClass[u] = it->second;
        }
    }

    IosSearchResult result;
    std::size_t done = 0;
    for (std::size_t b = 0; b < units.blocks.size(); ++b) {
        // Parts still to search, front first; a part over maxStates is replaced by its two halves.
        auto todo = iosParts(units.blocks[b], options.partSize);
        std::reverse(todo.begin(), todo.end());
        std::int32_t index = 0;
        while (!todo.empty()) {
            Part part;
            part.block = static_cast<std::int32_t>(b);
            part.index = index;
            part.units = std::move(todo.back());
            todo.pop_back();
            const std::size_t n = part.units.size();
            std::map<std::int32_t, int> local;
            for (std::size_t i = 0; i < n; ++i)
                local[part.units[i]] = static_cast<int>(i);
            part.succ.resize(n);
            part.pred.resize(n);
            part.mergeClass.resize(n);
            for (std::size_t i = 0; i < n; ++i) {
                const std::int32_t u = part.units[i];
                part.mergeClass[i] = mergeClass[static_cast<std::size_t>(u)];
                for (std::int32_t s : units.successors[static_cast<std::size_t>(u)])
                    if (auto it = local.find(s); it != local.end()) {
                        part.succ[i].push_back(it->second);
                        part.pred[static_cast<std::size_t>(it->second)].push_back(static_cast<int>(i));
                    }
            }
            Status s;
            bool tooWide = false;
            if (n <= 64)
                s = searchPart<1>(part, g, units, latency, options, context, result, tooWide);
            else if (n <= 128)
                s = searchPart<2>(part, g, units, latency, options, context, result, tooWide);
            else if (n <= 256)
                s = searchPart<4>(part, g, units, latency, options, context, result, tooWide);
            else if (n <= 1024)
                s = searchPart<16>(part, g, units, latency, options, context, result, tooWide);
            else
                s = Status::error(ErrorCode::Unsupported,
                                  "block '" + units.blocks[b].name + "' part " + std::to_string(index) + " has " +
                                      std::to_string(n) +
                                      " units; the dp takes at most 1024 (use a smaller part size)");
            if (!s && tooWide && options.autoCut && n > 1) {
                const std::size_t half = n / 2;
                if (context.trace) {
                    auto &t = context.trace->add("S1: cut",
                                                 "block '" + units.blocks[b].name + "' part " + std::to_string(index) +
                                                     ": " + std::to_string(n) + " units over max_states",
                                                 "cut into runs of " + std::to_string(half) + " and " +
                                                     std::to_string(n - half) + " units",
                                                 s.message());
                    for (std::int32_t u : part.units)
                        for (NodeId node : units.units[static_cast<std::size_t>(u)].nodes)
                            t.touched.push_back(node);
                }
                todo.emplace_back(part.units.begin() + static_cast<std::ptrdiff_t>(half), part.units.end());
                todo.emplace_back(part.units.begin(), part.units.begin() + static_cast<std::ptrdiff_t>(half));
                ++result.cuts;
                continue;
            }
            TS_TRY(s);
            ++index;
            done += n;
            if (context.progress)
                context.progress(static_cast<double>(done) / static_cast<double>(units.units.size()));
        }
    }
    return result;
}

} // namespace tessera
