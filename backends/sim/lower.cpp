// S1 and S2 of the simulator (simulator.h): checks a plan against the device
// and turns every task into fixed delays and parts of work on resources.
#include "backends/sim/simulator.h"
#include "core/ops/ops.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace tessera::sim {

namespace {

Location taskLoc(const Task &t)
{
    return {.node = t.label.empty() ? "task " + std::to_string(t.id) : t.label};
}

std::string taskName(const Task &t)
{
    return t.label.empty() ? std::string(taskKindName(t.kind)) + " " + std::to_string(t.id) : t.label;
}

double regionVolume(const ops::Region &r)
{
    double v = 1;
    for (const ops::Interval &i : r)
        v *= static_cast<double>(i.size());
    return v;
}

class Lowering
{
public:
    Lowering(const Graph &g, const ExecutionPlan &plan, const Device &d, const LowerOptions &o)
        : m_g(g), m_plan(plan), m_d(d), m_opts(o)
    {
        if (o.computeDtype)
            m_byteScale =
                static_cast<double>(dtypeSize(*o.computeDtype)) / static_cast<double>(dtypeSize(DType::Float32));
    }

    Expected<LoweredPlan> run()
    {
        makeResources();
        for (const MemoryLevel &l : m_d.levels)
            m_out.levelCapacity.push_back(l.capacityBytes);
        m_bufferInstance.assign(m_plan.buffers.size(), -1);
        for (const Buffer &b : m_plan.buffers) {
            if (b.id != static_cast<BufferId>(&b - m_plan.buffers.data()))
                return Status::invalid("buffer " + std::to_string(b.id) + " is listed out of order");
            const int level = b.level.empty() ? static_cast<int>(m_d.levels.size()) - 1 : m_d.levelIndex(b.level);
            if (level < 0)
                return Status::invalid("buffer " + std::to_string(b.id) + " is placed in level '" + b.level +
                                       "' which " + m_d.id + " does not have");
            if (b.bytes < 0)
                return Status::invalid("buffer " + std::to_string(b.id) + " has negative size");
            if (b.tensor != kInvalidId && (b.tensor < 0 || static_cast<std::size_t>(b.tensor) >= m_g.tensorCount()))
                return Status::invalid("buffer " + std::to_string(b.id) + " holds tensor " + std::to_string(b.tensor) +
                                       " which the graph does not have");
            const int instances = m_d.instances(m_d.levels[static_cast<std::size_t>(level)]);
            if (b.scopeIndex >= instances)
                return Status::invalid("buffer " + std::to_string(b.id) + " is in instance " +
                                       std::to_string(b.scopeIndex) + " of " + m_d.levels[level].name + " but " +
                                       m_d.id + " has " + std::to_string(instances));
            m_bufferLevel.push_back(level);
        }
        for (const Task &t : m_plan.tasks) {
            if (m_opts.cancel && m_opts.cancel->load(std::memory_order_relaxed))
                return Status::error(ErrorCode::Cancelled, "compiling the plan was cancelled");
            auto st = lowerTask(t);
            if (!st)
                return st.status();
            m_out.tasks.push_back(std::move(*st));
        }
        m_out.queueCount = static_cast<int>(m_queues.size());
        return std::move(m_out);
    }

private:
    void makeResources()
    {
        const int cores = m_d.totalCores();
        m_unitResource.assign(m_d.units.size(), std::vector<int>(static_cast<std::size_t>(cores), -1));
        for (std::size_t u = 0; u < m_d.units.size(); ++u) {
            const ComputeUnit &unit = m_d.units[u];
            const int carrying = unit.cores > 0 ? std::min(unit.cores, cores) : cores;
            for (int c = 0; c < carrying; ++c) {
                m_unitResource[u][static_cast<std::size_t>(c)] = static_cast<int>(m_out.resources.size());
                m_out.resources.push_back(
                    {unit.name + " core " + std::to_string(c), static_cast<int>(unit.kind), unit.name});
            }
        }
        for (const MemoryLevel &l : m_d.levels) {
            std::vector<int> ids;
            const int n = m_d.instances(l);
            for (int i = 0; i < n; ++i) {
                ids.push_back(static_cast<int>(m_out.resources.size()));
                std::string name = l.name;
                if (l.scope == MemoryScope::PerCluster)
                    name += " cluster " + std::to_string(i);
                else if (l.scope != MemoryScope::Shared)
                    name += " " + std::to_string(i);
                m_out.resources.push_back({name, -1, {}});
            }
            m_levelResource.push_back(std::move(ids));
        }
    }

