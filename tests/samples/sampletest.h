// Shared helpers for the samples tests: op histograms and parameter counts of a ModelProto.
#pragma once

#include <cstdint>
#include <map>
#include <onnx/onnx_pb.h>
#include <string>

namespace tessera::samples::test {

inline std::map<std::string, int> opCounts(const onnx::ModelProto &m)
{
    std::map<std::string, int> counts;
    for (const onnx::NodeProto &n : m.graph().node())
        ++counts[n.op_type()];
    return counts;
}

// Trainable parameters as PyTorch counts them: elements of float initializers
// of rank ≥ 1, minus batch-norm running statistics (buffers, not parameters).
inline std::int64_t parameterCount(const onnx::ModelProto &m)
{
    std::int64_t total = 0;
    for (const onnx::TensorProto &t : m.graph().initializer()) {
        const std::string &n = t.name();
        auto endsWith = [&](const std::string &s) {
            return n.size() >= s.size() && n.compare(n.size() - s.size(), s.size(), s) == 0;
        };
        if (t.data_type() != onnx::TensorProto::FLOAT || t.dims_size() == 0 || endsWith(".running_mean") ||
            endsWith(".running_var"))
            continue;
        std::int64_t e = 1;
        for (std::int64_t d : t.dims())
            e *= d;
        total += e;
    }
    return total;
}

inline std::vector<std::int64_t> dimsOf(const onnx::ValueInfoProto &v)
{
    std::vector<std::int64_t> dims;
    for (const auto &d : v.type().tensor_type().shape().dim())
        dims.push_back(d.dim_value());
    return dims;
}

} // namespace tessera::samples::test
