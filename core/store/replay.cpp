#include "core/store/replay.h"

#include "core/cost/measuredcost.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/sched/session.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <filesystem>
#include <set>
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

std::vector<std::string> externalDataFiles(const Graph &graph, const std::string &modelPath)
{
    namespace fs = std::filesystem;
    const fs::path folder = fs::absolute(modelPath).lexically_normal().parent_path();
    std::set<std::string> names;
    for (const Tensor &t : graph.tensors()) {
        if (!t.data || !t.data->external)
            continue;
        const std::string relative = fs::path(t.data->external->path).lexically_normal().lexically_relative(folder);
        if (!relative.empty() && !relative.starts_with(".."))
            names.insert(relative);
    }
    return {names.begin(), names.end()};
}

Expected<ResolvedModel> resolveProjectModel(const Project &project, const ModelResolver &resolver)
{
    auto model = project.model();
    if (!model)
        return model.status();
    ResolvedModel out;
    const Location where{.file = project.path()};
    if (!model->sample.empty()) {
        if (!resolver.buildSample)
            return Status::error(ErrorCode::Usage,
                                 "the model is the sample '" + model->sample +
                                     "'; this program "
                                     "cannot build samples",
                                 where);
        auto built = resolver.buildSample(model->sample);
        if (!built) // an unknown name is a usage error of a command line; here the project names it
            return Status::invalid(
                "cannot build the project's sample '" + model->sample + "': " + built.status().message(), where);
        if (built->version != model->sampleVersion)
            out.notes.warn("the project was made with version " + std::to_string(model->sampleVersion) +
                               " of the sample '" + model->sample + "'; this Tessera builds version " +
                               std::to_string(built->version),
                           where);
        out.path = built->path;
        out.source = ResolvedModel::Source::Sample;
        return out;
    }
    const auto useEmbedded = [&](const std::string &why) -> Expected<ResolvedModel> {
        auto extracted = project.extractModel(resolver.extractDir);
        if (!extracted)
            return extracted.status();
        out.notes.note(why + "; using the copy embedded in the project", where);
        out.path = *extracted;
        out.source = ResolvedModel::Source::Embedded;
        return out;
    };
    auto path = project.modelPath();
    if (!path) {
        if (model->embed && !resolver.extractDir.empty())
            return useEmbedded(path.status().message());
        return path.status();
    }
    if (Status content = project.checkModelContent(*path); !content.isOk()) {
        if (content.code() != ErrorCode::InvalidInput)
            return content;
        if (model->embed && !resolver.extractDir.empty())
            return useEmbedded(content.message() + " ('" + *path + "')");
        out.contentChanged = true;
    }
    out.path = *path;
    return out;
}

Expected<ProjectSchedule> scheduleProjectSetup(const ModelRef &model, const ProjectSetup &setup,
                                               const Overrides &overrides, const SchedulerRegistry &schedulers,
                                               const DeviceRegistry &devices, KernelMeter *meter)
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
    request.precision = setup.precision;
    request.meter = meter;
    auto run = scheduleGraph(imported->graph, *device, **scheduler, request);
    if (!run)
        return run.status();

    const ExecutionPlan &plan = run->result.plan;
    const ScheduleDocument doc = makeScheduleDocument(*run,
                                                      !model.sample.empty()        ? "sample:" + model.sample
                                                      : model.relativePath.empty() ? model.path
                                                                                   : model.relativePath,
                                                      setup.options);
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
    auto schedule =
        scheduleProjectSetup(request.model, request.setup, request.overrides, schedulers, devices, request.meter);
    if (!schedule)
        return schedule.status();
    ProjectInfo info{request.model, request.setup, request.overrides};
    info.model.structureHash = schedule->summary.modelHash;
    if (info.model.sample.empty())
        info.model.dataFiles = externalDataFiles(schedule->model.graph, info.model.path);
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

bool sameScheduleDocument(const std::string &a, const std::string &b)
{
    const auto stable = [](const std::string &json) {
        QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(json)).object();
        o.remove(QStringLiteral("search_ms"));
        o.remove(QStringLiteral("trace"));
        o.remove(QStringLiteral("model")); // the path as given: absolute or relative to the project
        return o;
    };
    return a == b || stable(a) == stable(b);
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
    auto resolved = resolveProjectModel(project, options.resolver);
    if (!resolved)
        return resolved.status();
    ModelRef current = *model;
    current.path = resolved->path;

    // A measured cost source needs a meter made for the setup's device.
    std::unique_ptr<KernelMeter> meter;
    std::string estimatedWhy;
    if (setup->cost == kCostMeasured) {
        auto device = devices.lookup(setup->device);
        if (!device)
            return device.status();
        const std::string on = setup->meter.empty() ? "the device's default backend" : "'" + setup->meter + "'";
        if (!options.makeMeter) {
            estimatedWhy = "the project's costs are measured on " + on + "; replayed with estimated costs";
        } else if (auto made = options.makeMeter(*setup, *device); !made) {
            estimatedWhy = "the project's costs are measured on " + on + ", which cannot be used here (" +
                           made.status().message() + "); replayed with estimated costs";
        } else {
            meter = std::move(*made);
        }
    }
    auto schedule = scheduleProjectSetup(current, *setup, *overrides, schedulers, devices, meter.get());
    if (!schedule)
        return schedule.status();

    ReplayResult result;
    result.notes = std::move(resolved->notes);
    if (!estimatedWhy.empty())
        result.notes.warn(estimatedWhy);
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
    } else if (resolved->source == ResolvedModel::Source::File) {
        // With a content hash (schema v3) the bytes decide, else size and mtime.
        struct stat st = {};
        const bool touched =
            !model->contentHash.empty()
                ? resolved->contentChanged
                : ::stat(current.path.c_str(), &st) == 0 &&
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
            // A file reference is refreshed (size, mtime, content and, when forced, structure hash); a
            // sample keeps its name and takes this build's version; an embedded copy stays as it is.
            if (resolved->source == ResolvedModel::Source::File) {
                current.dataFiles = externalDataFiles(schedule->model.graph, current.path);
                TS_TRY(project.setModel(current));
            }
            // The newest plan again (same document but for search timings): nothing new to store.
            if (result.reproduced)
                if (auto previous = project.planJson(result.previous->id);
                    previous && sameScheduleDocument(*previous, schedule->scheduleJson)) {
                    result.planId = result.previous->id;
                    return Status::ok();
                }
            auto id = project.addPlan(schedule->scheduleJson, schedule->summary);
            if (!id)
                return id.status();
            result.planId = *id;
            result.stored = true;
            return Status::ok();
        });
        TS_TRY(s);
    }
    result.schedule = std::move(*schedule);
    return result;
}

} // namespace tessera
