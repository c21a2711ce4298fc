// Per-node cost metrics for the workbench: FLOPs, bytes read and written,
// arithmetic intensity, parameters and output size, from ops::opCost with the
// graph's static shapes. The overlay colours nodes by one Metric; the
// inspector and the outline show sums over groups.
#pragma once

#include "core/ir/graph.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace tessera::views {

struct NodeMetrics {
    double flops = 0;              // multiply-add counts as 2
    std::int64_t bytesRead = 0;    // every input once, weights included
    std::int64_t bytesWritten = 0; // every output once
    std::int64_t params = 0;       // elements of the node's constant inputs
    std::int64_t outputBytes = 0;  // bytes of the node's outputs

    std::int64_t bytes() const { return bytesRead + bytesWritten; }
    double intensity() const; // FLOP per byte moved, 0 if nothing moves
    NodeMetrics &operator+=(const NodeMetrics &o);
};

struct GraphMetrics {
    std::vector<NodeMetrics> nodes; // indexed by NodeId
    NodeMetrics total;              // sum over nodes (shared weights counted per use)
    std::int64_t parameters = 0;    // elements of all initializers, each counted once
    std::int64_t weightBytes = 0;   // bytes of all initializers, each counted once
};

// What the overlay colours by.
enum class Metric : std::uint8_t { Flops, Bytes, Intensity, Params, OutputBytes };
inline constexpr Metric kAllMetrics[] = {Metric::Flops, Metric::Bytes, Metric::Intensity, Metric::Params,
                                         Metric::OutputBytes};

GraphMetrics computeMetrics(const Graph &g);
NodeMetrics sumMetrics(const GraphMetrics &m, const std::vector<NodeId> &nodes);

double metricValue(const NodeMetrics &m, Metric metric);
std::vector<double> metricValues(const GraphMetrics &m, Metric metric); // one per node
QString metricName(Metric metric);                                      // "FLOPs", "arithmetic intensity", ...
QString formatMetric(double value, Metric metric);                      // "8.21 GFLOP", "784 KiB", "12.4 FLOP/B"

} // namespace tessera::views
