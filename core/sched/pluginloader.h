// Scheduler plugins loaded from a folder (the issue's "optionally also loadable
// from a folder"): third-party algorithms without rebuilding Tessera.
//
// A plugin is a shared library (*.so) that exports two C-linkage functions:
//
//   std::uint32_t tessera_scheduler_plugin_abi();   // returns kSchedulerPluginAbi
//   void tessera_create_schedulers(std::vector<std::unique_ptr<tessera::IScheduler>> *out);
//
// (TESSERA_SCHEDULER_PLUGIN below defines the first.) The plugin is compiled
// against Tessera's core headers and does not link core: its references to core
// (Trace, PlanBuilder, decisionKey, ...) bind at load time to the host
// executable's own copies, which the host exports (CMake ENABLE_EXPORTS on
// tessera, tessera-cli and the plugin tests). So plugin and host share one
// definition of every core type; kSchedulerPluginAbi — a version number mixed
// with the sizes of the types that cross the boundary — refuses a plugin built
// against a different layout instead of letting it corrupt memory.
//
// Loading never throws and never aborts: a file that is not a library, lacks
// the symbols, has another ABI, creates no scheduler or a scheduler whose name
// is already registered becomes one Diagnostic (file + one line) in the report;
// everything else still loads. A library stays loaded for as long as the
// registry that holds its schedulers (SchedulerRegistry::keepLoaded).
#pragma once

#include "core/sched/scheduler.h"
#include "core/support/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera {

inline constexpr std::uint32_t kSchedulerPluginAbi =
    (1u << 24) ^ static_cast<std::uint32_t>(sizeof(ScheduleRequest) << 16) ^
    static_cast<std::uint32_t>(sizeof(ScheduleResult) << 12) ^ static_cast<std::uint32_t>(sizeof(ExecutionPlan) << 8) ^
    static_cast<std::uint32_t>(sizeof(SchedulerInfo) << 4) ^ static_cast<std::uint32_t>(sizeof(TraceStep)) ^
    static_cast<std::uint32_t>(sizeof(DecisionRecord) << 2);

struct PluginLoadReport {
    std::vector<std::string> loaded;  // "name (file)" per registered scheduler
    std::vector<Diagnostic> problems; // one per file or scheduler that was refused
};

// Loads every *.so in `folder` (sorted by name) into `registry`. A folder that
// does not exist is not a problem (nothing to load).
PluginLoadReport loadSchedulerPlugins(SchedulerRegistry &registry, const std::string &folder);

} // namespace tessera

#define TESSERA_SCHEDULER_PLUGIN                                                                                       \
    extern "C" __attribute__((visibility("default"))) std::uint32_t tessera_scheduler_plugin_abi()                     \
    {                                                                                                                  \
        return tessera::kSchedulerPluginAbi;                                                                           \
    }
