// The reference backend (see reference.h): compile turns a verified plan into
// per-task programs of (node, output, regions) steps; run executes them.
#include "backends/reference/reference.h"

#include "backends/reference/evaluate.h"
#include "backends/reference/kernel.h"
#include "core/onnx/external_data.h"
#include "core/plan/tiles.h"
#include "core/plan/verify.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <new>
#include <optional>
#include <unordered_set>

namespace tessera {

namespace {

using reference::InView;
using reference::KernelArgs;
using reference::KernelPtr;
using reference::OutView;
using Clock = std::chrono::steady_clock;

constexpr const char *kName = "reference";

// One node output computed by a task: the regions it writes.
struct Step {
    NodeId node = kInvalidId;
    int output = 0;
    std::vector<ops::Region> regions;
    NodeId copyFrom = kInvalidId; // an assigned node (Kernel::assigned): copy this node's output instead
};

struct TaskProgram {
    TaskId id = 0;
    std::vector<Step> steps;       // compute tasks only, in kernel node order
    std::vector<TensorId> release; // tensors last used by this task
};

class ReferencePlan final : public CompiledPlan
{
public:
    ReferencePlan() : CompiledPlan(kName) {}

    Graph graph;                    // a copy: the compiled plan does not depend on the caller's graph
    std::vector<KernelPtr> kernels; // per node, null if not in the plan
    std::vector<std::shared_ptr<const TensorData>> constants; // per tensor, inline data of constants
    std::vector<TaskProgram> programs;                        // per task, in issue order
    std::int64_t weightBytes = 0;
};

double nsSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
}

// What a compute task does (core/plan/tiles.h taskWrites), an assigned node
// copying its equivalent's output.
std::vector<Step> stepsOf(const Graph &g, const Kernel &k, const Task &t, const TaskRegions &regions)
{
    std::vector<Step> steps;
    for (NodeWrite &w : taskWrites(g, k, t, regions))
        steps.push_back({w.node, w.output, std::move(w.regions)});
    for (const NodeAssignment &a : k.assigned)
        for (Step &s : steps)
            if (s.node == a.node)
                s.copyFrom = a.from;
    return steps;
}

// Computes one region of a node output in slices along its outermost
// dimension with more than one element, checking `cancelled` before each, so
// a cancel takes effect within one slice even inside a single large kernel
// (one NasNet-A convolution takes ~350 ms on these kernels). Slices start one
// index wide and double while a slice takes under kSliceNs, so a cheap op is
// a handful of calls and an expensive one is checked every few milliseconds.
// Valid because every kernel computes any sub-region of its output with the
// same arithmetic (kernel.h, "Determinism"): the result is bit-identical.
constexpr double kSliceNs = 4e6;

template <typename Cancelled>
Status computeSliced(const reference::NodeKernel &kernel, const KernelArgs &args, int output, const ops::Region &region,
                     const Cancelled &cancelled)
{
    std::size_t d = 0;
    while (d < region.size() && region[d].size() <= 1)
        ++d;
    if (d == region.size())
        return kernel.compute(args, output, region);
    ops::Region slice = region;
    std::int64_t step = 1;
    for (std::int64_t begin = region[d].begin; begin < region[d].end;) {
        TS_TRY(cancelled());
        slice[d].begin = begin;
        slice[d].end = std::min(region[d].end, begin + step);
        const auto t0 = Clock::now();
        TS_TRY(kernel.compute(args, output, slice));
        begin = slice[d].end;
        if (nsSince(t0) < kSliceNs)
            step *= 2;
    }
    return Status::ok();
}

Expected<std::unique_ptr<CompiledPlan>> compilePlan(const Graph &g, const ExecutionPlan &plan,
                                                    const std::atomic<bool> *cancel)
{
    const auto cancelled = [&] {
        return cancel && cancel->load() ? Status::error(ErrorCode::Cancelled, "compiling the plan was cancelled")
                                        : Status::ok();
    };
    Status verified = verifyPlan(plan, g, nullptr, cancel);
    if (verified.code() == ErrorCode::Cancelled)
        return verified;
    if (!verified)
        return verified.prefix("the reference backend refuses an invalid plan");
    auto out = std::make_unique<ReferencePlan>();
    out->graph = g;
    const Graph &graph = out->graph;
    out->kernels.resize(graph.nodeCount());
    out->constants.resize(graph.tensorCount());

    // S1: a kernel per node of the plan; S2: constant data, loaded and checked.
    auto needConstant = [&](TensorId t) -> Status {
        const Tensor &tensor = graph.tensor(t);
        if (!tensor.isConstant() || out->constants[static_cast<std::size_t>(t)])
            return Status::ok();
        auto data = loadTensorData(tensor.data);
        if (!data)
            return data.status().at({.tensor = tensor.name});
        if (static_cast<std::int64_t>((*data)->view().size()) != tensor.bytes())
            return Status::invalid("data of '" + tensor.name + "' holds " + std::to_string((*data)->view().size()) +
                                       " bytes, its type " + std::string(dtypeName(tensor.dtype)) + " " +
                                       shapeStr(tensor.shape) + " needs " + std::to_string(tensor.bytes()),
                                   {.tensor = tensor.name});
        out->weightBytes += tensor.bytes();
        out->constants[static_cast<std::size_t>(t)] = std::move(*data);
        return Status::ok();
    };
    for (const Kernel &k : plan.kernels)
        for (NodeId id : k.nodes) {
            if (out->kernels[static_cast<std::size_t>(id)])
                continue;
            TS_TRY(cancelled());
            auto kernel = reference::makeKernel(graph, graph.node(id));
            if (!kernel)
                return kernel.status();
            out->kernels[static_cast<std::size_t>(id)] = std::move(*kernel);
            for (TensorId t : graph.node(id).inputs)
                if (t != kInvalidId)
                    TS_TRY(needConstant(t));
        }
    for (TensorId t : graph.outputs)
        TS_TRY(needConstant(t));

    // S3: per task, the steps; S4: the last task touching each produced tensor.
    std::vector<TaskId> lastUse(graph.tensorCount(), -1);
    for (const Task &t : plan.tasks) {
        TS_TRY(cancelled());
        TaskProgram p{t.id, {}, {}};
        if (t.kind == TaskKind::Compute) {
            const Kernel &k = plan.kernels[static_cast<std::size_t>(t.kernel)];
            auto regions = taskRegions(graph, k, t.tiles);
            if (!regions)
                return regions.status();
            p.steps = stepsOf(graph, k, t, *regions);
            for (const auto *m : {&regions->computed, &regions->read})
                for (const auto &[tensor, region] : *m)
                    lastUse[static_cast<std::size_t>(tensor)] = t.id;
            for (const NodeAssignment &a : k.assigned)
                for (TensorId tensor : graph.node(a.from).outputs)
                    if (tensor != kInvalidId)
                        lastUse[static_cast<std::size_t>(tensor)] = t.id;
        }
        out->programs.push_back(std::move(p));
    }
    const std::unordered_set<TensorId> outputs(graph.outputs.begin(), graph.outputs.end());
    for (std::size_t t = 0; t < lastUse.size(); ++t)
        if (lastUse[t] >= 0 && graph.tensor(static_cast<TensorId>(t)).producer != kInvalidId &&
            !outputs.count(static_cast<TensorId>(t)))
            out->programs[static_cast<std::size_t>(lastUse[t])].release.push_back(static_cast<TensorId>(t));
    return std::unique_ptr<CompiledPlan>(std::move(out));
}

// Host storage of one run: constants and inputs are borrowed, produced tensors owned.
class Storage
{
public:
    explicit Storage(const ReferencePlan &p)
        : m_plan(p), m_owned(p.graph.tensorCount()), m_borrowed(p.graph.tensorCount()), m_present(p.graph.tensorCount())
    {
        for (std::size_t t = 0; t < m_borrowed.size(); ++t)
            if (p.constants[t])
                borrow(static_cast<TensorId>(t), p.constants[t]->view().data());
            else if (p.graph.tensor(static_cast<TensorId>(t)).elements() == 0)
                m_present[t] = true; // nothing to compute: every region of it is empty
    }

