// RooflineCostModel: the analytic cost model baselines use and the default for
// every algorithm until it brings its own (an inter-operator GPU model, PCGC's power model).
//
// Per kernel (nodes fused into one task):
//   compute  = Σ_node flops / (peak of the best unit for the node's op class
//              and dtype × share of cores × shape efficiency)
//   memory   = Σ_level bytes(level) / bandwidth(level) × share of cores for
//              per-core/per-cluster levels (shared levels keep full bandwidth)
//   time     = max(compute, memory) + kernel launch overhead
//   energy   = flops × pJ/op + Σ bytes × pJ/byte(level) + static W × time
// Bytes: tensors entering or leaving the kernel move at the I/O level (the
// slowest level unless placed); tensors produced and consumed inside the
// kernel move at the intermediate level (the fastest level whose total
// capacity holds the largest of them, else the I/O level). Weights are read
// once per task from the I/O level unless placement says they are resident.
// Shape efficiency models the tail effect (inter-operator scheduling thesis §2.3): output elements
// are spread over cores × lanes in whole waves, efficiency = work / (waves ×
// lanes), times a fixed fraction of peak reachable by the unit kind (0.8 for
// matrix units, 0.7 otherwise) — the roofline is an upper bound, measured
// kernels reach 60–90 % of it.
// Assumes: no overlap between kernels (the plan's critical path adds them),
// perfect reuse inside a kernel, every unit of a kind usable by every core.
#pragma once

#include "core/cost/costmodel.h"
#include "core/hw/device.h"

namespace tessera {

class RooflineCostModel final : public CostModel
{
public:
    explicit RooflineCostModel(const Device &device);
    std::string name() const override { return "roofline"; }
    TaskCost kernelCost(const Graph &g, const std::vector<NodeId> &nodes, const KernelPlacement &p) const override;
    TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const override;
    double syncNs() const override;

    // Compute time of one node alone on `coreShare` of the device (exposed for tests).
    double computeNs(const Graph &g, const Node &n, double coreShare, double workFraction) const;

private:
    const MemoryLevel *levelOrSlowest(const std::string &name) const;
    double levelBandwidth(const MemoryLevel &l, double coreShare) const;

    const Device &m_device;
};

} // namespace tessera
