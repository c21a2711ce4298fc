#include "tests/backends/planutil.h"

#include "core/backend/outputcheck.h"
#include "core/hw/deviceregistry.h"
#include "core/plan/tiles.h"
#include "core/sched/session.h"
#include "plugins/layerfusion/layerfusion.h"
#include "plugins/sequential/sequential.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <unordered_set>

namespace tessera::planutil {

const Device &testDevice()
{
    static const Device d = [] {
        auto dev = DeviceRegistry::standard().lookup("stcp920");
        return dev ? *dev : Device{};
    }();
    return d;
}

Expected<ExecutionPlan> baselinePlan(const Graph &g, const std::string &algorithm)
{
    return schedulePlan(g, *(algorithm == "sequential" ? createSequentialScheduler() : createLayerFusionScheduler()));
}

Expected<ExecutionPlan> schedulePlan(const Graph &g, const IScheduler &scheduler, Overrides overrides)
{
    ScheduleSetup setup;
    setup.overrides = std::move(overrides);
    auto run = scheduleGraph(g, testDevice(), scheduler, setup);
    if (!run)
        return run.status();
    return run->result.plan;
}

namespace {

// Tasks producing each tensor, and the deps of a kernel on them.
struct Producers {
    std::map<TensorId, std::vector<TaskId>> byTensor;

    std::vector<TaskId> depsOf(const Graph &g, const std::vector<NodeId> &nodes) const
    {
        const std::unordered_set<NodeId> in(nodes.begin(), nodes.end());
        std::set<TaskId> deps;
        for (NodeId n : nodes)
            for (TensorId t : g.node(n).inputs)
                if (t != kInvalidId && !in.count(g.tensor(t).producer))
                    if (auto it = byTensor.find(t); it != byTensor.end())
                        deps.insert(it->second.begin(), it->second.end());
        return {deps.begin(), deps.end()};
    }
    void add(const Graph &g, const std::vector<NodeId> &nodes, TaskId task)
    {
        for (NodeId n : nodes)
            for (TensorId t : g.node(n).outputs)
                if (t != kInvalidId)
                    byTensor[t].push_back(task);
    }
};

} // namespace

ExecutionPlan wholePlan(const Graph &g, const std::vector<std::vector<NodeId>> &kernels)
{
    ExecutionPlan p;
    p.algorithm = "test-whole";
    p.graphName = g.name;
    Producers prod;
    for (const auto &nodes : kernels) {
        Task t;
        t.kernel = p.addKernel("k" + std::to_string(p.kernels.size()), nodes, "test");
        t.deps = prod.depsOf(g, nodes);
        prod.add(g, nodes, p.addTask(t));
    }
    return p;
}

ExecutionPlan tiledPlan(const Graph &g, const ExecutionPlan &base, int parts, int preferDim)
{
    ExecutionPlan p;
    p.algorithm = "test-tiled";
    p.graphName = g.name;
    Producers prod;
    for (const Kernel &k : base.kernels) {
        const KernelId kid = p.addKernel(k.name, k.nodes, "tiled");
        const auto deps = prod.depsOf(g, k.nodes);
        // (node, output) pairs to tile and the dim each is split along.
        std::vector<std::pair<NodeTile, std::int64_t>> outs;
        bool scalar = false;
        for (NodeId n : kernelOutputNodes(g, k.nodes))
            for (std::size_t oi = 0; oi < g.node(n).outputs.size(); ++oi) {
                const TensorId t = g.node(n).outputs[oi];
                if (t == kInvalidId)
                    continue;
                const Shape &s = g.tensor(t).shape;
                scalar = scalar || s.empty();
                std::size_t dim = 0;
                for (std::size_t d = 1; d < s.size(); ++d)
                    if (s[d] > s[dim])
                        dim = d;
                if (preferDim >= 0 && static_cast<std::size_t>(preferDim) < s.size() && s[preferDim] >= parts)
                    dim = static_cast<std::size_t>(preferDim);
                outs.push_back(
                    {NodeTile{n, static_cast<std::int32_t>(oi), ops::fullRegion(s)}, static_cast<std::int64_t>(dim)});
            }
        const int count = scalar ? 1 : parts;
        for (int part = 0; part < count; ++part) {
            Task t;
            t.kernel = kid;
            t.deps = deps;
            t.label = k.name + " part " + std::to_string(part);
            for (auto [tile, dim] : outs) {
                if (count > 1) {
                    const std::int64_t e = tile.region[static_cast<std::size_t>(dim)].end;
                    tile.region[static_cast<std::size_t>(dim)] = {e * part / count, e * (part + 1) / count};
                }
                t.tiles.push_back(tile);
            }
            prod.add(g, k.nodes, p.addTask(t));
        }
    }
    return p;
}

std::vector<HostTensor> makeInputs(const Graph &g, std::uint64_t seed, std::int64_t intRange)
{
    std::mt19937_64 rng(seed);
    std::vector<HostTensor> out;
    for (TensorId id : g.inputs) {
        const Tensor &t = g.tensor(id);
        HostTensor h{t.name, t.dtype, t.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(t.bytes()))};
        for (std::int64_t i = 0; i < t.elements(); ++i) {
            if (t.dtype == DType::Float32) {
                const float v = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
                std::memcpy(h.bytes.data() + i * 4, &v, 4);
            } else if (t.dtype == DType::Int64) {
                const std::int64_t v = std::uniform_int_distribution<std::int64_t>(0, intRange - 1)(rng);
                std::memcpy(h.bytes.data() + i * 8, &v, 8);
            }
        }
        out.push_back(std::move(h));
    }
    return out;
}

