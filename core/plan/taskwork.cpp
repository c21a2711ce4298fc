#include "core/plan/taskwork.h"

#include "core/plan/tiles.h"

#include <algorithm>

namespace tessera {

namespace {

double regionBytes(const Graph &g, TensorId t, const ops::Region &r)
{
    const Tensor &tensor = g.tensor(t);
    const double elements =
        r.empty() ? static_cast<double>(tensor.elements()) : static_cast<double>(ops::regionElements(r));
    return elements * static_cast<double>(dtypeSize(tensor.dtype));
}

} // namespace

TaskWork taskWork(const Graph &g, const ExecutionPlan &plan, const Task &task)
{
    TaskWork w;
    if (task.kind != TaskKind::Compute || task.kernel < 0 ||
        static_cast<std::size_t>(task.kernel) >= plan.kernels.size())
        return w;
    const Kernel &k = plan.kernels[static_cast<std::size_t>(task.kernel)];
    auto regions = taskRegions(g, k, task.tiles);
    for (NodeId n : k.nodes) {
        const Node &node = g.node(n);
        double fraction = 1.0;
        if (regions && !node.outputs.empty() && node.outputs.front() != kInvalidId) {
            const Tensor &out = g.tensor(node.outputs.front());
            auto it = regions->computed.find(node.outputs.front());
            if (it != regions->computed.end() && !it->second.empty())
                fraction = static_cast<double>(ops::regionElements(it->second)) /
                           static_cast<double>(std::max<std::int64_t>(1, out.elements()));
        }
        w.flops += ops::opCost(g, node).flops * fraction;
    }
    if (regions) {
        for (const auto &[t, r] : regions->read)
            w.bytesRead += regionBytes(g, t, r);
        const std::vector<NodeId> escaping = kernelOutputNodes(g, k.nodes);
        for (const NodeWrite &write : taskWrites(g, k, task, *regions)) {
            if (std::find(escaping.begin(), escaping.end(), write.node) == escaping.end())
                continue; // stays inside the kernel
            const TensorId t = g.node(write.node).outputs[static_cast<std::size_t>(write.output)];
            for (const ops::Region &r : write.regions)
                w.bytesWritten += regionBytes(g, t, r);
        }
    } else {
        for (NodeId n : k.nodes) {
            const ops::OpCost c = ops::opCost(g, g.node(n));
            w.bytesRead += static_cast<double>(c.bytesRead);
            w.bytesWritten += static_cast<double>(c.bytesWritten);
        }
    }
    return w;
}

} // namespace tessera
