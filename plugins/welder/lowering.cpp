#include "plugins/welder/lowering.h"

#include "core/plan/taskmaps.h"
#include "core/plan/tiles.h"
#include "core/support/assert.h"

#include <queue>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace tessera::welder {

namespace {

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

// Kernels in a topological order of the kernel graph (ties: smallest first node rank).
std::vector<std::size_t> kernelOrder(const TileGraph &tg, const std::vector<LoweredKernel> &kernels)
{
    const Graph &g = tg.graph();
    std::vector<std::size_t> kernelOf(g.nodeCount(), 0);
    for (std::size_t k = 0; k < kernels.size(); ++k)
        for (NodeId n : kernels[k].nodes)
            kernelOf[static_cast<std::size_t>(n)] = k;
    std::vector<std::unordered_set<std::size_t>> succ(kernels.size());
    std::vector<int> indeg(kernels.size(), 0);
    for (const TileEdge &e : tg.edges()) {
        const std::size_t a = kernelOf[static_cast<std::size_t>(e.producer)];
        const std::size_t b = kernelOf[static_cast<std::size_t>(e.consumer)];
        if (a != b && succ[a].insert(b).second)
            ++indeg[b];
    }
    using Item = std::pair<std::int32_t, std::size_t>;
    std::priority_queue<Item, std::vector<Item>, std::greater<>> ready;
    for (std::size_t k = 0; k < kernels.size(); ++k)
        if (!indeg[k])
            ready.push({tg.rank(kernels[k].nodes.front()), k});
    std::vector<std::size_t> order;
    while (!ready.empty()) {
        const std::size_t k = ready.top().second;
        ready.pop();
        order.push_back(k);
        std::vector<std::size_t> next(succ[k].begin(), succ[k].end());
        std::sort(next.begin(), next.end());
        for (std::size_t s : next)
            if (--indeg[s] == 0)
                ready.push({tg.rank(kernels[s].nodes.front()), s});
    }
    return order;
}

int outputIndex(const Node &n, TensorId t)
{
    return static_cast<int>(std::find(n.outputs.begin(), n.outputs.end(), t) - n.outputs.begin());
}

// Whether the boxes' computed regions of every escaping output (what
// a task writes of it: the hull of its tile and of what the kernel reads of it inside, the
// region verifyPlan checks) are pairwise disjoint and cover the tensor. Propagate checks the
// representative tile against its grid neighbours only; boxes of grouped tiles, border tiles
// and hull index maps (a window partition's reshapes and transposes behind a LayerNorm read
// both inside and outside the kernel) can still overlap.
bool partitionsOutputs(const Graph &g, const std::vector<TensorId> &escaping,
                       const std::vector<KernelTasks::Box> &boxes)
{
    for (std::size_t e = 0; e < escaping.size(); ++e) {
        const TensorId t = escaping[e];
        std::vector<const ops::Region *> rs;
        std::int64_t sum = 0;
        for (const KernelTasks::Box &b : boxes) {
            auto it = b.regions.computed.find(t);
            if (it == b.regions.computed.end() || regionEmpty(it->second))
                continue;
            rs.push_back(&it->second);
            sum += ops::regionElements(it->second);
        }
        if (sum != g.tensor(t).elements())
            return false;
        for (std::size_t i = 0; i < rs.size(); ++i)
            for (std::size_t j = i + 1; j < rs.size(); ++j)
                if (!regionEmpty(regionIntersect(*rs[i], *rs[j])))
                    return false;
    }
    return true;
}

// The task boxes of one kernel over its tile grid, with their tiles and regions. When the
// boxes do not partition an escaping output (partitionsOutputs), the kernel is one task that
// computes all of it, tile after tile.
Expected<KernelTasks> kernelTasks(const TileGraph &tg, const LoweredKernel &lk, int maxTasks)
{
    const Graph &g = tg.graph();
    Kernel kernel;
    kernel.nodes = lk.nodes;
    std::vector<ops::Region> boxes;
    std::vector<double> share;
    std::vector<TensorId> escaping;
    if (lk.whole) {
        boxes.push_back({});
        share.push_back(1.0);
    } else {
        const TileConfig &c = lk.config;
        escaping = c.escaping;
        std::vector<std::int64_t> group(c.grid.size(), 1);
        auto taskCount = [&] {
            std::int64_t n = 1;
            for (std::size_t d = 0; d < c.grid.size(); ++d)
                n *= ceilDiv(c.grid[d], group[d]);
            return n;
        };
        for (std::size_t d = 0; d < c.grid.size() && taskCount() > maxTasks; ++d)
            while (taskCount() > maxTasks && group[d] < c.grid[d])
                group[d] = std::min(c.grid[d], group[d] * 2);
        Shape boxShape(c.tile.size());
        std::vector<std::int64_t> counts(c.grid.size());
        for (std::size_t d = 0; d < c.grid.size(); ++d) {
            boxShape[d] = c.tile[d] * group[d];
            counts[d] = ceilDiv(c.grid[d], group[d]);
        }
        std::vector<std::int64_t> idx(c.grid.size(), 0);
        const std::int64_t total = taskCount();
        for (std::int64_t i = 0; i < total; ++i) {
            const ops::Region box = tileRegion(c.domain, boxShape, idx);
            boxes.push_back(box);
            std::int64_t tiles = 1;
            for (std::size_t d = 0; d < c.grid.size(); ++d)
                tiles *= ceilDiv(box[d].size(), c.tile[d]);
            share.push_back(static_cast<double>(tiles) / static_cast<double>(std::max<std::int64_t>(1, c.tileCount)));
            for (std::size_t d = c.grid.size(); d-- > 0;) {
                if (++idx[d] < counts[d])
                    break;
                idx[d] = 0;
            }
        }
    }
    KernelTasks out;
    const KernelIndexMaps maps(g, kernel); // every box maps tiles through the same nodes
    for (std::size_t b = 0; b < boxes.size(); ++b) {
        KernelTasks::Box box;
        box.share = share[b];
        if (!lk.whole) {
            auto regions = propagateOutputTile(g, lk.nodes, escaping, boxes[b]);
            if (!regions)
                return regions.status();
            for (TensorId e : escaping) {
                const NodeId p = g.tensor(e).producer;
                auto it = regions->computed.find(e);
                if (it == regions->computed.end())
                    return Status::invalid("output " + g.tensor(e).name + " is not reached by the kernel's tile",
                                           {.node = g.node(p).name});
                box.tiles.push_back({p, outputIndex(g.node(p), e), it->second});
            }
        }
        auto regions = taskRegions(g, kernel, box.tiles, &maps);
        if (!regions)
            return regions.status();
        box.regions = std::move(*regions);
        out.boxes.push_back(std::move(box));
    }
    if (out.boxes.size() > 1 && !partitionsOutputs(g, escaping, out.boxes)) {
        KernelTasks::Box box;
        auto regions = taskRegions(g, kernel, {});
        if (!regions)
            return regions.status();
        box.regions = std::move(*regions);
        out.boxes.assign(1, std::move(box));
    }
    return out;
}

} // namespace

