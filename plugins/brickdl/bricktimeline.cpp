#include "plugins/brickdl/bricktimeline.h"

#include "core/plan/tiles.h"

#include <algorithm>
#include <map>

namespace tessera::brickdl {

BrickState BrickTimeline::stateAt(const Layer &layer, std::int64_t brick, TaskId task) const
{
    const auto &list = layer.byBrick[static_cast<std::size_t>(brick)];
    if (list.empty() || layer.touches[static_cast<std::size_t>(list.front())].task > task)
        return BrickState::NotStarted;
    for (std::int32_t i : list)
        if (layer.touches[static_cast<std::size_t>(i)].task == task)
            return BrickState::InProgress;
    return BrickState::Complete; // touched before (padded halos may be touched again later)
}

const BrickTimeline::Touch *BrickTimeline::touchAt(const Layer &layer, TaskId task) const
{
    const auto it = std::lower_bound(layer.touches.begin(), layer.touches.end(), task,
                                     [](const Touch &t, TaskId v) { return t.task < v; });
    return it != layer.touches.end() && it->task == task ? &*it : nullptr;
}

std::int64_t BrickTimeline::residentAt(const Layer &layer, TaskId task) const
{
    std::int64_t bytes = 0;
    for (std::size_t i = 0; i < layer.resident.size(); ++i)
        if (layer.resident[i].first <= task && task <= layer.resident[i].second)
            bytes += layer.residentBytes[i];
    return bytes;
}

BrickTimeline brickTimeline(const Graph &g, const ExecutionPlan &plan, const Device *device)
{
    BrickTimeline tl;
    tl.taskCount = plan.tasks.size();
    tl.liveBytes.assign(plan.tasks.size(), 0);

    // Brick size per sub-graph: the largest blocked extent of its exact tiles.
    std::map<std::int32_t, std::int64_t> brickOf;
    std::map<NodeId, std::size_t> layerOf;
    for (const Task &t : plan.tasks) {
        if (t.kind != TaskKind::Compute || t.tiles.size() != 1)
            continue;
        const NodeTile &tile = t.tiles[0];
        const Shape &shape = g.tensor(g.node(tile.node).outputs[0]).shape;
        const auto dims = activationDims(shape);
        if (dims.empty())
            continue;
        if (!t.recompute) {
            auto &b = brickOf[t.stage];
            for (int d : dims)
                b = std::max(b, tile.region[static_cast<std::size_t>(d)].size());
        }
        if (!layerOf.count(tile.node)) {
            layerOf[tile.node] = tl.layers.size();
            BrickTimeline::Layer layer;
            layer.node = tile.node;
            layer.subgraph = t.stage;
            layer.strategy = plan.kernels[static_cast<std::size_t>(t.kernel)].strategy;
            tl.layers.push_back(std::move(layer));
        }
        tl.layers[layerOf[tile.node]].touches.push_back({t.id, t.recompute, tile.region});
    }
    for (auto &layer : tl.layers) {
        const Shape &shape = g.tensor(g.node(layer.node).outputs[0]).shape;
        layer.grid = BrickGrid(shape, activationDims(shape), std::max<std::int64_t>(1, brickOf[layer.subgraph]));
        layer.byBrick.assign(static_cast<std::size_t>(layer.grid.brickCount()), {});
        for (std::size_t i = 0; i < layer.touches.size(); ++i)
            for (std::int64_t b : layer.grid.overlapping(layer.touches[i].region))
                layer.byBrick[static_cast<std::size_t>(b)].push_back(static_cast<std::int32_t>(i));
    }

    // Residency of on-chip buffers.
    const std::vector<std::pair<TaskId, TaskId>> live = plan.bufferLiveRanges();
    std::vector<std::int64_t> diff(plan.tasks.size() + 1, 0);
    for (const Buffer &b : plan.buffers) {
        if (b.level.empty())
            continue;
        if (tl.level.empty()) {
            tl.level = b.level;
            if (device)
                if (const MemoryLevel *l = device->level(b.level))
                    tl.capacityBytes = l->capacityBytes;
        }
        const auto [first, last] = live[static_cast<std::size_t>(b.id)];
        if (first < 0 || b.level != tl.level)
            continue;
        diff[static_cast<std::size_t>(first)] += b.bytes;
        diff[static_cast<std::size_t>(last) + 1] -= b.bytes;
        if (b.tensor == kInvalidId)
            continue;
        const auto it = layerOf.find(g.tensor(b.tensor).producer);
        if (it == layerOf.end())
            continue;
        tl.layers[it->second].resident.push_back({first, last});
        tl.layers[it->second].residentBytes.push_back(b.bytes);
    }
    std::int64_t running = 0;
    for (std::size_t t = 0; t < plan.tasks.size(); ++t)
        tl.liveBytes[t] = running += diff[t];
    return tl;
}

} // namespace tessera::brickdl
