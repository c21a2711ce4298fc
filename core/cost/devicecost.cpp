// The device cost model of devicecost.h; the formulas (S1–S4) are documented there.
#include "core/cost/devicecost.h"

#include "core/ops/ops.h"
#include "core/support/assert.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace tessera {

namespace {

constexpr int kTile = 64; // implicit-GEMM output tile (positions × channels)
constexpr int kGemmThreads = 256, kGemmRegisters = 126;
constexpr std::int64_t kGemmShared = 16 << 10;
constexpr int kSimpleThreads = 256, kSimpleRegisters = 32;

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return (a + b - 1) / b;
}

// Ops that only re-describe a tensor (or take a channel range of it): no launch.
bool isFree(std::string_view op)
{
    return op == "Identity" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
           op == "Dropout" || op == "Slice";
}

std::int64_t product(const Shape &s, std::size_t from, std::size_t to)
{
    std::int64_t p = 1;
    for (std::size_t i = from; i < to && i < s.size(); ++i)
        p *= s[i];
    return p;
}

// A convolution that may merge with another (S1): plain (groups = 1), 4-D.
struct ConvKey {
    TensorId input = kInvalidId;
    std::vector<std::int64_t> strides, outSpatial;
    bool operator==(const ConvKey &) const = default;
};

std::optional<ConvKey> mergeKey(const Graph &g, const Node &n)
{
    if (n.opType != "Conv" || n.attrInt("group", 1) != 1 || n.inputs.empty())
        return std::nullopt;
    const Tensor *out = g.output(n, 0);
    const Tensor *w = n.inputs.size() > 1 ? g.input(n, 1) : nullptr;
    if (!out || !w || out->shape.size() != 4 || w->shape.size() != 4 || !w->isConstant())
        return std::nullopt;
    ConvKey k;
    // The value read, through re-describing ops (not slices: another slice is another value).
    TensorId t = n.inputs[0];
    while (t != kInvalidId && g.tensor(t).producer != kInvalidId) {
        const Node &p = g.node(g.tensor(t).producer);
        if (p.opType == "Slice" || !isFree(p.opType) || p.inputs.empty())
            break;
        t = p.inputs[0];
    }
    k.input = t;
    k.strides = n.attrInts("strides");
    k.outSpatial = {out->shape[2], out->shape[3]};
    return k;
}

// The type a launch computes in, which picks the unit and its peak: a float
// output's own type; int8 for 8-bit integer outputs (quantized ops, a graph at
// int8 precision: the devices quote one "i8" rate for signed and unsigned);
// float32 for the rest (index and shape arithmetic).
DType launchDtype(const Graph &g, const Node &n)
{
    const Tensor *out = g.output(n, 0);
    if (!out)
        return DType::Float32;
    if (isFloat(out->dtype))
        return out->dtype;
    if (out->dtype == DType::Int8 || out->dtype == DType::UInt8)
        return DType::Int8;
    return DType::Float32;
}

} // namespace

DeviceCostModel::DeviceCostModel(const Device &device) : m_device(device)
{
    TS_ASSERT_MSG(!device.levels.empty(), "a device needs at least one memory level");
    m_cores = std::max(1, device.totalCores());
    if (device.gpu) {
        m_gpu = true;
        const GpuParams &p = *device.gpu;
        m_saturatingWarps =
            std::max(1.0, device.calibration.latencyHidingOccupancy * p.maxThreadsPerSm / std::max(1, p.warpSize));
    }
}

Launch DeviceCostModel::convLaunch(std::int64_t batch, std::int64_t inC, std::int64_t outC, std::int64_t groups,
                                   std::int64_t kh, std::int64_t kw, std::int64_t outH, std::int64_t outW)
{
    Launch k;
    groups = std::max<std::int64_t>(groups, 1);
    const std::int64_t positions = std::max<std::int64_t>(1, batch * outH * outW);
    // Every group, depthwise included, is its own implicit GEMM (cuDNN 7.6's
    // grouped IMPLICIT_GEMM): a depthwise group's one output channel still
    // occupies a whole 64-wide tile of the block.
    k.blocks = groups * ceilDiv(positions, kTile) * ceilDiv(std::max<std::int64_t>(1, outC / groups), kTile);
    k.tileFlops = 2.0 * kTile * kTile * static_cast<double>(inC / groups * kh * kw);
    k.threadsPerBlock = kGemmThreads;
    k.registersPerThread = kGemmRegisters;
    k.sharedBytesPerBlock = kGemmShared;
    k.flops = 2.0 * static_cast<double>(positions) * static_cast<double>(outC) * static_cast<double>(inC / groups) *
              static_cast<double>(kh * kw);
    return k;
}

