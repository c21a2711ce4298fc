// S2c: control flow whose path is known at import becomes plain nodes, so
// every later step (inference, folding, schedulers, backends) sees one flat
// graph. Runs on the proto before S3 builds the Graph:
//   If    whose condition is a constant (an initializer — as the conformance
//         harness bakes bool inputs — or a Constant node): the chosen branch's
//         nodes are inlined and Identity nodes give the If's outputs.
//   Loop  whose trip count is a constant M with 1 <= M <= kMaxTrips, whose
//         condition input is absent or a constant true, and whose body passes
//         its condition through unchanged (cond_out = cond_in, directly or by
//         Identity): unrolled M times; iteration i sees iter_num as an int64
//         initializer i, loop-carried values thread from one copy to the next,
//         and each scan output is the Concat of its per-iteration values, each
//         Unsqueezed on axis 0 (ONNX: scan outputs stack on a new first axis).
//   Scan  (opset >= 9) whose scan inputs have a static length along their scan
//         axis in the model's declarations (graph inputs, initializers): T
//         iterations, element t of each scan input taken by Gather(axis)
//         (reversed for scan_input_directions 1), scan outputs stacked by
//         Unsqueeze + Concat on scan_output_axes (non-negative), reversed for
//         scan_output_directions 1.
// Bound: at most kMaxTrips iterations and kMaxUnrolledNodes copied nodes per
// control-flow node, so a long loop is never blown up into a huge graph.
// Anything else — a data-dependent condition or trip count, a body whose
// condition changes, Scan-8 (batched, sequence_lens), nested subgraphs inside
// the inlined body — keeps the node (S3 marks it opaque) and leaves a warning
// naming the node and the reason; the backend that cannot run it says so again.
// Names: every value and node the body defines is renamed
// "<node>/<iteration>/<name>" (made unique), so copies never collide; names
// from the outer scope keep theirs.
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

constexpr std::int64_t kMaxTrips = 64;
constexpr std::int64_t kMaxUnrolledNodes = 4096;

using Proto = ::onnx::TensorProto;

struct Refused {
    std::string why;
};

class Inliner
{
public:
    Inliner(::onnx::GraphProto &g, int opset, const ImportContext &ctx)
        : m_g(g), m_opset(opset), m_ctx(ctx), m_known(g), m_added(m_known)
    {}

    void run()
    {
        ::google::protobuf::RepeatedPtrField<::onnx::NodeProto> out;
        const int count = m_g.node_size();
        for (int i = 0; i < count; ++i) {
            const ::onnx::NodeProto &n = m_g.node(i);
            const bool flow = normalDomain(n.domain()).empty() &&
                              (n.op_type() == "If" || n.op_type() == "Loop" || n.op_type() == "Scan");
            if (!flow) {
                *out.Add() = n;
                continue;
            }
            m_added.nodes.clear();
            const std::size_t initializers = m_added.initializers.size();
            std::optional<Refused> refused = n.op_type() == "If"     ? inlineIf(n)
                                             : n.op_type() == "Loop" ? unrollLoop(n)
                                                                     : unrollScan(n);
            if (refused) {
                m_ctx.log.warn("control flow: '" + n.op_type() + "' stays opaque: " + refused->why, m_ctx.at(n.name()));
                m_added.initializers.resize(initializers); // nothing of the attempt stays
                *out.Add() = n;
                continue;
            }
            m_ctx.log.note("control flow: '" + n.op_type() + "' inlined as " + std::to_string(m_added.nodes.size()) +
                               " nodes",
                           m_ctx.at(n.name()));
            m_added.moveNodesTo(out);
        }
        m_g.mutable_node()->Swap(&out);
        m_added.moveInitializersTo(m_g);
    }

private:
    const Proto *constant(const std::string &name) const
    {
        auto it = m_known.constants.find(name);
        if (it == m_known.constants.end() || it->second->data_location() == Proto::EXTERNAL ||
            it->second->dims_size() > 1 || (it->second->dims_size() == 1 && it->second->dims(0) != 1))
            return nullptr;
        return it->second;
    }

    // The one value of a constant int64 or bool scalar (or [1] tensor).
    std::optional<std::int64_t> scalar(const std::string &name) const
    {
        const Proto *t = constant(name);
        if (!t)
            return std::nullopt;
        if (t->data_type() == Proto::INT64) {
            if (t->int64_data_size() == 1)
                return t->int64_data(0);
            if (t->raw_data().size() == 8) {
                std::int64_t v = 0;
                std::memcpy(&v, t->raw_data().data(), 8);
                return v;
            }
        } else if (t->data_type() == Proto::BOOL) {
            if (t->int32_data_size() == 1)
                return t->int32_data(0) != 0;
            if (t->raw_data().size() == 1)
                return t->raw_data()[0] != 0;
        }
        return std::nullopt;
    }

