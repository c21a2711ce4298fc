// Cost models estimate what a task costs on a device: time, bytes moved at
// each memory level, energy. Schedulers compare options with them; plans
// carry their estimates (TaskCost) per task.
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"

#include <string>
#include <vector>

namespace tessera {

struct Device;

// Where a kernel's data lives and how much of the machine it gets.
struct KernelPlacement {
    std::int32_t cores = 0;           // cores (GPU: SMs) used; 0 = the whole device
    std::string ioLevel;              // level of the kernel's external inputs/outputs ("" = slowest)
    std::string intermediateLevel;    // level of tensors produced and consumed inside ("" = fastest that fits)
    double workFraction = 1.0;        // fraction of the kernel's outputs computed (a tile or an instance)
    bool includeWeights = true;       // weights read from ioLevel (false when already resident)
};

class CostModel
{
public:
    virtual ~CostModel() = default;
    virtual std::string name() const = 0;
    // Cost of running `nodes` (in topological order) as one kernel.
    virtual TaskCost kernelCost(const Graph &g, const std::vector<NodeId> &nodes, const KernelPlacement &p) const = 0;
    // Cost of moving `bytes` from one memory level to another ("" = slowest).
    virtual TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const = 0;
    // Cost of one synchronisation (stage barrier) on the device.
    virtual double syncNs() const = 0;
};

} // namespace tessera
