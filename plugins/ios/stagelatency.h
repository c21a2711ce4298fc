// Stage latency for the IOS search (ios thesis §3.2, GenerateStage L23–33:
// "latency of parallel execution of {S'_i}" and "latency of merged operator").
// The artifact measures every stage on the GPU; Tessera asks a pluggable
// StageLatencyModel:
//
//  (a) ModelStageLatency — the device's cost model (core/cost/devicecost.h,
//      docs/cost-model.md), the same one every plan is costed with: a
//      concurrent stage is its groups as streams of kernels (one per unit,
//      units in order), a merge stage is one kernel of the merged units (the
//      model merges their convolutions), then the device synchronisation
//      (CostModel::syncNs). The plan lowered from a schedule is costed by the
//      same model stage by stage (core/sched/planbuilder.h), so a stage spans in the
//      plan what it cost in the search.
//  (b) MeasuredStageLatency — stage latencies from a StageRunner (a backend
//      that runs a stage: CUDA streams, one per group), cached per operator set
//      and strategy; a failed measurement falls back to another model.
#pragma once

#include "core/cost/costmodel.h"
#include "plugins/ios/iosformat.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera {

class StageLatencyModel
{
public:
    virtual ~StageLatencyModel() = default;
    virtual std::string name() const = 0;
    // Latency in ns of one stage, its synchronisation included. Concurrent:
    // `groups` are the streams, units in order. Merge: one group, the merged
    // convolutions (a single unit is a plain one-unit stage). +inf: cannot run.
    virtual double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const = 0;
};

class ModelStageLatency final : public StageLatencyModel
{
public:
    // `cost` must outlive this object; units' kernels are estimated once here.
    ModelStageLatency(const Graph &g, const IosUnitSet &units, const CostModel &cost);

    std::string name() const override { return m_cost.name(); }
    double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const override;

    // The kernel of one unit, and the merged kernel of conv units (for tests and views).
    const KernelEstimate &unitKernel(std::int32_t unit) const { return m_kernels[static_cast<std::size_t>(unit)]; }
    KernelEstimate mergedKernel(const std::vector<std::int32_t> &units) const;

private:
    void sortByRank(std::vector<NodeId> &nodes) const;

    const Graph &m_graph;
    const IosUnitSet &m_units;
    const CostModel &m_cost;
    std::vector<KernelEstimate> m_kernels; // per unit
    std::vector<bool> m_conv;              // per unit: a plain convolution (iosConvUnit)
    std::vector<std::int32_t> m_rank;      // topological rank per node
};

// A backend that can run one stage and time it (the artifact: 2 warm-ups,
// 6 repeats of 6 runs, CUDA events; each group on its own stream).
class StageRunner
{
public:
    virtual ~StageRunner() = default;
    virtual std::string deviceId() const = 0;
    virtual Expected<double> measureNs(IosStrategy strategy, const std::vector<std::vector<NodeId>> &groups) = 0;
};

class MeasuredStageLatency final : public StageLatencyModel
{
public:
    // `fallback` (may be null: +inf) answers when a measurement fails.
    MeasuredStageLatency(const Graph &g, const IosUnitSet &units, StageRunner &runner,
                         const StageLatencyModel *fallback = nullptr);

    std::string name() const override { return "measured:" + m_runner.deviceId(); }
    double stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const override;

    // Key: "<strategy>:" + groups of node names; lets a caller persist and preload measurements.
    const std::map<std::string, double> &cache() const { return m_cache; }
    void preload(const std::map<std::string, double> &measured) { m_cache.insert(measured.begin(), measured.end()); }
    std::int64_t measurements() const { return m_measurements; }
    const Status &firstFailure() const { return m_failure; }

private:
    const Graph &m_graph;
    const IosUnitSet &m_units;
    StageRunner &m_runner;
    const StageLatencyModel *m_fallback;
    mutable std::map<std::string, double> m_cache;
    mutable std::int64_t m_measurements = 0;
    mutable Status m_failure;
};

} // namespace tessera
