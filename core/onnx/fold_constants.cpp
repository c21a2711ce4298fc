// S9: generic constant folding at import.
//
// Exporters spell static shape arithmetic out as nodes: PyTorch writes
// Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])), Expand's shape via
// ConstantOfShape/Equal/Where, Resize's sizes via Slice(Shape(x)), a causal
// mask via Range or ConstantOfShape. Once S5 fixed the graph inputs' dims
// (--batch, --seq-len, --dim) these chains are constants, but ONNX's own shape
// inference stops at many of them (Div, Range, Where, ConstantOfShape of a
// computed shape), leaving downstream dims symbolic: S7 hands those tensors
// over as pending.
//
// One sweep in topological order reaches the fixed point of "fold every node
// whose inputs are all constants, then re-infer", because folding a node can
// only make its consumers foldable. Per node:
//   F1 a pending output gets its type from ops::inferShapes, which reads
//      constant inputs (Reshape's shape, ConstantOfShape's dims, Range's bounds);
//   F2 Constant nodes become initializers; Shape and Size read the static
//      shape of any input (these move metadata, they compute nothing);
//   F3 every other default-domain, non-opaque node whose present inputs all
//      carry inline data is run by the constant evaluator
//      (constant_evaluator.h: the reference backend's kernels, the same op
//      semantics the backend runs, not a second implementation), and its
//      outputs become initializers. Ops that draw random numbers are never
//      folded (docs/conformance.md, "Decisions"), nor DequantizeLinear
//      (quantized weights stay quantized, see kNeverFolded).
// After the sweep, F4 reports the first tensor still pending — a truly dynamic
// dim — naming its producer and the non-constant inputs (and the graph input
// behind them) it depends on.
// Bound: no input or output with more than FoldOptions::maxElements elements
// is evaluated (the node stays and runs on a backend); its pending shapes are
// still computed by F1.
// Errors name the node: an evaluator failure other than Unsupported (an
// out-of-range Gather index, integer division by zero) and a folded value
// whose type contradicts the model's declaration. An Unsupported answer leaves
// the node as it is.
// Assumes: S7–S8 ran (types, data, static shapes except the pending ones).
#include "core/onnx/fold_constants.h"

#include "core/ir/analysis.h"
#include "core/onnx/constant_evaluator.h"
#include "core/onnx/internal.h"
#include "core/ops/ops.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <set>

namespace tessera {

namespace {

using DataPtr = std::shared_ptr<const TensorData>;
using Ints = std::vector<std::int64_t>;

ConstantEvaluator &installedEvaluator()
{
    static ConstantEvaluator evaluator;
    return evaluator;
}

// Ops never folded. A random draw would be frozen into the model (the run
// must draw it, or refuse: docs/conformance.md). DequantizeLinear of int8
// weights would turn them into float32 ones, so schedulers would plan 4x the
// bytes of the quantized model a DSA runs (ONNX Runtime's folding keeps QDQ
// pairs for the same reason).
constexpr std::array<std::string_view, 7> kNeverFolded = {"Bernoulli",        "DequantizeLinear", "Multinomial",
                                                          "RandomNormal",     "RandomNormalLike", "RandomUniform",
                                                          "RandomUniformLike"};

template <typename T> DataPtr makeData(DType dtype, Shape shape, const std::vector<T> &values)
{
    auto d = std::make_shared<TensorData>();
    d->dtype = dtype;
    d->shape = std::move(shape);
    d->bytes.resize(values.size() * sizeof(T));
    if (!values.empty())
        std::memcpy(d->bytes.data(), values.data(), d->bytes.size());
    return d;
}

std::int64_t count(const Shape &s)
{
    return numElements(s).value_or(-1);
}

// F2: a Constant node's attribute as data (value_string(s): nullptr, the node stays).
DataPtr constantValue(const Node &n)
{
    if (const Attribute *a = n.attr("value"))
        if (auto *d = std::get_if<DataPtr>(&a->value))
            return *d;
    if (const Attribute *a = n.attr("value_int"))
        if (auto *v = std::get_if<std::int64_t>(&a->value))
            return makeData(DType::Int64, {}, Ints{*v});
    if (const Attribute *a = n.attr("value_ints"))
        if (auto *v = std::get_if<Ints>(&a->value))
            return makeData(DType::Int64, {static_cast<std::int64_t>(v->size())}, *v);
    auto floats = [](Shape shape, const std::vector<double> &v) {
        return makeData(DType::Float32, std::move(shape), std::vector<float>(v.begin(), v.end()));
    };
    if (const Attribute *a = n.attr("value_float"))
        if (auto *v = std::get_if<double>(&a->value))
            return floats({}, {*v});
    if (const Attribute *a = n.attr("value_floats"))
        if (auto *v = std::get_if<std::vector<double>>(&a->value))
            return floats({static_cast<std::int64_t>(v->size())}, *v);
    return nullptr;
}

// F2: Shape (with start/end) and Size of an input whose shape is static.
DataPtr shapeValue(const Graph &g, const Node &n)
{
    const Tensor *x = g.input(n, 0);
    if (!x)
        return nullptr;
    if (n.opType == "Size")
        return makeData(DType::Int64, {}, Ints{count(x->shape)});
    const auto r = static_cast<std::int64_t>(x->shape.size());
    auto clampAxis = [r](std::int64_t a) { return std::clamp(a < 0 ? a + r : a, std::int64_t(0), r); };
    const std::int64_t start = clampAxis(n.attrInt("start", 0));
    const std::int64_t end = clampAxis(n.attrInt("end", r));
    Ints dims;
    for (std::int64_t i = start; i < end; ++i)
        dims.push_back(x->shape[static_cast<std::size_t>(i)]);
    return makeData(DType::Int64, {static_cast<std::int64_t>(dims.size())}, dims);
}

using onnximport::FoldReport;
using onnximport::PendingShape;

class Folder
{
public:
    Folder(Graph &g, const FoldOptions &options, const std::vector<PendingShape> &pending)
        : m_g(g), m_options(options), m_evaluator(installedEvaluator())
    {
        for (const PendingShape &p : pending)
            m_pending[p.tensor] = p.reason;
    }

