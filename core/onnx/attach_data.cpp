// S8: initializer data and node attributes. Runs after S6 because libonnx
// reads both; from here on the proto is only a husk: raw_data strings are
// taken out of it one tensor at a time and moved into the tensor a slice at a
// time (takeTensorData), so no weight is held twice for longer than a slice. Attributes libonnx accepts but Tessera's
// Attribute cannot hold (subgraphs, sparse tensors, type protos, tensor lists) are left out with a warning; their nodes
// are opaque already (S3) or become so. Assumes S3 ran: the proto's nodes and the Graph's nodes are in the same order.
#include "core/onnx/internal.h"
#include "core/support/assert.h"

namespace tessera::onnximport {

namespace {

Expected<Attribute> convert(::onnx::AttributeProto &a, const ImportContext &ctx)
{
    using AP = ::onnx::AttributeProto;
    switch (a.type()) {
    case AP::FLOAT: return Attribute{static_cast<double>(a.f())};
    case AP::INT: return Attribute{a.i()};
    case AP::STRING: return Attribute{std::move(*a.mutable_s())};
    case AP::FLOATS: return Attribute{std::vector<double>(a.floats().begin(), a.floats().end())};
    case AP::INTS: return Attribute{std::vector<std::int64_t>(a.ints().begin(), a.ints().end())};
    case AP::STRINGS: return Attribute{std::vector<std::string>(a.strings().begin(), a.strings().end())};
    case AP::TENSOR: {
        auto data = takeTensorData(*a.mutable_t(), ctx);
        if (!data)
            return data.status();
        return Attribute{std::move(*data)};
    }
    default: return Status::error(ErrorCode::Unsupported, AP::AttributeType_Name(a.type()));
    }
}

} // namespace

Status attachData(Graph &g, ::onnx::GraphProto &gp, const ImportContext &ctx)
{
    for (auto &init : *gp.mutable_initializer()) {
        TS_TRY(ctx.cancelled());
        auto data = takeTensorData(init, ctx);
        if (!data)
            return data.status();
        g.tensor(g.findTensor(init.name())).data = std::move(*data);
    }
    TS_ASSERT(static_cast<std::size_t>(gp.node_size()) == g.nodeCount());
    for (int i = 0; i < gp.node_size(); ++i) {
        TS_TRY(ctx.cancelled());
        auto &p = *gp.mutable_node(i);
        Node &n = g.node(i);
        TS_ASSERT(p.name() == n.name);
        for (auto &a : *p.mutable_attribute()) {
            auto attr = convert(a, ctx);
            if (attr) {
                n.attrs.insert_or_assign(a.name(), std::move(*attr));
            } else if (attr.status().code() == ErrorCode::Unsupported) {
                ctx.log.warn("attribute '" + a.name() + "' of kind " + attr.status().message() + " is not imported",
                             ctx.at(n.name));
                n.opaque = true;
            } else {
                return attr.status().at(ctx.at(n.name));
            }
        }
    }
    return Status::ok();
}

} // namespace tessera::onnximport
