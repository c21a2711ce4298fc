// Ops the CPU backend does not compile run on the reference backend's kernels
// (backends/reference/kernel.h; a documented exception in .ci/layering.txt):
// the node's inputs are read whole from the run's tensor table and its
// outputs written whole, or only the regions a tiled task asks for. Such ops
// are counted in the run's metrics ("ops/reference") and listed by
// `tessera-cli backends` (docs/cpu-backend.md).
#include "backends/cpu/cpuop.h"
#include "backends/reference/kernel.h"

namespace tessera::cpu {

namespace {

class ReferenceOp final : public CpuOp
{
public:
    ReferenceOp(const Graph &g, NodeId n, reference::KernelPtr kernel, int output, std::vector<ops::Region> regions)
        : m_graph(g), m_node(n), m_kernel(std::move(kernel)), m_output(output), m_regions(std::move(regions))
    {
        const Node &node = g.node(n);
        engine = Engine::Reference;
        nodes = {n};
        label = node.opType;
        for (TensorId t : node.inputs)
            if (t != kInvalidId)
                reads.push_back(t);
        for (std::size_t i = 0; i < node.outputs.size(); ++i)
            if (node.outputs[i] != kInvalidId && (m_output < 0 || static_cast<int>(i) == m_output))
                writes.push_back(node.outputs[i]);
    }

    Status run(std::uint8_t *const *tensors) const override
    {
        const Node &n = m_graph.node(m_node);
        reference::KernelArgs args;
        args.in.assign(n.inputs.size(), {});
        args.out.assign(n.outputs.size(), {});
        for (std::size_t i = 0; i < n.inputs.size(); ++i)
            if (const TensorId t = n.inputs[i]; t != kInvalidId && tensors[t])
                args.in[i] = {m_graph.tensor(t).dtype, &m_graph.tensor(t).shape, tensors[t]};
        for (std::size_t o = 0; o < n.outputs.size(); ++o) {
            const TensorId t = n.outputs[o];
            if (t == kInvalidId || (m_output >= 0 && static_cast<int>(o) != m_output))
                continue;
            args.out.assign(n.outputs.size(), {});
            args.out[o] = {m_graph.tensor(t).dtype, &m_graph.tensor(t).shape, tensors[t]};
            if (m_output < 0) {
                ops::Region whole;
                for (std::int64_t d : m_graph.tensor(t).shape)
                    whole.push_back({0, d});
                TS_TRY(m_kernel->compute(args, static_cast<int>(o), whole).at({.node = n.name}));
            } else {
                for (const ops::Region &r : m_regions)
                    TS_TRY(m_kernel->compute(args, static_cast<int>(o), r).at({.node = n.name}));
            }
        }
        return Status::ok();
    }

private:
    const Graph &m_graph;
    NodeId m_node;
    reference::KernelPtr m_kernel;
    int m_output;
    std::vector<ops::Region> m_regions;
};

Expected<CpuOpPtr> make(const Graph &g, NodeId n, int output, std::vector<ops::Region> regions)
{
    const Node &node = g.node(n);
    if (node.opaque)
        return Status::error(ErrorCode::Unsupported,
                             "the cpu backend cannot run opaque op '" + node.opType + "' (node '" + node.name + "')",
                             {.node = node.name});
    auto kernel = reference::makeKernel(g, node);
    if (!kernel)
        return kernel.status();
    return CpuOpPtr(std::make_unique<ReferenceOp>(g, n, std::move(*kernel), output, std::move(regions)));
}

} // namespace

Expected<CpuOpPtr> makeReferenceOp(const Graph &g, NodeId n)
{
    return make(g, n, -1, {});
}

Expected<CpuOpPtr> makeReferenceTileOp(const Graph &g, NodeId n, int output, std::vector<ops::Region> regions)
{
    return make(g, n, output, std::move(regions));
}

} // namespace tessera::cpu
