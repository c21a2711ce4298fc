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

class KernelCoster
{
public:
    // Tilings above level 0 are shared through the coster's own InnerTilingCache.
    explicit KernelCoster(TilingContext ctx) : m_ctx(ctx)
    {
        m_ctx.innerCache = &m_inner;
        m_ctx.regionMemo = &m_memo;
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
    std::int64_t hits() const { return m_hits; }
    std::int64_t misses() const { return m_misses; }
    const InnerTilingCache &innerCache() const { return m_inner; }
    RegionMemo &regionMemo() { return m_memo; }

private:
    TilingContext m_ctx;
    InnerTilingCache m_inner;
    RegionMemo m_memo;
    std::map<std::string, std::unique_ptr<Tiling>> m_cache;
    std::int64_t m_hits = 0, m_misses = 0;
};

} // namespace tessera::welder
