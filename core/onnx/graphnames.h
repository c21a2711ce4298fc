// The names an import-time rewrite of the ONNX graph must keep unique, and the
// graph's constant tensors (initializers and `Constant` nodes' values), read
// once; GraphAdditions, the nodes and initializers such a rewrite emits under
// fresh names; and the small proto helpers both rewrites use (attributes,
// declared shapes, the default opset). Shared by the steps that add nodes and
// tensors to the proto before the graph is built: S2c (control-flow inlining)
// and S2d (sequence resolution).
#pragma once

#include "core/onnx/internal.h"

#include <cstdint>
#include <map>
#include <onnx/onnx_pb.h>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tessera::onnximport {

struct GraphNames {
    explicit GraphNames(const ::onnx::GraphProto &g)
    {
        for (const auto &t : g.initializer()) {
            values.insert(t.name());
            constants[t.name()] = &t;
        }
        for (const auto &v : g.input())
            values.insert(v.name());
        for (const auto &n : g.node()) {
            nodes.insert(n.name());
            for (const auto &o : n.output())
                values.insert(o);
            if (n.op_type() == "Constant" && n.output_size() == 1)
                for (const auto &a : n.attribute())
                    if (a.name() == "value" && a.has_t())
                        constants[n.output(0)] = &a.t();
        }
    }

    // `base`, or `base_k` with the least k that is not in `used`; taken.
    static std::string fresh(const std::string &base, std::set<std::string> &used)
    {
        std::string s = base;
        for (int k = 1; used.count(s); ++k)
            s = base + "_" + std::to_string(k);
        used.insert(s);
        return s;
    }

    std::set<std::string> values, nodes;
    std::map<std::string, const ::onnx::TensorProto *> constants;
};

// The nodes (in the order emitted) and initializers a rewrite adds, each named
// fresh against `names`; the rewrite moves them into the graph when it is done.
struct GraphAdditions {
    explicit GraphAdditions(GraphNames &names) : names(names) {}

    // A new `op` node named fresh from `name`.
    ::onnx::NodeProto &node(const std::string &op, const std::string &name, const std::vector<std::string> &inputs,
                            const std::vector<std::string> &outputs)
    {
        ::onnx::NodeProto &n = nodes.emplace_back();
        n.set_op_type(op);
        n.set_name(GraphNames::fresh(name, names.nodes));
        for (const auto &i : inputs)
            n.add_input(i);
        for (const auto &o : outputs)
            n.add_output(o);
        return n;
    }

    // A new int64 initializer holding `values` (a scalar when `scalarShape`,
    // else 1-D) named fresh from `base`; returns its name.
    std::string int64Tensor(const std::string &base, const std::vector<std::int64_t> &values, bool scalarShape)
    {
        ::onnx::TensorProto t;
        t.set_name(GraphNames::fresh(base, names.values));
        t.set_data_type(::onnx::TensorProto::INT64);
        if (!scalarShape)
            t.add_dims(static_cast<std::int64_t>(values.size()));
        t.set_raw_data(std::string(reinterpret_cast<const char *>(values.data()), values.size() * 8));
        initializers.push_back(t);
        return t.name();
    }

    // Moves the emitted nodes to the end of `out`.
    void moveNodesTo(::google::protobuf::RepeatedPtrField<::onnx::NodeProto> &out)
    {
        for (auto &n : nodes)
            *out.Add() = std::move(n);
        nodes.clear();
    }

    // Moves the new initializers into `g`.
    void moveInitializersTo(::onnx::GraphProto &g)
    {
        for (auto &t : initializers)
            *g.add_initializer() = std::move(t);
        initializers.clear();
    }

    GraphNames &names;
    std::vector<::onnx::NodeProto> nodes;
    std::vector<::onnx::TensorProto> initializers;
};

inline void setIntAttr(::onnx::NodeProto &n, const std::string &name, std::int64_t v)
{
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INT);
    a->set_i(v);
}

inline void setIntsAttr(::onnx::NodeProto &n, const std::string &name, const std::vector<std::int64_t> &v)
{
    auto *a = n.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::INTS);
    for (std::int64_t x : v)
        a->add_ints(x);
}

// The dims a value's declaration gives, when it declares a tensor shape whose
// every dim is a number.
inline std::optional<std::vector<std::int64_t>> declaredDims(const ::onnx::ValueInfoProto &v)
{
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
        return std::nullopt;
    std::vector<std::int64_t> dims;
    for (const auto &d : v.type().tensor_type().shape().dim()) {
        if (!d.has_dim_value())
            return std::nullopt;
        dims.push_back(d.dim_value());
    }
    return dims;
}

// The version of the default ("ai.onnx") domain the model imports; 0 when none.
inline int defaultOpset(const ::onnx::ModelProto &model)
{
    int opset = 0;
    for (const auto &op : model.opset_import())
        if (normalDomain(op.domain()).empty())
            opset = static_cast<int>(op.version());
    return opset;
}

} // namespace tessera::onnximport
