// S6a shape_constants.cpp: while libonnx's shape inference runs (S6), every
// Shape node whose input has a static shape before inference — a graph input
// (its symbolic dims resolved by S5) or an initializer — is shown to libonnx
// as the Constant node holding that shape (start/end of opset 15 applied).
//
// Why: libonnx 1.12 propagates Shape's value to a few consumers only (its
// data propagation, e.g. Reshape-14); Reshape-5/13, ConstantOfShape, Tile...
// read their shape operand from initializers and Constant nodes alone, so a
// `Reshape(y, Shape(x))` at opset 13 — as in the function-expanded graphs of
// SoftmaxCrossEntropyLoss — left y's shape unknown and the import failed.
//
// Assumes: S3 has built the Graph (the Graph keeps its Shape node; S9 folds it
// into an initializer when folding is on, otherwise the reference backend runs
// it). Only the proto libonnx sees changes, and the destructor restores the
// original nodes before S8 reads node attributes. Shapes of intermediate
// tensors are not known before inference, so their Shape nodes stay as they
// are (a second inference round would find them; not done: one libonnx run
// per import).
#include "core/onnx/internal.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace tessera::onnximport {

StaticShapesShown::StaticShapesShown(::onnx::GraphProto &graph) : m_graph(graph)
{
    std::unordered_map<std::string, std::vector<std::int64_t>> dims;
    for (const auto &v : graph.input()) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
            continue;
        std::vector<std::int64_t> d;
        bool known = true;
        for (const auto &x : v.type().tensor_type().shape().dim())
            if (x.has_dim_value() && x.dim_value() >= 0)
                d.push_back(x.dim_value());
            else
                known = false;
        if (known)
            dims[v.name()] = std::move(d);
    }
    for (const auto &t : graph.initializer()) // an initializer overrides a same-named input's declaration
        dims[t.name()] = std::vector<std::int64_t>(t.dims().begin(), t.dims().end());

    for (int i = 0; i < graph.node_size(); ++i) {
        ::onnx::NodeProto &n = *graph.mutable_node(i);
        if (n.op_type() != "Shape" || !normalDomain(n.domain()).empty() || n.input_size() != 1 || n.output_size() != 1)
            continue;
        const auto it = dims.find(n.input(0));
        if (it == dims.end())
            continue;
        const auto &d = it->second;
        const auto rank = static_cast<std::int64_t>(d.size());
        std::int64_t start = 0, end = rank;
        for (const auto &a : n.attribute())
            if (a.name() == "start")
                start = a.i();
            else if (a.name() == "end")
                end = a.i();
        auto clamp = [rank](std::int64_t v) { return std::clamp<std::int64_t>(v < 0 ? v + rank : v, 0, rank); };
        start = clamp(start);
        end = std::max(start, clamp(end));

        ::onnx::TensorProto value;
        value.set_data_type(::onnx::TensorProto::INT64);
        value.add_dims(end - start);
        for (std::int64_t k = start; k < end; ++k)
            value.add_int64_data(d[static_cast<std::size_t>(k)]);
        m_saved.emplace_back(i, n);
        n.set_op_type("Constant");
        n.clear_domain();
        n.clear_input();
        n.clear_attribute();
        ::onnx::AttributeProto &a = *n.add_attribute();
        a.set_name("value");
        a.set_type(::onnx::AttributeProto::TENSOR);
        *a.mutable_t() = std::move(value);
    }
}

StaticShapesShown::~StaticShapesShown()
{
    for (auto &[index, node] : m_saved)
        *m_graph.mutable_node(index) = std::move(node);
}

} // namespace tessera::onnximport