    // S2: the global cores a binding covers.
    Expected<std::vector<int>> coresOf(const Task &t) const
    {
        const Binding &b = t.binding;
        const int perCluster = m_d.topology.coresPerCluster;
        if (b.cluster >= m_d.topology.clusters)
            return Status::invalid("bound to cluster " + std::to_string(b.cluster) + " but " + m_d.id + " has " +
                                       std::to_string(m_d.topology.clusters),
                                   taskLoc(t));
        const int span = b.cluster >= 0 ? perCluster : m_d.totalCores();
        const int base = b.cluster >= 0 ? b.cluster * perCluster : 0;
        if (b.core >= 0 && (b.coreCount < 1 || b.core + b.coreCount > span))
            return Status::invalid("bound to cores [" + std::to_string(b.core) + ", " +
                                       std::to_string(b.core + b.coreCount) + ") but " + m_d.id + " has " +
                                       std::to_string(span) + (b.cluster >= 0 ? " per cluster" : ""),
                                   taskLoc(t));
        if (b.unit >= static_cast<int>(m_d.units.size()))
            return Status::invalid("bound to compute unit " + std::to_string(b.unit) + " but " + m_d.id + " has " +
                                       std::to_string(m_d.units.size()),
                                   taskLoc(t));
        std::vector<int> cores;
        const int first = b.core >= 0 ? b.core : 0;
        const int count = b.core >= 0 ? b.coreCount : span;
        for (int c = 0; c < count; ++c)
            cores.push_back(base + first + c);
        return cores;
    }

    // Instances of level `li` that `cores` touch.
    std::vector<int> levelInstances(int li, const std::vector<int> &cores) const
    {
        const MemoryLevel &l = m_d.levels[static_cast<std::size_t>(li)];
        std::set<int> out;
        for (int c : cores) {
            switch (l.scope) {
            case MemoryScope::Shared: out.insert(0); break;
            case MemoryScope::PerCluster: out.insert(c / m_d.topology.coresPerCluster); break;
            case MemoryScope::PerCore: out.insert(c); break;
            case MemoryScope::PerUnit: {
                const int perCore = std::max(1, m_d.instances(l) / std::max(1, m_d.totalCores()));
                out.insert(c * perCore);
                break;
            }
            }
        }
        return {out.begin(), out.end()};
    }

    // devicecost.h S3's unit choice for a node (or the bound unit).
    const ComputeUnit *unitFor(const Node &n, DType dt, int bound) const
    {
        if (bound >= 0)
            return &m_d.units[static_cast<std::size_t>(bound)];
        const OpClass cls = opClassOf(n.opType);
        if (const ComputeUnit *u = m_d.bestUnit(cls, dt))
            return u;
        if (const ComputeUnit *u = m_d.bestUnit(cls, DType::Float32))
            return u;
        const ComputeUnit *best = nullptr;
        for (const ComputeUnit &u : m_d.units) {
            auto it = u.peakOpsPerSec.find(DType::Float32);
            if (it != u.peakOpsPerSec.end() && (!best || it->second > best->peakOpsPerSec.at(DType::Float32)))
                best = &u;
        }
        return best ? best : (m_d.units.empty() ? nullptr : &m_d.units.front());
    }

    double peakPerInstance(const ComputeUnit &u, DType dt) const
    {
        auto it = u.peakOpsPerSec.find(dt);
        if (it == u.peakOpsPerSec.end())
            it = u.peakOpsPerSec.find(DType::Float32);
        if (it == u.peakOpsPerSec.end()) { // the unit's best rate for any dtype
            double best = 0;
            for (const auto &[t, p] : u.peakOpsPerSec)
                best = std::max(best, p);
            return best / std::max(1, m_d.unitInstances(u)) * std::max(1, u.countPerCore);
        }
        return it->second / std::max(1, m_d.unitInstances(u)) * std::max(1, u.countPerCore);
    }

    std::int64_t roundUp(std::int64_t bytes, int transaction) const
    {
        const std::int64_t t = std::max(1, transaction);
        return (bytes + t - 1) / t * t;
    }