const MemoryLevel &DeviceCostModel::ioLevel(const KernelPlacement &p, double bytes) const
{
    if (!p.ioLevel.empty())
        if (const MemoryLevel *l = m_device.level(p.ioLevel))
            return *l;
    // The host's caches: the fastest level whose copies together hold the data.
    if (m_device.kind == DeviceKind::Cpu)
        for (const MemoryLevel &l : m_device.levels)
            if (l.scope != MemoryScope::PerUnit && static_cast<double>(m_device.totalCapacity(l)) >= bytes)
                return l;
    return m_device.levels.back();
}

double DeviceCostModel::blockNs(const Launch &k, double resident) const
{
    if (!m_gpu)
        return k.blockNs * resident;
    const double warps = std::ceil(static_cast<double>(k.threadsPerBlock) / std::max(1, m_device.gpu->warpSize));
    return k.blockNs * resident / std::min(1.0, resident * warps / m_saturatingWarps);
}

Launch DeviceCostModel::finish(Launch k, double peakPerCore, double bandwidthPerCore) const
{
    k.blocks = std::max<std::int64_t>(1, k.blocks);
    k.cores = std::clamp(k.cores, 1, m_cores);
    int q = 1;
    if (m_gpu) {
        const GpuParams &p = *m_device.gpu;
        k.threadsPerBlock = std::clamp(k.threadsPerBlock, 1, std::max(1, p.maxThreadsPerSm));
        const int regs = std::clamp(k.registersPerThread, 1, std::max(1, p.maxRegistersPerThread));
        q = std::min(p.maxBlocksPerSm, p.maxThreadsPerSm / k.threadsPerBlock);
        if (p.registersPerSm > 0)
            q = std::min(q, p.registersPerSm / (regs * k.threadsPerBlock));
        const std::int64_t shared = std::min(k.sharedBytesPerBlock, std::max<std::int64_t>(p.maxSharedMemPerBlock, 0));
        if (shared > 0 && p.sharedMemPerSm > 0)
            q = static_cast<int>(std::min<std::int64_t>(q, p.sharedMemPerSm / shared));
        q = std::max(q, 1);
    }
    k.residentBlocks = q;
    const auto blocks = static_cast<double>(k.blocks);
    const double computeNs = std::max(k.tileFlops, k.flops / blocks) / std::max(peakPerCore, 1e-9);
    const double memoryNs = k.bytes / blocks / std::max(bandwidthPerCore, 1e-9);
    k.blockNs = std::max(computeNs, memoryNs);
    k.memoryBound = memoryNs > computeNs;
    const std::int64_t slots = static_cast<std::int64_t>(k.cores) * q;
    const std::int64_t full = k.blocks / slots, rem = k.blocks % slots;
    double t = static_cast<double>(full) * blockNs(k, q);
    if (rem)
        t += blockNs(k, static_cast<double>(ceilDiv(rem, k.cores)));
    k.aloneNs = std::max(t, 1.0);
    k.demandCores = std::min<double>(k.cores, blocks * k.blockNs / k.aloneNs);
    return k;
}

