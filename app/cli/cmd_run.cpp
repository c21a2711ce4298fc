// tessera-cli run MODEL --algo NAME --backend NAME --device PRESET
//   [--input NAME=FILE.pb]... [--output-dir DIR] [--plan FILE] [--functional] [--dtype T] [--trace FILE] [--json]
//   [--threads N] [--repeat N]
// Schedules the model (or reads a stored schedule document with --plan; the
// backend checks it is for this device), compiles the plan on a backend (with the device and
// the backend options: --functional asks a timing backend such as sim to
// compute values too), runs it and writes the outputs as ONNX TensorProto
// files; --trace writes the run's timeline as a Perfetto/Chrome trace. In the
// JSON, metric keys "a/b" nest as metrics.a.b. Inputs not given are synthesised
// deterministically by core/backend/inputs.h (floats uniform in [-1, 1),
// integers 0; the n-th synthesised input uses seed n), as the workbench does.
//
// --check runs the same plan on the reference backend with the same inputs
// and compares every output: relative L2 error under --tolerance (default
// 1e-4), and no NaN/Inf where the reference has a finite value; a mismatch is
// reported per output and exits 1 (issue 13, "Bad input").
//
// tessera-cli bench MODEL --backend NAME [--warmup N] [--repeat N] ...: the
// same steps, then N warm-up runs that are not counted and --repeat runs
// (default 10) that are: median, min, max, the 10th-90th percentile spread of
// the latency and the median process CPU time per run (every thread; steadier
// than wall time on a shared machine).
#include "app/cli/command.h"
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/backend/inputs.h"
#include "core/backend/outputcheck.h"
#include "core/backend/tensorio.h"
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

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

