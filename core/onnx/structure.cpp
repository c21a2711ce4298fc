// S3: the Graph's skeleton (tensors by name, nodes wired to them) and the
// structural checks that need only names: duplicate initializers or inputs,
// tensors with two producers, node inputs that nothing defines (dangling),
// graph outputs that nothing defines, and cycles (topologicalOrder, analysis.h).
// Node names are made unique ("<OpType>_<index>" for empty ones, "_<k>"
// suffixes for repeats) and written back to the proto so that libonnx's
// messages in S6 use the same names. ONNX requires nodes in topological order;
// an acyclic model that is not gets its proto nodes reordered and the skeleton
// rebuilt, so the checker accepts it. Types, shapes, data and attributes come
// in S7/S8. A node is opaque when its domain is not the default one, it has
// subgraphs (If/Loop/Scan), or ops::isKnownOp() does not know it.
#include "core/ir/analysis.h"
#include "core/onnx/internal.h"
#include "core/ops/ops.h"

#include <unordered_set>

namespace tessera::onnximport {

namespace {

void nameNodes(::onnx::GraphProto &gp)
{
    std::unordered_set<std::string> taken;
    for (const auto &n : gp.node())
        if (!n.name().empty())
            taken.insert(n.name());
    std::unordered_set<std::string> seen;
    for (int i = 0; i < gp.node_size(); ++i) {
        auto &n = *gp.mutable_node(i);
        if (!n.name().empty() && seen.insert(n.name()).second)
            continue;
        const std::string base = n.name().empty() ? n.op_type() + "_" + std::to_string(i) : n.name();
        std::string name = base;
        for (int k = 1; taken.count(name); ++k)
            name = base + "_" + std::to_string(k);
        taken.insert(name);
        seen.insert(name);
        n.set_name(name);
    }
}

bool hasSubgraph(const ::onnx::NodeProto &n)
{
    for (const auto &a : n.attribute())
        if (a.type() == ::onnx::AttributeProto::GRAPH || a.type() == ::onnx::AttributeProto::GRAPHS)
            return true;
    return false;
}

Expected<Graph> build(const ::onnx::ModelProto &model, const ImportContext &ctx)
{
    const auto &gp = model.graph();
    Graph g;
    g.name = gp.name();
    for (const auto &op : model.opset_import())
        if (normalDomain(op.domain()).empty())
            g.opsetVersion = op.version();

    for (const auto &init : gp.initializer()) {
        if (init.name().empty())
            return Status::invalid("an initializer has no name", ctx.at());
        if (g.findTensor(init.name()) != kInvalidId)
            return Status::invalid("duplicate initializer", ctx.at({}, init.name()));
        g.addTensor({.name = init.name(), .kind = Tensor::Kind::Initializer});
    }
    for (const auto &in : gp.input()) {
        const TensorId existing = g.findTensor(in.name());
        if (existing != kInvalidId && g.tensor(existing).kind == Tensor::Kind::Initializer)
            continue; // IR < 4 lists initializers as inputs too
        if (in.name().empty() || existing != kInvalidId)
            return Status::invalid(in.name().empty() ? "a graph input has no name" : "duplicate graph input",
                                   ctx.at({}, in.name()));
        g.inputs.push_back(g.addTensor({.name = in.name(), .kind = Tensor::Kind::Input}));
    }

    // Outputs first: ONNX nodes may (wrongly) come before their producers.
    std::vector<int> producerOf(g.tensorCount(), -1); // proto node index per tensor
    for (int i = 0; i < gp.node_size(); ++i) {
        const auto &n = gp.node(i);
        for (const auto &out : n.output()) {
            if (out.empty())
                continue;
            const TensorId t = g.findTensor(out);
            if (t == kInvalidId) {
                g.addTensor({.name = out});
                producerOf.push_back(i);
                continue;
            }
            const Tensor &prev = g.tensor(t);
            const int other = producerOf[static_cast<std::size_t>(t)];
            const std::string what = prev.kind == Tensor::Kind::Input ? "tensor is a graph input"
                                     : prev.kind == Tensor::Kind::Initializer
                                         ? "tensor is an initializer"
                                         : "tensor is already produced by node '" + gp.node(other).name() + "'";
            return Status::invalid("duplicate producer: " + what + ", and node writes it again", ctx.at(n.name(), out));
        }
    }

    for (int i = 0; i < gp.node_size(); ++i) {
        TS_TRY(ctx.cancelled());
        const auto &p = gp.node(i);
        Node n{.name = p.name(), .opType = p.op_type(), .domain = normalDomain(p.domain())};
        for (const auto &in : p.input()) {
            const TensorId t = in.empty() ? kInvalidId : g.findTensor(in);
            if (!in.empty() && t == kInvalidId)
                return Status::invalid("dangling input: it is not a graph input, an initializer or a node output",
                                       ctx.at(p.name(), in));
            n.inputs.push_back(t);
        }
        for (const auto &out : p.output())
            n.outputs.push_back(out.empty() ? kInvalidId : g.findTensor(out));
        n.opaque = !n.domain.empty() || hasSubgraph(p) || !ops::isKnownOp(n.opType);
        g.addNode(std::move(n));
    }

    for (const auto &out : gp.output()) {
        const TensorId t = g.findTensor(out.name());
        if (t == kInvalidId)
            return Status::invalid("graph output is not produced by any node, input or initializer",
                                   ctx.at({}, out.name()));
        g.outputs.push_back(t);
    }
    return g;
}

// Moves the proto's nodes into `order`.
void reorder(::onnx::GraphProto &gp, const std::vector<NodeId> &order)
{
    auto &nodes = *gp.mutable_node();
    std::vector<::onnx::NodeProto *> owned(static_cast<std::size_t>(nodes.size()));
    nodes.ExtractSubrange(0, nodes.size(), owned.data());
    for (NodeId id : order)
        nodes.AddAllocated(owned[static_cast<std::size_t>(id)]);
}

} // namespace

Expected<Graph> buildStructure(::onnx::ModelProto &model, const ImportContext &ctx)
{
    nameNodes(*model.mutable_graph());
    auto g = build(model, ctx);
    if (!g)
        return g;
    auto order = topologicalOrder(*g);
    if (!order) {
        const Status &s = order.status();
        if (s.location().node.empty())
            return Status::invalid("graph has a cycle: " + s.message(), ctx.at());
        return Status::invalid("graph has a cycle through this node", ctx.at(s.location().node));
    }
    for (std::size_t i = 0; i < order->size(); ++i)
        if ((*order)[i] != static_cast<NodeId>(i)) {
            reorder(*model.mutable_graph(), *order);
            return build(model, ctx);
        }
    return g;
}

} // namespace tessera::onnximport
