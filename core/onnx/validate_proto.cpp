// S4: sanity of everything the model declares, before libonnx (S6) or we (S8)
// compute or allocate anything from it: every declared dim is non-negative,
// ranks stay under the limit, fully known shapes neither overflow int64 nor
// exceed ImportOptions::maxTensorBytes, and every initializer's payload
// (raw_data, typed field or external file) holds exactly what its shape needs.
// Attribute values that break libonnx 1.12's shape inference (a zero stride
// divides by zero in convPoolShapeInference) are refused here, by the
// table below, so S6 only sees what it can digest.
// Assumes S3 ran: node names are unique and non-empty.
#include "core/onnx/internal.h"

#include <algorithm>

namespace tessera::onnximport {

namespace {

Status validateValueInfo(const ::onnx::ValueInfoProto &v, const ImportContext &ctx, std::string_view what)
{
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
        return Status::ok();
    // An unknown dim counts as 0: rank and sign are checked now, the size of
    // a partially known shape after inference (S7).
    Shape shape;
    for (const auto &d : v.type().tensor_type().shape().dim())
        shape.push_back(d.has_dim_value() ? d.dim_value() : 0);
    const DType dtype = fromOnnxDType(v.type().tensor_type().elem_type());
    auto bytes = checkedTensorBytes(dtype, shape, ctx.options, what);
    if (!bytes)
        return bytes.status().at(ctx.at({}, v.name()));
    return Status::ok();
}

// Lower bounds of integer attributes that mean the same in every default-domain
// op that has them (Conv, ConvTranspose, the pools, DepthToSpace, ...).
struct AttrBound {
    std::string_view name;
    std::int64_t min;
    std::string_view exceptOp; // an op where the name means something else
};
constexpr AttrBound kAttrBounds[] = {
    {"strides", 1, {}},      // libonnx divides by strides
    {"dilations", 1, {}},    //   and by dilations
    {"kernel_shape", 1, {}}, // an empty window
    {"group", 1, {}},        // divides by group
    {"blocksize", 1, {}},    // DepthToSpace/SpaceToDepth divide by it
    {"pads", 0, "Pad"},      // Pad-2's pads may be negative (cropping)
};

Status validateAttributes(const ::onnx::NodeProto &n, const ImportContext &ctx)
{
    if (!normalDomain(n.domain()).empty())
        return Status::ok();
    for (const auto &a : n.attribute())
        for (const AttrBound &b : kAttrBounds) {
            if (a.name() != b.name || n.op_type() == b.exceptOp)
                continue;
            for (std::int64_t v : a.ints())
                if (v < b.min)
                    return Status::invalid("attribute '" + a.name() + "' has value " + std::to_string(v) +
                                               ", it must be at least " + std::to_string(b.min),
                                           ctx.at(n.name()));
            if (a.has_i() && a.i() < b.min)
                return Status::invalid("attribute '" + a.name() + "' has value " + std::to_string(a.i()) +
                                           ", it must be at least " + std::to_string(b.min),
                                       ctx.at(n.name()));
        }
    return Status::ok();
}

} // namespace

Status validateProto(const ::onnx::ModelProto &model, const ImportContext &ctx)
{
    if (model.ir_version() < 1)
        return Status::invalid("not a valid onnx model: ir_version is missing", ctx.at());
    const auto &g = model.graph();
    const bool defaultOpset = std::any_of(model.opset_import().begin(), model.opset_import().end(),
                                          [](const auto &op) { return normalDomain(op.domain()).empty(); });
    for (const auto &n : g.node())
        if (!defaultOpset && normalDomain(n.domain()).empty())
            return Status::invalid("model has no opset import for the default onnx domain", ctx.at(n.name()));
    if (g.sparse_initializer_size() > 0)
        return Status::error(ErrorCode::Unsupported, "sparse initializers are not supported",
                             ctx.at({}, g.sparse_initializer(0).values().name()));
    for (const auto &t : g.initializer())
        TS_TRY(validateTensorProto(t, ctx, "initializer"));
    for (const auto &v : g.input())
        TS_TRY(validateValueInfo(v, ctx, "graph input"));
    for (const auto &v : g.output())
        TS_TRY(validateValueInfo(v, ctx, "graph output"));
    for (const auto &v : g.value_info())
        TS_TRY(validateValueInfo(v, ctx, "tensor"));
    for (const auto &n : g.node()) {
        TS_TRY(validateAttributes(n, ctx));
        for (const auto &a : n.attribute())
            if (a.type() == ::onnx::AttributeProto::TENSOR) {
                Status s = validateTensorProto(a.t(), ctx, "attribute '" + a.name() + "'");
                if (!s)
                    return s.at(ctx.at(n.name()));
            }
    }
    return Status::ok();
}

} // namespace tessera::onnximport
