// Synthetic graphs for the graph view's tests and benchmarks (layoutsynthetic.h).
#include "views/models/layoutsynthetic.h"

#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tessera::layout {
namespace {

// Adds nodes with one output each, remembering the current group scope; the
// Hierarchy is materialised at the end (reset() needs the final node count).
class Builder
{
public:
    explicit Builder(std::string name) : m_graph(std::make_shared<Graph>())
    {
        m_graph->name = std::move(name);
        m_groups.push_back({"", Group::Kind::Root, -1});
    }

    TensorId input(const std::string &name, Shape shape)
    {
        Tensor t;
        t.name = name;
        t.shape = std::move(shape);
        t.kind = Tensor::Kind::Input;
        const TensorId id = m_graph->addTensor(std::move(t));
        m_graph->inputs.push_back(id);
        return id;
    }

    TensorId op(const std::string &opType, const std::string &name, std::vector<TensorId> inputs, Shape shape)
    {
        Tensor t;
        t.name = scoped(name) + ":0";
        t.shape = std::move(shape);
        const TensorId out = m_graph->addTensor(std::move(t));
        Node n;
        n.name = scoped(name);
        n.opType = opType;
        n.inputs = std::move(inputs);
        n.outputs = {out};
        m_graph->addNode(std::move(n));
        m_nodeGroup.push_back(m_scope.empty() ? 0 : m_scope.back());
        return out;
    }

    const Shape &shape(TensorId t) const { return m_graph->tensor(t).shape; }
    void markLastOpaque(const std::string &domain)
    {
        Node &n = m_graph->node(static_cast<NodeId>(m_graph->nodeCount() - 1));
        n.opaque = true;
        n.domain = domain;
    }

    void push(const std::string &name, Group::Kind kind)
    {
        const GroupId parent = m_scope.empty() ? 0 : m_scope.back();
        m_groups.push_back({name, kind, parent});
        m_scope.push_back(static_cast<GroupId>(m_groups.size() - 1));
        m_path.push_back(name);
    }
    void pop()
    {
        m_scope.pop_back();
        m_path.pop_back();
    }

    SyntheticGraph finish(TensorId output)
    {
        m_graph->outputs.push_back(output);
        SyntheticGraph s{m_graph, {}};
        s.hierarchy.reset(m_graph->nodeCount());
        for (std::size_t i = 1; i < m_groups.size(); ++i)
            s.hierarchy.addGroup(m_groups[i].name, m_groups[i].kind, m_groups[i].parent);
        for (std::size_t n = 0; n < m_nodeGroup.size(); ++n)
            s.hierarchy.assign(static_cast<NodeId>(n), m_nodeGroup[n]);
        s.hierarchy.finalize();
        return s;
    }

private:
    std::string scoped(const std::string &name) const
    {
        std::string s;
        for (const auto &p : m_path)
            s += p + '/';
        return s + name;
    }

    struct Pending {
        std::string name;
        Group::Kind kind;
        GroupId parent;
    };
    std::shared_ptr<Graph> m_graph;
    std::vector<Pending> m_groups;
    std::vector<GroupId> m_scope;
    std::vector<std::string> m_path;
    std::vector<GroupId> m_nodeGroup;
};

Shape convShape(const Shape &in, std::int64_t channels, std::int64_t stride)
{
    return {in[0], channels, (in[2] + stride - 1) / stride, (in[3] + stride - 1) / stride};
}

// conv → BatchNormalization (→ Relu)
TensorId convBn(Builder &b, TensorId x, const std::string &name, std::int64_t channels, std::int64_t stride, bool relu)
{
    const Shape s = convShape(b.shape(x), channels, stride);
    TensorId y = b.op("Conv", name, {x}, s);
    y = b.op("BatchNormalization", name + "_bn", {y}, s);
    return relu ? b.op("Relu", name + "_relu", {y}, s) : y;
}

} // namespace

