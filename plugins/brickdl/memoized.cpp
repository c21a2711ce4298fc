#include "plugins/brickdl/memoized.h"

#include "core/plan/tiles.h"

#include <cstdlib>
#include <functional>
#include <unordered_map>

namespace tessera::brickdl {

Expected<MemoizedBricks> memoizeBricks(const Graph &g, const SubGraph &sub, std::int64_t brick, int concurrency)
{
    MemoizedBricks out;
    std::unordered_map<NodeId, std::size_t> pos;
    std::vector<BrickGrid> grids;
    std::vector<std::vector<BrickState>> state;
    std::vector<std::vector<std::int32_t>> emitted; // index into out.order per brick
    for (std::size_t i = 0; i < sub.nodes.size(); ++i) {
        pos[sub.nodes[i]] = i;
        grids.push_back(nodeGrid(g, sub.nodes[i], brick));
        const auto n = static_cast<std::size_t>(grids.back().brickCount());
        state.emplace_back(n, BrickState::NotStarted);
        emitted.emplace_back(n, -1);
        const auto elemBytes = static_cast<std::int64_t>(dtypeSize(g.tensor(g.node(sub.nodes[i]).outputs[0]).dtype));
        out.tagBytes += 4 * static_cast<std::int64_t>(n);
        out.brickBytes += static_cast<std::int64_t>(n) * grids.back().storedElements() * elemBytes;
    }

    Status failed = Status::ok();
    std::function<void(std::size_t, std::int64_t, std::int32_t)> visit = [&](std::size_t m, std::int64_t b,
                                                                             std::int32_t root) {
        state[m][static_cast<std::size_t>(b)] = BrickState::InProgress;
        MemoBrick mb{sub.nodes[m], b, grids[m].region(b), {}, root};
        const Node &n = g.node(mb.node);
        auto in = ops::inputRegions(g, n, 0, mb.region);
        if (!in) {
            failed = in.status();
            return;
        }
        for (std::size_t k = 0; k < n.inputs.size(); ++k) {
            const TensorId t = n.inputs[k];
            if (t == kInvalidId || !(*in)[k].used || g.tensor(t).isConstant())
                continue;
            const auto it = pos.find(g.tensor(t).producer);
            if (it == pos.end())
                continue;
            for (std::int64_t d : grids[it->second].overlapping((*in)[k].clipped)) {
                const auto di = static_cast<std::size_t>(d);
                if (state[it->second][di] == BrickState::NotStarted)
                    visit(it->second, d, root);
                if (!failed)
                    return;
                // A DAG never meets its own in-progress bricks.
                const std::int32_t idx = emitted[it->second][di];
                const std::int32_t by = out.order[static_cast<std::size_t>(idx)].root;
                if (by != root && std::abs(by - root) < concurrency) {
                    ++out.conflictAtomics;
                    ++mb.conflicts;
                }
                mb.deps.push_back(idx);
            }
        }
        out.compulsoryAtomics += 2;
        state[m][static_cast<std::size_t>(b)] = BrickState::Complete;
        emitted[m][static_cast<std::size_t>(b)] = static_cast<std::int32_t>(out.order.size());
        out.order.push_back(std::move(mb));
    };

    std::int32_t root = 0;
    for (NodeId o : sub.outputs) {
        const std::size_t m = pos.at(o);
        for (std::int64_t b = 0; b < grids[m].brickCount(); ++b)
            if (state[m][static_cast<std::size_t>(b)] == BrickState::NotStarted) {
                visit(m, b, root++);
                if (!failed)
                    return failed;
            }
    }
    for (std::size_t m = 0; m < sub.nodes.size(); ++m)
        for (std::int64_t b = 0; b < grids[m].brickCount(); ++b)
            if (state[m][static_cast<std::size_t>(b)] == BrickState::NotStarted) {
                visit(m, b, root++);
                if (!failed)
                    return failed;
            }
    return out;
}

} // namespace tessera::brickdl
