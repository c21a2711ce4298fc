// The test backend (see testbackend.h).
#include "tests/backends/testbackend/testbackend.h"

namespace tessera::testing {

namespace {

class TestPlan final : public CompiledPlan
{
public:
    TestPlan() : CompiledPlan(kTestBackendName) {}
    std::vector<std::pair<TaskId, double>> tasks; // id, modelled ns
};

class TestBackend final : public IBackend
{
public:
    const BackendInfo &info() const override { return m_info; }
    bool supports(const Graph &, const Node &n) const override { return n.opType != "Opaque"; }

    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &, const ExecutionPlan &plan) override
    {
        auto out = std::make_unique<TestPlan>();
        for (const Task &t : plan.tasks)
            out->tasks.emplace_back(t.id, t.cost.timeNs);
        return std::unique_ptr<CompiledPlan>(std::move(out));
    }

    Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &, const RunObserver &) override
    {
        TS_TRY(checkCompiledBy(compiled, m_info));
        RunResult result;
        double now = 0;
        for (const auto &[id, ns] : static_cast<const TestPlan &>(compiled).tasks) {
            result.timeline.push_back({id, now, now + ns, 0});
            now += ns;
        }
        result.latencyMs = now / 1e6;
        result.metrics["modelled_ms"] = result.latencyMs;
        return result;
    }

private:
    BackendInfo m_info{kTestBackendName,
                       "Test DSA model",
                       "a timing-only backend the tests register",
                       true,
                       {},
                       {.functional = false, .timing = true, .measured = false, .deviceKinds = {"dsa"}}};
};

} // namespace

void registerTestBackend(BackendRegistry &registry)
{
    registry.add(std::make_unique<TestBackend>());
}

} // namespace tessera::testing
