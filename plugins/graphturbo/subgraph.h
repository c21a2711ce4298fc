// GraphTurbo's working state: sub-graphs, their splitting information and
// their instances (graphturbo-osdi23 §3), shared by the steps of the pipeline
// (splitinfo, grouping, instances, ordering, memory, lowering).
//
// A sub-graph is a convex set of graph nodes with one exit node whose first
// output is the sub-graph's output (§3.1: "a sub-graph has one output").
// Sizes are in bytes of activations only: weights are promoted per layer into
// a small fixed LB region (§2.2) and are not part of a sub-graph's peak.
#pragma once

#include "core/hw/device.h"
#include "core/ir/graph.h"
#include "core/ops/ops.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace tessera {
class CostModel;
class DecisionContext;
class Trace;
} // namespace tessera

namespace tessera::graphturbo {

// "Cannot fit LB with any splitting factor" (§3.2 rule (i) compares factors).
inline constexpr std::int64_t kNoFit = std::numeric_limits<std::int64_t>::max();

// One element of SplitInfo (Algo. 1): (split_d, n_d, f_d, d).
struct SplitTuple {
    bool split = false;      // split_d
    int ops = 0;             // n_d: ops the split propagates to
    std::int64_t factor = 1; // f_d: instances along d
    int dim = -1;            // d: output dimension, outermost = 0
    friend bool operator==(const SplitTuple &, const SplitTuple &) = default;
};

struct SubGraph {
    std::vector<NodeId> nodes; // topological order
    NodeId exit = kInvalidId;  // produces the sub-graph output (its output 0)
    std::int64_t peakBytes = 0;
    std::vector<SplitTuple> splitInfo;
    // Per output dim: bytes of one cluster's share of the external activation inputs a split
    // along that dim leaves whole (splitinfo.h unsplitInputBytes); empty = none known.
    std::vector<std::int64_t> unsplitBytes;
    SplitTuple best;   // Eq. (1); factor kNoFit when nothing fits LB
    int splitDim = -1; // the split used (instances.h decides it), -1 = whole
    std::int64_t splitFactor = 1;
    int clusterParts = 1;     // parts its batch (output dim 0) is cut into: clusters × in-cluster iterations
                              // (§2.1, §5.1); part k runs on cluster k % clusters in iteration k / clusters
    std::vector<int> binding; // per output dim: cores along it (binding.h), the same for every instance
    int unit = -1;            // device compute unit of its heaviest op class (dominantUnit)
    bool splittable = false;  // single exit with a single output, no opaque op
    bool opaque = false;
    bool alive = true; // false once merged into another
};

struct Instance {
    int subgraph = 0;
    int index = 0;              // within its sub-graph
    ops::Region tile;           // region of the sub-graph output it computes
    std::int64_t footprint = 0; // ceil(peak / f)
    std::int64_t outputBytes = 0;
    std::vector<int> producers;              // instance ids (non-redundant edges only)
    std::vector<std::int64_t> producerBytes; // per producer: bytes of its slice this instance reads
    std::vector<int> consumers;
    // Algo. 4 (scopes.h): the core binding of its output (per output dim), whether
    // its output is declared in GB (a consumer inferred another binding), and per
    // producer whether the slice read needs a redistribution (Fig. 9 right).
    std::vector<int> binding; // empty until Algo. 4 ran: the sub-graph's plain binding
    bool scopeGB = false;
    std::vector<char> redistribute; // parallel to producers
};

// The §5.3 variants (Fig. 15): outputs kept in LLB/GB only; kept in L1/LB;
// plus instance split and ordering; plus across-layer scheduling (full).
enum class Variant { Llb, L1, Split, Full };

// What every step reads.
struct Context {
    const Graph &graph;
    const Device &device;
    const CostModel &cost;
    DecisionContext &decisions;
    Trace &trace;
    std::int64_t lbBytes = 0; // capacity an instance may use: LB per core × cores of a cluster
    int cores = 1;            // cores of one cluster an instance is spread over
    int clusters = 1;         // clusters the batch is split over (data parallelism, §2.1)
    int iterations = 1;       // in-cluster loop iterations over the batch (§5.1, Table 1 "iter.")
    int batchParts() const { return clusters * iterations; }
    int clusterOfPart(int k) const { return k % clusters; }
    int iterationOfPart(int k) const { return k / clusters; }
    std::int64_t lbPerCore = 0;    // LB of one core (the device's fastest level)
    std::int64_t gbBytes = 0;      // GB of one cluster for activations (the next level)
    std::int64_t weightBudget = 0; // GB of one cluster promoted weights may take (§4.4): what the
                                   // activations leave free, at most this (lowering.h)
    bool recomputeCheck = true;
    bool hoist = false; // weights GB → LB as tasks of their own (lowering.h)
    Variant variant = Variant::Full;
    bool split() const { return variant == Variant::Split || variant == Variant::Full; }
    bool overlap() const { return variant == Variant::Full; }
    std::vector<std::int32_t> rank;    // topological rank per node
    std::vector<double> nodeComputeNs; // cost model's compute time per node, -1 until asked
    std::function<bool()> cancelled;   // may be empty
};

// The sub-graph output tensor.
TensorId outputOf(const Graph &g, const SubGraph &sg);
// Peak bytes of live activations while the nodes run in their order: external
// activation inputs, each node's outputs while still needed (§3.1 "peak").
std::int64_t peakFootprint(const Graph &g, const std::vector<NodeId> &nodes);
// Sub-graph ids producing inputs of / consuming outputs of `sg` (distinct, sorted).
std::vector<int> producersOf(const Graph &g, const std::vector<SubGraph> &sgs, const std::vector<int> &ofNode, int sg);
std::vector<int> consumersOf(const Graph &g, const std::vector<SubGraph> &sgs, const std::vector<int> &ofNode, int sg);
// Node names of a sub-graph (decision key scopes).
std::vector<std::string> nodeNames(const Graph &g, const std::vector<NodeId> &nodes);
// "a+3" style short label.
std::string subgraphLabel(const Graph &g, const SubGraph &sg);
// One cluster's share of a shape: dim 0 (the batch) divided by `parts`.
Shape clusterShape(Shape shape, int parts);
// Do two regions of equal rank overlap? (No allocation: the hot loop of edge finding.)
bool regionsOverlap(const ops::Region &a, const ops::Region &b);
// The device unit (index) running a sub-graph's heaviest op class (gemm first), -1 if none.
std::int32_t dominantUnit(const Graph &g, const Device &dev, const SubGraph &sg);
// Cores an instance runs on: its Algo. 4 binding, else its sub-graph's.
int instanceCores(const SubGraph &sg, const Instance &inst);
// §4.4 (Fig. 13): may the instance at position p run beside the one at p + 1
// (full variant, different compute units)? Sized for every position of `order`.
std::vector<char> overlapWithNext(const Context &ctx, const std::vector<SubGraph> &subgraphs,
                                  const std::vector<Instance> &instances, const std::vector<int> &order);
// Bytes of a region of a tensor.
std::int64_t regionBytes(const Tensor &t, const ops::Region &r);

} // namespace tessera::graphturbo
