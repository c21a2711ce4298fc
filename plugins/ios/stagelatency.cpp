// Stage latency models of stagelatency.h; the formulas are documented there.
#include "plugins/ios/stagelatency.h"

#include "core/ops/ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

// Ops that only re-describe a tensor (or take a channel range of it): no kernel.
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

} // namespace

AnalyticGpuLatency::AnalyticGpuLatency(const Graph &g, const IosUnitSet &units, const Device &device)
    : m_graph(g), m_units(units)
{
    m_sms = std::max(1, device.smCount());
    double peak = device.peakFlops(DType::Float32);
    for (const ComputeUnit &u : device.units)
        for (const auto &[t, v] : u.peakOpsPerSec)
            if (peak <= 0)
                peak = std::max(peak, v);
    const double bandwidth = device.levels.empty() ? 1e11 : device.levels.back().bandwidthBytesPerSec;
    m_peakPerSm = std::max(peak, 1e9) / m_sms / 1e9;
    m_bandwidthPerSm = std::max(bandwidth, 1e9) / m_sms / 1e9;
    if (device.gpu) {
        const GpuParams &p = *device.gpu;
        m_gpu = true;
        m_warpSize = std::max(1, p.warpSize);
        m_maxBlocksPerSm = std::max(1, p.maxBlocksPerSm);
        m_maxThreadsPerSm = std::max(1, p.maxThreadsPerSm);
        m_registersPerSm = p.registersPerSm;
        m_maxRegsPerThread = std::max(1, p.maxRegistersPerThread);
        m_sharedPerSm = p.sharedMemPerSm;
        m_maxSharedPerBlock = p.maxSharedMemPerBlock;
        m_saturatingWarps = std::max(1.0, 0.25 * p.maxThreadsPerSm / m_warpSize);
    }
    m_launchNs = device.overheads.kernelLaunchNs;
    m_syncNs = device.overheads.syncNs;

    m_kernels.resize(units.units.size());
    m_conv.resize(units.units.size());
    for (std::size_t u = 0; u < units.units.size(); ++u) {
        const IosUnit &unit = units.units[u];
        m_conv[u] = iosConvUnit(g, unit);
        // Split the unit into kernels: each non-free op starts one, unless it
        // is element-wise and reads the previous op of the kernel (an epilogue).
        std::vector<std::vector<NodeId>> kernels;
        for (NodeId n : unit.nodes) {
            const Node &node = g.node(n);
            if (isFree(node.opType))
                continue;
            const bool epilogue = !kernels.empty() && opClassOf(node.opType) == OpClass::Elementwise &&
                                  std::any_of(node.inputs.begin(), node.inputs.end(), [&](TensorId t) {
                                      return t != kInvalidId && g.tensor(t).producer == kernels.back().back();
                                  });
            if (epilogue)
                kernels.back().push_back(n);
            else
                kernels.push_back({n});
        }
        for (const auto &nodes : kernels) {
            const Node &head = g.node(nodes.front());
            const Tensor *out = g.output(head, 0);
            const Shape shape = out ? out->shape : Shape{};
            const std::int64_t elements = out ? std::max<std::int64_t>(1, out->elements()) : 1;
            GpuKernel k;
            const Tensor *w = head.inputs.size() > 1 ? g.input(head, 1) : nullptr;
            if (head.opType == "Conv" && w && shape.size() >= 3 && w->shape.size() == shape.size()) {
                const Tensor *x = g.input(head, 0);
                k = convKernel(shape[0], x ? x->shape[1] : w->shape[1], shape[1], head.attrInt("group", 1),
                               product(w->shape, 2, w->shape.size()), 1, product(shape, 2, shape.size()), 1);
                k.flops = 0; // counted below from the op itself
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
            // FLOPs of every op; bytes of the tensors crossing the kernel's boundary.
            const std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
            std::unordered_set<TensorId> counted;
            for (NodeId n : nodes) {
                const Node &node = g.node(n);
                k.flops += ops::opCost(g, node).flops;
                for (TensorId t : node.inputs)
                    if (t != kInvalidId && !inside.count(g.tensor(t).producer) && counted.insert(t).second)
                        k.bytes += static_cast<double>(g.tensor(t).bytes());
                for (TensorId t : node.outputs) {
                    if (t == kInvalidId)
                        continue;
                    const Tensor &tt = g.tensor(t);
                    const bool escapes = std::any_of(tt.consumers.begin(), tt.consumers.end(),
                                                     [&](NodeId c) { return !inside.count(c); }) ||
                                         std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end();
                    if (escapes)
                        k.bytes += static_cast<double>(tt.bytes());
                }
            }
            m_kernels[u].push_back(finish(k));
        }
    }
}

GpuKernel AnalyticGpuLatency::convKernel(std::int64_t batch, std::int64_t inC, std::int64_t outC, std::int64_t groups,
                                         std::int64_t kh, std::int64_t kw, std::int64_t outH, std::int64_t outW) const
{
    GpuKernel k;
    groups = std::max<std::int64_t>(groups, 1);
    const std::int64_t positions = std::max<std::int64_t>(1, batch * outH * outW);
    if (groups > 1 && inC / groups <= 1) { // depthwise: one output per thread
        k.blocks = ceilDiv(positions * outC, kSimpleThreads);
        k.threadsPerBlock = kSimpleThreads;
        k.registersPerThread = kSimpleRegisters;
    } else {
        k.blocks = groups * ceilDiv(positions, kTile) * ceilDiv(std::max<std::int64_t>(1, outC / groups), kTile);
        k.tileFlops = 2.0 * kTile * kTile * static_cast<double>(inC / groups * kh * kw);
        k.threadsPerBlock = kGemmThreads;
        k.registersPerThread = kGemmRegisters;
        k.sharedBytesPerBlock = kGemmShared;
    }
    k.flops = 2.0 * static_cast<double>(positions) * static_cast<double>(outC) * static_cast<double>(inC / groups) *
              static_cast<double>(kh * kw);
    return k;
}

double AnalyticGpuLatency::blockWorkNs(const GpuKernel &k) const
{
    const auto blocks = static_cast<double>(std::max<std::int64_t>(1, k.blocks));
    return std::max(std::max(k.tileFlops, k.flops / blocks) / m_peakPerSm, k.bytes / blocks / m_bandwidthPerSm);
}

double AnalyticGpuLatency::blockNs(const GpuKernel &k, double resident) const
{
    const double c = blockWorkNs(k);
    if (!m_gpu)
        return c * resident;
    const double warps = std::ceil(static_cast<double>(k.threadsPerBlock) / m_warpSize);
    return c * resident / std::min(1.0, resident * warps / m_saturatingWarps);
}

GpuKernel AnalyticGpuLatency::finish(GpuKernel k) const
{
    k.blocks = std::max<std::int64_t>(1, k.blocks);
    k.threadsPerBlock = std::clamp(k.threadsPerBlock, 1, m_gpu ? m_maxThreadsPerSm : 1 << 20);
    int q = 1;
    if (m_gpu) {
        const int regs = std::clamp(k.registersPerThread, 1, m_maxRegsPerThread);
        q = std::min(m_maxBlocksPerSm, m_maxThreadsPerSm / k.threadsPerBlock);
        if (m_registersPerSm > 0)
            q = std::min(q, m_registersPerSm / (regs * k.threadsPerBlock));
        const std::int64_t shared = std::min(k.sharedBytesPerBlock, std::max<std::int64_t>(m_maxSharedPerBlock, 0));
        if (shared > 0 && m_sharedPerSm > 0)
            q = std::min<std::int64_t>(q, m_sharedPerSm / shared);
        q = std::max(q, 1);
    }
    k.residentBlocks = q;
    const std::int64_t slots = static_cast<std::int64_t>(m_sms) * q;
    const std::int64_t full = k.blocks / slots, rem = k.blocks % slots;
    double t = static_cast<double>(full) * blockNs(k, q);
    if (rem)
        t += blockNs(k, static_cast<double>(ceilDiv(rem, m_sms)));
    k.aloneNs = std::max(t, 1.0);
    k.demandSms = std::min<double>(m_sms, static_cast<double>(k.blocks) * blockWorkNs(k) / k.aloneNs);
    return k;
}

double AnalyticGpuLatency::streamsNs(const std::vector<std::vector<const GpuKernel *>> &streams) const
{
    // The host issues one kernel per launch overhead, round-robin over the
    // streams; a kernel starts once issued and its stream's previous kernel is done.
    struct Lane {
        const std::vector<const GpuKernel *> *kernels;
        std::size_t issued; // index of its first kernel's issue time in `issue`
        std::size_t next;
        bool running;
        double left;  // fraction of the running kernel still to do
        double until; // time to the lane's next event
    };
    thread_local std::vector<Lane> lanes; // the search calls this millions of times
    thread_local std::vector<double> issue;
    lanes.clear();
    issue.clear();
    std::size_t longest = 0, total = 0;
    for (const auto &s : streams)
        if (!s.empty()) {
            lanes.push_back({&s, total, 0, false, 0, 0});
            total += s.size();
            longest = std::max(longest, s.size());
        }
    issue.resize(total);
    double host = 0;
    for (std::size_t i = 0; i < longest; ++i)
        for (const Lane &l : lanes)
            if (i < l.kernels->size())
                issue[l.issued + i] = host += m_launchNs;
    double now = 0;
    const double sms = m_sms;
    while (!lanes.empty()) {
        double demand = 0;
        for (const Lane &l : lanes)
            if (l.running)
                demand += (*l.kernels)[l.next]->demandSms;
        const double speed = demand > sms ? sms / demand : 1.0;
        // Each lane's next event: its kernel ends, or its next kernel is issued.
        double step = std::numeric_limits<double>::infinity();
        for (Lane &l : lanes) {
            l.until = l.running ? l.left * (*l.kernels)[l.next]->aloneNs / speed
                                : std::max(0.0, issue[l.issued + l.next] - now);
            step = std::min(step, l.until);
        }
        for (Lane &l : lanes) {
            if (l.until <= step * (1 + 1e-12)) {
                if (!l.running) {
                    l.running = true;
                    l.left = 1.0;
                } else {
                    l.running = false;
                    if (++l.next == l.kernels->size())
                        l.kernels = nullptr;
                }
            } else if (l.running) {
                l.left -= step * speed / (*l.kernels)[l.next]->aloneNs;
            }
        }
        now += step;
        lanes.erase(std::remove_if(lanes.begin(), lanes.end(), [](const Lane &l) { return !l.kernels; }), lanes.end());
    }
    return now;
}

GpuKernel AnalyticGpuLatency::mergedKernel(const std::vector<std::int32_t> &units) const
{
    const IosConvInfo &first = *m_conv[static_cast<std::size_t>(units.front())];
    std::int64_t outC = 0, kh = 0, kw = 0;
    double epilogueFlops = 0, outBytes = 0;
    for (std::int32_t u : units) {
        const IosConvInfo &c = *m_conv[static_cast<std::size_t>(u)];
        outC += c.outChannels;
        kh = std::max(kh, c.kernelH);
        kw = std::max(kw, c.kernelW);
        const IosUnit &unit = m_units.units[static_cast<std::size_t>(u)];
        for (NodeId n : unit.nodes)
            if (n != c.conv && opClassOf(m_graph.node(n).opType) == OpClass::Elementwise)
                epilogueFlops += ops::opCost(m_graph, m_graph.node(n)).flops;
        if (const Tensor *out = m_graph.output(m_graph.node(unit.nodes.back()), 0))
            outBytes += static_cast<double>(out->bytes());
    }
    const auto eb = static_cast<double>(std::max<std::size_t>(1, dtypeSize(first.dtype)));
    GpuKernel k = convKernel(first.batch, first.inChannels, outC, 1, kh, kw, first.outH, first.outW);
    k.flops += epilogueFlops;
    k.bytes = eb * static_cast<double>(first.batch * first.inChannels * first.inH * first.inW) +
              eb * static_cast<double>(outC * first.inChannels * kh * kw + outC) + outBytes;
    return finish(k);
}

double AnalyticGpuLatency::stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const
{
    if (strategy == IosStrategy::Merge && groups.size() == 1 && groups[0].size() > 1) {
        for (std::int32_t u : groups[0])
            if (!m_conv[static_cast<std::size_t>(u)])
                return std::numeric_limits<double>::infinity();
        const GpuKernel merged = mergedKernel(groups[0]);
        return streamsNs({{&merged}}) + m_syncNs;
    }
    thread_local std::vector<std::vector<const GpuKernel *>> streams;
    streams.resize(std::max(streams.size(), groups.size()));
    for (auto &s : streams)
        s.clear();
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (std::int32_t u : groups[g])
            for (const GpuKernel &k : m_kernels[static_cast<std::size_t>(u)])
                streams[g].push_back(&k);
    return streamsNs(streams) + m_syncNs;
}

// ---- measured -----------------------------------------------------------------

MeasuredStageLatency::MeasuredStageLatency(const Graph &g, const IosUnitSet &units, StageRunner &runner,
                                           const StageLatencyModel *fallback)
    : m_graph(g), m_units(units), m_runner(runner), m_fallback(fallback)
{}

double MeasuredStageLatency::stageNs(IosStrategy strategy, const std::vector<std::vector<std::int32_t>> &groups) const
{
    std::string key(iosStrategyName(strategy));
    key += ':';
    std::vector<std::vector<NodeId>> nodes(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        key += g ? "|" : "";
        for (std::size_t i = 0; i < groups[g].size(); ++i) {
            const IosUnit &unit = m_units.units[static_cast<std::size_t>(groups[g][i])];
            for (std::size_t n = 0; n < unit.nodes.size(); ++n)
                key += (i || n ? "," : "") + m_graph.node(unit.nodes[n]).name;
            nodes[g].insert(nodes[g].end(), unit.nodes.begin(), unit.nodes.end());
        }
    }
    if (auto it = m_cache.find(key); it != m_cache.end())
        return it->second;
    ++m_measurements;
    Expected<double> ns = m_runner.measureNs(strategy, nodes);
    if (ns) {
        m_cache.emplace(std::move(key), *ns);
        return *ns;
    }
    if (m_failure.isOk())
        m_failure = ns.status();
    return m_fallback ? m_fallback->stageNs(strategy, groups) : std::numeric_limits<double>::infinity();
}

} // namespace tessera