LoweringCache::Key LoweringCache::keyOf(const std::vector<NodeId> &nodes, const ops::Region &domain, const Shape &tile,
                                        int maxTasks)
{
    Key key(nodes.begin(), nodes.end());
    key.push_back(-1);
    for (const ops::Interval &iv : domain) {
        key.push_back(iv.begin);
        key.push_back(iv.end);
    }
    key.push_back(-1);
    key.insert(key.end(), tile.begin(), tile.end());
    key.push_back(-1);
    key.push_back(maxTasks);
    return key;
}

Expected<std::shared_ptr<const KernelTasks>> LoweringCache::tasks(const TileGraph &tg, const LoweredKernel &lk,
                                                                  int maxTasks)
{
    Key key = lk.whole ? keyOf(lk.nodes, {}, {}, -1) : keyOf(lk.nodes, lk.config.domain, lk.config.tile, maxTasks);
    if (auto it = m_tasks.find(key); it != m_tasks.end()) {
        ++m_hits;
        return it->second;
    }
    auto built = kernelTasks(tg, lk, maxTasks);
    if (!built)
        return built.status();
    if (m_tasks.size() >= kMaxEntries)
        m_tasks.clear();
    auto shared = std::make_shared<const KernelTasks>(std::move(*built));
    m_tasks.emplace(std::move(key), shared);
    return shared;
}

Expected<TileConfig> LoweringCache::config(const TileGraph &tg, const std::vector<NodeId> &nodes,
                                           const ops::Region &domain, const Shape &tile, RegionMemo *memo)
{
    Key key = keyOf(nodes, domain, tile, 0);
    if (auto it = m_configs.find(key); it != m_configs.end()) {
        ++m_hits;
        return it->second;
    }
    auto cfg = propagate(tg, nodes, domain, tile, memo);
    if (!cfg)
        return cfg.status();
    if (m_configs.size() >= kMaxEntries)
        m_configs.clear();
    m_configs.emplace(std::move(key), *cfg);
    return cfg;
}

namespace {

// !regionEmpty(regionIntersect(a, b)) without building the intersection (equal ranks).
bool overlap(const ops::Region &a, const ops::Region &b)
{
    TS_ASSERT(a.size() == b.size());
    for (std::size_t d = 0; d < a.size(); ++d)
        if (std::max(a[d].begin, b[d].begin) >= std::min(a[d].end, b[d].end))
            return false;
    return true;
}

} // namespace

