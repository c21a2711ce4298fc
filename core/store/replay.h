// Scheduling a project's stored setup: creating a project from a model and a
// setup (its first plan included), and replaying one.
//
// Replay re-imports the model from the stored reference (relative to the
// project file first) with the stored import settings, refuses a model whose
// structure hash changed unless forced, looks up the device and the scheduler,
// reruns scheduleGraph() with the stored options and overrides, compares the
// result with the last stored plan (same kernel count and estimated latency:
// reproduced) and stores the new plan. Used by `tessera-cli project create` /
// `tessera-cli replay` and by the workbench when it reopens a project.
#pragma once

#include "core/hw/device.h"
#include "core/onnx/importer.h"
#include "core/sched/scheduler.h"
#include "core/store/project.h"

#include <optional>
#include <string>
#include <string_view>

namespace tessera {

class DeviceRegistry;

struct ProjectSchedule {
    ImportResult model;
    Device device;
    ScheduleRun run;
    std::string scheduleJson; // the schedule document (schedulejson.h)
    PlanSummary summary;      // of run's plan (id and created unset)
};

ImportOptions importOptionsOf(const ModelRef &model);

// Imports the model, schedules it and documents the result. `model.path` is
// the file to import; its structureHash is not checked here.
Expected<ProjectSchedule> scheduleProjectSetup(const ModelRef &model, const ProjectSetup &setup,
                                               const Overrides &overrides, const SchedulerRegistry &schedulers,
                                               const DeviceRegistry &devices);

struct CreateProjectRequest {
    std::string projectPath;
    ModelRef model; // path and import settings; the structure hash is computed
    ProjectSetup setup;
    Overrides overrides;
    bool overwrite = false;
};

struct CreatedProject {
    Project project;
    ProjectSchedule schedule;
    std::int64_t planId = 0;
};

// Schedules first, so a project is only written for a setup that works.
Expected<CreatedProject> createProject(const CreateProjectRequest &request, const SchedulerRegistry &schedulers,
                                       const DeviceRegistry &devices);

// The start of the message replayProject() refuses a changed model with.
inline constexpr std::string_view kModelChangedMessage = "model changed since the project was saved";

struct ReplayOptions {
    bool force = false; // accept a model whose structure changed, and record its new hash
};

struct ReplayResult {
    ProjectSchedule schedule;
    std::optional<PlanSummary> previous; // the newest plan stored before this replay
    std::int64_t planId = 0;             // the stored new plan; 0 when the project is read-only
    bool reproduced = false;             // previous exists and samePlan(previous, new)
    bool modelChanged = false;           // the structure hash differed and force accepted it
    DiagnosticLog notes;
};

Expected<ReplayResult> replayProject(Project &project, const SchedulerRegistry &schedulers,
                                     const DeviceRegistry &devices, const ReplayOptions &options = {});

// Same kernel count and estimated latency (to 1e-9 relative).
bool samePlan(const PlanSummary &a, const PlanSummary &b);

} // namespace tessera
