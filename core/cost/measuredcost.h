// Measured beats modelled (docs/cost-model.md "kinds"): a backend that can
// time a kernel on the device (the CPU backend, a GPU when present, a
// simulator) implements KernelMeter; MeasuredCostModel asks it first and the
// device's model only for what it cannot measure. A measured kernel keeps the
// model's launches, scaled so they run alone exactly as long as measured, so
// stages still account for launches and for streams sharing the cores; its
// TaskCost says Measured (or Simulated, from a simulator) and a task whose
// stage added modelled contention to it says Estimated.
#pragma once

#include "core/cost/costmodel.h"
#include "core/support/status.h"

#include <map>
#include <string>
#include <vector>

namespace tessera {

class KernelMeter
{
public:
    virtual ~KernelMeter() = default;
    // Measured (or Simulated): what the numbers are.
    virtual CostKind kind() const = 0;
    // Time of `nodes` as one kernel running alone, launch excluded; an error
    // when it cannot be measured (the model answers instead).
    virtual Expected<double> kernelNs(const Graph &g, const std::vector<NodeId> &nodes) = 0;
};

class MeasuredCostModel final : public CostModel
{
public:
    // Both must outlive this object.
    MeasuredCostModel(const CostModel &model, KernelMeter &meter) : m_model(model), m_meter(meter) {}

    std::string name() const override { return "measured+" + m_model.name(); }
    KernelEstimate estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                  const KernelPlacement &p) const override;
    // Shaped launches are not nodes the meter can time: the model's estimate.
    KernelEstimate estimateShapedKernel(const std::vector<ShapedLaunch> &launches) const override
    {
        return m_model.estimateShapedKernel(launches);
    }
    StageEstimate estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const override;
    double stageSpanNs(const std::vector<std::vector<const KernelEstimate *>> &streams) const override
    {
        return m_model.stageSpanNs(streams);
    }
    TaskCost transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const override
    {
        return m_model.transferCost(bytes, fromLevel, toLevel);
    }
    double syncNs() const override { return m_model.syncNs(); }

    std::int64_t measurements() const { return m_measurements; }

private:
    const CostModel &m_model;
    KernelMeter &m_meter;
    mutable std::map<std::vector<NodeId>, double> m_cache; // kernel nodes -> measured ns (NaN: failed)
    mutable std::int64_t m_measurements = 0;
};

} // namespace tessera
