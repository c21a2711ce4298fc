// S2d: sequence values whose makeup is known at import become plain tensors,
// so no later step needs a sequence type. Runs on the proto after S2c (an
// unrolled Loop may build a sequence) and before S3. Each sequence value is
// tracked as the list of tensor names it holds, node by node in graph order:
//   SequenceEmpty               -> []
//   SequenceConstruct(x...)     -> [x...]
//   SequenceInsert(S, T[, pos]) -> S with T inserted at pos (default: the end)
//   SequenceErase(S[, pos])     -> S without element pos (default: the last)
//   SequenceAt(S, pos)          -> Identity(S[pos])
//   SequenceLength(S)           -> Constant int64 scalar
//   ConcatFromSequence(S)       -> Concat(S..., axis); with new_axis=1 each
//                                  element is first Unsqueezed at axis
//   SplitToSequence(X[, split]) -> Split(X) (sizes from split, or chunks of 1
//                                  along axis, then Squeezed when keepdims=0)
// ONNX (Operators.md, opset 11+): positions may be negative (counted from the
// end); pos of Insert lies in [-n, n], of At/Erase in [-n, n-1]; a scalar split
// cuts chunks of that size with a smaller last one. Positions and split must
// be constants (initializers or Constant nodes): the conformance harness bakes
// integer inputs in, as a user fixes them. SplitToSequence without a 1-D split
// needs X's length along axis from the model's declarations (graph inputs,
// initializers, value_info).
// Unsqueeze/Squeeze/Split take their axes/split as an input from opset 13 and
// as an attribute before, as the model's opset says.
// Anything else — a position or split computed at run time, a sequence that is
// a graph output or read by another op (Loop, If, Identity, ...) — keeps every
// sequence node of the graph (S3 marks them opaque and the type check names
// the tensor) and leaves a warning naming the node and the reason.
#include "core/onnx/graphnames.h"
#include "core/onnx/internal.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <variant>

namespace tessera::onnximport {

namespace {

using Proto = ::onnx::TensorProto;

bool isSequenceOp(const ::onnx::NodeProto &n)
{
    static const std::set<std::string> ops = {"SequenceEmpty",      "SequenceConstruct", "SequenceInsert",
                                              "SequenceErase",      "SequenceAt",        "SequenceLength",
                                              "ConcatFromSequence", "SplitToSequence"};
    return normalDomain(n.domain()).empty() && ops.count(n.op_type()) > 0;
}

class Resolver
{
public:
    Resolver(::onnx::GraphProto &g, int opset, const ImportContext &ctx)
        : m_g(g), m_opset(opset), m_ctx(ctx), m_known(g), m_added(m_known)
    {}

    void run()
    {
        bool any = false;
        for (const auto &n : m_g.node())
            any = any || isSequenceOp(n);
        if (!any)
            return;
        ::google::protobuf::RepeatedPtrField<::onnx::NodeProto> out;
        for (const auto &n : m_g.node()) {
            if (!isSequenceOp(n)) {
                for (const auto &in : n.input())
                    if (m_sequences.count(in))
                        return refuse(n, "it reads the sequence '" + in + "', which is only resolved for sequence ops");
                *out.Add() = n;
                continue;
            }
            if (auto why = resolve(n))
                return refuse(n, *why);
            for (const auto &go : m_g.output())
                if (m_sequences.count(go.name()))
                    return refuse(n, "its sequence '" + go.name() + "' is a graph output");
        }
        m_ctx.log.note("sequences: " + std::to_string(m_sequences.size()) + " sequence values resolved into " +
                           std::to_string(m_added.nodes.size()) + " tensor nodes",
                       m_ctx.at());
        // The emitted nodes replace the sequence nodes where they stood; order
        // within the graph is fixed by S3's topological sort.
        m_added.moveNodesTo(out);
        m_g.mutable_node()->Swap(&out);
        m_added.moveInitializersTo(m_g);
    }

private:
    void refuse(const ::onnx::NodeProto &n, const std::string &why)
    {
        m_ctx.log.warn("sequences: '" + n.op_type() +
                           "' is not resolved, so the graph's sequence ops stay opaque: " + why,
                       m_ctx.at(n.name()));
    }

    // The int64/int32 values of a constant of rank 0 or 1.
    std::optional<std::vector<std::int64_t>> ints(const std::string &name) const
    {
        auto it = m_known.constants.find(name);
        if (it == m_known.constants.end())
            return std::nullopt;
        const Proto &t = *it->second;
        if (t.data_location() == Proto::EXTERNAL || t.dims_size() > 1)
            return std::nullopt;
        std::vector<std::int64_t> v;
        if (t.data_type() == Proto::INT64) {
            if (!t.raw_data().empty()) {
                if (t.raw_data().size() % 8)
                    return std::nullopt;
                v.resize(t.raw_data().size() / 8);
                std::memcpy(v.data(), t.raw_data().data(), t.raw_data().size());
            } else
                v.assign(t.int64_data().begin(), t.int64_data().end());
        } else if (t.data_type() == Proto::INT32) {
            if (!t.raw_data().empty()) {
                if (t.raw_data().size() % 4)
                    return std::nullopt;
                std::vector<std::int32_t> w(t.raw_data().size() / 4);
                std::memcpy(w.data(), t.raw_data().data(), t.raw_data().size());
                v.assign(w.begin(), w.end());
            } else
                v.assign(t.int32_data().begin(), t.int32_data().end());
        } else
            return std::nullopt;
        const std::int64_t count = t.dims_size() == 0 ? 1 : t.dims(0);
        if (static_cast<std::int64_t>(v.size()) != count)
            return std::nullopt;
        return v;
    }