Expected<ExecutionPlan> lowerTileGraph(const TileGraph &tg, const WelderLevels &levels,
                                       std::vector<LoweredKernel> kernels, int maxTasks, LoweringCache *cache)
{
    const Graph &g = tg.graph();
    ExecutionPlan plan;
    const auto order = kernelOrder(tg, kernels);
    if (order.size() != kernels.size())
        return Status::invalid("the fused kernels form a cycle");
    std::unordered_map<TensorId, std::vector<std::pair<TaskId, ops::Region>>> produced;
    std::unordered_map<TensorId, BufferId> globalBuffer;
    const std::string globalLevel = levels.at(0).deviceLevel;

    for (std::size_t k : order) {
        const LoweredKernel &lk = kernels[k];
        const std::unordered_set<NodeId> inside(lk.nodes.begin(), lk.nodes.end());
        // The levels the kernel's internal edges are connected at (its strategy).
        std::set<std::string> used;
        for (NodeId n : lk.nodes)
            for (int e : tg.outEdges(n)) {
                const TileEdge &edge = tg.edges()[static_cast<std::size_t>(e)];
                if (!inside.count(edge.consumer))
                    continue;
                used.insert(levels.at(std::max(1, tg.connectLevel(e))).name);
            }
        std::string strategy = "welder";
        for (const std::string &u : used)
            strategy += (strategy == "welder" ? ":" : "+") + u;
        std::string name = g.node(lk.nodes.front()).name;
        if (lk.nodes.size() > 1)
            name += " +" + std::to_string(lk.nodes.size() - 1);
        const KernelId kid = plan.addKernel(name, lk.nodes, lk.whole ? "welder:whole" : strategy);

        std::shared_ptr<const KernelTasks> owned;
        if (cache) {
            auto cached = cache->tasks(tg, lk, maxTasks);
            if (!cached)
                return cached.status();
            owned = std::move(*cached);
        } else {
            auto built = kernelTasks(tg, lk, maxTasks);
            if (!built)
                return built.status();
            owned = std::make_shared<const KernelTasks>(std::move(*built));
        }
        const KernelTasks &kt = *owned;

        for (std::size_t b = 0; b < kt.boxes.size(); ++b) {
            const KernelTasks::Box &box = kt.boxes[b];
            const TaskRegions *regions = &box.regions;
            Task t;
            t.kind = TaskKind::Compute;
            t.kernel = kid;
            t.label = name + (kt.boxes.size() > 1 ? " tile " + std::to_string(b) : "");
            t.tiles = box.tiles;
            // Dependencies on the producers of what this task reads.
            std::set<TaskId> deps;
            for (const auto &[tensor, region] : regions->read) {
                auto it = produced.find(tensor);
                if (it == produced.end())
                    continue;
                for (const auto &[task, r] : it->second)
                    if (overlap(r, region))
                        deps.insert(task);
                if (auto gb = globalBuffer.find(tensor); gb != globalBuffer.end())
                    t.reads.push_back(gb->second);
            }
            t.deps.assign(deps.begin(), deps.end());
            // Fig. 8 Allocate: the tile-graph's workspace at level 1 (its MemFootprint: loaded
            // tiles, reuse tiles, output tiles, best-fit).
            if (!lk.whole && lk.workspaceBytes > 0 && levels.top() >= 1 && !levels.at(1).deviceLevel.empty()) {
                Buffer buf;
                buf.level = levels.at(1).deviceLevel;
                buf.bytes = lk.workspaceBytes;
                const BufferId id = plan.addBuffer(buf);
                t.writes.push_back(id);
                t.reads.push_back(id);
            }
            // Tensors leaving the kernel: whole at level 0.
            for (const auto &[tensor, region] : regions->computed) {
                const Tensor &tt = g.tensor(tensor);
                const bool escapes =
                    std::find(g.outputs.begin(), g.outputs.end(), tensor) != g.outputs.end() ||
                    std::any_of(tt.consumers.begin(), tt.consumers.end(), [&](NodeId c) { return !inside.count(c); });
                if (!escapes)
                    continue;
                auto [gb, added] = globalBuffer.try_emplace(tensor, -1);
                if (added) {
                    Buffer buf;
                    buf.tensor = tensor;
                    buf.level = globalLevel;
                    buf.bytes = tt.bytes();
                    gb->second = plan.addBuffer(buf);
                }
                t.writes.push_back(gb->second);
            }
            const TaskCost &kc = lk.estimate.cost;
            const double f = box.share;
            t.cost = kc;
            t.cost.timeNs = kc.timeNs * f;
            t.cost.computeNs = kc.computeNs * f;
            t.cost.memoryNs = kc.memoryNs * f;
            t.cost.launchNs = kc.launchNs * f;
            t.cost.contentionNs = kc.contentionNs * f;
            t.cost.syncNs = kc.syncNs * f;
            t.cost.energyJ = kc.energyJ * f;
            for (auto &[lvl, bytes] : t.cost.bytesByLevel)
                bytes = static_cast<std::int64_t>(static_cast<double>(bytes) * f);
            const TaskId id = plan.addTask(std::move(t));
            for (const auto &[tensor, region] : regions->computed)
                produced[tensor].push_back({id, region});
        }
    }
    return plan;
}

} // namespace tessera::welder
