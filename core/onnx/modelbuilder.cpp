// ModelBuilder and saveModel (see modelbuilder.h).
//
// Shapes: every value the builder creates has a static shape computed here
// (Conv/Pool arithmetic as in the ONNX operator spec, numpy broadcasting for
// element-wise ops and MatMul). finish() writes them as value_info and runs
// ONNX shape inference in strict mode, so a helper that computes a shape wrong
// fails loudly instead of producing a model that lies about itself.
//
// Weights: value i of initializer "name" is splitmix64(fnv1a(name) ^ seed, i)
// mapped to a float, so one weight does not change when another is added and
// the same seed gives byte-identical models.
#include "core/onnx/modelbuilder.h"

#include "core/support/assert.h"

#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <set>
#include <utility>

namespace tessera {

namespace {

using Shape = std::vector<std::int64_t>;

// raw_data is little-endian; the builder memcpy's host values into it.
static_assert(std::endian::native == std::endian::little, "ModelBuilder assumes a little-endian host");

std::uint64_t fnv1a(const std::string &s)
{
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : s)
        h = (h ^ c) * 0x100000001b3ull;
    return h;
}

std::uint64_t splitmix64(std::uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

std::int64_t numel(const Shape &s)
{
    return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}

// numel, or -1 when the product overflows int64 (hostile shapes).
std::int64_t checkedNumel(const Shape &s)
{
    std::int64_t n = 1;
    for (std::int64_t d : s)
        if (d < 0 || __builtin_mul_overflow(n, d, &n))
            return -1;
    return n;
}

// Numpy-style broadcast of two shapes.
Shape broadcast(const Shape &a, const Shape &b)
{
    Shape out(std::max(a.size(), b.size()));
    for (std::size_t i = 0; i < out.size(); ++i) {
        const std::int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
        const std::int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
        TS_ASSERT_MSG(da == db || da == 1 || db == 1, "shapes do not broadcast");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

void setType(onnx::ValueInfoProto &vi, const std::string &name, int elemType, const Shape &shape)
{
    vi.set_name(name);
    auto *tensor = vi.mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elemType);
    auto *s = tensor->mutable_shape();
    for (std::int64_t d : shape)
        s->add_dim()->set_dim_value(d);
}

// First line of an ONNX exception text, lower-cased at the start.
std::string oneLine(const char *what)
{
    std::string s(what);
    s = s.substr(0, s.find('\n'));
    if (!s.empty())
        s[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(s[0])));
    return s;
}

} // namespace

struct ModelBuilder::Impl {
    std::unique_ptr<onnx::ModelProto> model = std::make_unique<onnx::ModelProto>();
    onnx::GraphProto *graph = model->mutable_graph();
    std::uint64_t seed = 0;
    std::vector<std::string> scopes;
    std::map<std::string, Shape> shapes;
    std::map<std::string, int> elemTypes;
    std::set<std::string> nodeNames;
    std::set<std::string> graphIo; // inputs, outputs and initializers: no value_info
    std::set<std::string> untyped; // forgetShape(): no value_info either
    std::int64_t parameters = 0;
    std::int64_t parameterLimit = ModelBuilder::kDefaultParameterLimit;
    Status status;
    const std::atomic<bool> *cancel = nullptr;

    // True once the token is set; the first time, status() becomes Cancelled.
    bool cancelled()
    {
        if (!cancel || !cancel->load(std::memory_order_relaxed))
            return false;
        if (status.isOk())
            status = Status::error(ErrorCode::Cancelled, "building model '" + graph->name() + "' was cancelled");
        return true;
    }

    // `base`, or `base_N` for the smallest N that makes it unused.
    std::string uniqueValue(const std::string &base) const
    {
        if (!shapes.count(base))
            return base;
        for (int n = 1;; ++n)
            if (std::string s = base + "_" + std::to_string(n); !shapes.count(s))
                return s;
    }
    std::string uniqueNode(const std::string &base)
    {
        std::string s = base;
        for (int n = 1; nodeNames.count(s); ++n)
            s = base + "_" + std::to_string(n);
        nodeNames.insert(s);
        return s;
    }

