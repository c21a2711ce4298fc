// Helpers shared by the backend tests: plans built by hand (one task per
// kernel, or every kernel split into tiles) or by a scheduler, deterministic
// inputs, a compile+run wrapper that reports the Status on failure, and a
// backend's run compared with the reference backend's.
#pragma once

#include "core/backend/backend.h"
#include "core/hw/device.h"
#include "core/plan/plan.h"
#include "core/sched/decision.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {
class IScheduler;
}

namespace tessera::planutil {

// The stcp920 preset (what the schedulers plan for in these tests).
const Device &testDevice();

// Schedules g with the named baseline ("sequential", "layer-fusion") on testDevice().
Expected<ExecutionPlan> baselinePlan(const Graph &g, const std::string &algorithm);

// Schedules g with `scheduler` on testDevice(), `overrides` forced.
Expected<ExecutionPlan> schedulePlan(const Graph &g, const IScheduler &scheduler, Overrides overrides = {});

// One compute task per kernel, kernels in the given (topological) order; each
// task depends on the tasks producing its external inputs.
ExecutionPlan wholePlan(const Graph &g, const std::vector<std::vector<NodeId>> &kernels);

// The kernels of `base`, each run as `parts` tasks: every output of a kernel's
// output nodes is split into `parts` near-equal tiles along `preferDim` (or,
// when that dim is missing or shorter than `parts`, along its longest dim).
// Kernels with a rank-0 output stay whole. Tasks depend on every task of the
// kernels producing their inputs.
ExecutionPlan tiledPlan(const Graph &g, const ExecutionPlan &base, int parts, int preferDim);

// Deterministic inputs: floats uniform in [-1, 1), integers in [0, intRange).
std::vector<HostTensor> makeInputs(const Graph &g, std::uint64_t seed, std::int64_t intRange = 2);

// Compiles and runs `plan`; the Status explains a failure.
Expected<RunResult> compileAndRun(IBackend &backend, const Graph &g, const ExecutionPlan &plan,
                                  const std::vector<HostTensor> &inputs);

// Runs `plan` and g's sequential plan (baselinePlan) on `backend` with makeInputs(g, seed): ok
// when both run and every output is bit-equal, else what failed or which output differs.
Status sameOutputsAsSequential(IBackend &backend, const Graph &g, const ExecutionPlan &plan, std::uint64_t seed);

// The outputs of `got` that do not match `want`'s (checkOutput: a relative L2
// error of `tolerance` or more, a NaN/Inf where `want` is finite, another
// shape or type; other types byte for byte), one line each, or that the
// counts differ; empty when every output matches.
std::string outputMismatches(const RunResult &got, const RunResult &want, double tolerance);

// `plan` compiled and run on `backend` and on `reference` with `inputs`: the
// backend's run (empty when either failed), and what failed or
// outputMismatches against the reference's run (empty when they match).
struct ReferenceComparison {
    RunResult got;
    std::string mismatch;
};
ReferenceComparison runAgainstReference(IBackend &backend, IBackend &reference, const Graph &g,
                                        const ExecutionPlan &plan, const std::vector<HostTensor> &inputs,
                                        double tolerance);

// How many ops of type `opType` a run reports as fallbacks ("fallback/<op>"
// and "fallback/<op>: <why>" metrics summed).
double fallbacks(const RunResult &r, const std::string &opType);

// How many ops a run's kernels list as `op` ("engine[impl]:label", e.g.
// "llvm-jit[tiled]:Softmax"), from the "kernel/<id> <summary>/wall_ms" metrics.
int opsRunAs(const RunResult &r, const std::string &op);

HostTensor floatTensor(const std::string &name, Shape shape, std::vector<float> values);
bool bitEqual(const HostTensor &a, const HostTensor &b);

} // namespace tessera::planutil