Expected<RunResult> compileAndRun(IBackend &backend, const Graph &g, const ExecutionPlan &plan,
                                  const std::vector<HostTensor> &inputs)
{
    auto compiled = backend.compile(g, plan);
    if (!compiled)
        return compiled.status();
    return backend.run(**compiled, inputs);
}

Status sameOutputsAsSequential(IBackend &backend, const Graph &g, const ExecutionPlan &plan, std::uint64_t seed)
{
    auto seq = baselinePlan(g, "sequential");
    if (!seq)
        return seq.status();
    const auto inputs = makeInputs(g, seed);
    auto a = compileAndRun(backend, g, *seq, inputs);
    if (!a)
        return Status::invalid("the sequential plan failed: " + a.status().str());
    auto b = compileAndRun(backend, g, plan, inputs);
    if (!b)
        return Status::invalid("the plan failed: " + b.status().str());
    if (a->outputs.size() != b->outputs.size())
        return Status::invalid("the plan computed " + std::to_string(b->outputs.size()) + " outputs, the sequential " +
                               std::to_string(a->outputs.size()));
    for (std::size_t i = 0; i < a->outputs.size(); ++i)
        if (!bitEqual(a->outputs[i], b->outputs[i]))
            return Status::invalid("output " + a->outputs[i].name + " differs from the sequential plan's");
    return Status::ok();
}

std::string outputMismatches(const RunResult &got, const RunResult &want, double tolerance)
{
    if (got.outputs.size() != want.outputs.size())
        return std::to_string(got.outputs.size()) + " outputs, the reference " + std::to_string(want.outputs.size());
    std::string mismatches;
    for (std::size_t i = 0; i < got.outputs.size(); ++i) {
        const OutputCheck c = checkOutput(got.outputs[i], want.outputs[i], tolerance);
        if (!c.ok)
            mismatches += "output '" + got.outputs[i].name + "': relative L2 " + std::to_string(c.relL2) + ", " +
                          std::to_string(c.badValues) + " NaN/Inf values\n";
    }
    return mismatches;
}

ReferenceComparison runAgainstReference(IBackend &backend, IBackend &reference, const Graph &g,
                                        const ExecutionPlan &plan, const std::vector<HostTensor> &inputs,
                                        double tolerance)
{
    auto want = compileAndRun(reference, g, plan, inputs);
    if (!want)
        return {{}, "the reference backend failed: " + want.status().str()};
    auto got = compileAndRun(backend, g, plan, inputs);
    if (!got)
        return {{}, "the backend failed: " + got.status().str()};
    std::string mismatch = outputMismatches(*got, *want, tolerance);
    return {std::move(*got), std::move(mismatch)};
}

double fallbacks(const RunResult &r, const std::string &opType)
{
    double n = 0;
    for (const auto &[key, value] : r.metrics)
        if (key.starts_with("fallback/" + opType + ":") || key == "fallback/" + opType)
            n += value;
    return n;
}

int opsRunAs(const RunResult &r, const std::string &op)
{
    int n = 0;
    for (const auto &[key, value] : r.metrics) {
        if (!key.starts_with("kernel/") || !key.ends_with("/wall_ms"))
            continue;
        // The summary's entries are separated by ", " and start after the task id.
        for (std::size_t at = key.find(' '); at != std::string::npos; at = key.find(", ", at + 1)) {
            const std::size_t from = key[at] == ' ' ? at + 1 : at + 2;
            if (key.compare(from, op.size(), op) == 0 &&
                (from + op.size() == key.size() - 8 || key.compare(from + op.size(), 2, ", ") == 0))
                ++n;
        }
    }
    return n;
}

HostTensor floatTensor(const std::string &name, Shape shape, std::vector<float> values)
{
    HostTensor h{name, DType::Float32, std::move(shape), std::vector<std::uint8_t>(values.size() * 4)};
    std::memcpy(h.bytes.data(), values.data(), h.bytes.size());
    return h;
}

bool bitEqual(const HostTensor &a, const HostTensor &b)
{
    return a.dtype == b.dtype && a.shape == b.shape && a.bytes == b.bytes;
}

} // namespace tessera::planutil