    void borrow(TensorId t, const std::uint8_t *data)
    {
        m_borrowed[static_cast<std::size_t>(t)] = data;
        m_present[static_cast<std::size_t>(t)] = true;
    }
    bool has(TensorId t) const { return m_present[static_cast<std::size_t>(t)]; }
    const std::uint8_t *read(TensorId t) const
    {
        const auto i = static_cast<std::size_t>(t);
        return m_owned[i] ? m_owned[i]->data() : m_borrowed[i];
    }
    std::uint8_t *write(TensorId t)
    {
        const auto i = static_cast<std::size_t>(t);
        if (!m_owned[i]) {
            m_owned[i].emplace(static_cast<std::size_t>(m_plan.graph.tensor(t).bytes()));
            m_present[i] = true;
            m_live += m_plan.graph.tensor(t).bytes();
            m_peak = std::max(m_peak, m_live);
        }
        return m_owned[i]->data();
    }
    void release(TensorId t)
    {
        const auto i = static_cast<std::size_t>(t);
        if (m_owned[i]) {
            m_live -= m_plan.graph.tensor(t).bytes();
            m_owned[i].reset();
            m_present[i] = false;
        }
    }
    std::int64_t peak() const { return m_peak; }

private:
    const ReferencePlan &m_plan;
    std::vector<std::optional<std::vector<std::uint8_t>>> m_owned;
    std::vector<const std::uint8_t *> m_borrowed;
    std::vector<bool> m_present;
    std::int64_t m_live = 0, m_peak = 0;
};

Status bindInputs(const Graph &g, const std::vector<HostTensor> &inputs, Storage &storage, std::int64_t &bytes)
{
    std::unordered_set<std::string> known;
    for (TensorId id : g.inputs) {
        const Tensor &t = g.tensor(id);
        known.insert(t.name);
        auto it = std::find_if(inputs.begin(), inputs.end(), [&](const HostTensor &h) { return h.name == t.name; });
        const std::string want = std::string(dtypeName(t.dtype)) + " " + shapeStr(t.shape);
        if (it == inputs.end())
            return Status::invalid("missing input '" + t.name + "' (" + want + ")", {.tensor = t.name});
        if (it->dtype != t.dtype || it->shape != t.shape)
            return Status::invalid("input '" + t.name + "' is " + std::string(dtypeName(it->dtype)) + " " +
                                       shapeStr(it->shape) + ", expected " + want,
                                   {.tensor = t.name});
        if (static_cast<std::int64_t>(it->bytes.size()) != t.bytes())
            return Status::invalid("input '" + t.name + "' holds " + std::to_string(it->bytes.size()) +
                                       " bytes, expected " + std::to_string(t.bytes()),
                                   {.tensor = t.name});
        storage.borrow(id, it->bytes.data());
        bytes += t.bytes();
    }
    for (const HostTensor &h : inputs)
        if (!known.count(h.name)) {
            std::string names;
            for (TensorId id : g.inputs)
                names += (names.empty() ? "" : ", ") + g.tensor(id).name;
            return Status::invalid("unknown input '" + h.name + "'; graph inputs: " + names, {.tensor = h.name});
        }
    return Status::ok();
}

Expected<RunResult> runPlan(const ReferencePlan &p, const std::vector<HostTensor> &inputs, const RunObserver &observer)
{
    const Graph &g = p.graph;
    Storage storage(p);
    std::int64_t inputBytes = 0;
    TS_TRY(bindInputs(g, inputs, storage, inputBytes));

    RunResult result;
    std::map<std::string, double> opNs;
    const auto t0 = Clock::now();
    const auto total = static_cast<double>(p.programs.size());
    KernelArgs args;
    const auto cancelled = [&](const TaskProgram &task) -> Status {
        if (observer.cancel && observer.cancel->load(std::memory_order_relaxed))
            return Status::error(ErrorCode::Cancelled, "run cancelled after " + std::to_string(task.id) + " of " +
                                                           std::to_string(p.programs.size()) + " tasks");
        return Status::ok();
    };
    for (const TaskProgram &task : p.programs) {
        const double start = nsSince(t0);
        for (const Step &s : task.steps) {
            // Checked before every node of a task: a fused task may hold many (bench/bench_stalls).
            TS_TRY(cancelled(task));
            const Node &n = g.node(s.node);
            const auto s0 = Clock::now();
            args.in.assign(n.inputs.size(), {});
            args.out.assign(n.outputs.size(), {});
            // An input not produced yet is one the op does not read (the verifier
            // orders every read after its producer): it stays absent.
            for (std::size_t i = 0; i < n.inputs.size(); ++i)
                if (const TensorId t = n.inputs[i]; t != kInvalidId && storage.has(t))
                    args.in[i] = {g.tensor(t).dtype, &g.tensor(t).shape, storage.read(t)};
            const TensorId o = n.outputs[static_cast<std::size_t>(s.output)];
            if (s.copyFrom != kInvalidId) { // a common subexpression: assign the equivalent node's values
                const TensorId src = g.node(s.copyFrom).outputs[static_cast<std::size_t>(s.output)];
                if (!storage.has(src))
                    return Status::error(ErrorCode::Internal,
                                         "assigned from '" + g.node(s.copyFrom).name + "' before it was computed",
                                         {.node = n.name});
                const Tensor &ot = g.tensor(o);
                const auto size = static_cast<std::int64_t>(dtypeSize(ot.dtype));
                for (const ops::Region &r : s.regions)
                    for (const reference::Run &run : reference::contiguousRuns(r, ot.shape))
                        std::copy_n(storage.read(src) + run.offset * size, run.length * size,
                                    storage.write(o) + run.offset * size);
                opNs["(assigned)"] += nsSince(s0);
                continue;
            }
            args.out[static_cast<std::size_t>(s.output)] = {g.tensor(o).dtype, &g.tensor(o).shape, storage.write(o)};
            for (const ops::Region &r : s.regions)
                if (Status st = computeSliced(*p.kernels[static_cast<std::size_t>(s.node)], args, s.output, r,
                                              [&] { return cancelled(task); });
                    !st)
                    return st.code() == ErrorCode::Cancelled ? st : st.at({.node = n.name});
            opNs[n.opType] += nsSince(s0);
        }
        for (TensorId t : task.release)
            storage.release(t);
        result.timeline.push_back({task.id, start, nsSince(t0), 0});
        if (observer.taskFinished)
            observer.taskFinished(task.id, static_cast<double>(task.id + 1) / total);
    }
    result.latencyMs = nsSince(t0) / 1e6;

    for (TensorId id : g.outputs) {
        const Tensor &t = g.tensor(id);
        HostTensor h{t.name, t.dtype, t.shape, {}};
        if (!storage.has(id))
            return Status::error(ErrorCode::Internal, "graph output '" + t.name + "' was not produced",
                                 {.tensor = t.name});
        if (t.bytes() > 0)
            h.bytes.assign(storage.read(id), storage.read(id) + t.bytes());
        result.outputs.push_back(std::move(h));
    }
    result.metrics["total_ms"] = result.latencyMs;
    result.metrics["tasks"] = total;
    result.metrics["weight_bytes"] = static_cast<double>(p.weightBytes);
    result.metrics["peak_host_bytes"] = static_cast<double>(storage.peak() + inputBytes + p.weightBytes);
    for (const auto &[op, ns] : opNs)
        result.metrics["op_ms/" + op] = ns / 1e6;
    return result;
}

class ReferenceBackend final : public IBackend
{
public:
    const BackendInfo &info() const override { return m_info; }

