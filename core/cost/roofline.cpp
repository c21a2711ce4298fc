#include "core/cost/roofline.h"

#include "core/ops/ops.h"
#include "core/support/assert.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace tessera {

RooflineCostModel::RooflineCostModel(const Device &device) : m_device(device)
{
    TS_ASSERT_MSG(!device.levels.empty(), "a device needs at least one memory level");
}

const MemoryLevel *RooflineCostModel::levelOrSlowest(const std::string &name) const
{
    if (!name.empty())
        if (const MemoryLevel *l = m_device.level(name))
            return l;
    return &m_device.levels.back();
}

double RooflineCostModel::levelBandwidth(const MemoryLevel &l, double coreShare) const
{
    const double bw = l.bandwidthBytesPerSec > 0 ? l.bandwidthBytesPerSec : 1e9;
    return l.scope == MemoryScope::Shared ? bw : bw * coreShare;
}

double RooflineCostModel::computeNs(const Graph &g, const Node &n, double coreShare, double workFraction) const
{
    const ops::OpCost cost = n.opaque ? ops::OpCost{} : ops::opCost(g, n);
    const double flops = cost.flops * workFraction;
    if (flops <= 0)
        return 0;
    const Tensor *out = g.output(n, 0);
    const DType dt = out && isFloat(out->dtype) ? out->dtype : DType::Float32;
    const ComputeUnit *unit = m_device.bestUnit(opClassOf(n.opType), dt);
    if (!unit)
        unit = m_device.bestUnit(opClassOf(n.opType), DType::Float32);
    double peak = unit ? m_device.unitPeakPerInstance(*unit, dt) * m_device.unitInstances(*unit) : 0;
    if (peak <= 0)
        peak = m_device.peakFlops(DType::Float32);
    if (peak <= 0)
        peak = 1e9; // a device without compute figures: 1 GFLOP/s, obviously wrong rather than infinite
    const double reachable = unit && unit->kind == UnitKind::Matrix ? 0.8 : 0.7;
    // Tail effect: output elements in whole waves over the cores in use.
    const double lanes = std::max(1.0, std::round(m_device.totalCores() * coreShare)) * 32.0;
    const double work = std::max(1.0, static_cast<double>(out ? out->elements() : 1) * workFraction);
    const double waves = std::ceil(work / lanes);
    const double efficiency = reachable * work / (waves * lanes);
    return flops / (peak * coreShare * efficiency) * 1e9;
}

TaskCost RooflineCostModel::kernelCost(const Graph &g, const std::vector<NodeId> &nodes, const KernelPlacement &p) const
{
    TaskCost cost;
    const double share = p.cores > 0 ? std::min(1.0, static_cast<double>(p.cores) / m_device.totalCores()) : 1.0;
    const std::unordered_set<NodeId> inKernel(nodes.begin(), nodes.end());
    const std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());

    // Classify tensors: external reads, escaping writes, intermediates.
    std::int64_t ioBytes = 0, internalBytes = 0, largestInternal = 0;
    std::unordered_set<TensorId> counted;
    double flops = 0;
    for (NodeId id : nodes) {
        const Node &n = g.node(id);
        cost.computeNs += computeNs(g, n, share, p.workFraction);
        if (!n.opaque)
            flops += ops::opCost(g, n).flops * p.workFraction;
        for (TensorId t : n.inputs) {
            if (t == kInvalidId || !counted.insert(t).second)
                continue;
            const Tensor &tt = g.tensor(t);
            if (tt.producer != kInvalidId && inKernel.count(tt.producer))
                continue; // intermediate, counted at its producer
            if (tt.isConstant())
                ioBytes += p.includeWeights ? tt.bytes() : 0;
            else
                ioBytes += static_cast<std::int64_t>(static_cast<double>(tt.bytes()) * p.workFraction);
        }
        for (TensorId t : n.outputs) {
            if (t == kInvalidId)
                continue;
            const Tensor &tt = g.tensor(t);
            const auto bytes = static_cast<std::int64_t>(static_cast<double>(tt.bytes()) * p.workFraction);
            bool escapes = graphOutputs.count(t) > 0;
            bool internal = false;
            for (NodeId c : tt.consumers)
                (inKernel.count(c) ? internal : escapes) = true;
            if (escapes)
                ioBytes += bytes;
            if (internal) {
                internalBytes += 2 * bytes; // written once, read once
                largestInternal = std::max(largestInternal, bytes);
            }
        }
    }

    const MemoryLevel *io = levelOrSlowest(p.ioLevel);
    const MemoryLevel *mid = nullptr;
    if (!p.intermediateLevel.empty())
        mid = m_device.level(p.intermediateLevel);
    if (!mid)
        for (const MemoryLevel &l : m_device.levels)
            if (m_device.totalCapacity(l) >= largestInternal) {
                mid = &l;
                break;
            }
    if (!mid)
        mid = io;

    double memoryNs = 0;
    auto charge = [&](const MemoryLevel &l, std::int64_t bytes) {
        if (bytes <= 0)
            return;
        cost.bytesByLevel[l.name] += bytes;
        memoryNs += static_cast<double>(bytes) / levelBandwidth(l, share) * 1e9;
        cost.energyJ += static_cast<double>(bytes) * l.energyPerBytePj * 1e-12;
    };
    charge(*io, ioBytes);
    charge(*mid, internalBytes);

    cost.timeNs = std::max(cost.computeNs, memoryNs) + m_device.overheads.kernelLaunchNs;
    const Tensor *first = nodes.empty() ? nullptr : g.output(g.node(nodes.front()), 0);
    const DType dt = first && isFloat(first->dtype) ? first->dtype : DType::Float32;
    double pj = m_device.energyPerOpPj(dt, UnitKind::Matrix);
    if (pj <= 0)
        pj = m_device.energyPerOpPj(dt, UnitKind::Vector);
    cost.energyJ += flops * pj * 1e-12 + m_device.power.staticWatts * cost.timeNs * 1e-9;
    return cost;
}

TaskCost RooflineCostModel::transferCost(std::int64_t bytes, const std::string &fromLevel, const std::string &toLevel) const
{
    TaskCost cost;
    const MemoryLevel *from = levelOrSlowest(fromLevel);
    const MemoryLevel *to = levelOrSlowest(toLevel);
    const double bw = std::min(levelBandwidth(*from, 1.0), levelBandwidth(*to, 1.0));
    cost.timeNs = static_cast<double>(bytes) / bw * 1e9 + m_device.overheads.dmaSetupNs;
    cost.bytesByLevel[from->name] += bytes;
    if (to != from)
        cost.bytesByLevel[to->name] += bytes;
    cost.energyJ = static_cast<double>(bytes) * (from->energyPerBytePj + (to != from ? to->energyPerBytePj : 0)) * 1e-12 +
                   m_device.power.staticWatts * cost.timeNs * 1e-9;
    return cost;
}

double RooflineCostModel::syncNs() const { return m_device.overheads.syncNs; }

} // namespace tessera
