// Features of a (fused) operator for the learned cost model (pcgc §3.5: "the
// size of the input data, the type of the input data, the number of operators
// that make up the fusion operator, and the type of operation").
//
// One fixed-width row per group of nodes (a single op is a group of one):
// sizes as log2(1 + x) so the trees split on orders of magnitude —
//   ops, flops, input bytes (non-constant external inputs), weight bytes
//   (constant inputs), output bytes (tensors leaving the group), intermediate
//   bytes (produced and consumed inside), arithmetic intensity (flops per
//   external byte), element size of the first output (the data type),
//   the heaviest category (categories.h) and the count per category, the
//   count per op class (device.h OpClass: gemm, elementwise, reduction,
//   movement, other), the largest convolution window (kh·kw), whether a
//   grouped (depthwise) convolution is in it, and the analytic model's view
//   of the group (the "pre-trained model" of Algorithm 1 line 1: the learned
//   model corrects it, see costlearn.h): its time, average power, launch,
//   compute and memory time, launches, blocks, the share of the device's
//   cores it keeps busy and whether it is memory-bound.
// Hardware information (§3.5: parallelism, transactions, memory limits) is
// constant per device; a model is trained per device, so it is not a feature.
#pragma once

#include "core/cost/costmodel.h"
#include "core/ir/graph.h"

#include <string>
#include <vector>

namespace tessera::pcgc {

// Names of the row's columns, in order (persisted with a model; a model with
// other names is refused on load).
const std::vector<std::string> &featureNames();

// The analytic estimate the features and the learned model start from.
struct AnalyticEstimate {
    double timeNs = 0;
    double energyJ = 0;
    double launchNs = 0, computeNs = 0, memoryNs = 0;
    double launches = 0, blocks = 0;
    double coreShare = 0;   // Σ launch demand (cores) / the device's cores, ≤ 1 per launch
    double memoryBound = 0; // share of launches that are memory-bound
    double powerW() const { return timeNs > 0 ? energyJ / (timeNs * 1e-9) : 0; }
};

// The row of `nodes` (any order) with its analytic estimate from `analytic`.
std::vector<float> groupFeatures(const Graph &g, const std::vector<NodeId> &nodes, const AnalyticEstimate &analytic);

} // namespace tessera::pcgc
