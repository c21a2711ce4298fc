#include "tests/common/testgraphs.h"

#include <cstring>
#include <memory>

namespace tessera::testgraphs {

TensorId tensor(Graph &g, const std::string &name, Shape shape, Tensor::Kind kind)
{
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.kind = kind;
    return g.addTensor(std::move(t));
}

TensorId weight(Graph &g, const std::string &name, Shape shape)
{
    auto data = std::make_shared<TensorData>();
    data->dtype = DType::Float32;
    data->shape = shape;
    const std::int64_t n = numElements(shape).value_or(0);
    data->bytes.resize(static_cast<std::size_t>(n) * 4);
    for (std::int64_t i = 0; i < n; ++i) {
        const float v = static_cast<float>((i * 7919) % 17 - 8) / 64.0f;
        std::memcpy(data->bytes.data() + i * 4, &v, 4);
    }
    Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.kind = Tensor::Kind::Initializer;
    t.data = std::move(data);
    return g.addTensor(std::move(t));
}

TensorId ints(Graph &g, const std::string &name, const std::vector<std::int64_t> &values)
{
    const TensorId t = weight(g, name, {static_cast<std::int64_t>(values.size())});
    auto data = std::make_shared<TensorData>();
    data->dtype = DType::Int64;
    data->shape = {static_cast<std::int64_t>(values.size())};
    data->bytes.resize(values.size() * 8);
    std::memcpy(data->bytes.data(), values.data(), values.size() * 8);
    g.tensor(t).dtype = DType::Int64;
    g.tensor(t).data = std::move(data);
    return t;
}

TensorId op(Graph &g, const std::string &name, const std::string &opType, std::vector<TensorId> inputs, Shape outShape,
            AttrMap attrs)
{
    const TensorId out = tensor(g, name + ":0", std::move(outShape));
    Node n;
    n.name = name;
    n.opType = opType;
    n.attrs = std::move(attrs);
    n.inputs = std::move(inputs);
    n.outputs = {out};
    g.addNode(std::move(n));
    return out;
}

Graph residualChain(int blocks)
{
    Graph g;
    g.name = "residual_chain";
    TensorId x = tensor(g, "x", {1, 8, 16, 16}, Tensor::Kind::Input);
    g.inputs = {x};
    AttrMap conv{{"kernel_shape", {std::vector<std::int64_t>{3, 3}}},
                 {"pads", {std::vector<std::int64_t>{1, 1, 1, 1}}}};
    for (int b = 0; b < blocks; ++b) {
        const std::string p = "block" + std::to_string(b) + "/";
        TensorId c1 = op(g, p + "conv1", "Conv", {x, weight(g, p + "w1", {8, 8, 3, 3})}, {1, 8, 16, 16}, conv);
        TensorId r1 = op(g, p + "relu1", "Relu", {c1}, {1, 8, 16, 16});
        TensorId c2 = op(g, p + "conv2", "Conv", {r1, weight(g, p + "w2", {8, 8, 3, 3})}, {1, 8, 16, 16}, conv);
        TensorId a = op(g, p + "add", "Add", {c2, x}, {1, 8, 16, 16});
        x = op(g, p + "relu2", "Relu", {a}, {1, 8, 16, 16});
    }
    g.outputs = {x};
    return g;
}

Graph diamond()
{
    Graph g;
    g.name = "diamond";
    TensorId x = tensor(g, "x", {2, 4}, Tensor::Kind::Input);
    g.inputs = {x};
    TensorId a = op(g, "a", "Relu", {x}, {2, 4});
    TensorId b = op(g, "b", "Sigmoid", {x}, {2, 4});
    TensorId c = op(g, "c", "Tanh", {b}, {2, 4});
    g.outputs = {op(g, "d", "Add", {a, c}, {2, 4})};
    return g;
}

Graph fan(int n)
{
    Graph g;
    g.name = "fan";
    TensorId x = tensor(g, "x", {1, 4}, Tensor::Kind::Input);
    g.inputs = {x};
    std::vector<TensorId> branches;
    for (int i = 0; i < n; ++i)
        branches.push_back(op(g, "r" + std::to_string(i), "Relu", {x}, {1, 4}));
    g.outputs = {
        op(g, "cat", "Concat", branches, {1, 4 * static_cast<std::int64_t>(n)}, {{"axis", {std::int64_t{1}}}})};
    return g;
}

TensorId conv28(Graph &g, const std::string &name, TensorId in, std::int64_t cin, std::int64_t cout, std::int64_t k)
{
    const std::int64_t p = k / 2;
    return op(g, name, "Conv", {in, weight(g, name + "/w", {cout, cin, k, k})}, {1, cout, 28, 28},
              {{"kernel_shape", {std::vector<std::int64_t>{k, k}}}, {"pads", {std::vector<std::int64_t>{p, p, p, p}}}});
}

Graph fig34()
{
    Graph g;
    g.name = "fig34";
    const TensorId x = tensor(g, "x", {1, 32, 28, 28}, Tensor::Kind::Input);
    g.inputs = {x};
    const TensorId a = conv28(g, "a", x, 32, 32, 3);
    const TensorId b = conv28(g, "b", a, 32, 32, 3);
    const TensorId c = conv28(g, "c", x, 32, 64, 1);
    g.outputs = {b, c};
    return g;
}

} // namespace tessera::testgraphs
