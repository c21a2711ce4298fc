// ModelBuilder: writes ONNX models layer by layer — the sample networks
// (samples/), plugins that turn a paper artifact's graph description into a
// model (plugins/ios), and tests.
//
// Builds an onnx::ModelProto directly (independent of Tessera's importer), tracking the static shape of every value it
// creates so that layer helpers can size their weights. Weights are synthesized from a seed (deterministic, He-style
// scaled uniform); finish() runs ONNX's own shape inference and checker so every sample is checker-clean.
//
// Node names carry scopes ("layer1/layer1.0/conv1") pushed with ScopeGuard, so
// Tessera's hierarchy inference can collapse them.
#pragma once

#include "core/support/status.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace tessera {

class ModelBuilder
{
public:
    ModelBuilder(std::string graphName, std::uint64_t seed, int opset = 17);
    ~ModelBuilder();
    ModelBuilder(const ModelBuilder &) = delete;
    ModelBuilder &operator=(const ModelBuilder &) = delete;

    // Scopes prefix node and weight names: "stage1/block2/conv".
    void pushScope(const std::string &name);
    void popScope();
    std::string scoped(const std::string &name) const;

    // Graph I/O and constants. Return the value name.
    std::string input(const std::string &name, std::vector<std::int64_t> shape);
    // An input of another element type (onnx::TensorProto_DataType value, e.g. 7 = INT64).
    std::string input(const std::string &name, std::vector<std::int64_t> shape, int elemType);
    void output(const std::string &value);
    // Random float32 initializer, values uniform in ±scale.
    std::string weight(const std::string &name, std::vector<std::int64_t> shape, float scale);
    // Random float32 initializer, values uniform in [lo, hi) (norm scales, variances).
    std::string weightRange(const std::string &name, std::vector<std::int64_t> shape, float lo, float hi);
    std::string constantScalar(const std::string &name, float value); // 0-D float32
    std::string constantFloats(const std::string &name, std::vector<std::int64_t> shape, std::vector<float> values);
    std::string constantInts(const std::string &name, std::vector<std::int64_t> values); // 1-D int64
    std::string constantInt(const std::string &name, std::int64_t value);                // 0-D int64

    // A raw node; `outShapes` are recorded for the outputs (the builder trusts them).
    struct Attr {
        std::string name;
        enum Kind { Int, Float, Ints, String } kind;
        std::int64_t i = 0;
        float f = 0;
        std::vector<std::int64_t> ints;
        std::string s;
    };
    static Attr aInt(std::string n, std::int64_t v) { return {std::move(n), Attr::Int, v, 0, {}, {}}; }
    static Attr aFloat(std::string n, float v) { return {std::move(n), Attr::Float, 0, v, {}, {}}; }
    static Attr aInts(std::string n, std::vector<std::int64_t> v)
    {
        return {std::move(n), Attr::Ints, 0, 0, std::move(v), {}};
    }
    static Attr aString(std::string n, std::string v) { return {std::move(n), Attr::String, 0, 0, {}, std::move(v)}; }
    std::vector<std::string> node(const std::string &opType, const std::string &name,
                                  const std::vector<std::string> &inputs, const std::vector<Attr> &attrs,
                                  const std::vector<std::vector<std::int64_t>> &outShapes);

    const std::vector<std::int64_t> &shape(const std::string &value) const;

    // What an exporter leaves out or leaves open, for import tests:
    // the element type of a node output the builder cannot guess (Equal's bool),
    void setElemType(const std::string &value, int elemType);
    // no value_info for `value` (the builder still knows its shape for helpers),
    void forgetShape(const std::string &value);
    // and a graph input's or output's dim `axis` written as the symbol `param`.
    void setDimParam(const std::string &graphValue, int axis, const std::string &param);
    std::int64_t parameterCount() const; // elements in all initializers so far

