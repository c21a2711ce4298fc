#include "plugins/brickdl/padded.h"

#include "core/plan/tiles.h"

#include <map>
#include <unordered_map>

namespace tessera::brickdl {

namespace {

// Hull into `acc`; an empty vector (nothing needed yet) takes `r` as it is.
void grow(ops::Region &acc, const ops::Region &r)
{
    acc = acc.empty() ? r : regionHull(acc, r);
}

} // namespace

Expected<PaddedBricks> padBricks(const Graph &g, const SubGraph &sub, std::int64_t brick)
{
    PaddedBricks out;
    std::unordered_map<NodeId, std::size_t> pos;
    const std::vector<bool> stored = materialised(g, sub);
    for (std::size_t i = 0; i < sub.nodes.size(); ++i) {
        pos[sub.nodes[i]] = i;
        if (stored[i])
            out.exactElements += g.tensor(g.node(sub.nodes[i]).outputs[0]).elements();
    }
    for (NodeId sink : sub.outputs) {
        const BrickGrid grid = nodeGrid(g, sink, brick);
        for (std::int64_t b = 0; b < grid.brickCount(); ++b) {
            // The queue of §3.2.1: regions needed per member, filled in reverse order.
            std::vector<ops::Region> need(sub.nodes.size());
            std::map<TensorId, ops::Region> reads;
            need[pos.at(sink)] = grid.region(b);
            for (std::size_t i = pos.at(sink) + 1; i-- > 0;) {
                if (need[i].empty())
                    continue;
                const Node &n = g.node(sub.nodes[i]);
                auto in = ops::inputRegions(g, n, 0, need[i]);
                if (!in)
                    return in.status();
                for (std::size_t k = 0; k < n.inputs.size(); ++k) {
                    const TensorId t = n.inputs[k];
                    if (t == kInvalidId || !(*in)[k].used || g.tensor(t).isConstant() || regionEmpty((*in)[k].clipped))
                        continue;
                    const auto it = pos.find(g.tensor(t).producer);
                    if (it == pos.end()) {
                        grow(reads[t], (*in)[k].clipped);
                    } else {
                        grow(need[it->second], (*in)[k].clipped);
                    }
                }
            }
            PaddedChain chain{sink, b, {}, {reads.begin(), reads.end()}};
            for (std::size_t i = 0; i < need.size(); ++i) {
                if (need[i].empty())
                    continue;
                const std::int64_t e = ops::regionElements(need[i]);
                if (stored[i])
                    out.paddedElements += e;
                out.paddedBytes +=
                    e * static_cast<std::int64_t>(dtypeSize(g.tensor(g.node(sub.nodes[i]).outputs[0]).dtype));
                chain.steps.push_back({sub.nodes[i], std::move(need[i])});
            }
            out.chains.push_back(std::move(chain));
        }
    }
    return out;
}

} // namespace tessera::brickdl