KernelEstimate DeviceCostModel::estimateKernel(const Graph &g, const std::vector<NodeId> &nodes,
                                               const KernelPlacement &p) const
{
    // S1: launches of the kernel.
    struct Group {
        std::vector<NodeId> nodes;
        std::vector<NodeId> convs; // merged convolutions (S1), head first
        std::optional<ConvKey> key;
    };
    std::vector<Group> groups;
    std::unordered_map<NodeId, std::size_t> groupOf;
    const std::unordered_set<NodeId> inKernel(nodes.begin(), nodes.end());
    for (NodeId id : nodes) {
        const Node &n = g.node(id);
        if (isFree(n.opType))
            continue;
        std::optional<std::size_t> join;
        const std::optional<ConvKey> key = mergeKey(g, n);
        if (key) {
            for (std::size_t i = 0; i < groups.size() && !join; ++i)
                if (groups[i].key && *groups[i].key == *key)
                    join = i;
        } else if (opClassOf(n.opType) == OpClass::Elementwise) {
            for (TensorId t : n.inputs) {
                if (t == kInvalidId)
                    continue;
                const Tensor &tt = g.tensor(t);
                if (tt.producer == kInvalidId || !inKernel.count(tt.producer) || tt.consumers.size() != 1)
                    continue;
                if (auto it = groupOf.find(tt.producer); it != groupOf.end())
                    join = it->second;
            }
        }
        if (!join) {
            groups.push_back({{}, {}, key});
            join = groups.size() - 1;
        }
        Group &grp = groups[*join];
        grp.nodes.push_back(id);
        if (key)
            grp.convs.push_back(id);
        groupOf[id] = *join;
    }

    KernelEstimate est;
    const std::unordered_set<TensorId> graphOutputs(g.outputs.begin(), g.outputs.end());
    const double wf = std::clamp(p.workFraction, 0.0, 1.0);
    int placementCores = p.cores > 0 ? std::min(p.cores, m_cores) : m_cores;
    for (const Group &grp : groups) {
        const Node &head = g.node(grp.nodes.front());
        const Tensor *out = g.output(head, 0);
        const Shape shape = out ? out->shape : Shape{};
        const std::int64_t elements = out ? std::max<std::int64_t>(1, out->elements()) : 1;
        const Tensor *w = head.inputs.size() > 1 ? g.input(head, 1) : nullptr;
        Launch k;
        double flops = 0;
        if (grp.convs.size() > 1) {
            // A merged convolution: ΣCout with the largest kernel (smaller ones zero-padded).
            std::int64_t outC = 0, kh = 1, kw = 1;
            for (NodeId c : grp.convs) {
                const Tensor *cw = g.input(g.node(c), 1);
                outC += cw->shape[0];
                kh = std::max(kh, cw->shape[2]);
                kw = std::max(kw, cw->shape[3]);
            }
            const Tensor *x = g.input(head, 0);
            k = convLaunch(shape[0], x ? x->shape[1] : w->shape[1], outC, 1, kh, kw, shape[2], shape[3]);
            flops = k.flops;
            for (NodeId n : grp.nodes)
                if (std::find(grp.convs.begin(), grp.convs.end(), n) == grp.convs.end())
                    flops += ops::opCost(g, g.node(n)).flops;
        } else {
            if (head.opType == "Conv" && w && shape.size() >= 3 && w->shape.size() == shape.size()) {
                const Tensor *x = g.input(head, 0);
                k = convLaunch(shape[0], x ? x->shape[1] : w->shape[1], shape[1], head.attrInt("group", 1),
                               product(w->shape, 2, w->shape.size()), 1, product(shape, 2, shape.size()), 1);
            } else if ((head.opType == "MatMul" || head.opType == "Gemm") && shape.size() >= 2) {
                k.blocks = product(shape, 0, shape.size() - 2) * ceilDiv(shape[shape.size() - 2], kTile) *
                           ceilDiv(shape.back(), kTile);
                const Tensor *a = g.input(head, 0);
                const bool transA = head.opType == "Gemm" && head.attrInt("transA", 0);
                const std::int64_t depth = a && !a->shape.empty() ? a->shape[transA ? 0 : a->shape.size() - 1] : 1;
                k.tileFlops = 2.0 * kTile * kTile * static_cast<double>(depth);
                k.threadsPerBlock = kGemmThreads;
                k.registersPerThread = kGemmRegisters;
                k.sharedBytesPerBlock = kGemmShared;
            } else {
                const OpClass c = opClassOf(head.opType);
                k.blocks = ceilDiv(elements, c == OpClass::Elementwise || c == OpClass::Movement ? 4 * kSimpleThreads
                                                                                                 : kSimpleThreads);
                k.threadsPerBlock = kSimpleThreads;
                k.registersPerThread = kSimpleRegisters;
            }
            for (NodeId n : grp.nodes)
                if (!g.node(n).opaque)
                    flops += ops::opCost(g, g.node(n)).flops;
        }
        // Bytes of the tensors crossing the launch's boundary: those that also cross the kernel's
        // (and weights) move at the I/O level; with a named intermediate level, those produced and
        // consumed inside the kernel move there (an instance whose layers keep their tensors in a core's local buffer).
        const std::unordered_set<NodeId> inside(grp.nodes.begin(), grp.nodes.end());
        const bool splitLevels = !p.intermediateLevel.empty() && m_device.level(p.intermediateLevel);
        const MemoryLevel *inLevel = p.inputLevel.empty() ? nullptr : m_device.level(p.inputLevel);
        std::unordered_set<TensorId> counted;
        double bytes = 0, innerBytes = 0, inputBytes = 0;
        std::map<const MemoryLevel *, double> weightBytes; // weights read at a named level
        // A tensor the launch reads only as a Gather's data reads at most the gathered elements
        // (one per output element), not its whole table: BERT's 94 MB word embeddings for 128
        // tokens a sentence. Per such tensor, the launch's gathered bytes (its outputs', whole).
        std::unordered_map<TensorId, double> gathered;
        for (NodeId n : grp.nodes)
            for (TensorId t : g.node(n).inputs)
                if (t != kInvalidId && !gathered.count(t)) {
                    double sum = 0;
                    bool onlyGathered = true;
                    for (NodeId c : g.tensor(t).consumers) {
                        if (!inside.count(c))
                            continue;
                        const Node &cn = g.node(c);
                        const Tensor *o = g.output(cn, 0);
                        if (cn.opType != "Gather" || cn.inputs.empty() || cn.inputs[0] != t || !o ||
                            std::count(cn.inputs.begin(), cn.inputs.end(), t) != 1) {
                            onlyGathered = false;
                            break;
                        }
                        sum += static_cast<double>(o->elements()) * static_cast<double>(dtypeSize(g.tensor(t).dtype));
                    }
                    gathered[t] = onlyGathered ? sum : -1.0;
                }
        const auto readOf = [&](TensorId t, double full) {
            const double cap = gathered.at(t);
            return cap >= 0 ? std::min(full, cap * wf) : full;
        };
        for (NodeId n : grp.nodes) {
            const Node &node = g.node(n);
            for (TensorId t : node.inputs) {
                if (t == kInvalidId || inside.count(g.tensor(t).producer) || !counted.insert(t).second)
                    continue;
                const Tensor &tt = g.tensor(t);
                const auto named = tt.isConstant() ? p.weightReads.find(t) : p.weightReads.end();
                const MemoryLevel *at = named == p.weightReads.end() ? nullptr : m_device.level(named->second.level);
                if (at)
                    weightBytes[at] += readOf(t, std::max(0.0, named->second.bytes));
                else if (named != p.weightReads.end())
                    bytes += readOf(t, std::max(0.0, named->second.bytes));
                else if (tt.isConstant())
                    bytes += p.includeWeights ? readOf(t, static_cast<double>(tt.bytes())) : 0.0;
                else if (splitLevels && inKernel.count(tt.producer))
                    innerBytes += readOf(t, static_cast<double>(tt.bytes()) * wf);
                else if (inLevel)
                    inputBytes += readOf(t, static_cast<double>(tt.bytes()) * wf);
                else
                    bytes += readOf(t, static_cast<double>(tt.bytes()) * wf);
            }
            for (TensorId t : node.outputs) {
                if (t == kInvalidId)
                    continue;
                const Tensor &tt = g.tensor(t);
                const auto outsideOf = [&](const std::unordered_set<NodeId> &set) {
                    return graphOutputs.count(t) || std::any_of(tt.consumers.begin(), tt.consumers.end(),
                                                                [&](NodeId c) { return !set.count(c); });
                };
                if (!outsideOf(inside))
                    continue;
                if (splitLevels && !outsideOf(inKernel))
                    innerBytes += static_cast<double>(tt.bytes()) * wf;
                else
                    bytes += static_cast<double>(tt.bytes()) * wf;
            }
        }
        k.flops = flops * wf;
        k.bytes = bytes;
        if (wf < 1)
            k.blocks =
                std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(static_cast<double>(k.blocks) * wf)));

        // The unit that runs it and the level its data moves at.
        const DType dt = launchDtype(g, head);
        const OpClass cls = opClassOf(head.opType);
        const ComputeUnit *unit = m_device.bestUnit(cls, dt);
        if (!unit)
            unit = m_device.bestUnit(cls, DType::Float32);
        int unitCores = m_cores;
        const double peak = peakPerCore(cls, dt, unitCores);
        k.cores = std::min(unitCores, placementCores);
        const MemoryLevel &level = ioLevel(p, bytes);
        // Two levels: one bandwidth that moves both parts in the time the two would take in turn,
        // and (with per-level memory efficiencies) the efficiency of that mix.
        const Calibration &cal = m_device.calibration;
        double seconds = bytes / level.bandwidthBytesPerSec;
        double effSeconds = seconds / cal.memoryEfficiencyFor(level.name);
        const MemoryLevel *inner = splitLevels ? m_device.level(p.intermediateLevel) : nullptr;
        if (inner && innerBytes > 0) {
            seconds += innerBytes / inner->bandwidthBytesPerSec;
            effSeconds += innerBytes / inner->bandwidthBytesPerSec / cal.memoryEfficiencyFor(inner->name);
            k.bytes += innerBytes;
        }
        if (inLevel && inputBytes > 0) {
            seconds += inputBytes / inLevel->bandwidthBytesPerSec;
            effSeconds += inputBytes / inLevel->bandwidthBytesPerSec / cal.memoryEfficiencyFor(inLevel->name);
            k.bytes += inputBytes;
        }
        for (const auto &[wl, wb] : weightBytes) {
            if (wb <= 0)
                continue;
            seconds += wb / wl->bandwidthBytesPerSec;
            effSeconds += wb / wl->bandwidthBytesPerSec / cal.memoryEfficiencyFor(wl->name);
            k.bytes += wb;
        }
        const double bandwidth = k.bytes > 0 && seconds > 0 ? k.bytes / seconds : level.bandwidthBytesPerSec;
        const double memoryEfficiency = cal.memoryEfficiencyByLevel.empty() || !(effSeconds > 0)
                                            ? cal.memoryEfficiencyFor(level.name)
                                            : seconds / effSeconds;
        const double bandwidthPerCore = bandwidth * memoryEfficiency / m_cores;
        const double computeEfficiency =
            cal.computeEfficiencyFor(efficiencyClassOf(head.opType, head.attrInt("group", 1)));
        k = finish(k, peak * computeEfficiency / 1e9, bandwidthPerCore / 1e9);

        est.cost.bytesByLevel[level.name] += static_cast<std::int64_t>(bytes);
        est.cost.energyJ += bytes * level.energyPerBytePj * 1e-12;
        if (inner && innerBytes > 0) {
            est.cost.bytesByLevel[inner->name] += static_cast<std::int64_t>(innerBytes);
            est.cost.energyJ += innerBytes * inner->energyPerBytePj * 1e-12;
        }
        if (inLevel && inputBytes > 0) {
            est.cost.bytesByLevel[inLevel->name] += static_cast<std::int64_t>(inputBytes);
            est.cost.energyJ += inputBytes * inLevel->energyPerBytePj * 1e-12;
        }
        for (const auto &[wl, wb] : weightBytes) {
            est.cost.bytesByLevel[wl->name] += static_cast<std::int64_t>(wb);
            est.cost.energyJ += wb * wl->energyPerBytePj * 1e-12;
        }
        double pj = unit ? (unit->energyPerOpPj.count(dt) ? unit->energyPerOpPj.at(dt) : 0.0) : 0.0;
        if (pj <= 0)
            pj = m_device.energyPerOpPj(dt, UnitKind::Vector);
        est.cost.energyJ += k.flops * pj * 1e-12;
        est.launches.push_back(k);
    }
    return aloneKernel(std::move(est));
}

