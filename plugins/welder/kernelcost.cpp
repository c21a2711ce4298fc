#include "plugins/welder/kernelcost.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <unordered_map>

namespace tessera::welder {

std::string KernelCoster::signature(const std::vector<NodeId> &nodes) const
{
    return subgraphSignature(*m_ctx.tg, nodes);
}

const Tiling &KernelCoster::tiling(const std::vector<NodeId> &nodes)
{
    std::string sig = signature(nodes);
    auto it = m_caches->level0.find(sig);
    if (it != m_caches->level0.end()) {
        if (m_searchedAhead.erase(sig))
            ++m_misses;
        else
            ++m_hits;
        return *it->second;
    }
    ++m_misses;
    auto t = std::make_unique<Tiling>(
        subGraphTiling(m_ctx, nodes, 0, primaryDomain(m_ctx.tg->graph(), nodes), m_ctx.params.topk));
    return *m_caches->level0.emplace(std::move(sig), std::move(t)).first->second;
}

int KernelCoster::searchTrials(TileGraph &tg, int edge, const std::vector<NodeId> &nodes,
                               const std::vector<int> &levels)
{
    const int threads = m_ctx.params.threads;
    if (!m_concurrentTrials || threads < 2 || levels.size() < 2 || m_ctx.cancelled())
        return 0;
    const int before = tg.connectLevel(edge);
    struct Job {
        std::string signature;
        int level;
    };
    std::vector<Job> jobs;
    for (int level : levels) {
        tg.setConnect(edge, level);
        std::string sig = signature(nodes);
        if (!m_caches->level0.count(sig) &&
            std::none_of(jobs.begin(), jobs.end(), [&](const Job &j) { return j.signature == sig; }))
            jobs.push_back({std::move(sig), level});
    }
    tg.setConnect(edge, before);
    if (jobs.size() < 2)
        return 0;
    std::vector<TileGraph> graphs(jobs.size(), tg);
    std::vector<std::unique_ptr<Tiling>> found(jobs.size());
    const ops::Region domain = primaryDomain(m_ctx.tg->graph(), nodes);
    const int inner = std::max(1, threads / static_cast<int>(jobs.size()));
    std::vector<std::thread> pool;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        graphs[i].setConnect(edge, jobs[i].level);
        pool.emplace_back([&, i] {
            TilingContext ctx = m_ctx;
            LastConfigs own; // the shared one belongs to the calling thread
            ctx.tg = &graphs[i];
            ctx.lastConfigs = &own;
            ctx.params.threads = inner;
            found[i] = std::make_unique<Tiling>(subGraphTiling(ctx, nodes, 0, domain, ctx.params.topk));
        });
    }
    for (std::thread &t : pool)
        t.join();
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        m_searchedAhead.insert(jobs[i].signature);
        m_caches->level0.emplace(std::move(jobs[i].signature), std::move(found[i]));
    }
    return static_cast<int>(jobs.size());
}

double KernelCoster::costNs(const std::vector<NodeId> &nodes)
{
    return costOf(tiling(nodes), nodes);
}

double KernelCoster::costOf(const Tiling &t, const std::vector<NodeId> &nodes) const
{
    if (!t.candidates.empty())
        return t.candidates.front().costNs;
    if (nodes.size() == 1)
        return m_ctx.cost->kernelCost(m_ctx.tg->graph(), nodes, {}).timeNs;
    return std::numeric_limits<double>::infinity();
}

} // namespace tessera::welder
