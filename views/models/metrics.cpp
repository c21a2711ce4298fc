// Per-node cost metrics (see metrics.h). One pass over the nodes; the cost
// model itself is ops::opCost.
#include "views/models/metrics.h"

#include "core/ops/ops.h"
#include "views/models/format.h"

#include <algorithm>

namespace tessera::views {

double NodeMetrics::intensity() const
{
    const auto b = bytes();
    return b > 0 ? flops / static_cast<double>(b) : 0.0;
}

NodeMetrics &NodeMetrics::operator+=(const NodeMetrics &o)
{
    flops += o.flops;
    bytesRead += o.bytesRead;
    bytesWritten += o.bytesWritten;
    params += o.params;
    outputBytes += o.outputBytes;
    return *this;
}

GraphMetrics computeMetrics(const Graph &g)
{
    GraphMetrics m;
    m.nodes.resize(g.nodeCount());
    std::vector<TensorId> seen; // constant inputs of the current node (usually 0-2)
    for (NodeId id = 0; id < static_cast<NodeId>(g.nodeCount()); ++id) {
        const Node &n = g.node(id);
        const ops::OpCost cost = ops::opCost(g, n);
        NodeMetrics &nm = m.nodes[static_cast<std::size_t>(id)];
        nm.flops = cost.flops;
        nm.bytesRead = cost.bytesRead;
        nm.bytesWritten = cost.bytesWritten;
        seen.clear();
        for (TensorId t : n.inputs) {
            if (t == kInvalidId || !g.tensor(t).isConstant() || std::find(seen.begin(), seen.end(), t) != seen.end())
                continue;
            seen.push_back(t);
            nm.params += g.tensor(t).elements();
        }
        for (TensorId t : n.outputs)
            if (t != kInvalidId)
                nm.outputBytes += g.tensor(t).bytes();
        m.total += nm;
    }
    for (const Tensor &t : g.tensors()) {
        if (t.kind != Tensor::Kind::Initializer)
            continue;
        m.parameters += t.elements();
        m.weightBytes += t.bytes();
    }
    return m;
}

NodeMetrics sumMetrics(const GraphMetrics &m, const std::vector<NodeId> &nodes)
{
    NodeMetrics sum;
    for (NodeId n : nodes)
        sum += m.nodes[static_cast<std::size_t>(n)];
    return sum;
}

double metricValue(const NodeMetrics &m, Metric metric)
{
    switch (metric) {
    case Metric::Flops: return m.flops;
    case Metric::Bytes: return static_cast<double>(m.bytes());
    case Metric::Intensity: return m.intensity();
    case Metric::Params: return static_cast<double>(m.params);
    case Metric::OutputBytes: return static_cast<double>(m.outputBytes);
    }
    return 0;
}

std::vector<double> metricValues(const GraphMetrics &m, Metric metric)
{
    std::vector<double> values;
    values.reserve(m.nodes.size());
    for (const NodeMetrics &nm : m.nodes)
        values.push_back(metricValue(nm, metric));
    return values;
}

QString metricName(Metric metric)
{
    switch (metric) {
    case Metric::Flops: return QStringLiteral("FLOPs");
    case Metric::Bytes: return QStringLiteral("bytes");
    case Metric::Intensity: return QStringLiteral("arithmetic intensity");
    case Metric::Params: return QStringLiteral("params");
    case Metric::OutputBytes: return QStringLiteral("output size");
    }
    return {};
}

QString formatMetric(double value, Metric metric)
{
    switch (metric) {
    case Metric::Flops: return formatFlops(value);
    case Metric::Bytes:
    case Metric::OutputBytes: return formatBytes(static_cast<std::int64_t>(value));
    case Metric::Intensity: return formatRatio(value) + QStringLiteral(" FLOP/B");
    case Metric::Params: return formatCount(value);
    }
    return {};
}

} // namespace tessera::views
