// tessera-cli replay PROJECT.tessera [--json] [--out PLAN.json] [--force]
//
// Reopens a project, re-imports its model (a sample rebuilt by name, an
// embedded model written out when its file is missing or changed), reruns the stored scheduler setup
// with the stored overrides (core/store/replay.h), reports the plan with the
// keys of `schedule --json`, says whether the last stored plan was reproduced
// and stores the new plan. Exit codes: 3 when the model changed (without
// --force) or an override was stale or rejected; a differing plan is
// reported, not an error.
#include "app/cli/command.h"
#include "app/cli/projectmodel.h"
#include "app/cli/runsummary.h"
#include "app/registerbuiltins.h"
#include "core/backend/kernelmeter.h"
#include "core/hw/deviceregistry.h"
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

QJsonObject planJson(const PlanSummary &p)
{
    return {{"id", static_cast<qint64>(p.id)},
            {"created", qs(p.created)},
            {"kernels", static_cast<qint64>(p.kernels)},
            {"est_latency_ms", p.estLatencyMs}};
}

void printJson(const Project &project, const ReplayResult &r)
{
    const ScheduleRun &run = r.schedule.run;
    QJsonArray notes;
    for (const Diagnostic &d : r.notes.items())
        notes.append(qs(d.message));
    QJsonObject root =
        runSummaryJson(run, r.schedule.summary.algorithm, r.schedule.device.id, r.schedule.model.metadata.path);
    root["project"] = qs(project.path());
    root["est_latency_ms"] = r.schedule.summary.estLatencyMs;
    root["reproduced"] = r.reproduced;
    root["model_changed"] = r.modelChanged;
    root["plan_id"] = static_cast<qint64>(r.planId);
    root["stored"] = r.stored;
    root["previous"] = r.previous ? QJsonValue(planJson(*r.previous)) : QJsonValue();
    root["notes"] = notes;
    std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
}

void printText(const ReplayResult &r)
{
    const ScheduleRun &run = r.schedule.run;
    const PlanSummary &now = r.schedule.summary;
    std::printf("algorithm      %s on %s\n", now.algorithm.c_str(), r.schedule.device.id.c_str());
    std::printf("kernels        %lld (%zu tasks)\n", static_cast<long long>(now.kernels), run.result.plan.tasks.size());
    std::printf("steps          %zu, decisions %zu\n", run.trace.size(), run.decisions.records().size());
    std::printf("search         %s (verify %s)\n", units::durationMs(run.searchMs).c_str(),
                units::durationMs(run.verifyMs).c_str());
    std::printf("est. latency   %s\n", units::durationMs(now.estLatencyMs).c_str());
    if (!r.previous)
        std::printf("replay         no earlier plan to compare with\n");
    else if (r.reproduced)
        std::printf("replay         reproduced plan %lld\n", static_cast<long long>(r.previous->id));
    else
        std::printf("replay         differs from plan %lld: kernels %lld -> %lld, est. latency %s -> %s\n",
                    static_cast<long long>(r.previous->id), static_cast<long long>(r.previous->kernels),
                    static_cast<long long>(now.kernels), units::durationMs(r.previous->estLatencyMs).c_str(),
                    units::durationMs(now.estLatencyMs).c_str());
    if (r.stored)
        std::printf("stored         plan %lld\n", static_cast<long long>(r.planId));
    else if (r.planId > 0)
        std::printf("stored         nothing new (plan %lld is the newest)\n", static_cast<long long>(r.planId));
}

int run(const Args &args, const Extensions &extensions)
{
    if (args.positional().size() != 1)
        return fail(usageError("replay needs exactly one PROJECT.tessera"));
    auto project = Project::open(args.positional().front());
    if (!project)
        return fail(project.status());
    for (const Diagnostic &d : project->notes())
        std::fprintf(stderr, "tessera-cli: %s\n", d.str().c_str());

    SchedulerRegistry schedulers;
    registerBuiltinSchedulers(schedulers);
    const ScratchModels scratch(extensions); // a sample is rebuilt, an embedded model written out, here
    // A project whose costs are measured replays with its meter (cmd_project create --cost measured).
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    const auto makeMeter = [&](const ProjectSetup &setup,
                               const Device &device) -> Expected<std::unique_ptr<KernelMeter>> {
        auto meter = costMeter(setup.cost, setup.meter, backends, device);
        if (!meter)
            return meter.status();
        return std::unique_ptr<KernelMeter>(std::move(*meter));
    };
    auto result = replayProject(*project, schedulers, DeviceRegistry::standard(),
                                {.force = args.has("force"), .resolver = scratch.resolver(), .makeMeter = makeMeter});
    if (!result) {
        Status s = result.status();
        if (s.message().starts_with(kModelChangedMessage))
            s = Status::invalid(s.message() + "; use --force to replay anyway", s.location());
        return fail(s);
    }
    for (const Diagnostic &d : result->notes.items())
        std::fprintf(stderr, "tessera-cli: %s\n", d.str().c_str());
    if (auto out = args.value("out"))
        if (Status s = writeFileAtomic(*out, result->schedule.scheduleJson); !s.isOk())
            return fail(s);

    int exitCode = 0;
    for (const OverrideReport &o : result->schedule.run.overrideReports)
        if (o.outcome != OverrideReport::Outcome::Applied) {
            std::fprintf(stderr, "tessera-cli: override '%s' = '%s' %s: %s\n", o.key.c_str(), o.optionId.c_str(),
                         std::string(outcomeName(o.outcome)).c_str(), o.reason.c_str());
            exitCode = 3;
        }
    if (args.has("json"))
        printJson(*project, *result);
    else
        printText(*result);
    if (Status s = project->close(); !s.isOk())
        return fail(s);
    return exitCode;
}

} // namespace

Command replayCommand()
{
    return {"replay",
            "replay PROJECT.tessera [--json] [--out PLAN.json]",
            "rerun a project's scheduler setup and overrides, compare with its last plan",
            {{"json", false, false, "--json           machine-readable summary"},
             {"out", true, false, "--out PLAN.json   write the new schedule document"},
             {"force", false, false, "--force          replay even if the model's structure changed"}},
            run};
}

} // namespace tessera::cli
