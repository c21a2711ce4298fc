// ios: the Inter-Operator Scheduler (ios thesis §3.2 Algorithm 1, §3.4 schedule
// pruning, §4.2 IOS-Merge / IOS-Parallel / IOS-Both) as a Tessera scheduler.
//
// Units and blocks come from iosUnitsForGraph() (the IOS converter's node
// names, else the structural rule of iosunits.h); stage latencies from the
// request's cost model, the one every plan is costed with (stagelatency.h); the search is
// iosSearch() (iossearch.h); the schedule is lowered by lowerIosSchedule()
// (iosformat.h): each stage's groups as kernels on streams 0..k-1,
// a merged convolution as one kernel (strategy "merge"), then a barrier.
//
// Options: strategy = merge | parallel | both, r and s (1..64), part_size,
// max_states, auto_cut, max_transitions. Statistics: states, transitions, schedules
// (and log10_schedules: the product over parts overflows doubles on NasNet),
// width, parts, stages, merged_stages, kernels, dp_latency_ms,
// chosen_latency_ms, largest_part_states, cuts.
#pragma once

#include "core/sched/scheduler.h"
#include "plugins/ios/iossearch.h"

#include <memory>

namespace tessera {

class Extensions;

// The plugin (iosplugin.cpp): the scheduler, the IOS graph config model format,
// the IOS schedule format (iosexport.h) and the import-ios / export-ios
// subcommands (ioscommands.h). Listed in plugins/CMakeLists.txt.
void registerIosPlugin(Extensions &extensions);

std::unique_ptr<IScheduler> createIosScheduler();

// The search options of resolved scheduler options (the "ios" OptionSpecs).
IosSearchOptions iosSearchOptions(const OptionValues &values);

} // namespace tessera
