// S7: element type and static shape of every tensor, from the initializers and
// from the value infos that S6's shape inference completed. A used tensor
// whose shape is still unknown or symbolic is pending when a node of the
// default domain produces it: S9's constant folding may compute it (a Reshape
// whose shape is a folded Shape/Gather/Concat chain). Otherwise (a graph input,
// an opaque or custom-domain producer) it is an error naming the tensor and its
// producer. A tensor nothing reads (an unused optional output) keeps an empty
// shape and an undefined type. Every inferred shape passes the same rank,
// sign, overflow and size limits as declared ones (S4).
#include "core/onnx/internal.h"

#include <algorithm>
#include <unordered_map>

namespace tessera::onnximport {

namespace {

Status unknownShape(const Graph &g, const Tensor &t, const std::string &detail, const ImportContext &ctx)
{
    std::string why = "tensor " + detail;
    if (t.producer != kInvalidId) {
        const Node &p = g.node(t.producer);
        why += p.opaque
                   ? "; it is an output of opaque op '" + p.opType + "', declare its shape in the model's value_info"
                   : "; onnx shape inference could not infer it from op '" + p.opType + "'";
    }
    return Status::invalid(why, ctx.at(t.producer != kInvalidId ? g.node(t.producer).name : std::string(), t.name));
}

} // namespace

Status applyTypes(Graph &g, const ::onnx::GraphProto &gp, const ImportContext &ctx, std::vector<PendingShape> &pending)
{
    // A dim S9 may still compute: the producer is a node Tessera may know.
    auto defer = [&](Tensor &t, TensorId id, const std::string &detail) -> Status {
        if (t.producer == kInvalidId || !g.node(t.producer).domain.empty())
            return unknownShape(g, t, detail, ctx);
        t.shape.clear();
        pending.push_back({id, detail});
        return Status::ok();
    };
    std::unordered_map<std::string_view, const ::onnx::TypeProto *> types;
    for (const auto *list : {&gp.value_info(), &gp.input(), &gp.output()})
        for (const auto &v : *list)
            types[v.name()] = &v.type();
    std::unordered_map<std::string_view, const ::onnx::TensorProto *> inits;
    for (const auto &t : gp.initializer())
        inits[t.name()] = &t;

    for (std::size_t id = 0; id < g.tensorCount(); ++id) {
        TS_TRY(ctx.cancelled());
        Tensor &t = g.tensor(static_cast<TensorId>(id));
        if (t.kind == Tensor::Kind::Initializer) {
            const auto *init = inits.at(t.name);
            t.dtype = fromOnnxDType(init->data_type());
            t.shape.assign(init->dims().begin(), init->dims().end());
            continue;
        }
        const auto it = types.find(t.name);
        const ::onnx::TypeProto *type = it == types.end() ? nullptr : it->second;
        const bool used = !t.consumers.empty() || std::find(g.outputs.begin(), g.outputs.end(), id) != g.outputs.end();
        if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) {
            if (!used) {
                t.dtype = DType::Undefined;
                continue;
            }
            if (type && !type->has_tensor_type() && type->value_case() != ::onnx::TypeProto::VALUE_NOT_SET)
                return Status::error(ErrorCode::Unsupported,
                                     "tensor is a sequence, map or optional value, which tessera does not support",
                                     ctx.at({}, t.name));
            t.dtype =
                type && type->has_tensor_type() ? fromOnnxDType(type->tensor_type().elem_type()) : DType::Undefined;
            TS_TRY(defer(t, static_cast<TensorId>(id), "has no known shape"));
            continue;
        }
        const auto &tt = type->tensor_type();
        t.dtype = fromOnnxDType(tt.elem_type());
        if (t.dtype == DType::Undefined)
            return Status::error(ErrorCode::Unsupported,
                                 "tensor has element type " + std::to_string(tt.elem_type()) +
                                     ", which tessera does not support",
                                 ctx.at({}, t.name));
        t.shape.clear();
        std::string unknown;
        for (int i = 0; i < tt.shape().dim_size() && unknown.empty(); ++i) {
            const auto &d = tt.shape().dim(i);
            if (d.has_dim_value()) {
                t.shape.push_back(d.dim_value());
                continue;
            }
            const std::string axis = " (axis " + std::to_string(i) + ")";
            unknown = d.has_dim_param()
                          ? "has symbolic dimension '" + d.dim_param() + "'" + axis + " that no graph input fixes"
                          : "has an unknown dimension" + axis;
        }
        if (!unknown.empty()) {
            if (!used)
                return unknownShape(g, t, unknown, ctx);
            TS_TRY(defer(t, static_cast<TensorId>(id), unknown));
            continue;
        }
        auto bytes = checkedTensorBytes(t.dtype, t.shape, ctx.options, "tensor");
        if (!bytes)
            return bytes.status().at(ctx.at({}, t.name));
    }
    return Status::ok();
}

} // namespace tessera::onnximport