    // Weights are refused once all of them together would exceed this many
    // elements: the builder stops synthesizing data, status() holds the
    // error and finish() returns it. Guards builders fed by untrusted
    // descriptions (an IOS config with 10^8 channels asks for petabytes).
    static constexpr std::int64_t kDefaultParameterLimit = std::int64_t{1} << 28; // 1 GiB of float32
    void setParameterLimit(std::int64_t elements);
    const Status &status() const; // the first refused weight (or the cancel), or Ok

    // A cancel token, looked at before every node and weight (every layer
    // helper makes at least one) and every 2^20 elements of a weight's data.
    // Once it is true the builder stops synthesizing data as it does past the
    // parameter limit: status() is ErrorCode::Cancelled and finish() returns
    // it without running ONNX's checker. The token must outlive the builder.
    void setCancel(const std::atomic<bool> *cancel);

    // Layer helpers (NCHW). Each creates its weights under the current scope.
    std::string conv(const std::string &x, const std::string &name, std::int64_t outChannels, std::int64_t kernel,
                     std::int64_t stride = 1, std::int64_t pad = -1 /* same */, std::int64_t groups = 1,
                     std::int64_t dilation = 1, bool bias = true);
    std::string conv2d(const std::string &x, const std::string &name, std::int64_t outChannels,
                       std::vector<std::int64_t> kernel, std::vector<std::int64_t> stride,
                       std::vector<std::int64_t> pads /* t,l,b,r */, std::int64_t groups = 1, bool bias = true);
    std::string batchNorm(const std::string &x, const std::string &name);
    std::string relu(const std::string &x, const std::string &name);
    std::string unary(const std::string &opType, const std::string &x, const std::string &name);
    std::string binary(const std::string &opType, const std::string &a, const std::string &b, const std::string &name);
    std::string maxPool(const std::string &x, const std::string &name, std::int64_t kernel, std::int64_t stride,
                        std::int64_t pad = 0);
    std::string avgPool(const std::string &x, const std::string &name, std::int64_t kernel, std::int64_t stride,
                        std::int64_t pad = 0, bool countIncludePad = false);
    std::string globalAvgPool(const std::string &x, const std::string &name);
    std::string concat(const std::vector<std::string> &xs, const std::string &name, std::int64_t axis = 1);
    std::string flatten(const std::string &x, const std::string &name);
    std::string gemm(const std::string &x, const std::string &name, std::int64_t outFeatures); // [N,K] -> [N,out]
    std::string matmul(const std::string &a, const std::string &b, const std::string &name);
    std::string linear(const std::string &x, const std::string &name,
                       std::int64_t outFeatures); // [...,K] -> [...,out], MatMul+Add
    std::string layerNorm(const std::string &x, const std::string &name, float epsilon = 1e-5f); // last axis
    std::string softmax(const std::string &x, const std::string &name, std::int64_t axis = -1);
    std::string reshape(const std::string &x, const std::string &name, std::vector<std::int64_t> shape);
    std::string transpose(const std::string &x, const std::string &name, std::vector<std::int64_t> perm);

    // Runs ONNX shape inference and the full checker. On success the model is
    // returned; the builder is spent afterwards.
    Expected<std::unique_ptr<onnx::ModelProto>> finish();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// Opens and closes a ModelBuilder scope for the lifetime of the guard.
class ScopeGuard
{
public:
    ScopeGuard(ModelBuilder &b, const std::string &name) : m_b(b) { m_b.pushScope(name); }
    ~ScopeGuard() { m_b.popScope(); }
    ScopeGuard(const ScopeGuard &) = delete;
    ScopeGuard &operator=(const ScopeGuard &) = delete;

private:
    ModelBuilder &m_b;
};

// Writes `model` to `path`. With externalData every raw_data initializer larger
// than 1 KiB goes to "<file name>.data" next to it (ONNX external-data
// convention: data_location EXTERNAL, location/offset/length, offsets 64-byte
// aligned); the .onnx then holds the graph and the small constants.
Status saveModel(const onnx::ModelProto &model, const std::string &path, bool externalData);

} // namespace tessera