    onnx::TensorProto &addInitializer(const std::string &name, int elemType, const Shape &shape)
    {
        onnx::TensorProto &t = *graph->add_initializer();
        t.set_name(name);
        t.set_data_type(elemType);
        for (std::int64_t d : shape)
            t.add_dims(d);
        shapes[name] = shape;
        elemTypes[name] = elemType;
        graphIo.insert(name);
        return t;
    }

    std::string randomWeight(const std::string &scopedName, const Shape &shape, float lo, float hi)
    {
        const std::string name = uniqueValue(scopedName);
        const std::int64_t n = checkedNumel(shape);
        cancelled();
        if (!status.isOk() || n < 0 || n > parameterLimit - parameters) {
            // Shape only, no data: later helpers still size their weights; finish() fails.
            addInitializer(name, onnx::TensorProto::FLOAT, shape);
            if (status.isOk())
                status = Status::error(ErrorCode::Unsupported,
                                       "weight '" + name + "' would bring the model past " +
                                           std::to_string(parameterLimit) + " parameters",
                                       Location{{}, -1, {}, name});
            return name;
        }
        std::string &raw = *addInitializer(name, onnx::TensorProto::FLOAT, shape).mutable_raw_data();
        raw.resize(static_cast<std::size_t>(n) * sizeof(float));
        const std::uint64_t key = fnv1a(name) ^ seed;
        for (std::int64_t i = 0; i < n; ++i) {
            if ((i & ((std::int64_t{1} << 20) - 1)) == 0 && i > 0 && cancelled())
                return name; // partial data; finish() fails
            const double u = static_cast<double>(splitmix64(key + static_cast<std::uint64_t>(i)) >> 11) * 0x1.0p-53;
            const auto f = static_cast<float>(lo + (hi - lo) * u);
            std::memcpy(raw.data() + i * std::int64_t{sizeof f}, &f, sizeof f);
        }
        parameters += n;
        return name;
    }
};

ModelBuilder::ModelBuilder(std::string graphName, std::uint64_t seed, int opset) : d(std::make_unique<Impl>())
{
    d->seed = seed;
    d->model->set_ir_version(onnx::IR_VERSION);
    d->model->set_producer_name("tessera-samples");
    d->model->set_producer_version("0.1");
    auto *op = d->model->add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    d->graph->set_name(std::move(graphName));
}

ModelBuilder::~ModelBuilder() = default;

void ModelBuilder::pushScope(const std::string &name)
{
    d->scopes.push_back(name);
}

void ModelBuilder::popScope()
{
    TS_ASSERT(!d->scopes.empty());
    d->scopes.pop_back();
}

std::string ModelBuilder::scoped(const std::string &name) const
{
    std::string s;
    for (const std::string &scope : d->scopes)
        s += scope + "/";
    return s + name;
}

std::string ModelBuilder::input(const std::string &name, std::vector<std::int64_t> shape)
{
    return input(name, std::move(shape), onnx::TensorProto::FLOAT);
}

std::string ModelBuilder::input(const std::string &name, std::vector<std::int64_t> shape, int elemType)
{
    TS_ASSERT_MSG(!d->shapes.count(name), "graph input name already used");
    setType(*d->graph->add_input(), name, elemType, shape);
    d->shapes[name] = std::move(shape);
    d->elemTypes[name] = elemType;
    d->graphIo.insert(name);
    return name;
}

void ModelBuilder::output(const std::string &value)
{
    setType(*d->graph->add_output(), value, d->elemTypes.at(value), shape(value));
    d->graphIo.insert(value);
}

std::string ModelBuilder::weight(const std::string &name, std::vector<std::int64_t> shape, float scale)
{
    return d->randomWeight(scoped(name), shape, -scale, scale);
}

std::string ModelBuilder::weightRange(const std::string &name, std::vector<std::int64_t> shape, float lo, float hi)
{
    return d->randomWeight(scoped(name), shape, lo, hi);
}

std::string ModelBuilder::constantFloats(const std::string &name, std::vector<std::int64_t> shape,
                                         std::vector<float> values)
{
    TS_ASSERT(numel(shape) == static_cast<std::int64_t>(values.size()));
    const std::string n = d->uniqueValue(scoped(name));
    d->addInitializer(n, onnx::TensorProto::FLOAT, shape).set_raw_data(values.data(), values.size() * sizeof(float));
    return n;
}

std::string ModelBuilder::constantScalar(const std::string &name, float value)
{
    return constantFloats(name, {}, {value});
}

std::string ModelBuilder::constantInts(const std::string &name, std::vector<std::int64_t> values)
{
    const std::string n = d->uniqueValue(scoped(name));
    d->addInitializer(n, onnx::TensorProto::INT64, {static_cast<std::int64_t>(values.size())})
        .set_raw_data(values.data(), values.size() * sizeof(std::int64_t));
    return n;
}

std::string ModelBuilder::constantInt(const std::string &name, std::int64_t value)
{
    const std::string n = d->uniqueValue(scoped(name));
    d->addInitializer(n, onnx::TensorProto::INT64, {}).set_raw_data(&value, sizeof value);
    return n;
}

std::vector<std::string> ModelBuilder::node(const std::string &opType, const std::string &name,
                                            const std::vector<std::string> &inputs, const std::vector<Attr> &attrs,
                                            const std::vector<std::vector<std::int64_t>> &outShapes)
{
    d->cancelled();
    onnx::NodeProto &n = *d->graph->add_node();
    n.set_op_type(opType);
    n.set_name(d->uniqueNode(scoped(name)));
    for (const std::string &in : inputs) {
        TS_ASSERT_MSG(in.empty() || d->shapes.count(in), "node input is not a known value");
        n.add_input(in);
    }
    int elemType = inputs.empty() ? onnx::TensorProto::FLOAT : d->elemTypes.at(inputs.front());
    for (const Attr &a : attrs) {
        onnx::AttributeProto &p = *n.add_attribute();
        p.set_name(a.name);
        switch (a.kind) {
        case Attr::Int:
            p.set_type(onnx::AttributeProto::INT);
            p.set_i(a.i);
            break;
        case Attr::Float:
            p.set_type(onnx::AttributeProto::FLOAT);
            p.set_f(a.f);
            break;
        case Attr::Ints:
            p.set_type(onnx::AttributeProto::INTS);
            for (std::int64_t v : a.ints)
                p.add_ints(v);
            break;
        case Attr::String:
            p.set_type(onnx::AttributeProto::STRING);
            p.set_s(a.s);
            break;
        }
        if (opType == "Cast" && a.name == "to")
            elemType = static_cast<int>(a.i);
    }
    if (opType == "Shape" || opType == "ArgMax" || opType == "ArgMin")
        elemType = onnx::TensorProto::INT64;

    std::vector<std::string> outs;
    for (std::size_t i = 0; i < outShapes.size(); ++i) {
        const std::string v = d->uniqueValue(outShapes.size() == 1 ? n.name() : n.name() + "_out" + std::to_string(i));
        n.add_output(v);
        d->shapes[v] = outShapes[i];
        d->elemTypes[v] = elemType;
        outs.push_back(v);
    }
    return outs;
}

const std::vector<std::int64_t> &ModelBuilder::shape(const std::string &value) const
{
    const auto it = d->shapes.find(value);
    TS_ASSERT_MSG(it != d->shapes.end(), "shape of an unknown value");
    return it->second;
}

void ModelBuilder::setElemType(const std::string &value, int elemType)
{
    TS_ASSERT_MSG(d->elemTypes.count(value), "setElemType of an unknown value");
    d->elemTypes[value] = elemType;
}

void ModelBuilder::forgetShape(const std::string &value)
{
    TS_ASSERT_MSG(d->shapes.count(value) && !d->graphIo.count(value), "forgetShape of an unknown or graph value");
    d->untyped.insert(value);
}

void ModelBuilder::setDimParam(const std::string &graphValue, int axis, const std::string &param)
{
    for (auto *list : {d->graph->mutable_input(), d->graph->mutable_output()})
        for (onnx::ValueInfoProto &v : *list)
            if (v.name() == graphValue) {
                auto *shape = v.mutable_type()->mutable_tensor_type()->mutable_shape();
                TS_ASSERT_MSG(axis >= 0 && axis < shape->dim_size(), "setDimParam axis out of range");
                shape->mutable_dim(axis)->set_dim_param(param);
                return;
            }
    TS_ASSERT_MSG(false, "setDimParam of a value that is not a graph input or output");
}

std::int64_t ModelBuilder::parameterCount() const
{
    return d->parameters;
}

void ModelBuilder::setParameterLimit(std::int64_t elements)
{
    TS_ASSERT(elements >= 0);
    d->parameterLimit = elements;
}

const Status &ModelBuilder::status() const
{
    return d->status;
}

void ModelBuilder::setCancel(const std::atomic<bool> *cancel)
{
    d->cancel = cancel;
}

std::string ModelBuilder::conv(const std::string &x, const std::string &name, std::int64_t outChannels,
                               std::int64_t kernel, std::int64_t stride, std::int64_t pad, std::int64_t groups,
                               std::int64_t dilation, bool bias)
{
    const std::size_t spatial = shape(x).size() - 2;
    if (pad < 0)
        pad = (kernel - 1) / 2 * dilation;
    const Shape in = shape(x);
    const std::int64_t inC = in[1];
    TS_ASSERT(inC % groups == 0 && outChannels % groups == 0);
    Shape w{outChannels, inC / groups}, out{in[0], outChannels};
    for (std::size_t i = 0; i < spatial; ++i) {
        w.push_back(kernel);
        out.push_back((in[2 + i] + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1);
    }
    const float fanIn = static_cast<float>(inC / groups * numel(Shape(spatial, kernel)));
    std::vector<std::string> ins{x, weight(name + ".weight", w, std::sqrt(6.0f / fanIn))};
    if (bias)
        ins.push_back(weight(name + ".bias", {outChannels}, 1.0f / std::sqrt(fanIn)));
    return node("Conv", name, ins,
                {aInts("dilations", Shape(spatial, dilation)), aInt("group", groups),
                 aInts("kernel_shape", Shape(spatial, kernel)), aInts("pads", Shape(2 * spatial, pad)),
                 aInts("strides", Shape(spatial, stride))},
                {out})
        .front();
}

std::string ModelBuilder::conv2d(const std::string &x, const std::string &name, std::int64_t outChannels,
                                 std::vector<std::int64_t> kernel, std::vector<std::int64_t> stride,
                                 std::vector<std::int64_t> pads, std::int64_t groups, bool bias)
{
    const Shape in = shape(x);
    TS_ASSERT(in.size() == 4 && kernel.size() == 2 && stride.size() == 2 && pads.size() == 4);
    TS_ASSERT(in[1] % groups == 0 && outChannels % groups == 0);
    const Shape out{in[0], outChannels, (in[2] + pads[0] + pads[2] - kernel[0]) / stride[0] + 1,
                    (in[3] + pads[1] + pads[3] - kernel[1]) / stride[1] + 1};
    const float fanIn = static_cast<float>(in[1] / groups * kernel[0] * kernel[1]);
    std::vector<std::string> ins{
        x, weight(name + ".weight", {outChannels, in[1] / groups, kernel[0], kernel[1]}, std::sqrt(6.0f / fanIn))};
    if (bias)
        ins.push_back(weight(name + ".bias", {outChannels}, 1.0f / std::sqrt(fanIn)));
    // ONNX orders pads as (x1_begin, x2_begin, x1_end, x2_end) = (t, l, b, r).
    return node("Conv", name, ins,
                {aInts("dilations", {1, 1}), aInt("group", groups), aInts("kernel_shape", kernel), aInts("pads", pads),
                 aInts("strides", stride)},
                {out})
        .front();
}

std::string ModelBuilder::batchNorm(const std::string &x, const std::string &name)
{
    const std::int64_t c = shape(x)[1];
    const std::string scale = weightRange(name + ".weight", {c}, 0.5f, 1.5f);
    const std::string bias = weight(name + ".bias", {c}, 0.1f);
    const std::string mean = weight(name + ".running_mean", {c}, 0.1f);
    const std::string var = weightRange(name + ".running_var", {c}, 0.5f, 1.5f);
    return node("BatchNormalization", name, {x, scale, bias, mean, var}, {aFloat("epsilon", 1e-5f)}, {shape(x)})
        .front();
}

std::string ModelBuilder::relu(const std::string &x, const std::string &name)
{
    return unary("Relu", x, name);
}

std::string ModelBuilder::unary(const std::string &opType, const std::string &x, const std::string &name)
{
    return node(opType, name, {x}, {}, {shape(x)}).front();
}

std::string ModelBuilder::binary(const std::string &opType, const std::string &a, const std::string &b,
                                 const std::string &name)
{
    return node(opType, name, {a, b}, {}, {broadcast(shape(a), shape(b))}).front();
}

namespace {
Shape pooled(const Shape &in, std::int64_t kernel, std::int64_t stride, std::int64_t pad)
{
    TS_ASSERT(in.size() == 4);
    return {in[0], in[1], (in[2] + 2 * pad - kernel) / stride + 1, (in[3] + 2 * pad - kernel) / stride + 1};
}
} // namespace

std::string ModelBuilder::maxPool(const std::string &x, const std::string &name, std::int64_t kernel,
                                  std::int64_t stride, std::int64_t pad)
{
    return node("MaxPool", name, {x},
                {aInts("kernel_shape", {kernel, kernel}), aInts("pads", Shape(4, pad)),
                 aInts("strides", {stride, stride})},
                {pooled(shape(x), kernel, stride, pad)})
        .front();
}

std::string ModelBuilder::avgPool(const std::string &x, const std::string &name, std::int64_t kernel,
                                  std::int64_t stride, std::int64_t pad, bool countIncludePad)
{
    return node("AveragePool", name, {x},
                {aInt("count_include_pad", countIncludePad ? 1 : 0), aInts("kernel_shape", {kernel, kernel}),
                 aInts("pads", Shape(4, pad)), aInts("strides", {stride, stride})},
                {pooled(shape(x), kernel, stride, pad)})
        .front();
}

std::string ModelBuilder::globalAvgPool(const std::string &x, const std::string &name)
{
    Shape out = shape(x);
    std::fill(out.begin() + 2, out.end(), 1);
    return node("GlobalAveragePool", name, {x}, {}, {out}).front();
}

std::string ModelBuilder::concat(const std::vector<std::string> &xs, const std::string &name, std::int64_t axis)
{
    TS_ASSERT(!xs.empty());
    Shape out = shape(xs.front());
    const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(out.size()) : axis);
    for (std::size_t i = 1; i < xs.size(); ++i)
        out[a] += shape(xs[i])[a];
    return node("Concat", name, xs, {aInt("axis", axis)}, {out}).front();
}

std::string ModelBuilder::flatten(const std::string &x, const std::string &name)
{
    const Shape &in = shape(x);
    return node("Flatten", name, {x}, {aInt("axis", 1)}, {{in[0], numel(Shape(in.begin() + 1, in.end()))}}).front();
}

std::string ModelBuilder::gemm(const std::string &x, const std::string &name, std::int64_t outFeatures)
{
    const Shape &in = shape(x);
    TS_ASSERT(in.size() == 2);
    const float bound = 1.0f / std::sqrt(static_cast<float>(in[1]));
    const std::string w = weight(name + ".weight", {outFeatures, in[1]}, bound);
    const std::string b = weight(name + ".bias", {outFeatures}, bound);
    return node("Gemm", name, {x, w, b}, {aFloat("alpha", 1.0f), aFloat("beta", 1.0f), aInt("transB", 1)},
                {{in[0], outFeatures}})
        .front();
}

std::string ModelBuilder::matmul(const std::string &a, const std::string &b, const std::string &name)
{
    Shape sa = shape(a), sb = shape(b);
    TS_ASSERT(!sa.empty() && !sb.empty());
    const bool vecA = sa.size() == 1, vecB = sb.size() == 1;
    if (vecA)
        sa.insert(sa.begin(), 1);
    if (vecB)
        sb.push_back(1);
    TS_ASSERT_MSG(sa.back() == sb[sb.size() - 2], "matmul inner dimensions differ");
    Shape out = broadcast(Shape(sa.begin(), sa.end() - 2), Shape(sb.begin(), sb.end() - 2));
    if (!vecA)
        out.push_back(sa[sa.size() - 2]);
    if (!vecB)
        out.push_back(sb.back());
    return node("MatMul", name, {a, b}, {}, {out}).front();
}

std::string ModelBuilder::linear(const std::string &x, const std::string &name, std::int64_t outFeatures)
{
    const std::int64_t k = shape(x).back();
    const float bound = 1.0f / std::sqrt(static_cast<float>(k));
    // PyTorch exports nn.Linear as MatMul by the transposed weight, then Add.
    const std::string w = weight(name + ".weight", {k, outFeatures}, bound);
    const std::string b = weight(name + ".bias", {outFeatures}, bound);
    return binary("Add", matmul(x, w, name + "/MatMul"), b, name + "/Add");
}

std::string ModelBuilder::layerNorm(const std::string &x, const std::string &name, float epsilon)
{
    const std::int64_t c = shape(x).back();
    const std::string scale = weightRange(name + ".weight", {c}, 0.5f, 1.5f);
    const std::string bias = weight(name + ".bias", {c}, 0.1f);
    return node("LayerNormalization", name, {x, scale, bias}, {aInt("axis", -1), aFloat("epsilon", epsilon)},
                {shape(x)})
        .front();
}

std::string ModelBuilder::softmax(const std::string &x, const std::string &name, std::int64_t axis)
{
    return node("Softmax", name, {x}, {aInt("axis", axis)}, {shape(x)}).front();
}

std::string ModelBuilder::reshape(const std::string &x, const std::string &name, std::vector<std::int64_t> target)
{
    const Shape &in = shape(x);
    Shape out = target;
    std::int64_t known = 1, inferred = -1;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == 0) {
            TS_ASSERT(i < in.size());
            out[i] = in[i];
        }
        if (out[i] == -1) {
            TS_ASSERT_MSG(inferred < 0, "reshape with two -1 entries");
            inferred = static_cast<std::int64_t>(i);
        } else {
            known *= out[i];
        }
    }
    if (inferred >= 0)
        out[static_cast<std::size_t>(inferred)] = numel(in) / known;
    TS_ASSERT_MSG(numel(out) == numel(in), "reshape changes the element count");
    const std::string s = constantInts(name + ".shape", std::move(target));
    return node("Reshape", name, {x, s}, {}, {out}).front();
}