namespace tessera::cli {

namespace {

double processCpuMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

int run(const Args &args, const Extensions &extensions, bool bench)
{
    if (args.positional().size() != 1)
        return fail(usageError("run needs exactly one MODEL"));
    const SchedulerRegistry &schedulers = extensions.schedulers();
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    auto scheduler = schedulers.get(*args.value("algo"));
    if (!scheduler)
        return fail(scheduler.status());
    auto backend = backends.get(*args.value("backend"));
    if (!backend)
        return fail(backend.status());
    auto device = DeviceRegistry::standard().lookup(*args.value("device"));
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
    if (args.has("plan") && args.has("precision"))
        return fail(usageError("--precision schedules the model; a --plan file keeps the precision it was made at"));

    std::map<std::string, std::string> inputFiles;
    for (const std::string &spec : args.values("input")) {
        const auto eq = spec.find('=');
        if (eq == std::string::npos || eq == 0)
            return fail(usageError("--input expects NAME=FILE.pb, got '" + spec + "'"));
        inputFiles[spec.substr(0, eq)] = spec.substr(eq + 1);
    }

    auto model = loadModel(args.positional().front(), args, extensions);
    if (!model)
        return fail(model.status());
    const Graph &g = model->graph;
    setup.modelProperties =
        model->metadata.properties; // what the model carries for schedulers, as `schedule` passes it
    std::vector<HostTensor> inputs;
    std::uint64_t seed = 1;
    for (TensorId id : g.inputs) {
        const Tensor &t = g.tensor(id);
        auto it = inputFiles.find(t.name);
        if (it == inputFiles.end()) {
            inputs.push_back(syntheticInput(t, seed++));
            continue;
        }
        auto h = readTensorProto(it->second);
        if (!h)
            return fail(h.status());
        h->name = t.name;
        inputs.push_back(std::move(*h));
        inputFiles.erase(it);
    }
    if (!inputFiles.empty()) {
        std::string known;
        for (TensorId id : g.inputs)
            known += (known.empty() ? "" : ", ") + g.tensor(id).name;
        return fail(usageError("--input names '" + inputFiles.begin()->first +
                               "', which is not a graph input; inputs: " + known));
    }

    ExecutionPlan plan;
    std::string algorithm = (*scheduler)->info().name;
    if (const auto planFile = args.value("plan")) {
        auto text = readFile(*planFile);
        if (!text)
            return fail(text.status());
        auto doc = scheduleFromJson(*text, g, *planFile);
        if (!doc)
            return fail(doc.status());
        plan = std::move(doc->plan);
        algorithm = plan.algorithm;
    } else {
        auto meter = costMeter(args, backends, *device);
        if (!meter)
            return fail(meter.status());
        setup.meter = meter->get();
        auto schedule = scheduleGraph(g, *device, **scheduler, setup);
        if (!schedule)
            return fail(schedule.status());
        plan = std::move(schedule->result.plan);
    }
    CompileContext context;
    context.device = &*device;
    if (args.has("functional"))
        context.options["functional"] = "1";
    if (const auto dtype = args.value("dtype"))
        context.options["dtype"] = *dtype;
    auto threads = args.intValue("threads", 0, 1, 1024);
    auto repeat = args.intValue("repeat", bench ? 10 : 1, 1, 100000);
    auto warmup = args.intValue("warmup", bench ? 3 : 0, 0, 100000);
    for (const Status &s : {threads.status(), repeat.status(), warmup.status()})
        if (!s.isOk())
            return fail(s);
    double tolerance = 1e-4;
    if (const auto t = args.value("tolerance")) {
        char *end = nullptr;
        tolerance = std::strtod(t->c_str(), &end);
        if (t->empty() || *end != '\0' || !(tolerance > 0) || !std::isfinite(tolerance))
            return fail(usageError("--tolerance expects a positive number, got '" + *t + "'"));
    }
    if (args.has("threads"))
        context.options["threads"] = std::to_string(*threads);
    auto compiled = (*backend)->compileFor(g, plan, context);
    if (!compiled)
        return fail(compiled.status());
    // --repeat N: N runs; the report is the run of median latency, with the
    // fastest run's latency beside it.
    for (std::int64_t r = 0; r < *warmup; ++r) {
        auto one = (*backend)->run(**compiled, inputs);
        if (!one)
            return fail(one.status());
    }
    std::vector<RunResult> runs;
    std::vector<double> cpuMs;
    for (std::int64_t r = 0; r < *repeat; ++r) {
        const double c0 = processCpuMs();
        auto one = (*backend)->run(**compiled, inputs);
        cpuMs.push_back(processCpuMs() - c0);
        if (!one)
            return fail(one.status());
        runs.push_back(std::move(*one));
    }
    std::vector<std::size_t> byLatency(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i)
        byLatency[i] = i;
    std::sort(byLatency.begin(), byLatency.end(),
              [&](std::size_t a, std::size_t b) { return runs[a].latencyMs < runs[b].latencyMs; });
    const double minMs = runs[byLatency.front()].latencyMs;
    const double maxMs = runs[byLatency.back()].latencyMs;
    const auto percentile = [&](double q) {
        return runs[byLatency[static_cast<std::size_t>(std::lround(q * static_cast<double>(runs.size() - 1)))]]
            .latencyMs;
    };
    const double p10 = percentile(0.1), p90 = percentile(0.9);
    std::sort(cpuMs.begin(), cpuMs.end());
    const double cpuMedian = cpuMs[cpuMs.size() / 2];
    std::optional<RunResult> result = std::move(runs[byLatency[byLatency.size() / 2]]);
    if (*repeat > 1) {
        result->metrics["runs"] = static_cast<double>(*repeat);
        result->metrics["min_ms"] = minMs;
    }

    // --check: the same plan and inputs on the reference backend.
    std::vector<OutputCheck> checks;
    if (args.has("check")) {
        auto reference = backends.get("reference");
        if (!reference)
            return fail(reference.status());
        CompileContext refContext;
        refContext.device = &*device;
        auto refCompiled = (*reference)->compileFor(g, plan, refContext);
        if (!refCompiled)
            return fail(refCompiled.status().prefix("--check: the reference backend"));
        auto expected = (*reference)->run(**refCompiled, inputs);
        if (!expected)
            return fail(expected.status().prefix("--check: the reference backend"));
        for (std::size_t i = 0; i < result->outputs.size() && i < expected->outputs.size(); ++i)
            checks.push_back(checkOutput(result->outputs[i], expected->outputs[i], tolerance));
    }
    const bool checkFailed = std::any_of(checks.begin(), checks.end(), [](const OutputCheck &c) { return !c.ok; });

    QJsonArray outputs;
    const auto dir = args.value("output-dir");
    if (dir) {
        std::error_code ec;
        std::filesystem::create_directories(*dir, ec);
        if (ec)
            return fail(
                Status::error(ErrorCode::Io, "cannot create the output folder: " + ec.message(), {.file = *dir}));
    }
    for (std::size_t i = 0; i < result->outputs.size(); ++i) {
        const HostTensor &o = result->outputs[i];
        QJsonArray shape;
        for (auto d : o.shape)
            shape.append(static_cast<qint64>(d));
        QJsonObject entry{{"name", QString::fromStdString(o.name)},
                          {"shape", shape},
                          {"dtype", QString::fromUtf8(dtypeName(o.dtype).data())}};
        if (o.dtype == DType::Float32 && o.elements() > 0) {
            double sum = 0;
            for (std::int64_t k = 0; k < o.elements(); ++k)
                sum += o.f32()[k];
            entry["sum"] = sum;
        }
        if (dir) {
            const std::string path = (std::filesystem::path(*dir) / ("output_" + std::to_string(i) + ".pb")).string();
            if (Status s = writeTensorProto(o, path); !s.isOk())
                return fail(s);
            entry["file"] = QString::fromStdString(path);
        }
        outputs.append(entry);
    }
    if (const auto trace = args.value("trace")) {
        if (Status s = writeFileAtomic(*trace, perfettoTraceJson(plan, g, &*result)); !s.isOk())
            return fail(s);
    }
    QJsonObject metrics;
    std::map<std::string, QJsonObject> groups;
    for (const auto &[k, v] : result->metrics) {
        const auto slash = k.find('/');
        if (slash == std::string::npos)
            metrics[QString::fromStdString(k)] = v;
        else
            groups[k.substr(0, slash)][QString::fromStdString(k.substr(slash + 1))] = v;
    }
    for (const auto &[k, group] : groups)
        metrics[QString::fromStdString(k)] = group;
    if (args.has("json")) {
        QJsonObject root{{"backend", QString::fromStdString((*backend)->info().name)},
                         {"algorithm", QString::fromStdString(algorithm)},
                         {"device", QString::fromStdString(device->id)},
                         {"precision", QString::fromUtf8(precisionName(plan.precision).data())},
                         {"kernels", static_cast<qint64>(plan.kernels.size())},
                         {"est_latency_ms", plan.estimatedLatencyNs() / 1e6},
                         {"latency_ms", result->latencyMs},
                         {"outputs", outputs},
                         {"metrics", metrics}};
        if (bench)
            root["bench"] = QJsonObject{{"warmup", static_cast<qint64>(*warmup)},
                                        {"runs", static_cast<qint64>(*repeat)},
                                        {"median_ms", result->latencyMs},
                                        {"min_ms", minMs},
                                        {"max_ms", maxMs},
                                        {"p10_ms", p10},
                                        {"p90_ms", p90},
                                        {"cpu_median_ms", cpuMedian}};
        if (!checks.empty()) {
            QJsonArray list;
            for (const OutputCheck &c : checks)
                list.append(QJsonObject{{"name", QString::fromStdString(c.name)},
                                        {"rel_l2", std::isfinite(c.relL2) ? c.relL2 : -1.0},
                                        {"non_finite", static_cast<qint64>(c.badValues)},
                                        {"ok", c.ok}});
            root["check"] = QJsonObject{{"tolerance", tolerance}, {"outputs", list}, {"ok", !checkFailed}};
        }
        std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        const std::string at =
            plan.precision == DType::Float32 ? "" : " at " + std::string(precisionName(plan.precision));
        std::printf("backend    %s (%s on %s%s, %zu kernels)\n", (*backend)->info().name.c_str(), algorithm.c_str(),
                    device->id.c_str(), at.c_str(), plan.kernels.size());
        std::printf("latency    %s %s, %s estimated", units::durationMs(result->latencyMs).c_str(),
                    (*backend)->info().capabilities.timing ? "simulated" : "measured",
                    units::durationNs(plan.estimatedLatencyNs()).c_str());
        if (*repeat > 1)
            std::printf(" (median of %lld runs, fastest %s)", static_cast<long long>(*repeat),
                        units::durationMs(minMs).c_str());
        std::printf("\n");
        if (bench) {
            std::printf("runs       %lld after %lld warm-up; min %s, max %s, p10-p90 %s-%s\n",
                        static_cast<long long>(*repeat), static_cast<long long>(*warmup),
                        units::durationMs(minMs).c_str(), units::durationMs(maxMs).c_str(),
                        units::durationMs(p10).c_str(), units::durationMs(p90).c_str());
            std::printf("cpu time   %s per run (median, every thread of the process)\n",
                        units::durationMs(cpuMedian).c_str());
        }
        // Ops the backend left on reference kernels, with its reason (cpu backend).
        for (const auto &[key, count] : result->metrics)
            if (key.rfind("fallback/", 0) == 0)
                std::printf("fallback   %s (%s op%s on the reference kernel)\n", key.substr(9).c_str(),
                            units::count(count).c_str(), count == 1 ? "" : "s");
        // Ops a backend runs correctly but on a much slower path, with its reason.
        for (const auto &[key, count] : result->metrics)
            if (key.rfind("slow_path/", 0) == 0)
                std::printf("slow path  %s (%s op%s)\n", key.substr(10).c_str(), units::count(count).c_str(),
                            count == 1 ? "" : "s");
        // The simulator's summary numbers, through the one formatting helper.
        const auto metric = [&](const char *key) {
            auto it = result->metrics.find(key);
            return it == result->metrics.end() ? std::optional<double>() : std::optional<double>(it->second);
        };
        if (auto v = metric("achieved_gflops")) {
            std::printf("achieved   %.1f GFLOP/s, %.2f GB/s", *v, metric("achieved_gbps").value_or(0));
            if (auto share = metric("peak_share"))
                std::printf(", %.1f %% of the device's f32 peak", *share * 100);
            std::printf("\n");
        }
        // Event counters (cpu backend): the counts, or why an event is not counted.
        for (const auto &[key, value] : result->metrics)
            if (key.rfind("counters/", 0) == 0)
                std::printf("counter    %s%s%s\n", key.substr(9).c_str(),
                            key.rfind("counters/unavailable: ", 0) == 0 ? "" : " ",
                            key.rfind("counters/unavailable: ", 0) == 0 ? "" : units::count(value).c_str());
        if (auto v = metric("throughput"))
            std::printf("throughput %s\n", units::rate(*v, "items/s").c_str());
        if (auto v = metric("energy_j"))
            std::printf("energy     %s\n", units::energyJ(*v).c_str());
        if (auto v = metric("avg_power_w"))
            std::printf("avg power  %s\n", units::powerW(*v).c_str());
        for (const auto &o : outputs) {
            const QJsonObject e = o.toObject();
            std::printf("output     %s  sum %.6g%s%s\n", e["name"].toString().toStdString().c_str(),
                        e["sum"].toDouble(), dir ? "  -> " : "", dir ? e["file"].toString().toStdString().c_str() : "");
        }
        for (const OutputCheck &c : checks) {
            std::printf("check      %s  rel L2 %.3g", c.name.c_str(), c.relL2);
            if (c.badValues > 0)
                std::printf(", %lld NaN/Inf where the reference is finite", static_cast<long long>(c.badValues));
            std::printf(" (tolerance %.3g): %s\n", tolerance, c.ok ? "ok" : "MISMATCH");
        }
    }
    if (checkFailed) {
        std::fprintf(stderr, "tessera-cli: --check: %s differs from the reference backend\n",
                     (*backend)->info().name.c_str());
        return 1;
    }
    return 0;
}

std::vector<ArgSpec> runOptions(bool bench)
{
    auto options = schedulingOptions("sequential", "host");
    options.push_back(precisionOption());
    const auto cost = costOptions();
    options.insert(options.end(), cost.begin(), cost.end());
    options.insert(
        options.end(),
        {{"backend", true, false, "--backend NAME   backend (default reference; see 'tessera-cli backends')",
          "reference"},
         {"input", true, true, "--input NAME=FILE.pb  an input as an ONNX TensorProto (repeatable)"},
         {"output-dir", true, false, "--output-dir DIR write outputs as DIR/output_N.pb"},
         {"plan", true, false, "--plan FILE      run a stored schedule ('schedule --out') instead of scheduling"},
         {"functional", false, false, "--functional     timing backends (sim) also compute the outputs"},
         {"dtype", true, false,
          "--dtype T        time a plan sized at fp32 as T (sim; --precision sizes the plan too)"},
         {"threads", true, false,
          "--threads N      most threads: workers for concurrent tasks, and each kernel's OpenMP team (cpu backend)"},
         {"repeat", true, false,
          bench ? "--repeat N       measured runs (default 10)"
                : "--repeat N       run N times; report the run of median latency"},
         {"check", false, false,
          "--check          compare every output with the reference backend's (same plan, same inputs)"},
         {"tolerance", true, false, "--tolerance X    --check's largest relative L2 error (default 1e-4)"},
         {"trace", true, false, "--trace FILE     write the run's timeline as a Perfetto/Chrome trace"},
         {"json", false, false, "--json           machine-readable summary"}});
    if (bench)
        options.push_back({"warmup", true, false, "--warmup N       runs before the measured ones (default 3)"});
    return options;
}

} // namespace

Command runCommand()
{
    return {"run", "run MODEL --algo NAME --backend NAME [...]",
            "schedule a model, run the plan on a backend and write its outputs", runOptions(false),
            [](const Args &args, const Extensions &extensions) { return run(args, extensions, false); }};
}

Command benchCommand()
{
    return {"bench", "bench MODEL --backend NAME [--warmup N] [--repeat N] [...]",
            "warm-up and repeated runs of a plan on a backend: median, spread and CPU time per run", runOptions(true),
            [](const Args &args, const Extensions &extensions) { return run(args, extensions, true); }};
}

} // namespace tessera::cli