    // Static dims of a graph input or initializer, if all are known.
    std::optional<std::vector<std::int64_t>> staticShape(const std::string &name) const
    {
        for (const auto &t : m_g.initializer())
            if (t.name() == name)
                return std::vector<std::int64_t>(t.dims().begin(), t.dims().end());
        for (const auto &v : m_g.input())
            if (v.name() == name && v.type().has_tensor_type() && v.type().tensor_type().has_shape())
                return declaredDims(v);
        return std::nullopt;
    }

    std::string addTrue(const std::string &base)
    {
        Proto t;
        t.set_name(GraphNames::fresh(base, m_known.values));
        t.set_data_type(Proto::BOOL);
        t.set_raw_data(std::string(1, '\1'));
        m_added.initializers.push_back(t);
        return t.name();
    }

    // Copies `body` into the emitted nodes with its inputs bound to outer
    // names; returns the outer names of its outputs.
    std::variant<std::vector<std::string>, Refused>
    inlineBody(const ::onnx::GraphProto &body, std::map<std::string, std::string> map, const std::string &prefix)
    {
        for (const auto &t : body.initializer()) {
            Proto copy = t;
            copy.set_name(GraphNames::fresh(prefix + t.name(), m_known.values));
            map[t.name()] = copy.name();
            m_added.initializers.push_back(std::move(copy));
        }
        for (const auto &n : body.node()) {
            for (const auto &a : n.attribute())
                if (a.has_g() || a.graphs_size() > 0)
                    return Refused{"its body holds another subgraph ('" + n.op_type() + "'), which is not inlined"};
            ::onnx::NodeProto copy = n;
            copy.set_name(GraphNames::fresh(prefix + (n.name().empty() ? n.op_type() : n.name()), m_known.nodes));
            for (auto &in : *copy.mutable_input())
                if (auto it = map.find(in); it != map.end())
                    in = it->second;
            for (auto &o : *copy.mutable_output())
                if (!o.empty()) {
                    const std::string renamed = GraphNames::fresh(prefix + o, m_known.values);
                    map[o] = renamed;
                    o = renamed;
                }
            m_added.nodes.push_back(std::move(copy));
        }
        std::vector<std::string> outs;
        for (const auto &o : body.output()) {
            auto it = map.find(o.name());
            outs.push_back(it != map.end() ? it->second : o.name()); // an outer value passed through
        }
        return outs;
    }

    static const ::onnx::GraphProto *graphAttr(const ::onnx::NodeProto &n, const std::string &name)
    {
        for (const auto &a : n.attribute())
            if (a.name() == name && a.has_g())
                return &a.g();
        return nullptr;
    }

    static std::vector<std::int64_t> intsAttr(const ::onnx::NodeProto &n, const std::string &name)
    {
        for (const auto &a : n.attribute())
            if (a.name() == name)
                return {a.ints().begin(), a.ints().end()};
        return {};
    }

    // Identity nodes from `values` to the node's outputs [from, from + values.size()).
    void bindOutputs(const ::onnx::NodeProto &n, const std::vector<std::string> &values, int from)
    {
        for (std::size_t k = 0; k < values.size(); ++k)
            if (const int o = from + static_cast<int>(k); o < n.output_size() && !n.output(o).empty())
                m_added.node("Identity", n.name() + "/out" + std::to_string(o), {values[k]}, {n.output(o)});
    }

    // output = Concat(Unsqueeze(v, axis) for v in values, axis)
    void stack(const ::onnx::NodeProto &n, const std::vector<std::string> &values, std::int64_t axis,
               const std::string &output)
    {
        std::vector<std::string> parts;
        const std::string axes =
            m_opset >= 13 ? m_added.int64Tensor(n.name() + "/stack_axes", {axis}, false) : std::string();
        for (const std::string &v : values) {
            const std::string u = GraphNames::fresh(v + "/unsqueezed", m_known.values);
            auto &node = m_added.node("Unsqueeze", n.name() + "/unsqueeze",
                                      m_opset >= 13 ? std::vector{v, axes} : std::vector{v}, {u});
            if (m_opset < 13)
                setIntsAttr(node, "axes", {axis});
            parts.push_back(u);
        }
        setIntAttr(m_added.node("Concat", n.name() + "/stack", parts, {output}), "axis", axis);
    }

