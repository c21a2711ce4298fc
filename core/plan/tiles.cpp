#include "core/plan/tiles.h"

#include "core/plan/taskmaps.h"
#include "core/support/assert.h"

#include <algorithm>
#include <unordered_set>

namespace tessera {

ops::Region regionIntersect(const ops::Region &a, const ops::Region &b)
{
    TS_ASSERT(a.size() == b.size());
    ops::Region r(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        r[i] = {std::max(a[i].begin, b[i].begin), std::min(a[i].end, b[i].end)};
    return r;
}

ops::Region regionHull(const ops::Region &a, const ops::Region &b)
{
    if (regionEmpty(a))
        return b;
    if (regionEmpty(b))
        return a;
    TS_ASSERT(a.size() == b.size());
    ops::Region r(a.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        r[i] = {std::min(a[i].begin, b[i].begin), std::max(a[i].end, b[i].end)};
    return r;
}

bool regionEmpty(const ops::Region &r)
{
    // A rank-0 region (a scalar) is one element, not empty.
    return std::any_of(r.begin(), r.end(), [](const ops::Interval &i) { return i.empty(); });
}

bool regionContains(const ops::Region &outer, const ops::Region &inner)
{
    if (regionEmpty(inner))
        return true;
    if (outer.size() != inner.size())
        return false;
    for (std::size_t i = 0; i < outer.size(); ++i)
        if (inner[i].begin < outer[i].begin || inner[i].end > outer[i].end)
            return false;
    return true;
}

std::vector<NodeId> kernelOutputNodes(const Graph &g, const std::vector<NodeId> &kernelNodes)
{
    std::unordered_set<NodeId> inKernel(kernelNodes.begin(), kernelNodes.end());
    std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());
    std::vector<NodeId> out;
    for (NodeId n : kernelNodes) {
        bool escapes = false;
        for (TensorId t : g.node(n).outputs) {
            if (t == kInvalidId)
                continue;
            if (graphOutputs.count(t))
                escapes = true;
            for (NodeId c : g.tensor(t).consumers)
                if (!inKernel.count(c))
                    escapes = true;
        }
        if (escapes)
            out.push_back(n);
    }
    return out;
}

namespace {
// Grows the region recorded for `key` to include `r` (absent = nothing yet).
void hullInto(std::map<TensorId, ops::Region> &m, TensorId key, const ops::Region &r)
{
    auto [it, inserted] = m.try_emplace(key, r);
    if (!inserted)
        it->second = regionHull(it->second, r);
}
} // namespace

KernelIndexMaps::KernelIndexMaps(const Graph &g, const Kernel &kernel)
    : m_nodes(kernel.nodes), m_outputNodes(kernelOutputNodes(g, kernel.nodes))
{
    m_maps.reserve(m_nodes.size());
    for (NodeId n : m_nodes) {
        m_maps.emplace_back();
        if (!g.node(n).opaque)
            m_maps.back().emplace(g, g.node(n));
    }
}

Expected<TaskRegions> taskRegions(const Graph &g, const Kernel &kernel, const std::vector<NodeTile> &tiles)
{
    return taskRegions(g, kernel, tiles, nullptr);
}

Expected<TaskRegions> taskRegions(const Graph &g, const Kernel &kernel, const std::vector<NodeTile> &tiles,
                                  const KernelIndexMaps *maps)
{
    TS_ASSERT(!maps || maps->m_nodes == kernel.nodes);
    TaskRegions out;
    std::unordered_set<NodeId> inKernel(kernel.nodes.begin(), kernel.nodes.end());
    // Needed region per tensor produced inside the kernel.
    std::map<TensorId, ops::Region> &need = out.computed;
    if (tiles.empty()) {
        for (NodeId n : kernel.nodes)
            for (TensorId t : g.node(n).outputs)
                if (t != kInvalidId)
                    need[t] = ops::fullRegion(g.tensor(t).shape);
    } else {
        for (const NodeTile &tile : tiles) {
            if (!inKernel.count(tile.node))
                return Status::invalid("tile names a node outside the kernel", {.node = g.node(tile.node).name});
            const Node &n = g.node(tile.node);
            if (tile.output < 0 || static_cast<std::size_t>(tile.output) >= n.outputs.size() ||
                n.outputs[static_cast<std::size_t>(tile.output)] == kInvalidId)
                return Status::invalid("tile names a missing output " + std::to_string(tile.output), {.node = n.name});
            const TensorId t = n.outputs[static_cast<std::size_t>(tile.output)];
            if (!regionContains(ops::fullRegion(g.tensor(t).shape), tile.region) ||
                tile.region.size() != g.tensor(t).shape.size())
                return Status::invalid("tile lies outside the output's bounds",
                                       {.node = n.name, .tensor = g.tensor(t).name});
            hullInto(need, t, tile.region);
        }
        // Kernel output nodes without a tile compute everything.
        for (NodeId n : maps ? maps->outputNodes() : kernelOutputNodes(g, kernel.nodes)) {
            bool tiled = std::any_of(tiles.begin(), tiles.end(), [&](const NodeTile &t) { return t.node == n; });
            if (!tiled)
                for (TensorId t : g.node(n).outputs)
                    if (t != kInvalidId)
                        need[t] = ops::fullRegion(g.tensor(t).shape);
        }
    }
    // Reverse topological walk (kernel.nodes is topological).
    for (auto it = kernel.nodes.rbegin(); it != kernel.nodes.rend(); ++it) {
        const Node &n = g.node(*it);
        for (std::size_t oi = 0; oi < n.outputs.size(); ++oi) {
            const TensorId t = n.outputs[oi];
            if (t == kInvalidId || !need.count(t) || regionEmpty(need[t]))
                continue;
            std::vector<ops::InputRegion> regions;
            bool opaque = n.opaque;
            if (!opaque) {
                const std::size_t at = static_cast<std::size_t>(kernel.nodes.rend() - it - 1);
                auto r = maps ? maps->m_maps[at]->inputRegions(static_cast<int>(oi), need[t])
                              : ops::inputRegions(g, n, static_cast<int>(oi), need[t]);
                if (!r)
                    return r.status();
                regions = std::move(*r);
            }
            for (std::size_t ii = 0; ii < n.inputs.size(); ++ii) {
                const TensorId in = n.inputs[ii];
                if (in == kInvalidId)
                    continue;
                ops::Region want;
                if (opaque) {
                    want = ops::fullRegion(g.tensor(in).shape);
                    out.exact = false;
                } else {
                    if (ii >= regions.size() || !regions[ii].used)
                        continue;
                    want = regions[ii].clipped;
                }
                const Tensor &src = g.tensor(in);
                const bool internal = src.producer != kInvalidId && inKernel.count(src.producer);
                hullInto(internal ? need : out.read, in, want);
            }
        }
    }
    return out;
}

std::vector<NodeWrite> taskWrites(const Graph &g, const Kernel &kernel, const Task &task, const TaskRegions &regions)
{
    const std::unordered_set<NodeId> inKernel(kernel.nodes.begin(), kernel.nodes.end());
    std::vector<NodeWrite> writes;
    for (NodeId id : kernel.nodes) {
        const Node &n = g.node(id);
        for (std::size_t oi = 0; oi < n.outputs.size(); ++oi) {
            const TensorId tensor = n.outputs[oi];
            auto it = tensor == kInvalidId ? regions.computed.end() : regions.computed.find(tensor);
            if (it == regions.computed.end() || regionEmpty(it->second))
                continue;
            const auto &consumers = g.tensor(tensor).consumers;
            const bool readInside =
                std::any_of(consumers.begin(), consumers.end(), [&](NodeId c) { return inKernel.count(c) > 0; });
            NodeWrite w{id, static_cast<int>(oi), {}};
            if (!readInside)
                for (const NodeTile &tile : task.tiles)
                    if (tile.node == id && tile.output == w.output && !regionEmpty(tile.region))
                        w.regions.push_back(tile.region);
            if (w.regions.empty())
                w.regions.push_back(it->second);
            writes.push_back(std::move(w));
        }
    }
    return writes;
}

} // namespace tessera
