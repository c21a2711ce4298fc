// The names an import-time rewrite of the ONNX graph must keep unique, and the
// graph's constant tensors (initializers and `Constant` nodes' values), read
// once. Shared by the steps that add nodes and tensors to the proto before the
// graph is built: S2c (control-flow inlining) and S2d (sequence resolution).
#pragma once

#include <map>
#include <onnx/onnx_pb.h>
#include <set>
#include <string>

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

} // namespace tessera::onnximport
