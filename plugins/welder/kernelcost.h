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

#include "plugins/welder/subgraphtiling.h"

#include <map>
#include <memory>
#include <string>

namespace tessera::welder {

// Everything a schedule learns about sub-graph tilings: level-0 tilings by signature, tilings above
// level 0 by signature and domain, the index-map memo. A pure function of the graph, the device,
// the cost model and the search parameters, so a replay of the same model (after an override)
// may start from the previous run's (welder.cpp keeps the last one, §4.2 "sub-graph caching").
struct TilingCaches {
    std::map<std::string, std::unique_ptr<Tiling>> level0;
    InnerTilingCache inner;
    RegionMemo memo;
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
    // Estimated time of `nodes` as one kernel: the best tile's, a single node's whole-kernel
    // estimate when no tile fits, +inf for a larger sub-graph without a tile.
    double costNs(const std::vector<NodeId> &nodes);

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
    std::int64_t m_hits = 0, m_misses = 0;
};

} // namespace tessera::welder