SyntheticGraph residualChain(int blocks)
{
    Builder b("residual_chain");
    TensorId x = b.input("image", {1, 3, 64, 64});
    b.push("stem", Group::Kind::Block);
    x = convBn(b, x, "conv1", 32, 2, true);
    b.pop();
    for (int i = 0; i < blocks; ++i) {
        b.push("block" + std::to_string(i + 1), Group::Kind::Block);
        TensorId y = convBn(b, x, "conv1", 32, 1, true);
        y = convBn(b, y, "conv2", 32, 1, false);
        y = b.op("Add", "add", {y, x}, b.shape(y));
        x = b.op("Relu", "relu", {y}, b.shape(y));
        b.pop();
    }
    x = b.op("FastSwish", "swish", {x}, b.shape(x)); // a vendor op Tessera does not know
    b.markLastOpaque("com.vendor");
    x = b.op("GlobalAveragePool", "pool", {x}, {1, 32, 1, 1});
    x = b.op("Flatten", "flatten", {x}, {1, 32});
    x = b.op("Gemm", "fc", {x}, {1, 10});
    return b.finish(x);
}

SyntheticGraph resnet50Like()
{
    Builder b("resnet50");
    TensorId x = b.input("image", {1, 3, 224, 224});
    b.push("stem", Group::Kind::Stage);
    x = convBn(b, x, "conv1", 64, 2, true);
    x = b.op("MaxPool", "maxpool", {x}, convShape(b.shape(x), 64, 2));
    b.pop();
    const int depth[] = {3, 4, 6, 3};
    std::int64_t width = 64;
    for (int stage = 0; stage < 4; ++stage, width *= 2) {
        const std::string sname = "layer" + std::to_string(stage + 1);
        b.push(sname, Group::Kind::Stage);
        for (int blk = 0; blk < depth[stage]; ++blk) {
            b.push(sname + "." + std::to_string(blk), Group::Kind::Block);
            const std::int64_t stride = blk == 0 && stage > 0 ? 2 : 1;
            TensorId y = convBn(b, x, "conv1", width, 1, true);
            y = convBn(b, y, "conv2", width, stride, true);
            y = convBn(b, y, "conv3", width * 4, 1, false);
            const TensorId skip = blk == 0 ? convBn(b, x, "downsample", width * 4, stride, false) : x;
            y = b.op("Add", "add", {y, skip}, b.shape(y));
            x = b.op("Relu", "relu", {y}, b.shape(y));
            b.pop();
        }
        b.pop();
    }
    b.push("head", Group::Kind::Stage);
    x = b.op("GlobalAveragePool", "avgpool", {x}, {1, 2048, 1, 1});
    x = b.op("Flatten", "flatten", {x}, {1, 2048});
    x = b.op("Gemm", "fc", {x}, {1, 1000});
    b.pop();
    return b.finish(x);
}

