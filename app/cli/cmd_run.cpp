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
#include "app/cli/command.h"
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/backend/inputs.h"
#include "core/backend/tensorio.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/sched/session.h"
#include "core/support/fileio.h"
#include "core/support/units.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

namespace tessera::cli {

namespace {

int run(const Args &args, const Extensions &extensions)
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
    auto repeat = args.intValue("repeat", 1, 1, 100000);
    for (const Status &s : {threads.status(), repeat.status()})
        if (!s.isOk())
            return fail(s);
    if (args.has("threads"))
        context.options["threads"] = std::to_string(*threads);
    auto compiled = (*backend)->compileFor(g, plan, context);
    if (!compiled)
        return fail(compiled.status());
    // --repeat N: N runs; the report is the run of median latency, with the
    // fastest run's latency beside it.
    std::vector<RunResult> runs;
    for (std::int64_t r = 0; r < *repeat; ++r) {
        auto one = (*backend)->run(**compiled, inputs);
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
    std::optional<RunResult> result = std::move(runs[byLatency[byLatency.size() / 2]]);
    if (*repeat > 1) {
        result->metrics["runs"] = static_cast<double>(*repeat);
        result->metrics["min_ms"] = minMs;
    }

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
                         {"kernels", static_cast<qint64>(plan.kernels.size())},
                         {"est_latency_ms", plan.estimatedLatencyNs() / 1e6},
                         {"latency_ms", result->latencyMs},
                         {"outputs", outputs},
                         {"metrics", metrics}};
        std::fputs(QJsonDocument(root).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        std::printf("backend    %s (%s on %s, %zu kernels)\n", (*backend)->info().name.c_str(), algorithm.c_str(),
                    device->id.c_str(), plan.kernels.size());
        std::printf("latency    %s %s, %s estimated", units::durationMs(result->latencyMs).c_str(),
                    (*backend)->info().capabilities.timing ? "simulated" : "measured",
                    units::durationNs(plan.estimatedLatencyNs()).c_str());
        if (*repeat > 1)
            std::printf(" (median of %lld runs, fastest %s)", static_cast<long long>(*repeat),
                        units::durationMs(minMs).c_str());
        std::printf("\n");
        // Ops the backend left on reference kernels, with its reason (cpu backend).
        for (const auto &[key, count] : result->metrics)
            if (key.rfind("fallback/", 0) == 0)
                std::printf("fallback   %s (%s op%s on the reference kernel)\n", key.substr(9).c_str(),
                            units::count(count).c_str(), count == 1 ? "" : "s");
        // The simulator's summary numbers, through the one formatting helper.
        const auto metric = [&](const char *key) {
            auto it = result->metrics.find(key);
            return it == result->metrics.end() ? std::optional<double>() : std::optional<double>(it->second);
        };
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
    }
    return 0;
}

} // namespace

Command runCommand()
{
    auto options = schedulingOptions("sequential", "host");
    options.insert(
        options.end(),
        {{"backend", true, false, "--backend NAME   backend (default reference; see 'tessera-cli backends')",
          "reference"},
         {"input", true, true, "--input NAME=FILE.pb  an input as an ONNX TensorProto (repeatable)"},
         {"output-dir", true, false, "--output-dir DIR write outputs as DIR/output_N.pb"},
         {"plan", true, false, "--plan FILE      run a stored schedule ('schedule --out') instead of scheduling"},
         {"functional", false, false, "--functional     timing backends (sim) also compute the outputs"},
         {"dtype", true, false, "--dtype T        time float32 tensors as T, the deployment precision (sim: f16)"},
         {"threads", true, false, "--threads N      most worker threads for concurrent tasks (cpu backend)"},
         {"repeat", true, false, "--repeat N       run N times; report the run of median latency"},
         {"trace", true, false, "--trace FILE     write the run's timeline as a Perfetto/Chrome trace"},
         {"json", false, false, "--json           machine-readable summary"}});
    return {"run", "run MODEL --algo NAME --backend NAME [...]",
            "schedule a model, run the plan on a backend and write its outputs", options, run};
}

} // namespace tessera::cli
