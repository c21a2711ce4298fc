// tessera-cli project create PROJECT.tessera (--model M [--embed] | --sample NAME) --algo A [--device D]
//     [--option K=V]... [--override FILE] [--batch N] [--seq-len N] [--dim NAME=N] [--force]
// tessera-cli project show PROJECT.tessera [--json]
//
// `create` makes a project without the workbench: it imports and schedules the
// model first (so only a working setup is saved), then writes the project with
// the model reference, setup, overrides and the first plan. Stale or rejected
// overrides are kept in the project and reported (exit 3), as `schedule` does.
// `show` lists what a project holds.
#include "app/cli/command.h"
#include "app/cli/projectmodel.h"
#include "app/registerbuiltins.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/precision.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/store/replay.h"
#include "core/support/fileio.h"
#include "core/support/units.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace tessera::cli {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

int create(const std::string &path, const Args &args, const Extensions &extensions)
{
    auto modelPath = args.value("model");
    auto sampleName = args.value("sample");
    auto algo = args.value("algo");
    if (!modelPath == !sampleName || !algo)
        return fail(usageError("project create needs one of --model FILE and --sample NAME, and --algo NAME"));
    if (sampleName && args.has("embed"))
        return fail(usageError("--embed is for a --model file; a sample is rebuilt from its name"));
    CreateProjectRequest request;
    request.projectPath = path;
    request.overwrite = args.has("force");
    const ScratchModels scratch(extensions);
    if (sampleName) {
        auto built = scratch.buildSample(*sampleName);
        if (!built)
            return fail(built.status());
        request.model.path = built->path;
        request.model.sample = scratch.registeredName(*sampleName);
        request.model.sampleVersion = built->version;
    } else {
        request.model.path = *modelPath;
        request.model.embed = args.has("embed");
    }
    request.setup.algorithm = *algo;
    request.setup.device = *args.value("device");
    auto userOptions = algorithmOptions(args);
    if (!userOptions)
        return fail(userOptions.status());
    request.setup.options = std::move(*userOptions);
    auto precision = precisionOf(args);
    if (!precision)
        return fail(precision.status());
    request.setup.precision = *precision;
    request.setup.cost = args.value("cost").value_or(std::string(kCostEstimated));
    request.setup.meter = args.value("meter").value_or("");
    // The model options as loadModel() reads them, kept so replay imports alike.
    const ImportOptions defaults;
    auto batch = args.intValue("batch", defaults.batchSize, 1, 1 << 20);
    auto seq = args.intValue("seq-len", defaults.seqLen, 1, 1 << 24);
    for (const Status &s : {batch.status(), seq.status()})
        if (!s.isOk())
            return fail(s);
    request.model.batch = *batch;
    request.model.seqLen = *seq;
    for (const std::string &d : args.values("dim")) {
        const auto eq = d.find('=');
        char *end = nullptr;
        const long long v = eq == std::string::npos ? 0 : std::strtoll(d.c_str() + eq + 1, &end, 10);
        if (eq == std::string::npos || eq == 0 || v < 1 || *end != '\0')
            return fail(usageError("--dim expects NAME=N with a positive N, got '" + d + "'"));
        request.model.dims[d.substr(0, eq)] = v;
    }
    if (auto file = args.value("override")) {
        auto text = readFile(*file, 64 << 20);
        if (!text)
            return fail(text.status());
        auto overrides = overridesFromJson(*text, *file);
        if (!overrides)
            return fail(overrides.status());
        request.overrides = std::move(*overrides);
    }

    SchedulerRegistry schedulers;
    registerBuiltinSchedulers(schedulers);
    // --cost measured: the first plan is scheduled with it, and the project keeps it for replays.
    auto device = DeviceRegistry::standard().lookup(request.setup.device);
    if (!device)
        return fail(device.status());
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    auto meter = costMeter(args, backends, *device);
    if (!meter)
        return fail(meter.status());
    request.meter = meter->get();
    auto created = createProject(request, schedulers, DeviceRegistry::standard());
    if (!created)
        return fail(created.status());
    int exitCode = 0;
    for (const OverrideReport &o : created->schedule.run.overrideReports)
        if (o.outcome != OverrideReport::Outcome::Applied) {
            std::fprintf(stderr, "tessera-cli: override '%s' = '%s' %s: %s\n", o.key.c_str(), o.optionId.c_str(),
                         std::string(outcomeName(o.outcome)).c_str(), o.reason.c_str());
            exitCode = 3;
        }
    const PlanSummary &plan = created->schedule.summary;
    std::printf("created %s: %s on %s, plan %lld with %lld kernels, est. latency %s\n", path.c_str(),
                plan.algorithm.c_str(), plan.device.c_str(), static_cast<long long>(created->planId),
                static_cast<long long>(plan.kernels), units::durationMs(plan.estLatencyMs).c_str());
    if (Status s = created->project.close(); !s.isOk())
        return fail(s);
    return exitCode;
}