SyntheticGraph bertBaseLike(int layers)
{
    constexpr std::int64_t kSeq = 128, kHidden = 768, kHeads = 12, kFfn = 3072;
    const Shape act{1, kSeq, kHidden};
    Builder b("bert_base");
    const TensorId ids = b.input("input_ids", {1, kSeq});
    const TensorId mask = b.input("attention_mask", {1, kSeq});
    const TensorId types = b.input("token_type_ids", {1, kSeq});

    // LayerNorm as exported at opset < 17: mean, centre, variance, normalise, affine.
    const auto layerNorm = [&](TensorId x, const std::string &p) {
        const TensorId mean = b.op("ReduceMean", p + "/ReduceMean", {x}, {1, kSeq, 1});
        const TensorId centred = b.op("Sub", p + "/Sub", {x, mean}, act);
        const TensorId two = b.op("Constant", p + "/Constant", {}, {});
        const TensorId sq = b.op("Pow", p + "/Pow", {centred, two}, act);
        const TensorId var = b.op("ReduceMean", p + "/ReduceMean_1", {sq}, {1, kSeq, 1});
        const TensorId eps = b.op("Constant", p + "/Constant_1", {}, {});
        const TensorId ve = b.op("Add", p + "/Add", {var, eps}, {1, kSeq, 1});
        const TensorId sd = b.op("Sqrt", p + "/Sqrt", {ve}, {1, kSeq, 1});
        const TensorId norm = b.op("Div", p + "/Div", {centred, sd}, act);
        const TensorId scaled = b.op("Mul", p + "/Mul", {norm}, act);
        return b.op("Add", p + "/Add_1", {scaled}, act);
    };
    const auto linear = [&](TensorId x, const std::string &p, std::int64_t out) {
        Shape s = b.shape(x);
        s.back() = out;
        const TensorId mm = b.op("MatMul", p + "/MatMul", {x}, s);
        return b.op("Add", p + "/Add", {mm}, s);
    };
    // Reshape whose target shape is computed at run time, as torch.onnx emits it.
    const auto dynReshape = [&](TensorId x, const std::string &p, Shape to) {
        const TensorId shp = b.op("Shape", p + "/Shape", {x}, {3});
        const TensorId idx = b.op("Constant", p + "/Constant", {}, {});
        const TensorId dim = b.op("Gather", p + "/Gather", {shp, idx}, {});
        const TensorId un = b.op("Unsqueeze", p + "/Unsqueeze", {dim}, {1});
        const TensorId cat = b.op("Concat", p + "/Concat", {un}, {4});
        return b.op("Reshape", p + "/Reshape", {x, cat}, std::move(to));
    };

    b.push("embeddings", Group::Kind::Stage);
    const TensorId we = b.op("Gather", "word_embeddings/Gather", {ids}, act);
    const TensorId te = b.op("Gather", "token_type_embeddings/Gather", {types}, act);
    const TensorId pe = b.op("Gather", "position_embeddings/Gather", {}, act);
    TensorId x = b.op("Add", "Add", {we, te}, act);
    x = b.op("Add", "Add_1", {x, pe}, act);
    b.push("LayerNorm", Group::Kind::Layer);
    x = layerNorm(x, "LayerNorm");
    b.pop();
    b.pop();

    const TensorId m1 = b.op("Unsqueeze", "mask/Unsqueeze", {mask}, {1, 1, kSeq});
    const TensorId m2 = b.op("Unsqueeze", "mask/Unsqueeze_1", {m1}, {1, 1, 1, kSeq});
    const TensorId m3 = b.op("Cast", "mask/Cast", {m2}, {1, 1, 1, kSeq});
    const TensorId m4 = b.op("Sub", "mask/Sub", {m3}, {1, 1, 1, kSeq});
    const TensorId bias = b.op("Mul", "mask/Mul", {m4}, {1, 1, 1, kSeq});

    const Shape heads{1, kHeads, kSeq, kHidden / kHeads};
    b.push("encoder", Group::Kind::Stage);
    for (int l = 0; l < layers; ++l) {
        b.push("layer." + std::to_string(l), Group::Kind::Block);
        b.push("attention", Group::Kind::Layer);
        b.push("self", Group::Kind::Layer);
        TensorId qkv[3];
        const char *names[3] = {"query", "key", "value"};
        for (int i = 0; i < 3; ++i) {
            const TensorId p = linear(x, names[i], kHidden);
            const TensorId r = dynReshape(p, std::string(names[i]) + "/view", {1, kSeq, kHeads, kHidden / kHeads});
            qkv[i] = b.op("Transpose", std::string(names[i]) + "/Transpose", {r},
                          i == 1 ? Shape{1, kHeads, kHidden / kHeads, kSeq} : heads);
        }
        TensorId s = b.op("MatMul", "scores/MatMul", {qkv[0], qkv[1]}, {1, kHeads, kSeq, kSeq});
        const TensorId scale = b.op("Constant", "scores/Constant", {}, {});
        s = b.op("Div", "scores/Div", {s, scale}, {1, kHeads, kSeq, kSeq});
        s = b.op("Add", "scores/Add", {s, bias}, {1, kHeads, kSeq, kSeq});
        s = b.op("Softmax", "Softmax", {s}, {1, kHeads, kSeq, kSeq});
        TensorId ctx = b.op("MatMul", "context/MatMul", {s, qkv[2]}, heads);
        ctx = b.op("Transpose", "context/Transpose", {ctx}, {1, kSeq, kHeads, kHidden / kHeads});
        ctx = dynReshape(ctx, "context/view", act);
        b.pop();
        b.push("output", Group::Kind::Layer);
        TensorId y = linear(ctx, "dense", kHidden);
        y = b.op("Add", "residual", {y, x}, act);
        x = layerNorm(y, "LayerNorm");
        b.pop();
        b.pop();
        b.push("ffn", Group::Kind::Layer);
        TensorId h = linear(x, "intermediate/dense", kFfn);
        const Shape hs{1, kSeq, kFfn};
        const TensorId sqrt2 = b.op("Constant", "gelu/Constant", {}, {});
        const TensorId d = b.op("Div", "gelu/Div", {h, sqrt2}, hs);
        const TensorId erf = b.op("Erf", "gelu/Erf", {d}, hs);
        const TensorId one = b.op("Constant", "gelu/Constant_1", {}, {});
        const TensorId e1 = b.op("Add", "gelu/Add", {erf, one}, hs);
        const TensorId hm = b.op("Mul", "gelu/Mul", {h, e1}, hs);
        const TensorId half = b.op("Constant", "gelu/Constant_2", {}, {});
        h = b.op("Mul", "gelu/Mul_1", {hm, half}, hs);
        y = linear(h, "output/dense", kHidden);
        y = b.op("Add", "output/residual", {y, x}, act);
        x = layerNorm(y, "output/LayerNorm");
        b.pop();
        b.pop();
    }
    b.pop();
    b.push("pooler", Group::Kind::Stage);
    TensorId p = b.op("Gather", "Gather", {x}, {1, kHidden});
    p = linear(p, "dense", kHidden);
    p = b.op("Tanh", "Tanh", {p}, {1, kHidden});
    b.pop();
    return b.finish(p);
}

