// evaluateConstantNode (evaluate.h), the importer's constant evaluator: a node whose inputs all
// carry inline data is run once, whole, by the same NodeKernel a plan's task
// would run, so folding at import and running on the backend are one
// implementation of each op.
// A node the backend cannot prepare (no kernel, an attribute or element type
// it refuses) is Unsupported: the importer leaves it in the graph. A kernel
// failure at run time (an index out of range) is returned as it is.
#include "backends/reference/evaluate.h"

#include "backends/reference/kernel.h"

namespace tessera {

Expected<std::vector<std::shared_ptr<const TensorData>>> evaluateConstantNode(const Graph &g, const Node &n)
{
    auto kernel = reference::makeKernel(g, n);
    if (!kernel) {
        Status s = kernel.status();
        return Status::error(ErrorCode::Unsupported, s.message(), {.node = n.name});
    }
    reference::KernelArgs args;
    args.in.assign(n.inputs.size(), {});
    for (std::size_t i = 0; i < n.inputs.size(); ++i)
        if (const TensorId t = n.inputs[i]; t != kInvalidId) {
            const Tensor &x = g.tensor(t);
            if (!x.data || x.data->isExternal() || static_cast<std::int64_t>(x.data->view().size()) != x.bytes())
                return Status::error(ErrorCode::Unsupported, "input '" + x.name + "' has no inline data",
                                     {.node = n.name, .tensor = x.name});
            args.in[i] = {x.dtype, &x.shape, x.data->view().data()};
        }
    std::vector<std::shared_ptr<TensorData>> outs(n.outputs.size());
    for (std::size_t o = 0; o < n.outputs.size(); ++o) {
        if (n.outputs[o] == kInvalidId)
            continue;
        const Tensor &y = g.tensor(n.outputs[o]);
        outs[o] = std::make_shared<TensorData>();
        outs[o]->dtype = y.dtype;
        outs[o]->shape = y.shape;
        outs[o]->bytes.assign(static_cast<std::size_t>(y.bytes()), 0);
    }
    for (std::size_t o = 0; o < n.outputs.size(); ++o) {
        if (!outs[o])
            continue;
        args.out.assign(n.outputs.size(), {});
        args.out[o] = {outs[o]->dtype, &outs[o]->shape, outs[o]->bytes.data()};
        if (Status s = (*kernel)->compute(args, static_cast<int>(o), ops::fullRegion(outs[o]->shape)); !s)
            return s.at({.node = n.name});
    }
    return std::vector<std::shared_ptr<const TensorData>>(outs.begin(), outs.end());
}

} // namespace tessera
