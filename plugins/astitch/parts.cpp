#include "plugins/astitch/parts.h"

#include "core/plan/tiles.h"
#include "core/sched/trace.h"

namespace tessera::astitch {

namespace {

// Is `r` the slab [c·n/P, (c+1)·n/P) of `shape` along dim 0, whole elsewhere?
bool isSlab(const Shape &shape, const ops::Region &r, int c, int parts)
{
    if (shape.empty() || r.size() != shape.size() || shape.front() % parts != 0)
        return false;
    const std::int64_t share = shape.front() / parts;
    if (r.front().begin != c * share || r.front().end != (c + 1) * share)
        return false;
    for (std::size_t d = 1; d < shape.size(); ++d)
        if (r[d].begin != 0 || r[d].end != shape[d])
            return false;
    return true;
}

} // namespace

Expected<int> assignParts(Context &ctx, std::vector<StitchKernel> &kernels)
{
    const Graph &g = ctx.graph;
    int spread = 0;
    for (StitchKernel &k : kernels) {
        if (ctx.cancelled && ctx.cancelled())
            return Status::error(ErrorCode::Cancelled, "cancelled");
        Kernel pk;
        pk.nodes = k.nodes;
        k.parts.clear();
        const int P = ctx.clusters;
        bool ok = P > 1 && !k.opaque && !k.outputs.empty();
        std::vector<NodeId> outNodes = kernelOutputNodes(g, k.nodes);
        for (NodeId n : outNodes) {
            const Node &node = g.node(n);
            int valid = 0;
            for (TensorId t : node.outputs)
                valid += t != kInvalidId;
            if (valid != 1 || node.outputs.front() == kInvalidId) {
                ok = false;
                break;
            }
            const Shape &s = g.tensor(node.outputs.front()).shape;
            if (s.empty() || s.front() % P != 0)
                ok = false;
        }
        for (int c = 0; ok && c < P; ++c) {
            Part part;
            part.cluster = c;
            for (NodeId n : outNodes) {
                const Shape &s = g.tensor(g.node(n).outputs.front()).shape;
                ops::Region r = ops::fullRegion(s);
                r.front() = {c * (s.front() / P), (c + 1) * (s.front() / P)};
                part.tiles.push_back({n, 0, r});
            }
            auto regions = taskRegions(g, pk, part.tiles);
            if (!regions || !regions->exact) {
                ok = false;
                break;
            }
            for (const auto &[t, r] : regions->computed)
                if (!isSlab(g.tensor(t).shape, r, c, P))
                    ok = false;
            part.computed = std::move(regions->computed);
            part.read = std::move(regions->read);
            k.parts.push_back(std::move(part));
        }
        if (!ok) {
            k.parts.clear();
            auto regions = taskRegions(g, pk, {});
            if (!regions)
                return regions.status();
            Part whole;
            whole.computed = std::move(regions->computed);
            whole.read = std::move(regions->read);
            k.parts.push_back(std::move(whole));
        } else {
            ++spread;
        }
    }
    auto &step = ctx.trace.add("A2: cluster parts (§2.1, §5.1)",
                               std::to_string(spread) + " of " + std::to_string(kernels.size()) + " kernels",
                               "spread over " + std::to_string(ctx.clusters) + " clusters along the batch",
                               "the others run whole on cluster 0 (their batch does not divide, or an op moves it)");
    step.numbers = {{"spread", double(spread)}, {"clusters", double(ctx.clusters)}};
    return spread;
}

} // namespace tessera::astitch