KernelEstimate DeviceCostModel::aloneKernel(KernelEstimate est) const
{
    const std::vector<std::vector<const KernelEstimate *>> alone{{&est}};
    const StageEstimate issued = stage(alone, true);
    const double energy = est.cost.energyJ;
    auto bytes = std::move(est.cost.bytesByLevel);
    est.cost = issued.costs[0][0];
    est.cost.bytesByLevel = std::move(bytes);
    est.cost.energyJ = energy + m_device.power.staticWatts * est.cost.timeNs * 1e-9;
    return est;
}

double DeviceCostModel::peakPerCore(OpClass c, DType dt, int &cores) const
{
    const ComputeUnit *unit = m_device.bestUnit(c, dt);
    if (!unit)
        unit = m_device.bestUnit(c, DType::Float32);
    cores = m_cores;
    double peak = 0;
    if (unit) {
        cores = unit->cores > 0 ? std::min(unit->cores, m_cores) : m_cores;
        const auto it = unit->peakOpsPerSec.find(unit->peakOpsPerSec.count(dt) ? dt : DType::Float32);
        peak = it == unit->peakOpsPerSec.end() ? 0.0 : it->second / cores;
    }
    if (peak <= 0)
        peak = m_device.peakFlops(DType::Float32) / m_cores;
    if (peak <= 0)
        peak = 1e9 / m_cores; // no compute figures at all: 1 GFLOP/s, obviously wrong rather than infinite
    return peak;
}