    // A position input: a constant scalar (or [1]) in [lo, hi] after adding n to a negative one.
    std::variant<std::int64_t, std::string> position(const ::onnx::NodeProto &n, int input, std::int64_t size,
                                                     std::int64_t lo, std::int64_t hi)
    {
        const std::string &name = n.input(input);
        const auto v = ints(name);
        if (!v || v->size() != 1)
            return "its position '" + name + "' is not a constant scalar";
        const std::int64_t p = (*v)[0] < 0 ? (*v)[0] + size : (*v)[0];
        if (p < lo || p > hi)
            return "position " + std::to_string((*v)[0]) + " is out of range for a sequence of " +
                   std::to_string(size) + " tensors";
        return p;
    }

    std::optional<std::vector<std::int64_t>> declaredShape(const std::string &name) const
    {
        for (const auto &t : m_g.initializer())
            if (t.name() == name)
                return std::vector<std::int64_t>(t.dims().begin(), t.dims().end());
        for (const auto *list : {&m_g.input(), &m_g.value_info()})
            for (const auto &v : *list)
                if (v.name() == name)
                    return declaredDims(v);
        return std::nullopt;
    }

    static std::optional<std::int64_t> attr(const ::onnx::NodeProto &n, const std::string &name)
    {
        for (const auto &a : n.attribute())
            if (a.name() == name)
                return a.i();
        return std::nullopt;
    }

    // Unsqueeze or Squeeze of x at `axis`: axes as an input from opset 13, an attribute before.
    void squeezeLike(const std::string &op, const std::string &name, const std::string &x, std::int64_t axis,
                     const std::string &out)
    {
        if (m_opset >= 13)
            m_added.node(op, name, {x, m_added.int64Tensor(name + "/axes", {axis}, false)}, {out});
        else
            setIntsAttr(m_added.node(op, name, {x}, {out}), "axes", {axis});
    }

    // Why `n` cannot be resolved, or nothing when it was.
    std::optional<std::string> resolve(const ::onnx::NodeProto &n)
    {
        const std::string &op = n.op_type();
        const std::string base = n.name().empty() ? op : n.name();
        auto input = [&](int i) -> const std::vector<std::string> * {
            if (i >= n.input_size())
                return nullptr;
            auto it = m_sequences.find(n.input(i));
            return it == m_sequences.end() ? nullptr : &it->second;
        };
        auto has = [&](int i) { return i < n.input_size() && !n.input(i).empty(); };
        if (n.output_size() < 1 || n.output(0).empty())
            return "it has no output";
        const std::string &out = n.output(0);
        if (op == "SequenceEmpty") {
            m_sequences[out] = {};
            return std::nullopt;
        }
        if (op == "SequenceConstruct") {
            m_sequences[out] = {n.input().begin(), n.input().end()};
            return std::nullopt;
        }
        if (op == "SplitToSequence")
            return splitToSequence(n, base, out);
        const std::vector<std::string> *s = input(0);
        if (!s)
            return "its input sequence '" + (has(0) ? n.input(0) : std::string()) + "' is not known at import";
        const auto size = static_cast<std::int64_t>(s->size());
        if (op == "SequenceInsert") {
            if (!has(1))
                return "it has no tensor to insert";
            std::int64_t at = size;
            if (has(2)) {
                auto p = position(n, 2, size, 0, size);
                if (auto *why = std::get_if<std::string>(&p))
                    return *why;
                at = std::get<std::int64_t>(p);
            }
            std::vector<std::string> v = *s;
            v.insert(v.begin() + at, n.input(1));
            m_sequences[out] = std::move(v);
            return std::nullopt;
        }
        if (op == "SequenceErase") {
            if (size == 0)
                return "it erases from an empty sequence";
            std::int64_t at = size - 1;
            if (has(1)) {
                auto p = position(n, 1, size, 0, size - 1);
                if (auto *why = std::get_if<std::string>(&p))
                    return *why;
                at = std::get<std::int64_t>(p);
            }
            std::vector<std::string> v = *s;
            v.erase(v.begin() + at);
            m_sequences[out] = std::move(v);
            return std::nullopt;
        }
        if (op == "SequenceAt") {
            if (!has(1))
                return "it has no position";
            auto p = position(n, 1, size, 0, size - 1);
            if (auto *why = std::get_if<std::string>(&p))
                return *why;
            m_added.node("Identity", base, {(*s)[static_cast<std::size_t>(std::get<std::int64_t>(p))]}, {out});
            return std::nullopt;
        }
        if (op == "SequenceLength") {
            auto &c = m_added.node("Constant", base, {}, {out});
            auto *a = c.add_attribute();
            a->set_name("value");
            a->set_type(::onnx::AttributeProto::TENSOR);
            a->mutable_t()->set_data_type(Proto::INT64);
            a->mutable_t()->add_int64_data(size);
            return std::nullopt;
        }
        // ConcatFromSequence
        if (size == 0)
            return "it concatenates an empty sequence";
        const auto axis = attr(n, "axis");
        if (!axis)
            return "it has no axis";
        std::vector<std::string> parts = *s;
        if (attr(n, "new_axis").value_or(0) != 0)
            for (std::size_t k = 0; k < parts.size(); ++k) {
                const std::string u = GraphNames::fresh(base + "/unsqueezed" + std::to_string(k), m_known.values);
                squeezeLike("Unsqueeze", base + "/unsqueeze" + std::to_string(k), parts[k], *axis, u);
                parts[k] = u;
            }
        setIntAttr(m_added.node("Concat", base, parts, {out}), "axis", *axis);
        return std::nullopt;
    }