SyntheticGraph layeredDag(int nodes, int blockSize, int blocksPerStage, std::uint64_t seed)
{
    static const char *const kOps[] = {"Conv",    "Relu",   "Add",     "MatMul",    "BatchNormalization",
                                       "Mul",     "Concat", "Reshape", "Transpose", "MaxPool",
                                       "Sigmoid", "Gemm",   "CustomOp"};
    std::mt19937_64 rng(seed);
    Builder b("layered_dag");
    TensorId x = b.input("input", {1, 64, 56, 56});
    std::vector<TensorId> recent; // outputs in the current block
    int made = 0;
    for (int stage = 0; made < nodes; ++stage) {
        b.push("stage" + std::to_string(stage), Group::Kind::Stage);
        for (int blk = 0; blk < blocksPerStage && made < nodes; ++blk) {
            b.push("block" + std::to_string(blk), Group::Kind::Block);
            recent.assign(1, x);
            for (int i = 0; i < blockSize && made < nodes; ++i, ++made) {
                std::vector<TensorId> ins{recent[recent.size() - 1 - rng() % std::min<std::size_t>(recent.size(), 3)]};
                if (recent.size() > 2 && rng() % 3 == 0)
                    ins.push_back(recent[recent.size() - 1 - rng() % std::min<std::size_t>(recent.size(), 8)]);
                const char *op = kOps[rng() % std::size(kOps)];
                recent.push_back(b.op(op, "n" + std::to_string(i), ins, {1, 64, 56, 56}));
                if (op == kOps[std::size(kOps) - 1])
                    b.markLastOpaque("com.vendor");
            }
            // The block's output joins every dangling value so the next block has one input.
            x = b.op("Concat", "out",
                     std::vector<TensorId>(recent.end() - std::min<std::size_t>(recent.size(), 4), recent.end()),
                     {1, 256, 56, 56});
            ++made;
            b.pop();
        }
        b.pop();
    }
    return b.finish(x);
}

} // namespace tessera::layout