KernelEstimate DeviceCostModel::estimateShapedKernel(const std::vector<ShapedLaunch> &launches) const
{
    KernelEstimate est;
    for (const ShapedLaunch &s : launches) {
        int unitCores = m_cores;
        const double peak = peakPerCore(s.opClass, s.dtype, unitCores);
        // The level whose bytes take longest bounds the launch's memory time.
        const MemoryLevel *bound = &m_device.levels.back();
        double worst = 0;
        for (const auto &[name, bytes] : s.bytesByLevel) {
            const MemoryLevel *l = name.empty() ? &m_device.levels.back() : m_device.level(name);
            if (!l || bytes <= 0)
                continue;
            const double t = bytes / std::max(l->bandwidthBytesPerSec, 1.0);
            if (t > worst) {
                worst = t;
                bound = l;
            }
            est.cost.bytesByLevel[l->name] += static_cast<std::int64_t>(bytes);
            est.cost.energyJ += bytes * l->energyPerBytePj * 1e-12;
        }
        Launch k;
        k.flops = s.flops;
        k.bytes = worst * bound->bandwidthBytesPerSec;
        k.blocks = s.blocks;
        k.threadsPerBlock = s.threadsPerBlock;
        k.registersPerThread = s.registersPerThread;
        k.sharedBytesPerBlock = s.sharedBytesPerBlock;
        k.cores = unitCores;
        // The bounding level's own efficiency; a shaped launch knows its op class only, so a GEMM takes "gemm".
        const double bandwidthPerCore =
            bound->bandwidthBytesPerSec * m_device.calibration.memoryEfficiencyFor(bound->name) / m_cores;
        k = finish(k, peak * m_device.calibration.computeEfficiencyFor(opClassName(s.opClass)) / 1e9,
                   bandwidthPerCore / 1e9);
        if (s.atomics > 0 && m_device.overheads.atomicNs > 0) {
            const std::int64_t slots = std::max<std::int64_t>(1, static_cast<std::int64_t>(k.cores) * k.residentBlocks);
            const auto waves = static_cast<double>(ceilDiv(k.blocks, slots));
            k.waitNs = waves * s.atomics / static_cast<double>(k.blocks) * m_device.overheads.atomicNs;
            k.aloneNs += k.waitNs;
            k.demandCores = std::min<double>(k.cores, static_cast<double>(k.blocks) * k.blockNs / k.aloneNs);
        }
        if (s.deviceCalls > 0 && m_device.overheads.deviceLaunchNs > 0) {
            k.callNs = s.deviceCalls * m_device.overheads.deviceLaunchNs;
            k.aloneNs += k.callNs;
            k.demandCores = std::min<double>(k.cores, static_cast<double>(k.blocks) * k.blockNs / k.aloneNs);
        }
        est.cost.energyJ += k.flops * m_device.energyPerOpPj(s.dtype, UnitKind::Vector) * 1e-12;
        est.launches.push_back(k);
    }
    return aloneKernel(std::move(est));
}