std::string ModelBuilder::transpose(const std::string &x, const std::string &name, std::vector<std::int64_t> perm)
{
    const Shape &in = shape(x);
    TS_ASSERT(perm.size() == in.size());
    Shape out;
    for (std::int64_t p : perm)
        out.push_back(in[static_cast<std::size_t>(p)]);
    return node("Transpose", name, {x}, {aInts("perm", std::move(perm))}, {out}).front();
}

Expected<std::unique_ptr<onnx::ModelProto>> ModelBuilder::finish()
{
    TS_ASSERT_MSG(d->model, "ModelBuilder::finish called twice");
    d->cancelled();
    if (!d->status.isOk())
        return d->status;
    // Record every intermediate shape so strict inference checks them all.
    for (const onnx::NodeProto &n : d->graph->node())
        for (const std::string &out : n.output())
            if (!d->graphIo.count(out) && !d->untyped.count(out))
                setType(*d->graph->add_value_info(), out, d->elemTypes.at(out), d->shapes.at(out));
    try {
        onnx::shape_inference::InferShapes(*d->model, onnx::OpSchemaRegistry::Instance(),
                                           onnx::ShapeInferenceOptions(/*check_type=*/true, /*strict=*/1));
        onnx::checker::check_model(*d->model);
    } catch (const std::exception &e) {
        return Status::error(ErrorCode::Internal,
                             "model '" + d->graph->name() + "' fails the onnx checker: " + oneLine(e.what()));
    }
    return std::move(d->model);
}

