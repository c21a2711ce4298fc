#include "core/store/replay.h"

#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/sched/session.h"

#include <cmath>
#include <sys/stat.h>

namespace tessera {

ImportOptions importOptionsOf(const ModelRef &model)
{
    ImportOptions opts;
    opts.batchSize = model.batch;
    opts.seqLen = model.seqLen;
    for (const auto &[name, value] : model.dims)
        opts.dims[name] = value;
    return opts;
}

Expected<ProjectSchedule> scheduleProjectSetup(const ModelRef &model, const ProjectSetup &setup,
                                               const Overrides &overrides, const SchedulerRegistry &schedulers,
                                               const DeviceRegistry &devices)
{
    auto scheduler = schedulers.get(setup.algorithm);
    if (!scheduler)
        return scheduler.status();
    auto device = devices.lookup(setup.device);
    if (!device)
        return device.status();
    auto imported = importModel(model.path, importOptionsOf(model));
    if (!imported)
        return imported.status();

    ScheduleSetup request;
    request.options = setup.options;
    request.overrides = overrides;
    request.modelProperties = imported->metadata.properties;
    auto run = scheduleGraph(imported->graph, *device, **scheduler, request);
    if (!run)
        return run.status();

    const ExecutionPlan &plan = run->result.plan;
    const ScheduleDocument doc =
        makeScheduleDocument(*run, model.relativePath.empty() ? model.path : model.relativePath, setup.options);
    std::string json = scheduleToJson(doc, imported->graph);

    PlanSummary summary;
    summary.algorithm = setup.algorithm;
    summary.device = device->id;
    summary.modelHash = plan.modelHash;
    summary.estLatencyMs = plan.estimatedLatencyNs() / 1e6;
    summary.kernels = static_cast<std::int64_t>(plan.kernels.size());
    return ProjectSchedule{std::move(*imported), std::move(*device), std::move(*run), std::move(json),
                           std::move(summary)};
}

Expected<CreatedProject> createProject(const CreateProjectRequest &request, const SchedulerRegistry &schedulers,
                                       const DeviceRegistry &devices)
{
    auto schedule = scheduleProjectSetup(request.model, request.setup, request.overrides, schedulers, devices);
    if (!schedule)
        return schedule.status();
    ProjectInfo info{request.model, request.setup, request.overrides};
    info.model.structureHash = schedule->summary.modelHash;
    // Names are matched without regard to case; the project keeps the registered spelling.
    info.setup.algorithm = schedule->run.result.plan.algorithm;
    info.setup.device = schedule->device.id;
    auto project = Project::create(request.projectPath, info, request.overwrite);
    if (!project)
        return project.status();
    schedule->summary.label = "created";
    auto planId = project->addPlan(schedule->scheduleJson, schedule->summary);
    if (!planId)
        return planId.status();
    return CreatedProject{std::move(*project), std::move(*schedule), *planId};
}

bool samePlan(const PlanSummary &a, const PlanSummary &b)
{
    const double scale = std::max({1e-12, std::abs(a.estLatencyMs), std::abs(b.estLatencyMs)});
    return a.kernels == b.kernels && std::abs(a.estLatencyMs - b.estLatencyMs) <= 1e-9 * scale;
}

Expected<ReplayResult> replayProject(Project &project, const SchedulerRegistry &schedulers,
                                     const DeviceRegistry &devices, const ReplayOptions &options)
{
    auto model = project.model();
    auto setup = project.setup();
    auto overrides = project.overrides();
    auto plans = project.plans();
    for (const Status &s : {model.status(), setup.status(), overrides.status(), plans.status()})
        TS_TRY(s);
    auto path = project.modelPath();
    if (!path)
        return path.status();
    ModelRef current = *model;
    current.path = *path;

    auto schedule = scheduleProjectSetup(current, *setup, *overrides, schedulers, devices);
    if (!schedule)
        return schedule.status();

    ReplayResult result;
    const std::string &hash = schedule->summary.modelHash;
    const Location modelLoc{.file = current.path};
    if (hash != model->structureHash) {
        if (!options.force)
            return Status::invalid(std::string(kModelChangedMessage) + " (structure hash " + model->structureHash +
                                       ", now " + hash + ")",
                                   modelLoc);
        result.modelChanged = true;
        result.notes.note("accepted the changed model (structure hash " + model->structureHash + " → " + hash + ")",
                          modelLoc);
    } else {
        struct stat st = {};
        const bool touched = ::stat(current.path.c_str(), &st) == 0 &&
                             (st.st_size != model->fileBytes ||
                              std::int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec != model->mtimeNs);
        if (touched)
            result.notes.note("the model file changed on disk but its structure did not (weights may differ)",
                              modelLoc);
    }

    if (!plans->empty())
        result.previous = plans->back();
    result.reproduced = result.previous && samePlan(*result.previous, schedule->summary);
    schedule->summary.label = "replay";

    if (project.readOnly()) {
        result.notes.note("the project is read-only; the new plan was not stored", {.file = project.path()});
    } else {
        current.structureHash = hash;
        Status s = project.transaction([&]() -> Status {
            TS_TRY(project.setModel(current)); // refreshes size, mtime and (when forced) the hash
            auto id = project.addPlan(schedule->scheduleJson, schedule->summary);
            if (!id)
                return id.status();
            result.planId = *id;
            return Status::ok();
        });
        TS_TRY(s);
    }
    result.schedule = std::move(*schedule);
    return result;
}

} // namespace tessera