double DeviceCostModel::simulate(const std::vector<std::vector<const KernelEstimate *>> &streams,
                                 std::vector<Event> *events, bool issuedAlone) const
{
    // The host issues one launch per overhead, round-robin over the streams;
    // a launch starts once issued and its stream's previous launch has ended.
    struct Lane {
        std::size_t stream;
        std::vector<std::pair<std::size_t, const Launch *>> launches; // (kernel, launch)
        std::size_t firstIssue; // index of its first launch's issue time in `issue`
        std::size_t next;
        bool running;
        double left;  // fraction of the running launch still to do
        double until; // time to the lane's next event
    };
    thread_local std::vector<Lane> lanes; // the searches call this millions of times
    thread_local std::vector<double> issue;
    lanes.clear();
    issue.clear();
    std::size_t longest = 0, total = 0;
    for (std::size_t s = 0; s < streams.size(); ++s) {
        Lane lane{s, {}, total, 0, false, 0, 0};
        for (std::size_t k = 0; k < streams[s].size(); ++k)
            for (const Launch &l : streams[s][k]->launches)
                lane.launches.emplace_back(k, &l);
        if (lane.launches.empty())
            continue;
        total += lane.launches.size();
        longest = std::max(longest, lane.launches.size());
        lanes.push_back(std::move(lane));
    }
    issue.resize(total);
    // S5: a stage on one stream was issued while the stage before it ran (no
    // synchronisation between them): its first launch waits for no issue.
    const double launchNs = m_device.overheads.kernelLaunchNs;
    double host = lanes.size() == 1 && !issuedAlone ? -launchNs : 0;
    for (std::size_t i = 0; i < longest; ++i)
        for (const Lane &l : lanes)
            if (i < l.launches.size())
                issue[l.firstIssue + i] = host += launchNs;
    double now = 0;
    const double cores = m_cores;
    std::size_t live = lanes.size();
    while (live) {
        double demand = 0;
        for (const Lane &l : lanes)
            if (l.running)
                demand += l.launches[l.next].second->demandCores;
        const double speed = demand > cores ? cores / demand : 1.0;
        // Each lane's next event: its launch ends, or its next launch is issued.
        double step = std::numeric_limits<double>::infinity();
        for (Lane &l : lanes) {
            if (l.next == l.launches.size())
                continue;
            l.until = l.running ? l.left * l.launches[l.next].second->aloneNs / speed
                                : std::max(0.0, issue[l.firstIssue + l.next] - now);
            step = std::min(step, l.until);
        }
        now += step;
        for (Lane &l : lanes) {
            if (l.next == l.launches.size())
                continue;
            if (l.until <= step * (1 + 1e-12)) {
                if (!l.running) {
                    l.running = true;
                    l.left = 1.0;
                    if (events)
                        events->push_back({l.stream, l.launches[l.next].first, issue[l.firstIssue + l.next], now, 0});
                } else {
                    l.running = false;
                    if (events)
                        for (auto it = events->rbegin(); it != events->rend(); ++it)
                            if (it->stream == l.stream) {
                                it->endNs = now;
                                break;
                            }
                    if (++l.next == l.launches.size())
                        --live;
                }
            } else if (l.running) {
                l.left -= step * speed / l.launches[l.next].second->aloneNs;
            }
        }
    }
    return now;
}