Status saveModel(const onnx::ModelProto &model, const std::string &path, bool externalData)
{
    namespace fs = std::filesystem;
    const Location where{path, -1, {}, {}};
    auto writeProto = [&](const onnx::ModelProto &m) -> Status {
        if (m.ByteSizeLong() > static_cast<std::size_t>(INT32_MAX))
            return Status::error(ErrorCode::Unsupported, "model exceeds protobuf's 2 GiB limit; use external data",
                                 where);
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        if (!out || !m.SerializeToOstream(&out) || !out.flush())
            return Status::error(ErrorCode::Io, "cannot write model file", where);
        return {};
    };
    if (!externalData)
        return writeProto(model);

    // Copy everything but the initializers' payload, field by field, so that
    // a large model is not held twice in memory.
    onnx::ModelProto m;
    m.set_ir_version(model.ir_version());
    *m.mutable_opset_import() = model.opset_import();
    m.set_producer_name(model.producer_name());
    m.set_producer_version(model.producer_version());
    m.set_domain(model.domain());
    m.set_model_version(model.model_version());
    m.set_doc_string(model.doc_string());
    *m.mutable_metadata_props() = model.metadata_props();
    *m.mutable_training_info() = model.training_info();
    *m.mutable_functions() = model.functions();
    const onnx::GraphProto &g = model.graph();
    onnx::GraphProto &h = *m.mutable_graph();
    *h.mutable_node() = g.node();
    h.set_name(g.name());
    *h.mutable_sparse_initializer() = g.sparse_initializer();
    h.set_doc_string(g.doc_string());
    *h.mutable_input() = g.input();
    *h.mutable_output() = g.output();
    *h.mutable_value_info() = g.value_info();
    *h.mutable_quantization_annotation() = g.quantization_annotation();

    const std::string dataPath = path + ".data";
    const std::string location = fs::path(dataPath).filename().string();
    std::ofstream data(dataPath, std::ios::binary | std::ios::trunc);
    if (!data)
        return Status::error(ErrorCode::Io, "cannot write external data file", Location{dataPath, -1, {}, {}});
    std::int64_t offset = 0;
    static constexpr char zeros[64] = {};
    for (const onnx::TensorProto &t : g.initializer()) {
        onnx::TensorProto &copy = *h.add_initializer();
        if (!t.has_raw_data() || t.raw_data().size() <= 1024) {
            copy.CopyFrom(t);
            continue;
        }
        copy.set_name(t.name());
        copy.set_data_type(t.data_type());
        *copy.mutable_dims() = t.dims();
        copy.set_doc_string(t.doc_string());
        const std::int64_t aligned = (offset + 63) / 64 * 64;
        data.write(zeros, aligned - offset);
        data.write(t.raw_data().data(), static_cast<std::streamsize>(t.raw_data().size()));
        const auto length = static_cast<std::int64_t>(t.raw_data().size());
        copy.set_data_location(onnx::TensorProto::EXTERNAL);
        for (auto [key, value] : {std::pair<const char *, std::string>{"location", location},
                                  {"offset", std::to_string(aligned)},
                                  {"length", std::to_string(length)}}) {
            auto *e = copy.add_external_data();
            e->set_key(key);
            e->set_value(value);
        }
        offset = aligned + length;
    }
    if (!data.flush())
        return Status::error(ErrorCode::Io, "cannot write external data file", Location{dataPath, -1, {}, {}});
    return writeProto(m);
}

} // namespace tessera