    Expected<FoldReport> run()
    {
        auto order = topologicalOrder(m_g);
        if (!order)
            return order.status();
        std::vector<bool> erase(m_g.nodeCount(), false);
        for (NodeId id : *order) {
            if (m_options.cancel && m_options.cancel->load(std::memory_order_relaxed))
                return Status::error(ErrorCode::Cancelled, "constant folding was cancelled");
            const Node &n = m_g.node(id);
            inferPending(n); // F1
            auto folded = fold(n);
            if (!folded)
                return folded.status().prefix("constant folding").at({.node = n.name});
            if (!*folded)
                continue;
            erase[static_cast<std::size_t>(id)] = true;
            ++m_stats.stats.foldedNodes;
            m_stats.folded.push_back(n.name);
        }
        if (Status s = reportPending(*order); !s) // F4
            return s;
        if (m_stats.stats.foldedNodes > 0)
            m_g.eraseNodes(erase);
        return m_stats;
    }

private:
    bool isPending(TensorId t) const { return t != kInvalidId && m_pending.count(t); }

    // F1: types of pending outputs once every input is known.
    void inferPending(const Node &n)
    {
        if (std::none_of(n.outputs.begin(), n.outputs.end(), [&](TensorId t) { return isPending(t); }))
            return;
        if (n.opaque || std::any_of(n.inputs.begin(), n.inputs.end(), [&](TensorId t) { return isPending(t); }))
            return;
        std::vector<ops::TensorType> types;
        if (Status s = ops::inferShapes(m_g, n, types); !s) {
            m_why[n.name] = s.message();
            return;
        }
        for (std::size_t i = 0; i < n.outputs.size() && i < types.size(); ++i) {
            const TensorId t = n.outputs[i];
            if (!isPending(t))
                continue;
            const Shape &s = types[i].shape;
            if (count(s) < 0 || std::any_of(s.begin(), s.end(), [](std::int64_t d) { return d < 0; })) {
                m_why[n.name] = "op '" + n.opType + "' infers shape " + shapeStr(s);
                return;
            }
            Tensor &out = m_g.tensor(t);
            out.dtype = types[i].dtype;
            out.shape = s;
            m_pending.erase(t);
            ++m_stats.inferredTensors;
        }
    }

    bool constantInput(TensorId t) const
    {
        if (t == kInvalidId)
            return true; // omitted optional input
        const Tensor &x = m_g.tensor(t);
        return x.data && !x.data->isExternal() && count(x.data->shape) >= 0 &&
               count(x.data->shape) <= m_options.maxElements;
    }