double DeviceCostModel::stageSpanNs(const std::vector<std::vector<const KernelEstimate *>> &streams) const
{
    return simulate(streams, nullptr, false);
}

StageEstimate DeviceCostModel::estimateStage(const std::vector<std::vector<const KernelEstimate *>> &streams) const
{
    return stage(streams, false);
}

StageEstimate DeviceCostModel::stage(const std::vector<std::vector<const KernelEstimate *>> &streams,
                                     bool issuedAlone) const
{
    std::vector<Event> events;
    StageEstimate out;
    out.spanNs = simulate(streams, &events, issuedAlone);
    out.costs.resize(streams.size());
    out.endNs.resize(streams.size());
    for (std::size_t s = 0; s < streams.size(); ++s) {
        out.costs[s].resize(streams[s].size());
        out.endNs[s].assign(streams[s].size(), 0.0);
        for (std::size_t k = 0; k < streams[s].size(); ++k) {
            TaskCost &c = out.costs[s][k];
            c = streams[s][k]->cost; // bytes, energy, kind
            c.timeNs = c.computeNs = c.memoryNs = c.launchNs = c.contentionNs = c.syncNs = 0;
        }
    }
    // Per stream: launches in order, each from the end of the previous one.
    std::vector<double> streamEnd(streams.size(), 0.0);
    std::vector<std::size_t> kernelLaunch(streams.size(), 0);
    std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
        return a.stream != b.stream ? a.stream < b.stream : a.startNs < b.startNs;
    });
    std::size_t prevKernel = static_cast<std::size_t>(-1), prevStream = static_cast<std::size_t>(-1);
    for (const Event &e : events) {
        if (e.stream != prevStream) {
            prevKernel = static_cast<std::size_t>(-1);
            prevStream = e.stream;
        }
        if (e.kernel != prevKernel)
            kernelLaunch[e.stream] = 0;
        prevKernel = e.kernel;
        const KernelEstimate &ke = *streams[e.stream][e.kernel];
        const Launch &l = ke.launches[kernelLaunch[e.stream]++];
        TaskCost &c = out.costs[e.stream][e.kernel];
        const double from = streamEnd[e.stream];
        c.launchNs += std::max(0.0, e.startNs - from);
        (l.memoryBound ? c.memoryNs : c.computeNs) += l.aloneNs - l.waitNs - l.callNs;
        c.syncNs += l.waitNs;
        c.launchNs += l.callNs;
        c.contentionNs += std::max(0.0, (e.endNs - e.startNs) - l.aloneNs);
        c.timeNs += e.endNs - from;
        streamEnd[e.stream] = e.endNs;
        out.endNs[e.stream][e.kernel] = e.endNs;
    }
    // A kernel without launches (only reshapes) takes no time where its stream is.
    for (std::size_t s = 0; s < streams.size(); ++s) {
        double end = 0;
        for (std::size_t k = 0; k < streams[s].size(); ++k) {
            if (streams[s][k]->launches.empty())
                out.endNs[s][k] = end;
            end = out.endNs[s][k];
        }
    }
    return out;
}

