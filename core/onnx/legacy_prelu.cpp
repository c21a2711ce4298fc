// S8b legacy_prelu.cpp: PRelu before opset 7 takes a per-channel slope of
// shape [C] (ONNX PRelu-1/6: "If Slope is of size 1, the value is shared
// across different channels", i.e. one value per channel otherwise, the way
// PyTorch's nn.PReLU(num_parameters=C) exports it). Opset 7 replaced this with
// unidirectional numpy broadcasting, which aligns [C] with the last axis. A
// constant slope [C] of such a node, with C = x.shape[1] and x of rank >= 3,
// becomes [C, 1, ..., 1] (same bytes), so the broadcasting rule of core/ops,
// the index map and the kernels give the per-channel meaning.
//
// Assumes: S7/S8 gave shapes and data. A slope that is a graph input, is read
// by another node too, or has another shape is left alone; core/ops then
// refuses the node naming the shapes, as before.
#include "core/onnx/internal.h"

namespace tessera::onnximport {

void channelwiseLegacyPRelu(Graph &g, const ImportContext &ctx)
{
    if (g.opsetVersion >= 7)
        return;
    for (const Node &n : g.nodes()) {
        if (n.opType != "PRelu" || !n.domain.empty() || n.inputs.size() != 2 || n.inputs[0] == kInvalidId ||
            n.inputs[1] == kInvalidId)
            continue;
        const Tensor &x = g.tensor(n.inputs[0]);
        Tensor &slope = g.tensor(n.inputs[1]);
        if (x.shape.size() < 3 || !slope.data || slope.consumers.size() != 1 || slope.shape.size() != 1 ||
            slope.shape[0] != x.shape[1] || slope.shape[0] == 1)
            continue;
        Shape channelwise(x.shape.size() - 1, 1);
        channelwise[0] = slope.shape[0];
        auto data = std::make_shared<TensorData>(*slope.data);
        data->shape = channelwise;
        slope.data = std::move(data);
        slope.shape = std::move(channelwise);
        ctx.log.note("opset " + std::to_string(g.opsetVersion) + " PRelu: slope [" + std::to_string(x.shape[1]) +
                         "] applied per channel (axis 1)",
                     ctx.at(n.name, slope.name));
    }
}

} // namespace tessera::onnximport
