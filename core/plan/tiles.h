// Tile arithmetic over a kernel: which region of every tensor a task touches.
//
// Given the output tiles a task computes for its kernel's output nodes, walks
// the kernel's nodes in reverse topological order and asks ops::inputRegions
// for what each node needs (Welder's Propagate, welder-osdi23 §3.1, on one
// kernel). The verifier and the reference backend both use it.
#pragma once

#include "core/plan/plan.h"
#include "core/support/status.h"

#include <map>
#include <vector>

namespace tessera {

// Region algebra on half-open boxes of equal rank.
ops::Region regionIntersect(const ops::Region &a, const ops::Region &b);
ops::Region regionHull(const ops::Region &a, const ops::Region &b); // bounding box; empty a → b
bool regionEmpty(const ops::Region &r);
bool regionContains(const ops::Region &outer, const ops::Region &inner);

// Nodes of `kernelNodes` whose outputs are used outside the kernel or are graph outputs.
std::vector<NodeId> kernelOutputNodes(const Graph &g, const std::vector<NodeId> &kernelNodes);

struct TaskRegions {
    std::map<TensorId, ops::Region> computed; // outputs of kernel nodes (whole tensor ids)
    std::map<TensorId, ops::Region> read;     // tensors from outside the kernel, clipped to bounds
    bool exact = true;                        // false when an opaque op forced a whole-tensor assumption
};

// Regions for one compute task. A kernel output node without a tile computes its
// whole outputs; an empty `tiles` means every node computes its whole outputs.
Expected<TaskRegions> taskRegions(const Graph &g, const Kernel &kernel, const std::vector<NodeTile> &tiles);

// What one node output of a compute task writes, in kernel node order: a
// kernel output node with tiles writes exactly its tiles, unless the kernel
// itself reads more of that tensor (a halo); every other output writes what
// taskRegions computed for it. Outputs with nothing computed are left out.
// Backends execute a task as these writes.
struct NodeWrite {
    NodeId node = kInvalidId;
    int output = 0;
    std::vector<ops::Region> regions;
};
std::vector<NodeWrite> taskWrites(const Graph &g, const Kernel &kernel, const Task &task, const TaskRegions &regions);

} // namespace tessera
