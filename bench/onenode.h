// Helpers shared by the CPU backend's one-node benchmarks (bench_cpurows,
// bench_cpumoves, bench_cpuewise, and bench_cpuviews's two-node kernels): a
// plan of one kernel holding node 0 (or given nodes), a float32 input of
// uniform random values, a compile with the engines TESSERA_CPU_ENGINES
// allows or another switch of the backend's environment set (to time a
// kernel against the one it replaced, in the same process), and the median
// of a run's times.
// Links: tessera_core (the caller links the backend it compiles on).
#pragma once

#include "core/backend/backend.h"
#include "core/plan/plan.h"

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

namespace tessera::bench {

inline double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// One task computing `nodes` of `g` whole, as one kernel.
inline ExecutionPlan oneKernelPlan(const Graph &g, std::vector<NodeId> nodes)
{
    ExecutionPlan plan;
    plan.algorithm = "bench";
    plan.graphName = g.name;
    Task t;
    t.kernel = plan.addKernel("k0", std::move(nodes), "bench");
    plan.addTask(t);
    return plan;
}

// One task computing node 0 of `g` (a one-node graph) whole.
inline ExecutionPlan oneNodePlan(const Graph &g)
{
    return oneKernelPlan(g, {0});
}

// Graph input `id` filled with uniform values in [lo, hi) (float32).
inline HostTensor uniformInput(const Graph &g, TensorId id, float lo, float hi, std::mt19937 &rng)
{
    const Tensor &x = g.tensor(id);
    HostTensor in{x.name, x.dtype, x.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(x.bytes()))};
    for (std::int64_t i = 0; i < in.elements(); ++i)
        in.f32()[i] = std::uniform_real_distribution<float>(lo, hi)(rng);
    return in;
}

// `plan` compiled with the environment variable `name` set to `value`
// (null: unset), unset again after.
inline Expected<std::unique_ptr<CompiledPlan>>
compileWithEnv(IBackend &backend, const Graph &g, const ExecutionPlan &plan, const char *name, const char *value)
{
    if (value)
        ::setenv(name, value, 1);
    else
        ::unsetenv(name);
    auto compiled = backend.compile(g, plan);
    ::unsetenv(name);
    return compiled;
}

// `plan` compiled with the engines `engines` allows (TESSERA_CPU_ENGINES;
// null: every engine, as by default).
inline Expected<std::unique_ptr<CompiledPlan>> compileWithEngines(IBackend &backend, const Graph &g,
                                                                  const ExecutionPlan &plan, const char *engines)
{
    return compileWithEnv(backend, g, plan, "TESSERA_CPU_ENGINES", engines);
}

} // namespace tessera::bench
