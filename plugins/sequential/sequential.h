// sequential: one kernel per operator, one after another in a topological
// order — the baseline every paper compares against (ios thesis §4.2
// "Sequential"; graphturbo-osdi23 §5 runs TVM's per-layer kernels in order).
//
// Decision: which ready operator runs next (preferred: lowest topological
// index), so a user can reorder the sequence by overriding it.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
// The plugin: its one scheduler (listed in plugins/CMakeLists.txt).
void registerSequentialPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createSequentialScheduler();
} // namespace tessera
