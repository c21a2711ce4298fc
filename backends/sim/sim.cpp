#include "backends/sim/sim.h"

#include "backends/sim/simulator.h"
#include "core/hw/deviceregistry.h"
#include "core/ir/graphhash.h"
#include "core/ir/precision.h"

#include <charconv>
#include <optional>

namespace tessera {

namespace {

class CompiledSimPlan final : public CompiledPlan
{
public:
    CompiledSimPlan() : CompiledPlan("sim") {}
    Device device;
    sim::LoweredPlan lowered;
    double batch = 1;
    std::vector<std::string> inputNames;
    std::unique_ptr<CompiledPlan> functional;
};

class SimBackend final : public IBackend
{
public:
    explicit SimBackend(IBackend *functional) : m_functional(functional)
    {
        m_info.name = "sim";
        m_info.title = "Simulator";
        m_info.summary = "discrete-event simulation of the plan on the device model: time, traffic, "
                         "occupancy, utilisation, energy" +
                         std::string(functional ? "; --functional also computes the outputs" : "");
        m_info.capabilities.functional = functional != nullptr;
        m_info.capabilities.timing = true;
        m_info.capabilities.deviceKinds = {"any"};
    }
    const BackendInfo &info() const override { return m_info; }
    // Any node can be timed (an opaque one costs its data movement only);
    // functional compiles refuse what the reference backend cannot run.
    bool supports(const Graph &, const Node &) const override { return true; }
    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) override
    {
        return compileFor(g, plan, {});
    }
    Expected<std::unique_ptr<CompiledPlan>> compileFor(const Graph &g, const ExecutionPlan &plan,
                                                       const CompileContext &context) override;
    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                            const RunObserver &observer) override;

private:
    BackendInfo m_info;
    IBackend *m_functional = nullptr;
};

bool truthy(const std::string &v)
{
    return v == "1" || v == "true" || v == "yes" || v == "on";
}

Expected<std::unique_ptr<CompiledPlan>> SimBackend::compileFor(const Graph &g, const ExecutionPlan &plan,
                                                               const CompileContext &context)
{
    auto out = std::make_unique<CompiledSimPlan>();
    if (context.device) {
        out->device = *context.device;
    } else {
        if (plan.device.empty())
            return Status::invalid("the plan names no device; give the simulator one");
        auto d = DeviceRegistry::standard().lookup(plan.device);
        if (!d)
            return Status::invalid("the plan was made for device '" + plan.device + "', which is not known here");
        out->device = std::move(*d);
    }
    if (!plan.device.empty() && plan.device != out->device.id)
        return Status::invalid("the plan was made for device '" + plan.device + "', not for '" + out->device.id + "'");
    if (!plan.modelHash.empty() && plan.modelHash != modelStructureHash(g))
        return Status::invalid("the plan was made for another model (hash " + plan.modelHash + ", this model " +
                               modelStructureHash(g) + ")");
    if (Status s = validateDevice(out->device); !s.isOk())
        return s.prefix("device '" + out->device.id + "'");
    sim::LowerOptions lowerOptions;
    lowerOptions.cancel = context.cancel;
    out->batch = 1;
    if (!g.inputs.empty() && !g.tensor(g.inputs.front()).shape.empty())
        out->batch = static_cast<double>(std::max<std::int64_t>(1, g.tensor(g.inputs.front()).shape.front()));
    for (const auto &[key, value] : context.options) {
        if (key == "batch") {
            long long n = 0;
            auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (ec != std::errc() || ptr != value.data() + value.size() || n < 1)
                return Status::error(ErrorCode::Usage,
                                     "sim option batch expects a positive integer, got '" + value + "'");
            out->batch = static_cast<double>(n);
        } else if (key == "dtype") {
            auto t = precisionFromName(value);
            if (!t)
                return Status::error(ErrorCode::Usage, "sim option dtype expects a precision (" +
                                                           std::string(precisionNames()) + "), got '" + value + "'");
            if (plan.precision != DType::Float32)
                return Status::error(ErrorCode::Usage, "sim option dtype times a plan sized at fp32; this plan is "
                                                       "sized and timed at " +
                                                           std::string(precisionName(plan.precision)) +
                                                           " already (schedule it at fp32 to use dtype)");
            lowerOptions.computeDtype = *t;
        } else if (key == "functional") {
            if (!truthy(value))
                continue;
            if (!m_functional)
                return Status::error(ErrorCode::Unavailable,
                                     "functional simulation needs the reference backend, which is not registered");
            CompileContext functional; // the reference backend's: no device, no options
            functional.cancel = context.cancel;
            auto f = m_functional->compileFor(g, plan, functional);
            if (!f)
                return f.status();
            out->functional = std::move(*f);
        } else {
            return Status::error(ErrorCode::Usage, "unknown sim option '" + key + "'; known: batch, dtype, functional");
        }
    }
    // A plan sized at a deployment precision (ExecutionPlan::precision) is
    // timed at it: the model's float32 tensors count as that type.
    std::optional<Graph> retyped;
    if (plan.precision != DType::Float32)
        retyped.emplace(atPrecision(g, plan.precision));
    auto lowered = sim::lowerPlan(retyped ? *retyped : g, plan, out->device, lowerOptions);
    if (!lowered)
        return lowered.status();
    out->lowered = std::move(*lowered);
    for (TensorId id : g.inputs)
        out->inputNames.push_back(g.tensor(id).name);
    return std::unique_ptr<CompiledPlan>(std::move(out));
}

Expected<RunResult> SimBackend::run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                                    const RunObserver &observer)
{
    if (Status s = checkCompiledBy(compiled, m_info); !s.isOk())
        return s;
    auto &plan = static_cast<CompiledSimPlan &>(compiled);
    for (const std::string &name : plan.inputNames) {
        bool found = false;
        for (const HostTensor &t : inputs)
            found = found || t.name == name;
        if (!found)
            return Status::invalid("missing input '" + name + "'", {.tensor = name});
    }
    auto outcome = sim::simulate(plan.lowered, plan.device, plan.batch, observer);
    if (!outcome)
        return outcome.status();
    RunResult r;
    r.latencyMs = outcome->simTimeNs / 1e6;
    r.timeline = std::move(outcome->timeline);
    r.laneNames = std::move(outcome->laneNames);
    r.metrics = std::move(outcome->metrics);
    r.counters = std::move(outcome->counters);
    if (plan.functional) {
        RunObserver quiet;
        quiet.cancel = observer.cancel;
        auto values = m_functional->run(*plan.functional, inputs, quiet);
        if (!values)
            return values.status();
        r.outputs = std::move(values->outputs);
        r.metrics["functional"] = 1;
    }
    return r;
}

} // namespace

std::unique_ptr<IBackend> createSimBackend(IBackend *functional)
{
    return std::make_unique<SimBackend>(functional);
}

void registerSimBackend(BackendRegistry &registry)
{
    IBackend *reference = registry.find("reference");
    registry.add(createSimBackend(reference && reference->info().capabilities.functional ? reference : nullptr));
    registry.addAlias("dsa", "sim");
}

} // namespace tessera