TaskCost DeviceCostModel::transferCost(std::int64_t bytes, const std::string &fromLevel,
                                       const std::string &toLevel) const
{
    auto levelOrSlowest = [&](const std::string &name) -> const MemoryLevel & {
        if (!name.empty())
            if (const MemoryLevel *l = m_device.level(name))
                return *l;
        return m_device.levels.back();
    };
    TaskCost cost;
    const MemoryLevel &from = levelOrSlowest(fromLevel);
    const MemoryLevel &to = levelOrSlowest(toLevel);
    // The slower end bounds the transfer, at its own efficiency.
    const double fromBw = from.bandwidthBytesPerSec * m_device.calibration.memoryEfficiencyFor(from.name);
    const double toBw = to.bandwidthBytesPerSec * m_device.calibration.memoryEfficiencyFor(to.name);
    const double bw =
        m_device.calibration.memoryEfficiencyByLevel.empty()
            ? std::min(from.bandwidthBytesPerSec, to.bandwidthBytesPerSec) * m_device.calibration.memoryEfficiency
            : std::min(fromBw, toBw);
    cost.memoryNs = static_cast<double>(bytes) / std::max(bw, 1.0) * 1e9;
    cost.launchNs = m_device.overheads.dmaSetupNs;
    cost.timeNs = cost.memoryNs + cost.launchNs;
    cost.bytesByLevel[from.name] += bytes;
    if (&to != &from)
        cost.bytesByLevel[to.name] += bytes;
    cost.energyJ =
        static_cast<double>(bytes) * (from.energyPerBytePj + (&to != &from ? to.energyPerBytePj : 0)) * 1e-12 +
        m_device.power.staticWatts * cost.timeNs * 1e-9;
    return cost;
}

} // namespace tessera
