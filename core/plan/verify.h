// verifyPlan: checks an ExecutionPlan against its graph before anything runs it.
//
// Checks (first failure is reported with the task/kernel/node it concerns):
//   - ids in range; kernels' nodes exist, are not constant-only and are listed
//     in a topological order; every kernel is run by at least one task;
//   - every non-opaque, non-constant graph node is computed, and computed once
//     unless the tasks covering it are marked recompute; tiles of one node's
//     output, over its non-recompute tasks, cover the output exactly once;
//   - dependencies: tasks only depend on earlier tasks, and a task computing a
//     node is ordered after (transitively depends on) every task producing the
//     data its tiles read (through ops::inputRegions), or shares its kernel;
//   - capacities: at every point of the issue order the live buffers of each
//     memory level (per scope instance) fit its capacity, when a device is given;
//   - bindings name existing clusters/cores/units when a device is given.
#pragma once

#include "core/plan/plan.h"
#include "core/support/status.h"

#include <atomic>

namespace tessera {

struct Device;

Status verifyPlan(const ExecutionPlan &plan, const Graph &graph, const Device *device = nullptr);
// The same, checking `cancel` between tasks (a plan of 10^5 tasks takes
// seconds): Cancelled once it is set.
Status verifyPlan(const ExecutionPlan &plan, const Graph &graph, const Device *device, const std::atomic<bool> *cancel);

} // namespace tessera
