// tessera-cli schedule MODEL --algo NAME --device PRESET [--option k=v]...
//   [--override FILE] [--out PLAN.json] [--trace TRACE.json] [--json]
#include "app/cli/command.h"
#include "app/cli/runsummary.h"
#include "app/registerbuiltins.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/precision.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/sched/session.h"
#include "core/support/fileio.h"
#include "core/support/units.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <cstdio>
#include <string_view>

namespace tessera::cli {

namespace {

// A scheduler statistic read by its name's unit suffix (_ns, _bytes, _j);
// counts with SI prefixes, other fractions with four significant figures.
std::string statText(const std::string &key, double v)
{
    const auto endsWith = [&](std::string_view suffix) {
        return key.size() > suffix.size() && key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (endsWith("_ns"))
        return units::durationNs(v);
    if (endsWith("_bytes"))
        return units::bytes(v);
    if (endsWith("_j"))
        return units::energyJ(v);
    if (v == std::floor(v))
        return units::count(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

int run(const Args &args, const Extensions &extensions)
{
    if (args.positional().size() != 1)
        return fail(usageError("schedule needs exactly one MODEL"));
    const auto algo = args.value("algo");
    if (!algo)
        return fail(usageError("schedule needs --algo NAME"));
    const SchedulerRegistry &schedulers = extensions.schedulers();
    auto scheduler = schedulers.get(*algo);
    if (!scheduler)
        return fail(scheduler.status());

    DeviceRegistry devices = DeviceRegistry::standard();
    auto device = devices.lookup(*args.value("device"));
    if (!device)
        return fail(device.status());

    ScheduleSetup setup;
    auto userOptions = algorithmOptions(args);
    if (!userOptions)
        return fail(userOptions.status());
    setup.options = std::move(*userOptions);
    auto precision = precisionOf(args);
    if (!precision)
        return fail(precision.status());
    setup.precision = *precision;
    if (auto file = args.value("override")) {
        auto text = readFile(*file, 64 << 20);
        if (!text)
            return fail(text.status());
        auto overrides = overridesFromJson(*text, *file);
        if (!overrides)
            return fail(overrides.status());
        setup.overrides = std::move(*overrides);
    }

    auto model = loadModel(args.positional().front(), args, extensions);
    if (!model)
        return fail(model.status());
    const Graph &g = model->graph;
    setup.modelProperties = model->metadata.properties;
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    auto meter = costMeter(args, backends, *device);
    if (!meter)
        return fail(meter.status());
    setup.meter = meter->get();
    auto run = scheduleGraph(g, *device, **scheduler, setup);
    if (!run)
        return fail(run.status());

    const ExecutionPlan &plan = run->result.plan;
    const ScheduleDocument doc = makeScheduleDocument(*run, args.positional().front(), setup.options);
    if (auto out = args.value("out"))
        if (Status s = writeFileAtomic(*out, scheduleToJson(doc, g)); !s.isOk())
            return fail(s);
    if (auto trace = args.value("trace"))
        if (Status s = writeFileAtomic(*trace, perfettoTraceJson(plan, g)); !s.isOk())
            return fail(s);

    // Rejected and stale overrides do not stop the run (the rest still apply)
    // but are bad input: reported, and the exit code says so.
    int exitCode = 0;
    for (const OverrideReport &r : run->overrideReports)
        if (r.outcome != OverrideReport::Outcome::Applied) {
            std::fprintf(stderr, "tessera-cli: override '%s' = '%s' %s: %s\n", r.key.c_str(), r.optionId.c_str(),
                         std::string(outcomeName(r.outcome)).c_str(), r.reason.c_str());
            exitCode = 3;
        }

    const TaskCost total = plan.totalCost();
    const double latencyMs = plan.estimatedLatencyNs() / 1e6;
    if (args.has("json")) {
        QJsonObject root = runSummaryJson(*run, (*scheduler)->info().name, device->id, args.positional().front());
        if (const BackendMeter *m = meter->get())
            root["meter"] = QJsonObject{{"backend", QString::fromStdString(m->backendName())},
                                        {"kernels_measured", m->measured()},
                                        {"cache_hits", m->cacheHits()}};
        std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        std::printf("algorithm      %s on %s%s\n", (*scheduler)->info().name.c_str(), device->id.c_str(),
                    plan.precision == DType::Float32 ? ""
                                                     : (" at " + std::string(precisionName(plan.precision))).c_str());
        if (const BackendMeter *m = meter->get())
            std::printf("cost           measured on %s: %d kernels timed, %d asked again\n", m->backendName().c_str(),
                        m->measured(), m->cacheHits());
        std::printf("kernels        %zu (%zu tasks)\n", plan.kernels.size(), plan.tasks.size());
        std::printf("steps          %zu, decisions %zu\n", run->trace.size(), run->decisions.records().size());
        std::printf("search         %s (verify %s)\n", units::durationMs(run->searchMs).c_str(),
                    units::durationMs(run->verifyMs).c_str());
        std::printf("est. latency   %s (%s), energy %s\n", units::durationMs(latencyMs).c_str(),
                    std::string(costKindName(total.kind)).c_str(), units::energyJ(total.energyJ).c_str());
        // The parts summed over tasks (concurrent tasks overlap, so they exceed the latency).
        std::printf("cost parts     %s\n", costPartsText(total).c_str());
        for (const auto &[level, bytes] : total.bytesByLevel)
            std::printf("traffic %-6s %s\n", level.c_str(), units::bytes(static_cast<double>(bytes)).c_str());
        for (const auto &[k, v] : run->result.stats)
            std::printf("stat %-9s %s\n", k.c_str(), statText(k, v).c_str());
    }
    return exitCode;
}

} // namespace

Command scheduleCommand()
{
    auto options = schedulingOptions({}, "stcp920");
    options.push_back(precisionOption());
    const auto cost = costOptions();
    options.insert(options.end(), cost.begin(), cost.end());
    options.insert(options.end(),
                   {{"override", true, false, "--override FILE  decision overrides (JSON)"},
                    {"out", true, false, "--out PLAN.json   write the schedule document"},
                    {"trace", true, false, "--trace T.json    write the estimated timeline as Perfetto JSON"},
                    {"json", false, false, "--json           machine-readable summary"}});
    return {"schedule", "schedule MODEL --algo NAME --device PRESET [...]",
            "schedule a model with one algorithm and report the plan", options, run};
}

} // namespace tessera::cli