    std::optional<Refused> checkBound(std::int64_t trips, const ::onnx::GraphProto &body)
    {
        if (trips < 1 || trips > kMaxTrips)
            return Refused{std::to_string(trips) + " iterations; only 1 to " + std::to_string(kMaxTrips) +
                           " are unrolled"};
        if (trips * body.node_size() > kMaxUnrolledNodes)
            return Refused{"unrolling would copy " + std::to_string(trips * body.node_size()) + " nodes, more than " +
                           std::to_string(kMaxUnrolledNodes)};
        return std::nullopt;
    }

    std::optional<Refused> inlineIf(const ::onnx::NodeProto &n)
    {
        const auto cond = n.input_size() > 0 ? scalar(n.input(0)) : std::nullopt;
        if (!cond)
            return Refused{"its condition '" + (n.input_size() > 0 ? n.input(0) : std::string()) +
                           "' is not a constant"};
        const ::onnx::GraphProto *branch = graphAttr(n, *cond ? "then_branch" : "else_branch");
        if (!branch)
            return Refused{"it has no " + std::string(*cond ? "then_branch" : "else_branch")};
        auto outs = inlineBody(*branch, {}, n.name() + (*cond ? "/then/" : "/else/"));
        if (auto *r = std::get_if<Refused>(&outs))
            return *r;
        bindOutputs(n, std::get<0>(outs), 0);
        return std::nullopt;
    }

    std::optional<Refused> unrollLoop(const ::onnx::NodeProto &n)
    {
        const ::onnx::GraphProto *body = graphAttr(n, "body");
        if (!body)
            return Refused{"it has no body"};
        const auto trips = n.input_size() > 0 && !n.input(0).empty() ? scalar(n.input(0)) : std::nullopt;
        if (!trips)
            return Refused{"its trip count is absent or not a constant"};
        if (auto r = checkBound(*trips, *body))
            return r;
        const bool hasCond = n.input_size() > 1 && !n.input(1).empty();
        if (hasCond) {
            const auto c = scalar(n.input(1));
            if (!c || !*c)
                return Refused{"its condition '" + n.input(1) + "' is not a constant true"};
        }
        const int carried = n.input_size() - 2;
        if (carried < 0 || body->input_size() != carried + 2 || body->output_size() < carried + 1)
            return Refused{"its body's inputs and outputs do not match the loop's"};
        const std::string &condIn = body->input(1).name(), &condOut = body->output(0).name();
        bool passThrough = condOut == condIn;
        for (const auto &b : body->node())
            if (b.op_type() == "Identity" && b.output_size() == 1 && b.output(0) == condOut && b.input_size() == 1 &&
                b.input(0) == condIn)
                passThrough = true;
        if (!passThrough)
            return Refused{"its body computes the condition, so the iteration count depends on data"};
        const std::string cond = hasCond ? n.input(1) : addTrue(n.name() + "/cond");
        std::vector<std::string> state(n.input().begin() + 2, n.input().end());
        const int scans = body->output_size() - 1 - carried;
        std::vector<std::vector<std::string>> scanValues(static_cast<std::size_t>(scans));
        for (std::int64_t i = 0; i < *trips; ++i) {
            const std::string prefix = n.name() + "/" + std::to_string(i) + "/";
            std::map<std::string, std::string> bind{
                {body->input(0).name(), m_added.int64Tensor(prefix + "iter", {i}, true)}, {condIn, cond}};
            for (int k = 0; k < carried; ++k)
                bind[body->input(k + 2).name()] = state[static_cast<std::size_t>(k)];
            auto outs = inlineBody(*body, std::move(bind), prefix);
            if (auto *r = std::get_if<Refused>(&outs))
                return *r;
            const auto &o = std::get<0>(outs);
            for (int k = 0; k < carried; ++k)
                state[static_cast<std::size_t>(k)] = o[static_cast<std::size_t>(1 + k)];
            for (int j = 0; j < scans; ++j)
                scanValues[static_cast<std::size_t>(j)].push_back(o[static_cast<std::size_t>(1 + carried + j)]);
        }
        bindOutputs(n, state, 0);
        for (int j = 0; j < scans; ++j)
            if (carried + j < n.output_size() && !n.output(carried + j).empty())
                stack(n, scanValues[static_cast<std::size_t>(j)], 0, n.output(carried + j));
        return std::nullopt;
    }

