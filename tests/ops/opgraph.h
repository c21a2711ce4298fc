// Test helper: builds one-node graphs for core/ops tests. Inputs are graph
// inputs (or constants with inline data); node outputs get the shapes
// inferShapes() gives them, so opCost() sees real tensors.
#pragma once

#include "core/ir/graph.h"
#include "core/ops/ops.h"

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tessera::test {

inline Attribute ints(std::vector<std::int64_t> v)
{
    return {std::move(v)};
}
inline Attribute i64(std::int64_t v)
{
    return {v};
}
inline Attribute f64(double v)
{
    return {v};
}
inline Attribute str(std::string v)
{
    return {std::move(v)};
}

class OpGraph
{
public:
    explicit OpGraph(std::int64_t opset = 17) { g.opsetVersion = opset; }

    Graph g;

    TensorId input(Shape shape, DType t = DType::Float32)
    {
        const TensorId id =
            g.addTensor({.name = next("x"), .dtype = t, .shape = std::move(shape), .kind = Tensor::Kind::Input});
        g.inputs.push_back(id);
        return id;
    }

    // A 1-D int64 constant (or of `shape` when given).
    TensorId constInts(const std::vector<std::int64_t> &v, std::optional<Shape> shape = std::nullopt)
    {
        auto d = std::make_shared<TensorData>();
        d->dtype = DType::Int64;
        d->shape = shape.value_or(Shape{static_cast<std::int64_t>(v.size())});
        d->bytes.resize(v.size() * 8);
        if (!v.empty())
            std::memcpy(d->bytes.data(), v.data(), d->bytes.size());
        return addConstant(std::move(d));
    }

    TensorId constFloats(const std::vector<float> &v, std::optional<Shape> shape = std::nullopt)
    {
        auto d = std::make_shared<TensorData>();
        d->dtype = DType::Float32;
        d->shape = shape.value_or(Shape{static_cast<std::int64_t>(v.size())});
        d->bytes.resize(v.size() * 4);
        if (!v.empty())
            std::memcpy(d->bytes.data(), v.data(), d->bytes.size());
        return addConstant(std::move(d));
    }

    // Adds a node with `outputs` fresh output tensors typed by inferShapes()
    // when it succeeds (left untyped otherwise: negative tests look at the status).
    NodeId node(std::string op, std::vector<TensorId> inputs, AttrMap attrs = {}, int outputs = 1)
    {
        Node n{.name = next("n"), .opType = std::move(op), .attrs = std::move(attrs), .inputs = std::move(inputs)};
        for (int i = 0; i < outputs; ++i)
            n.outputs.push_back(g.addTensor({.name = next("y")}));
        const NodeId id = g.addNode(std::move(n));
        std::vector<ops::TensorType> types;
        if (ops::inferShapes(g, g.node(id), types).isOk())
            for (std::size_t i = 0; i < types.size(); ++i) {
                Tensor &t = g.tensor(g.node(id).outputs[i]);
                t.dtype = types[i].dtype;
                t.shape = types[i].shape;
            }
        return id;
    }

    Status infer(NodeId id, std::vector<ops::TensorType> &out) const { return ops::inferShapes(g, g.node(id), out); }
    Shape shapeOf(NodeId id, std::size_t output = 0) const
    {
        std::vector<ops::TensorType> out;
        return infer(id, out).isOk() && output < out.size() ? out[output].shape : Shape{-1};
    }

private:
    TensorId addConstant(std::shared_ptr<TensorData> d)
    {
        Tensor t{.name = next("c"), .dtype = d->dtype, .shape = d->shape, .kind = Tensor::Kind::Initializer};
        t.data = std::move(d);
        return g.addTensor(std::move(t));
    }
    std::string next(const char *prefix) { return prefix + std::to_string(m_counter++); }
    int m_counter = 0;
};

} // namespace tessera::test
