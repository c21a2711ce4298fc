// Helpers shared by the reference-backend tests: plans built by hand (one task
// per kernel, or every kernel split into tiles), deterministic inputs, and a
// compile+run wrapper that reports the Status on failure.
#pragma once

#include "core/backend/backend.h"
#include "core/hw/device.h"
#include "core/plan/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::planutil {

// The stcp920 preset (what the schedulers plan for in these tests).
const Device &testDevice();

// Schedules g with the named baseline ("sequential", "layer-fusion") on testDevice().
Expected<ExecutionPlan> baselinePlan(const Graph &g, const std::string &algorithm);

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

HostTensor floatTensor(const std::string &name, Shape shape, std::vector<float> values);
bool bitEqual(const HostTensor &a, const HostTensor &b);

} // namespace tessera::planutil
