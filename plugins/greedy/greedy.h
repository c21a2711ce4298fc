// greedy: IOS's greedy baseline — every operator that is ready runs in the
// current stage, each on its own stream, then the device synchronises
// (ios thesis §4.2 "Greedy"; it puts "all operators that are ready in a stage").
//
// Decision per stage: run all ready operators (preferred) or only one of them,
// which lets a user serialise a stage that over-subscribes the device.
#pragma once

#include "core/sched/scheduler.h"

#include <memory>

namespace tessera {
class Extensions;
// The plugin: its one scheduler (listed in plugins/CMakeLists.txt).
void registerGreedyPlugin(Extensions &extensions);
std::unique_ptr<IScheduler> createGreedyScheduler();
} // namespace tessera