    std::optional<Refused> unrollScan(const ::onnx::NodeProto &n)
    {
        if (m_opset < 9)
            return Refused{"Scan-8 (batched, with sequence_lens) is not unrolled"};
        const ::onnx::GraphProto *body = graphAttr(n, "body");
        if (!body)
            return Refused{"it has no body"};
        std::int64_t m = -1;
        for (const auto &a : n.attribute())
            if (a.name() == "num_scan_inputs")
                m = a.i();
        const int states = n.input_size() - static_cast<int>(m);
        if (m < 1 || states < 0 || body->input_size() != n.input_size() || body->output_size() < states)
            return Refused{"its body's inputs and outputs do not match the scan's"};
        const int scans = body->output_size() - states;
        auto inAxes = intsAttr(n, "scan_input_axes"), inDirs = intsAttr(n, "scan_input_directions"),
             outAxes = intsAttr(n, "scan_output_axes"), outDirs = intsAttr(n, "scan_output_directions");
        inAxes.resize(static_cast<std::size_t>(m), 0);
        inDirs.resize(static_cast<std::size_t>(m), 0);
        outAxes.resize(static_cast<std::size_t>(scans), 0);
        outDirs.resize(static_cast<std::size_t>(scans), 0);
        std::int64_t length = -1;
        for (std::int64_t k = 0; k < m; ++k) {
            const std::string &x = n.input(states + static_cast<int>(k));
            const auto shape = staticShape(x);
            if (!shape)
                return Refused{"the length of scan input '" + x + "' is not declared statically"};
            std::int64_t axis = inAxes[static_cast<std::size_t>(k)];
            const auto rank = static_cast<std::int64_t>(shape->size());
            if (axis < -rank || axis >= rank)
                return Refused{"scan input axis " + std::to_string(axis) + " is out of range"};
            axis = axis < 0 ? axis + rank : axis;
            inAxes[static_cast<std::size_t>(k)] = axis;
            const std::int64_t len = (*shape)[static_cast<std::size_t>(axis)];
            if (length >= 0 && len != length)
                return Refused{"its scan inputs differ in length"};
            length = len;
        }
        for (std::int64_t a : outAxes)
            if (a < 0)
                return Refused{"a negative scan_output_axes entry is not unrolled"};
        if (auto r = checkBound(length, *body))
            return r;
        std::vector<std::string> state(n.input().begin(), n.input().begin() + states);
        std::vector<std::vector<std::string>> scanValues(static_cast<std::size_t>(scans));
        for (std::int64_t t = 0; t < length; ++t) {
            const std::string prefix = n.name() + "/" + std::to_string(t) + "/";
            std::map<std::string, std::string> bind;
            for (int k = 0; k < states; ++k)
                bind[body->input(k).name()] = state[static_cast<std::size_t>(k)];
            for (std::int64_t k = 0; k < m; ++k) {
                const auto ks = static_cast<std::size_t>(k);
                const std::int64_t at = inDirs[ks] ? length - 1 - t : t;
                const std::string elem =
                    GraphNames::fresh(prefix + body->input(states + static_cast<int>(k)).name(), m_known.values);
                setIntAttr(m_added.node("Gather", prefix + "gather",
                                        {n.input(states + static_cast<int>(k)),
                                         m_added.int64Tensor(prefix + "index", {at}, true)},
                                        {elem}),
                           "axis", inAxes[ks]);
                bind[body->input(states + static_cast<int>(k)).name()] = elem;
            }
            auto outs = inlineBody(*body, std::move(bind), prefix);
            if (auto *r = std::get_if<Refused>(&outs))
                return *r;
            const auto &o = std::get<0>(outs);
            for (int k = 0; k < states; ++k)
                state[static_cast<std::size_t>(k)] = o[static_cast<std::size_t>(k)];
            for (int j = 0; j < scans; ++j)
                scanValues[static_cast<std::size_t>(j)].push_back(o[static_cast<std::size_t>(states + j)]);
        }
        bindOutputs(n, state, 0);
        for (int j = 0; j < scans; ++j) {
            auto values = scanValues[static_cast<std::size_t>(j)];
            if (outDirs[static_cast<std::size_t>(j)])
                std::reverse(values.begin(), values.end());
            if (states + j < n.output_size() && !n.output(states + j).empty())
                stack(n, values, outAxes[static_cast<std::size_t>(j)], n.output(states + j));
        }
        return std::nullopt;
    }

    ::onnx::GraphProto &m_g;
    int m_opset;
    const ImportContext &m_ctx;
    GraphNames m_known;
    GraphAdditions m_added; // the nodes of the control-flow node being inlined; every new initializer
};

} // namespace

void inlineControlFlow(::onnx::ModelProto &model, const ImportContext &ctx)
{
    Inliner(*model.mutable_graph(), defaultOpset(model), ctx).run();
}

} // namespace tessera::onnximport