    void addMemoryPart(SimTask &st, int li, const std::vector<int> &instances, std::int64_t bytes, bool write)
    {
        bytes = static_cast<std::int64_t>(std::ceil(static_cast<double>(bytes) * m_byteScale));
        if (bytes <= 0 || instances.empty())
            return;
        const MemoryLevel &l = m_d.levels[static_cast<std::size_t>(li)];
        bytes = roundUp(bytes, write ? l.writeTransactionBytes : l.readTransactionBytes);
        const double rate =
            m_d.bandwidthPerInstance(l) * m_d.calibration.memoryEfficiencyFor(l.name) * instances.size();
        Part p;
        for (int i : instances)
            p.resources.push_back(m_levelResource[static_cast<std::size_t>(li)][static_cast<std::size_t>(i)]);
        p.workNs = static_cast<double>(bytes) / rate * 1e9;
        st.parts.push_back(std::move(p));
        st.bytesByLevel[l.name] += bytes;
        st.energyPj += static_cast<double>(bytes) * l.energyPerBytePj;
        m_maxLatency = std::max(m_maxLatency, l.latencyNs);
    }

    int queue(std::pair<int, int> key)
    {
        auto [it, inserted] = m_queues.try_emplace(key, static_cast<int>(m_queues.size()));
        return it->second;
    }

