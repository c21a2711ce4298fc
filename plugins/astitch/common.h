// AStitch's working state shared by its steps (stitching, levels, lowering):
// the kernels in issue order, their cluster parts and the regions each part
// computes and reads.
#pragma once

#include "core/hw/device.h"
#include "core/ir/graph.h"
#include "core/ops/ops.h"
#include "core/plan/plan.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera {
class CostModel;
class DecisionContext;
class Trace;
} // namespace tessera

namespace tessera::astitch {

struct Context {
    const Graph &graph;
    const Device &device;
    const CostModel &cost;
    DecisionContext &decisions;
    Trace &trace;
    int clusters = 1;           // clusters the batch is spread over
    int cores = 1;              // cores of a cluster a kernel runs on
    std::int64_t lbPerCore = 0; // the fastest level per core
    std::int64_t gbBytes = 0;   // the next level per cluster
    std::function<bool()> cancelled;
};

// One cluster's share of a kernel.
struct Part {
    int cluster = 0;
    std::vector<NodeTile> tiles;              // empty: the whole kernel
    std::map<TensorId, ops::Region> computed; // outputs of its nodes, whole tensor coordinates
    std::map<TensorId, ops::Region> read;     // tensors from outside the kernel
};

struct StitchKernel {
    std::vector<NodeId> nodes; // topological order
    bool compute = false;      // a compute-intensive op (one per kernel)
    bool opaque = false;
    std::vector<TensorId> outputs; // escaping tensors (read outside or graph outputs)
    std::vector<Part> parts;       // one per cluster its batch is spread over (A3 fills it)
};

// "conv1 +3" style name of a kernel.
std::string kernelLabel(const Graph &g, const StitchKernel &k);
// The device level of A3's level index: 0 the fastest, 1 the next, 2 the slowest.
std::string levelName(const Device &dev, int level);

} // namespace tessera::astitch