    // Whether the node is replaced by initializers (false: it stays).
    Expected<bool> fold(const Node &n)
    {
        if (!n.domain.empty() || n.opaque || n.outputs.empty() ||
            std::find(kNeverFolded.begin(), kNeverFolded.end(), n.opType) != kNeverFolded.end())
            return false;
        for (TensorId t : n.outputs)
            if (isPending(t) || (t != kInvalidId && count(m_g.tensor(t).shape) > m_options.maxElements))
                return false;
        std::vector<DataPtr> results;
        if (n.opType == "Constant") { // F2
            if (DataPtr d = constantValue(n))
                results.push_back(std::move(d));
            else
                return false;
            ++m_stats.stats.constantNodes;
        } else if ((n.opType == "Shape" || n.opType == "Size") &&
                   !isPending(n.inputs.empty() ? kInvalidId : n.inputs[0])) {
            if (DataPtr d = shapeValue(m_g, n))
                results.push_back(std::move(d));
            else
                return false;
        } else { // F3
            if (!m_evaluator || !std::all_of(n.inputs.begin(), n.inputs.end(),
                                             [&](TensorId t) { return !isPending(t) && constantInput(t); }))
                return false;
            auto r = m_evaluator(m_g, n);
            if (!r) {
                if (r.status().code() != ErrorCode::Unsupported)
                    return r.status();
                m_why[n.name] = r.status().message();
                return false;
            }
            results = std::move(*r);
            ++m_stats.evaluatedNodes;
        }
        if (results.size() != n.outputs.size())
            return Status::error(ErrorCode::Internal, "the evaluator returned " + std::to_string(results.size()) +
                                                          " values for " + std::to_string(n.outputs.size()) +
                                                          " outputs");
        for (std::size_t i = 0; i < n.outputs.size(); ++i) {
            if (n.outputs[i] == kInvalidId)
                continue;
            const Tensor &out = m_g.tensor(n.outputs[i]);
            const TensorData *d = results[i].get();
            if (!d)
                return Status::error(ErrorCode::Internal, "the evaluator computed no value", {.tensor = out.name});
            if (d->dtype != out.dtype || d->shape != out.shape)
                return Status::invalid("constant folding computes " + shapeStr(d->shape) + " " +
                                           std::string(dtypeName(d->dtype)) + " but the model declares " +
                                           shapeStr(out.shape) + " " + std::string(dtypeName(out.dtype)),
                                       {.node = n.name, .tensor = out.name});
        }
        for (std::size_t i = 0; i < n.outputs.size(); ++i) {
            if (n.outputs[i] == kInvalidId)
                continue;
            Tensor &out = m_g.tensor(n.outputs[i]);
            out.data = std::move(results[i]);
            out.kind = Tensor::Kind::Initializer;
        }
        return true;
    }

    // The graph input that tensor t's value is computed from, if any.
    std::string graphInputBehind(TensorId t) const
    {
        std::vector<TensorId> stack{t};
        std::set<TensorId> seen;
        while (!stack.empty()) {
            const TensorId x = stack.back();
            stack.pop_back();
            if (x == kInvalidId || !seen.insert(x).second)
                continue;
            const Tensor &tx = m_g.tensor(x);
            if (tx.kind == Tensor::Kind::Input)
                return tx.name;
            if (tx.data)
                continue; // a constant (folded ones too): no run-time value behind it
            if (tx.producer != kInvalidId)
                for (TensorId in : m_g.node(tx.producer).inputs)
                    stack.push_back(in);
        }
        return {};
    }

    // F4: the first pending tensor in topological order is the root cause; the
    // message names its producer and the non-constant inputs it depends on.
    Status reportPending(const std::vector<NodeId> &order) const
    {
        for (NodeId id : order) {
            const Node &n = m_g.node(id);
            for (TensorId t : n.outputs) {
                if (!isPending(t))
                    continue;
                std::string why = "tensor " + m_pending.at(t) + "; ";
                if (n.opaque) {
                    why += "it is an output of opaque op '" + n.opType +
                           "', declare its shape in the model's "
                           "value_info";
                    return Status::invalid(why, {.node = n.name, .tensor = m_g.tensor(t).name});
                }
                why += "neither onnx shape inference nor constant folding could compute it from op '" + n.opType + "'";
                if (auto it = m_why.find(n.name); it != m_why.end())
                    why += " (" + it->second + ")";
                std::vector<std::string> dynamic;
                for (TensorId in : n.inputs)
                    if (in != kInvalidId && !m_g.tensor(in).data && isInteger(m_g.tensor(in).dtype)) {
                        std::string s = "'" + m_g.tensor(in).name + "'";
                        if (const std::string src = graphInputBehind(in); !src.empty() && src != m_g.tensor(in).name)
                            s += " (computed from graph input '" + src + "')";
                        dynamic.push_back(s);
                    }
                if (!dynamic.empty()) {
                    why += ": its input";
                    why += dynamic.size() == 1 ? " " : "s ";
                    for (std::size_t i = 0; i < dynamic.size(); ++i)
                        why += (i ? ", " : "") + dynamic[i];
                    why += dynamic.size() == 1 ? " is not a constant" : " are not constants";
                    why += ", so the dimension depends on data at run time";
                }
                return Status::invalid(why, {.node = n.name, .tensor = m_g.tensor(t).name});
            }
        }
        return Status::ok();
    }

    Graph &m_g;
    const FoldOptions &m_options;
    const ConstantEvaluator &m_evaluator;
    std::map<TensorId, std::string> m_pending; // tensor -> why S7 could not type it
    std::map<std::string, std::string> m_why;  // node -> why it was not inferred or evaluated
    FoldReport m_stats;
};

} // namespace

void setConstantEvaluator(ConstantEvaluator evaluator)
{
    installedEvaluator() = std::move(evaluator);
}

const ConstantEvaluator &constantEvaluator()
{
    return installedEvaluator();
}

Expected<FoldStats> foldConstants(Graph &g, const FoldOptions &options)
{
    auto r = Folder(g, options, {}).run();
    if (!r)
        return r.status();
    return r->stats;
}

Expected<onnximport::FoldReport> onnximport::foldConstants(Graph &g, const FoldOptions &options,
                                                           const std::vector<PendingShape> &pending)
{
    return Folder(g, options, pending).run();
}

} // namespace tessera