    Expected<SimTask> lowerTask(const Task &t)
    {
        if (t.id != static_cast<TaskId>(&t - m_plan.tasks.data()))
            return Status::invalid("task " + std::to_string(t.id) + " is listed out of order", taskLoc(t));
        SimTask st;
        st.id = t.id;
        st.name = taskName(t);
        st.kind = t.kind;
        for (TaskId d : t.deps) {
            if (d < 0 || static_cast<std::size_t>(d) >= m_plan.tasks.size())
                return Status::invalid("depends on task " + std::to_string(d) + " which does not exist", taskLoc(t));
            st.deps.push_back(d);
        }
        auto cores = coresOf(t);
        if (!cores)
            return cores.status();
        m_maxLatency = 0;

        // Buffers: level instances (S2) and, for data movement, the bytes moved.
        for (const auto *list : {&t.reads, &t.writes})
            for (BufferId b : *list) {
                if (b < 0 || static_cast<std::size_t>(b) >= m_plan.buffers.size())
                    return Status::invalid("uses buffer " + std::to_string(b) + " which does not exist", taskLoc(t));
                const Buffer &buf = m_plan.buffers[static_cast<std::size_t>(b)];
                const int li = m_bufferLevel[static_cast<std::size_t>(b)];
                int &inst = m_bufferInstance[static_cast<std::size_t>(b)];
                if (inst < 0)
                    inst = buf.scopeIndex >= 0 ? buf.scopeIndex : levelInstances(li, {cores->front()}).front();
                bool seen = false;
                for (const BufferUse &u : st.buffers)
                    seen = seen || u.buffer == b;
                if (!seen)
                    st.buffers.push_back({b, li, inst, buf.bytes});
            }

        // S3: in-order queues.
        const Binding &bd = t.binding;
        const bool dataMovement = t.kind != TaskKind::Compute && t.kind != TaskKind::Barrier;
        if (bd.stream >= 0)
            st.queues.push_back(queue({0, bd.stream}));
        else if (bd.core >= 0)
            for (int c : *cores)
                st.queues.push_back(queue({1, c}));
        else if (bd.cluster >= 0 && !dataMovement)
            st.queues.push_back(queue({2, bd.cluster}));
        else if (!dataMovement)
            st.queues.push_back(queue({3, 0}));

        switch (t.kind) {
        case TaskKind::Compute: {
            if (t.kernel < 0 || static_cast<std::size_t>(t.kernel) >= m_plan.kernels.size())
                return Status::invalid("computes kernel " + std::to_string(t.kernel) + " which does not exist",
                                       taskLoc(t));
            st.hostIssued = true;
            st.fixedNs = 0; // the launch is the host's issue slot (S1)
            // A task of the kernel the previous compute task of each of its queues ran continues
            // that launch (another tile or instance of it, run as a loop inside the kernel).
            st.launches = st.queues.empty();
            for (int q : st.queues) {
                auto [it, inserted] = m_lastKernel.try_emplace(q, t.kernel);
                if (inserted || it->second != t.kernel)
                    st.launches = true;
                it->second = t.kernel;
            }
            // Tile fraction per node: its tiles' volume over its output's.
            std::map<NodeId, double> fraction;
            double maxFraction = t.tiles.empty() ? 1.0 : 0.0;
            for (const NodeTile &tile : t.tiles) {
                if (tile.node < 0 || static_cast<std::size_t>(tile.node) >= m_g.nodeCount())
                    return Status::invalid("has a tile of node " + std::to_string(tile.node) +
                                               " which the graph does not have",
                                           taskLoc(t));
                const Node &n = m_g.node(tile.node);
                double whole = 1;
                if (tile.output >= 0 && static_cast<std::size_t>(tile.output) < n.outputs.size() &&
                    n.outputs[static_cast<std::size_t>(tile.output)] != kInvalidId)
                    whole = static_cast<double>(std::max<std::int64_t>(
                        1, m_g.tensor(n.outputs[static_cast<std::size_t>(tile.output)]).elements()));
                const double f = tile.region.empty() ? 1.0 : std::min(1.0, regionVolume(tile.region) / whole);
                fraction[tile.node] += f;
                maxFraction = std::max(maxFraction, fraction[tile.node]);
            }
            // Work per unit, summed over the kernel's nodes.
            std::map<const ComputeUnit *, double> workNs;
            double best = -1;
            const ComputeUnit *dominant = nullptr;
            for (NodeId nid : m_plan.kernels[static_cast<std::size_t>(t.kernel)].nodes) {
                if (nid < 0 || static_cast<std::size_t>(nid) >= m_g.nodeCount())
                    return Status::invalid(
                        "kernel computes node " + std::to_string(nid) + " which the graph does not have", taskLoc(t));
                const Node &n = m_g.node(nid);
                DType dt =
                    !n.outputs.empty() && n.outputs[0] != kInvalidId ? m_g.tensor(n.outputs[0]).dtype : DType::Float32;
                if (dt == DType::Float32 && m_opts.computeDtype)
                    dt = *m_opts.computeDtype;
                if (dt == DType::UInt8) // devices quote one "i8" rate (devicecost's launch type)
                    dt = DType::Int8;
                const ComputeUnit *u = unitFor(n, dt, bd.unit);
                if (!u)
                    continue;
                auto f = fraction.find(nid);
                const double flops = ops::opCost(m_g, n).flops * (f == fraction.end() ? maxFraction : f->second);
                const double peak = peakPerInstance(*u, dt);
                if (peak <= 0 || flops <= 0)
                    continue;
                const double efficiency =
                    m_d.calibration.computeEfficiencyFor(efficiencyClassOf(n.opType, n.attrInt("group", 1)));
                const double ns = flops / (peak * efficiency * cores->size()) * 1e9;
                workNs[u] += ns;
                st.flops += flops;
                double pj = u->energyPerOpPj.count(dt) ? u->energyPerOpPj.at(dt) : 0.0;
                if (pj <= 0)
                    pj = m_d.energyPerOpPj(dt, UnitKind::Vector);
                st.energyPj += flops * pj;
                if (workNs[u] > best) {
                    best = workNs[u];
                    dominant = u;
                }
            }
            for (const auto &[u, ns] : workNs) {
                Part p;
                p.unitKind = static_cast<int>(u->kind);
                const auto ui = static_cast<std::size_t>(u - m_d.units.data());
                for (int c : *cores)
                    if (int r = m_unitResource[ui][static_cast<std::size_t>(c)]; r >= 0)
                        p.resources.push_back(r);
                if (p.resources.empty())
                    return Status::invalid("runs on " + u->name + " but none of its cores carries one", taskLoc(t));
                p.workNs = ns;
                st.parts.push_back(std::move(p));
            }
            if (!t.cost.bytesByLevel.empty()) {
                for (const auto &[level, bytes] : t.cost.bytesByLevel) {
                    const int li = m_d.levelIndex(level);
                    if (li < 0)
                        return Status::invalid(
                            "moves bytes at level '" + level + "' which " + m_d.id + " does not have", taskLoc(t));
                    addMemoryPart(st, li, levelInstances(li, *cores), bytes, false);
                }
            } else {
                for (const BufferUse &u : st.buffers) {
                    const bool write = std::find(t.writes.begin(), t.writes.end(), u.buffer) != t.writes.end();
                    addMemoryPart(st, u.level, {u.instance}, u.bytes, write);
                }
            }
            const ComputeUnit *shown = dominant ? dominant : (m_d.units.empty() ? nullptr : &m_d.units.front());
            // The lane shows the placement (S2): "MME core 3" for one core, "MME cores 0-31" for a
            // contiguous range (an unbound task takes every core), else "MME core 3+".
            const std::string unitName = shown ? shown->name : std::string("compute");
            const bool range = cores->size() > 1 && std::is_sorted(cores->begin(), cores->end()) &&
                               cores->back() - cores->front() + 1 == static_cast<int>(cores->size());
            st.track = range
                           ? unitName + " cores " + std::to_string(cores->front()) + "-" + std::to_string(cores->back())
                           : unitName + " core " + std::to_string(cores->front()) + (cores->size() > 1 ? "+" : "");
            break;
        }
        case TaskKind::Barrier:
            st.fixedNs = m_d.overheads.syncNs;
            st.track = "sync";
            break;
        default: { // data movement
            if (!t.cost.bytesByLevel.empty() && !st.buffers.empty()) {
                // Its stated traffic (a slice of larger buffers, or nothing for an in-place
                // concatenation) on the instances of its buffers at each level.
                for (const auto &[level, bytes] : t.cost.bytesByLevel) {
                    const int li = m_d.levelIndex(level);
                    if (li < 0)
                        return Status::invalid(
                            "moves bytes at level '" + level + "' which " + m_d.id + " does not have", taskLoc(t));
                    std::set<int> instances;
                    bool write = false;
                    for (const BufferUse &u : st.buffers)
                        if (u.level == li) {
                            instances.insert(u.instance);
                            write = write || std::find(t.writes.begin(), t.writes.end(), u.buffer) != t.writes.end();
                        }
                    addMemoryPart(st, li,
                                  instances.empty() ? levelInstances(li, *cores)
                                                    : std::vector<int>(instances.begin(), instances.end()),
                                  bytes, write);
                }
            } else {
                for (const BufferUse &u : st.buffers) {
                    const bool write = std::find(t.writes.begin(), t.writes.end(), u.buffer) != t.writes.end();
                    addMemoryPart(st, u.level, {u.instance}, u.bytes, write);
                }
            }
            if (st.buffers.empty())
                for (const auto &[level, bytes] : t.cost.bytesByLevel) {
                    const int li = m_d.levelIndex(level);
                    if (li < 0)
                        return Status::invalid(
                            "moves bytes at level '" + level + "' which " + m_d.id + " does not have", taskLoc(t));
                    addMemoryPart(st, li, levelInstances(li, *cores), bytes, false);
                }
            st.fixedNs = m_d.overheads.dmaSetupNs + m_maxLatency;
            if (t.kind == TaskKind::Redistribute)
                st.fixedNs += m_d.overheads.syncNs;
            int dst = -1;
            for (const BufferUse &u : st.buffers)
                if (std::find(t.writes.begin(), t.writes.end(), u.buffer) != t.writes.end())
                    dst = u.level;
            // A task that writes no buffer (an in-place concatenation) is named by its kind.
            st.track = dst >= 0 ? "DMA to " + m_d.levels[static_cast<std::size_t>(dst)].name
                                : "DMA " + std::string(taskKindName(t.kind));
            break;
        }
        }
        return st;
    }

    const Graph &m_g;
    const ExecutionPlan &m_plan;
    const Device &m_d;
    LowerOptions m_opts;
    double m_byteScale = 1;
    LoweredPlan m_out;
    std::vector<std::vector<int>> m_unitResource;  // [unit][core] -> resource or -1
    std::vector<std::vector<int>> m_levelResource; // [level][instance] -> resource
    std::vector<int> m_bufferLevel;
    std::vector<int> m_bufferInstance;
    std::map<std::pair<int, int>, int> m_queues;
    std::map<int, KernelId> m_lastKernel; // per queue: the kernel of its last compute task
    double m_maxLatency = 0;
};

} // namespace

Expected<LoweredPlan> lowerPlan(const Graph &g, const ExecutionPlan &plan, const Device &device,
                                const LowerOptions &options)
{
    return Lowering(g, plan, device, options).run();
}

} // namespace tessera::sim
