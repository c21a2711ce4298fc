#include "core/backend/kernelmeter.h"

#include "core/backend/inputs.h"
#include "core/cost/devicecost.h"
#include "core/ir/graphhash.h"
#include "core/ir/kernelgraph.h"
#include "core/sched/planbuilder.h"
#include "core/support/assert.h"

#include <algorithm>

namespace tessera {

BackendMeter::BackendMeter(IBackend &backend, Device device, Options options)
    : m_backend(backend), m_device(std::move(device)), m_options(options)
{
    TS_ASSERT(m_backend.info().capabilities.measured || m_backend.info().capabilities.timing);
    TS_ASSERT(m_options.repeats >= 1 && m_options.warmup >= 0);
}

CostKind BackendMeter::kind() const
{
    return m_backend.info().capabilities.measured ? CostKind::Measured : CostKind::Simulated;
}

std::string defaultMeterBackend(const Device &device)
{
    return device.kind == DeviceKind::Cpu ? "cpu" : "sim";
}

Expected<double> BackendMeter::kernelNs(const Graph &g, const std::vector<NodeId> &nodes)
{
    const auto cancelled = [this] { return m_cancel && m_cancel->load(std::memory_order_relaxed); };
    if (cancelled())
        return Status::error(ErrorCode::Cancelled, "measuring kernels was cancelled");
    auto kernel = kernelGraph(g, nodes);
    if (!kernel)
        return kernel.status();
    const std::string key = modelStructureHash(*kernel);
    if (auto it = m_cache.find(key); it != m_cache.end()) {
        ++m_hits;
        return it->second;
    }
    auto time = [&]() -> Expected<double> {
        const DeviceCostModel cost(m_device);
        PlanBuilder builder(*kernel, cost);
        std::vector<NodeId> all(kernel->nodeCount());
        for (std::size_t i = 0; i < all.size(); ++i)
            all[i] = static_cast<NodeId>(i);
        builder.addKernel("kernel", all);
        ExecutionPlan plan = builder.finish();
        plan.device = m_device.id;
        CompileContext context;
        context.device = &m_device;
        context.cancel = m_cancel;
        auto compiled = m_backend.compileFor(*kernel, plan, context);
        if (!compiled)
            return compiled.status();
        const std::vector<HostTensor> inputs = syntheticInputs(*kernel);
        std::vector<double> ms;
        RunObserver observer;
        observer.cancel = m_cancel;
        for (int i = 0; i < m_options.warmup + m_options.repeats; ++i) {
            if (cancelled())
                return Status::error(ErrorCode::Cancelled, "measuring kernels was cancelled");
            auto run = m_backend.run(**compiled, inputs, observer);
            if (!run)
                return run.status();
            if (i < m_options.warmup)
                continue;
            // The kernel task's own span when the backend reports it (a run's
            // latency also holds its set-up: arena, inputs, outputs).
            auto task = std::find_if(run->timeline.begin(), run->timeline.end(), [&](const TaskTiming &t) {
                return plan.tasks[static_cast<std::size_t>(t.task)].kind == TaskKind::Compute;
            });
            ms.push_back(task != run->timeline.end() ? (task->endNs - task->startNs) / 1e6 : run->latencyMs);
        }
        std::nth_element(ms.begin(), ms.begin() + static_cast<long>(ms.size() / 2), ms.end());
        return ms[ms.size() / 2] * 1e6;
    }();
    if (!time && (time.status().code() == ErrorCode::Cancelled || cancelled()))
        return time.status(); // not a property of the kernel: asked again next time
    ++m_measured;
    return m_cache.emplace(key, std::move(time)).first->second;
}

} // namespace tessera
