// What the import tests ask of an imported graph: how many nodes of an op
// type it still has, and a constant tensor's values (folded or initializer).
#pragma once

#include "core/ir/graph.h"

#include <string>
#include <string_view>
#include <vector>

namespace tessera::onnxtest {

inline int countOps(const Graph &g, std::string_view op)
{
    int n = 0;
    for (const Node &node : g.nodes())
        n += node.opType == op;
    return n;
}

// The values of constant tensor `name` as doubles (-999 where one cannot be
// read); empty when there is no such tensor or it is not constant.
inline std::vector<double> valuesOf(const Graph &g, const std::string &name)
{
    std::vector<double> v;
    const TensorId id = g.findTensor(name);
    if (id == kInvalidId || !g.tensor(id).data)
        return v;
    for (std::int64_t i = 0; i < g.tensor(id).elements(); ++i)
        v.push_back(g.tensor(id).data->floatAt(i).value_or(-999));
    return v;
}

} // namespace tessera::onnxtest
