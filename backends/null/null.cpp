// The null backend (see null.h).
#include "backends/null/null.h"

#include <algorithm>
#include <exception>

namespace tessera {

namespace {

constexpr const char *kName = "null";

class NullPlan final : public CompiledPlan
{
public:
    NullPlan() : CompiledPlan(kName) {}

    std::vector<std::string> inputs; // graph input names
    std::vector<HostTensor> outputs; // zero-filled, in graph order
    std::vector<TaskId> tasks;       // in issue order
};

class NullBackend final : public IBackend
{
public:
    const BackendInfo &info() const override { return m_info; }

    bool supports(const Graph &, const Node &) const override { return true; }

    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) override
    {
        try {
            auto out = std::make_unique<NullPlan>();
            for (TensorId id : g.inputs)
                out->inputs.push_back(g.tensor(id).name);
            for (TensorId id : g.outputs) {
                const Tensor &t = g.tensor(id);
                out->outputs.push_back(
                    {t.name, t.dtype, t.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(t.bytes()))});
            }
            for (const Task &t : plan.tasks)
                out->tasks.push_back(t.id);
            return std::unique_ptr<CompiledPlan>(std::move(out));
        } catch (const std::exception &) { // std::bad_alloc, std::length_error: outputs too large for the host
            return Status::error(ErrorCode::Internal, "out of host memory while compiling the plan");
        }
    }

    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                            const RunObserver &observer) override
    {
        TS_TRY(checkCompiledBy(compiled, m_info));
        const auto &plan = static_cast<const NullPlan &>(compiled);
        for (const std::string &name : plan.inputs)
            if (std::none_of(inputs.begin(), inputs.end(), [&](const HostTensor &h) { return h.name == name; }))
                return Status::invalid("missing input '" + name + "'", {.tensor = name});
        RunResult result;
        result.outputs = plan.outputs;
        const auto total = static_cast<double>(plan.tasks.size());
        for (std::size_t i = 0; i < plan.tasks.size(); ++i) {
            if (observer.cancel && observer.cancel->load(std::memory_order_relaxed))
                return Status::error(ErrorCode::Cancelled, "run cancelled after " + std::to_string(i) + " of " +
                                                               std::to_string(plan.tasks.size()) + " tasks");
            result.timeline.push_back({plan.tasks[i], 0, 0, 0});
            if (observer.taskFinished)
                observer.taskFinished(plan.tasks[i], static_cast<double>(i + 1) / total);
        }
        result.metrics["total_ms"] = 0;
        result.metrics["tasks"] = total;
        return result;
    }

private:
    BackendInfo m_info{kName,
                       "Null (computes nothing)",
                       "accepts any plan, computes nothing and reports zero time; outputs are zero-filled",
                       true,
                       {},
                       {.functional = false, .timing = false, .measured = false, .deviceKinds = {"any"}}};
};

} // namespace

std::unique_ptr<IBackend> createNullBackend()
{
    return std::make_unique<NullBackend>();
}

void registerNullBackend(BackendRegistry &registry)
{
    registry.add(createNullBackend());
}

} // namespace tessera