    bool supports(const Graph &g, const Node &n) const override
    {
        try {
            return reference::makeKernel(g, n).isOk();
        } catch (const std::exception &) {
            return false;
        }
    }

    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) override
    {
        return compileFor(g, plan, {});
    }

    Expected<std::unique_ptr<CompiledPlan>> compileFor(const Graph &g, const ExecutionPlan &plan,
                                                       const CompileContext &context) override
    {
        try {
            return compilePlan(g, plan, context.cancel);
        } catch (const std::bad_alloc &) {
            return Status::error(ErrorCode::Internal, "out of host memory while compiling the plan");
        } catch (const std::exception &e) {
            return Status::error(ErrorCode::Internal, std::string("compiling the plan failed: ") + e.what());
        }
    }

    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                            const RunObserver &observer) override
    {
        TS_TRY(checkCompiledBy(compiled, m_info));
        try {
            return runPlan(static_cast<const ReferencePlan &>(compiled), inputs, observer);
        } catch (const std::bad_alloc &) {
            return Status::error(ErrorCode::Internal, "out of host memory while running the plan");
        } catch (const std::exception &e) { // from the observer's callbacks
            return Status::error(ErrorCode::Internal, std::string("running the plan failed: ") + e.what());
        }
    }

private:
    BackendInfo m_info{kName,
                       "Reference (CPU)",
                       "runs any plan on the CPU with straightforward float32 kernels, honouring tiles and instance "
                       "splits; single-threaded and deterministic",
                       true,
                       {},
                       {.functional = true, .timing = false, .measured = true, .deviceKinds = {"any"}}};
};

} // namespace

std::unique_ptr<IBackend> createReferenceBackend()
{
    return std::make_unique<ReferenceBackend>();
}

void registerReferenceBackend(BackendRegistry &registry)
{
    registry.add(createReferenceBackend());
    // Import-time folding runs the same kernels (core/onnx/constant_evaluator.h).
    setConstantEvaluator(evaluateConstantNode);
}

} // namespace tessera
