// S10: the shapes the model declares and libonnx inferred must be the shapes
// Tessera's own op semantics (ops::inferShapes) compute, or every cost model
// and tiler downstream would work on a lie. For each non-opaque node the two
// are compared output by output; a mismatch (or ops rejecting the node's
// inputs, e.g. Add of 2x3 and 4x5 declared in value_info) is an error naming
// the node and tensor. A node ops reports as Unsupported becomes opaque with a
// warning: valid ONNX that Tessera cannot reason about yet.
// Assumes S7–S9 ran: static shapes everywhere, shape-only chains folded.
#include "core/onnx/internal.h"
#include "core/ops/ops.h"

namespace tessera::onnximport {

namespace {

std::string typeStr(DType dtype, const Shape &shape)
{
    return shapeStr(shape) + " " + std::string(dtypeName(dtype));
}

} // namespace

Status checkShapes(Graph &g, const ImportContext &ctx)
{
    std::vector<ops::TensorType> inferred;
    for (std::size_t id = 0; id < g.nodeCount(); ++id) {
        TS_TRY(ctx.cancelled());
        Node &n = g.node(static_cast<NodeId>(id));
        if (n.opaque)
            continue;
        inferred.clear();
        Status s = ops::inferShapes(g, n, inferred);
        if (s.code() == ErrorCode::Unsupported) {
            ctx.log.warn("op '" + n.opType + "' is imported as opaque: " + s.message(), ctx.at(n.name));
            n.opaque = true;
            continue;
        }
        if (!s)
            return s.prefix("inconsistent shapes").at(ctx.at(n.name));
        for (std::size_t i = 0; i < n.outputs.size() && i < inferred.size(); ++i) {
            if (n.outputs[i] == kInvalidId)
                continue;
            const Tensor &t = g.tensor(n.outputs[i]);
            if (t.dtype == inferred[i].dtype && t.shape == inferred[i].shape)
                continue;
            return Status::invalid("inconsistent shapes: the model says " + typeStr(t.dtype, t.shape) + " but op '" +
                                       n.opType + "' computes " + typeStr(inferred[i].dtype, inferred[i].shape),
                                   ctx.at(n.name, t.name));
        }
    }
    return Status::ok();
}

} // namespace tessera::onnximport