    std::optional<std::string> splitToSequence(const ::onnx::NodeProto &n, const std::string &base,
                                               const std::string &out)
    {
        if (n.input_size() < 1 || n.input(0).empty())
            return "it has no input";
        const std::string &x = n.input(0);
        std::int64_t axis = attr(n, "axis").value_or(0);
        const bool keepdims = attr(n, "keepdims").value_or(1) != 0;
        const auto shape = declaredShape(x);
        if (shape) {
            const auto rank = static_cast<std::int64_t>(shape->size());
            if (axis < -rank || axis >= rank)
                return "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank);
            axis = axis < 0 ? axis + rank : axis;
        }
        std::vector<std::int64_t> sizes;
        bool squeeze = false;
        if (n.input_size() > 1 && !n.input(1).empty()) {
            const auto split = ints(n.input(1));
            if (!split)
                return "its split '" + n.input(1) + "' is not a constant";
            bool scalar = false;
            for (const auto &t : m_g.initializer())
                if (t.name() == n.input(1))
                    scalar = t.dims_size() == 0;
            if (auto it = m_known.constants.find(n.input(1)); it != m_known.constants.end())
                scalar = it->second->dims_size() == 0;
            if (!scalar)
                sizes = *split;
            else {
                if (!shape)
                    return "the length of '" + x + "' along the split axis is not declared";
                const std::int64_t len = (*shape)[static_cast<std::size_t>(axis)], chunk = (*split)[0];
                if (chunk < 1)
                    return "its split " + std::to_string(chunk) + " is not positive";
                for (std::int64_t at = 0; at < len; at += chunk)
                    sizes.push_back(std::min(chunk, len - at));
            }
            for (std::int64_t v : sizes)
                if (v < 0)
                    return "its split holds a negative size";
        } else {
            if (!shape)
                return "the length of '" + x + "' along the split axis is not declared";
            sizes.assign(static_cast<std::size_t>((*shape)[static_cast<std::size_t>(axis)]), 1);
            squeeze = !keepdims;
        }
        if (sizes.empty())
            return "it splits into no tensors";
        if (!shape && axis < 0)
            return "a negative axis needs the declared rank of '" + x + "'";
        std::vector<std::string> parts;
        for (std::size_t k = 0; k < sizes.size(); ++k)
            parts.push_back(GraphNames::fresh(base + "/part" + std::to_string(k), m_known.values));
        ::onnx::NodeProto &split =
            m_opset >= 13 ? m_added.node("Split", base, {x, m_added.int64Tensor(base + "/split", sizes, false)}, parts)
                          : m_added.node("Split", base, {x}, parts);
        if (m_opset < 13)
            setIntsAttr(split, "split", sizes);
        setIntAttr(split, "axis", axis);
        if (squeeze)
            for (std::string &p : parts) {
                const std::string q = GraphNames::fresh(p + "/squeezed", m_known.values);
                squeezeLike("Squeeze", p + "/squeeze", p, axis, q);
                p = q;
            }
        m_sequences[out] = std::move(parts);
        return std::nullopt;
    }

    ::onnx::GraphProto &m_g;
    int m_opset;
    const ImportContext &m_ctx;
    GraphNames m_known;
    std::map<std::string, std::vector<std::string>> m_sequences; // value -> the tensors it holds
    GraphAdditions m_added;
};

} // namespace

void resolveSequences(::onnx::ModelProto &model, const ImportContext &ctx)
{
    Resolver(*model.mutable_graph(), defaultOpset(model), ctx).run();
}

} // namespace tessera::onnximport
