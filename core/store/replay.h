// Scheduling a project's stored setup: creating a project from a model and a
// setup (its first plan included), and replaying one.
//
// Replay re-imports the model from the stored reference (a sample rebuilt by
// name, a file relative to the project file first, an embedded copy) with the stored import settings, refuses a model
// whose structure hash changed unless forced, looks up the device and the scheduler, reruns scheduleGraph() with the
// stored options and overrides, compares the result with the last stored plan (same kernel count and estimated latency:
// reproduced) and stores the new plan. Used by `tessera-cli project create` /
// `tessera-cli replay` and by the workbench when it reopens a project.
#pragma once

#include "core/hw/device.h"
#include "core/onnx/importer.h"
#include "core/sched/scheduler.h"
#include "core/store/project.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace tessera {

class DeviceRegistry;
class KernelMeter;

struct ProjectSchedule {
    ImportResult model;
    Device device;
    ScheduleRun run;
    std::string scheduleJson; // the schedule document (schedulejson.h)
    PlanSummary summary;      // of run's plan (id and created unset)
};

ImportOptions importOptionsOf(const ModelRef &model);

// The files holding `graph`'s external weights, as names relative to the
// folder of `modelPath` (ModelRef::dataFiles), sorted; files outside that
// folder are left out (the importer refuses them anyway).
std::vector<std::string> externalDataFiles(const Graph &graph, const std::string &modelPath);

// How a project's model becomes a file on this machine (resolveProjectModel).
struct ModelResolver {
    struct BuiltSample {
        std::string path;         // the built model file
        std::int64_t version = 0; // SampleInfo::version of the builder used
    };
    // Builds a registered sample by name; an unknown name is its error. Without
    // it, a project that references a sample is refused.
    std::function<Expected<BuiltSample>(const std::string &name)> buildSample;
    // Where an embedded model is written when its file is missing or changed.
    std::string extractDir;
};

struct ResolvedModel {
    std::string path;
    enum class Source : std::uint8_t { File, Sample, Embedded } source = Source::File;
    DiagnosticLog notes;         // another sample version, the embedded copy used
    bool contentChanged = false; // a File whose bytes differ from the stored content hash
};

// The model of `project` as a file to import: a sample is built (another
// version than the project's is a warning; the structure hash check that
// follows decides); a file is found (Project::modelPath) and its content hash
// checked. A missing or changed file of an embedded model is replaced by the
// embedded copy written to `extractDir` (a note says so); a changed file that
// is not embedded is used with contentChanged set (the caller checks its
// structure and says so); a missing one is an error naming both places.
Expected<ResolvedModel> resolveProjectModel(const Project &project, const ModelResolver &resolver);

// Imports the model, schedules it and documents the result. `model.path` is
// the file to import; its structureHash is not checked here. `meter` times
// the kernels of a setup whose cost is measured (ProjectSetup::cost; made by
// the caller from setup.meter and the device: core/store picks no backend);
// null schedules with the device's estimates.
Expected<ProjectSchedule> scheduleProjectSetup(const ModelRef &model, const ProjectSetup &setup,
                                               const Overrides &overrides, const SchedulerRegistry &schedulers,
                                               const DeviceRegistry &devices, KernelMeter *meter = nullptr);

struct CreateProjectRequest {
    std::string projectPath;
    ModelRef model; // path and import settings; the structure hash is computed
    ProjectSetup setup;
    Overrides overrides;
    bool overwrite = false;
    KernelMeter *meter = nullptr; // setup.cost measured: the first plan's (scheduleProjectSetup)
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
    ModelResolver resolver;
    // For a project whose cost is measured: makes the meter for its setup
    // (ProjectSetup::meter, empty for the device's default) on the device.
    // Without it, or when it fails, the replay schedules with estimated
    // costs and says so in a note.
    std::function<Expected<std::unique_ptr<KernelMeter>>(const ProjectSetup &, const Device &)> makeMeter;
};

struct ReplayResult {
    ProjectSchedule schedule;
    std::optional<PlanSummary> previous; // the newest plan stored before this replay
    std::int64_t planId = 0;             // the stored new plan, or the newest one it reproduced; 0 read-only
    bool stored = false;                 // a new plan was stored (not when it is the newest plan again)
    bool reproduced = false;             // previous exists and samePlan(previous, new)
    bool modelChanged = false;           // the structure hash differed and force accepted it
    DiagnosticLog notes;
};

Expected<ReplayResult> replayProject(Project &project, const SchedulerRegistry &schedulers,
                                     const DeviceRegistry &devices, const ReplayOptions &options = {});

// Same kernel count and estimated latency (to 1e-9 relative).
bool samePlan(const PlanSummary &a, const PlanSummary &b);
// Two schedule documents describe the same plan: equal but for the timings
// of the search that made them (search_ms, the trace's elapsed times), which
// differ on every run, and the model's path as it was given (the model's
// hash stays compared). A replay or a session stores a plan only when it is
// not the newest stored plan again.
bool sameScheduleDocument(const std::string &a, const std::string &b);

} // namespace tessera