int show(const std::string &path, const Args &args)
{
    auto project = Project::open(path, OpenMode::ReadOnly);
    if (!project)
        return fail(project.status());
    auto model = project->model();
    auto setup = project->setup();
    auto overrides = project->overrides();
    auto plans = project->plans();
    auto state = project->allState();
    for (const Status &s : {model.status(), setup.status(), overrides.status(), plans.status(), state.status()})
        if (!s.isOk())
            return fail(s);

    if (args.has("json")) {
        QJsonObject options, overrideObj, stateObj;
        for (const auto &[k, v] : setup->options)
            options[qs(k)] = qs(v);
        for (const auto &[k, v] : *overrides)
            overrideObj[qs(k)] = qs(v);
        for (const auto &[k, v] : *state)
            stateObj[qs(k)] = qs(v);
        QJsonArray planList;
        for (const PlanSummary &p : *plans) {
            auto runs = project->runs(p.id);
            if (!runs)
                return fail(runs.status());
            planList.append(QJsonObject{{"id", static_cast<qint64>(p.id)},
                                        {"created", qs(p.created)},
                                        {"algorithm", qs(p.algorithm)},
                                        {"device", qs(p.device)},
                                        {"kernels", static_cast<qint64>(p.kernels)},
                                        {"est_latency_ms", p.estLatencyMs},
                                        {"label", qs(p.label)},
                                        {"runs", static_cast<qint64>(runs->size())}});
        }
        QJsonObject root{{"project", qs(path)},
                         {"schema_version", project->schemaVersion()},
                         {"model", qs(model->sample.empty() ? model->relativePath : "sample:" + model->sample)},
                         {"model_sample", qs(model->sample)},
                         {"model_sample_version", static_cast<qint64>(model->sampleVersion)},
                         {"model_content_hash", qs(model->contentHash)},
                         {"model_embedded", model->embed},
                         {"model_hash", qs(model->structureHash)},
                         {"algorithm", qs(setup->algorithm)},
                         {"device", qs(setup->device)},
                         {"precision", qs(std::string(precisionName(setup->precision)))},
                         {"cost", qs(setup->cost)},
                         {"meter", qs(setup->meter)},
                         {"options", options},
                         {"overrides", overrideObj},
                         {"plans", planList},
                         {"state", stateObj}};
        std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf("project        %s (schema v%d)\n", path.c_str(), project->schemaVersion());
    if (!model->sample.empty())
        std::printf("model          sample %s, version %lld (structure %s)\n", model->sample.c_str(),
                    static_cast<long long>(model->sampleVersion), model->structureHash.c_str());
    else
        std::printf("model          %s (content %s, structure %s%s)\n", model->relativePath.c_str(),
                    model->contentHash.empty() ? "not recorded" : model->contentHash.c_str(),
                    model->structureHash.c_str(), model->embed ? ", embedded" : "");
    std::printf("setup          %s on %s at %s, %s costs%s\n", setup->algorithm.c_str(), setup->device.c_str(),
                std::string(precisionName(setup->precision)).c_str(), setup->cost.c_str(),
                setup->cost != kCostMeasured ? ""
                : setup->meter.empty()       ? " (on the device's default backend)"
                                             : (" on " + setup->meter).c_str());
    for (const auto &[k, v] : setup->options)
        std::printf("option         %s=%s\n", k.c_str(), v.c_str());
    std::printf("overrides      %zu\n", overrides->size());
    for (const PlanSummary &p : *plans)
        std::printf("plan %-9lld %s  %lld kernels, est. latency %s  %s\n", static_cast<long long>(p.id),
                    p.created.c_str(), static_cast<long long>(p.kernels), units::durationMs(p.estLatencyMs).c_str(),
                    p.label.c_str());
    return 0;
}

int run(const Args &args, const Extensions &extensions)
{
    const auto &pos = args.positional();
    if (pos.size() != 2 || (pos[0] != "create" && pos[0] != "show"))
        return fail(usageError("project needs 'create PROJECT.tessera ...' or 'show PROJECT.tessera'"));
    return pos[0] == "create" ? create(pos[1], args, extensions) : show(pos[1], args);
}

} // namespace

Command projectCommand()
{
    auto options = schedulingOptions({}, "stcp920", "(create) ");
    options.push_back(precisionOption("(create) "));
    options.insert(options.end(),
                   {{"cost", true, false,
                     "--cost KIND       (create) estimated (default) or measured: the project schedules (and "
                     "replays) with kernels timed on a backend",
                     "estimated"},
                    {"meter", true, false,
                     "--meter NAME      (create) the backend --cost measured times kernels on (default: cpu for a "
                     "CPU device, sim otherwise)"}});
    options.insert(
        options.end(),
        {{"model", true, false, "--model FILE      (create) the ONNX model, by a path relative to the project"},
         {"sample", true, false, "--sample NAME     (create) a bundled sample, by name and version"},
         {"embed", false, false, "--embed           (create) keep the --model file inside the project too"},
         {"override", true, false, "--override FILE   (create) decision overrides (JSON)"},
         {"force", false, false, "--force           (create) replace an existing project file"},
         {"json", false, false, "--json            (show) machine-readable listing"}});
    return {"project", "project create|show PROJECT.tessera [...]",
            "create a project from a model and a scheduler setup, or show one", options, run};
}

} // namespace tessera::cli
