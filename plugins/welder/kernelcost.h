// The cost of a level-0 sub-graph (a prospective fused kernel) and the sub-graph signature cache
// (welder-osdi23 §4.2 "Compilation speedup": "a sub-graph signature to cache each unique graph
// pattern ... reuse it for all the remaining 11 layers").
//
// A signature is the sub-graph's structure with everything the tiling depends on: per node in
// topological order its op type, attributes, input and output shapes and dtypes, which sub-graph
// node (and output) each input comes from or that it is external (constant inputs of at most 16
// elements with their values: Reshape's shape, Slice's bounds), which outputs escape, and the
// connection level of every internal edge. Equal signatures tile alike, so the Tiling found for
// one is reused for the others; its configurations name the first sub-graph's tensors, so
// lowering re-propagates the chosen tile shape on its own nodes.
//
// A single node that no tile fits (or that has no index map: an opaque op) is costed as a whole
// kernel by CostModel::estimateKernel and lowered as one task; a larger sub-graph without a
// tile is not a valid connection.
#pragma once

#include "core/sched/decision.h"
#include "plugins/welder/lowering.h"
#include "plugins/welder/subgraphtiling.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

namespace tessera::welder {

// Everything a schedule learns about sub-graph tilings: level-0 tilings by signature, tilings above
// level 0 by signature and domain, the index-map memo, the kernels lowered. A pure function of the graph, the device,
// the cost model and the search parameters, so a replay of the same model (after an override)
// may start from the previous run's (welder.cpp keeps the last one, §4.2 "sub-graph caching").
// The SetConnect trials of the last graph connecting (graphconnecting.h), edge by edge in the
// order they ran: what each edge's trials found and the level chosen. The trials of an edge depend
// only on the levels chosen for the edges before it (the later ones are still 0), so a replay
// whose choices so far are the recorded ones finds what the record says without trying again.
struct ConnectJournal {
    struct Edge {
        int edge = -1;
        std::vector<DecisionOption> options;
        std::vector<int> optionLevel;
        std::int32_t preferred = 0;
        std::vector<std::pair<std::string, double>> numbers; // the trace step's
        int level = 0;                                       // chosen
    };
    std::vector<int> allowed; // the levels tried (the variant)
    std::vector<Edge> edges;
};

struct TilingCaches {
    std::map<std::string, std::unique_ptr<Tiling>> level0;
    InnerTilingCache inner;
    RegionMemo memo;
    LoweringCache lowering; // kernels lowered (lowering.h)
    ConnectJournal journal; // of the last complete graph connecting
    // Traffic at levels 0 and 1 with every operator its own kernel (the "before connecting" stats).
    std::optional<std::pair<double, double>> trafficBefore;
};

class KernelCoster
{
public:
    // `caches` may come from an earlier run with the same fingerprint; null: fresh ones.
    explicit KernelCoster(TilingContext ctx, std::shared_ptr<TilingCaches> caches = nullptr)
        : m_ctx(ctx), m_caches(caches ? std::move(caches) : std::make_shared<TilingCaches>())
    {
        m_ctx.innerCache = &m_caches->inner;
        m_ctx.regionMemo = &m_caches->memo;
        m_ctx.lastConfigs = &m_lastConfigs;
    }
    KernelCoster(const KernelCoster &) = delete;
    KernelCoster &operator=(const KernelCoster &) = delete;
    const TilingContext &context() const { return m_ctx; }

    // The level-0 tiling of `nodes` (cached by signature).
    const Tiling &tiling(const std::vector<NodeId> &nodes);
    // Fig. 7 lines 3–9 with §4.2's "evaluated in parallel on the available cores": the level-0
    // tilings of `nodes` with `edge` connected at each of `levels` (the SetConnect trials of one
    // edge), those not cached yet searched concurrently — each on a copy of `tg` with its own
    // level, on max(1, threads / trials) candidate threads — when the context has more than one
    // thread and more than one is missing; then stored in the order of `levels`. `tg` is left as
    // it was. A tiling is a pure function of the nodes and connection levels, so the cache, and
    // everything computed from it, is the same for any thread count; tiling() counts a tiling
    // searched here as a search when it is first asked for, as if it had been searched then.
    // Returns how many were searched concurrently (0: the trials search one by one as they run).
    int searchTrials(TileGraph &tg, int edge, const std::vector<NodeId> &nodes, const std::vector<int> &levels);
    // Off: searchTrials does nothing (welder.cpp: a replay that starts from reused tilings searches
    // few, and starting threads for them cost more than it saved — bench_welder, RandWire).
    void setConcurrentTrials(bool on) { m_concurrentTrials = on; }
    // Estimated time of `nodes` as one kernel: the best tile's, a single node's whole-kernel
    // estimate when no tile fits, +inf for a larger sub-graph without a tile.
    double costNs(const std::vector<NodeId> &nodes);
    // The same for a tiling of `nodes` already looked up.
    double costOf(const Tiling &tiling, const std::vector<NodeId> &nodes) const;

    std::string signature(const std::vector<NodeId> &nodes) const;
    std::int64_t hits() const { return m_hits; }     // this coster's level-0 lookups answered by the cache
    std::int64_t misses() const { return m_misses; } // this coster's level-0 searches
    const InnerTilingCache &innerCache() const { return m_caches->inner; }
    RegionMemo &regionMemo() { return m_caches->memo; }
    const std::shared_ptr<TilingCaches> &caches() const { return m_caches; }

private:
    TilingContext m_ctx;
    std::shared_ptr<TilingCaches> m_caches;
    LastConfigs m_lastConfigs;
    std::set<std::string> m_searchedAhead; // by searchTrials, not asked for yet
    bool m_concurrentTrials = true;
    std::int64_t m_hits = 0, m_misses = 0;
};

} // namespace tessera::welder
