// bench_cpu_serve: Tessera's worker in bench/compare_cpu.py (the side-by-side
// comparison with ONNX Runtime and PyTorch, issue 13).
//
// For every NAME=PATH.onnx argument: imports the model, schedules it with
// every registered scheduler (or those in $TESSERA_BENCH_SCHEDULERS, comma
// separated) for the `host` device preset, compiles each plan on the CPU
// backend with THREADS pool workers, warms it up and screens it (process CPU
// time, median of 3 runs; one run when the warm-up took over 2 s), keeps the
// best two plans ("candidates") and drops the rest. A scheduler that fails, or
// takes over 120 s ($TESSERA_BENCH_SCHEDULE_S), is listed with its error.
// Then prints one JSON line: the host's f32 peak at THREADS cores and DRAM
// bandwidth, per model its GFLOPs, weight bytes, roofline bound
// max(FLOPs / peak, weight bytes / DRAM bandwidth), the screening and the
// candidates. Then answers "run MODEL/PLAN" with {"wall": ms, "cpu": ms} of
// one run (wall: the backend's latency; CPU: the process's CPU time, every
// thread) until "quit".
//
// Usage: bench_cpu_serve THREADS NAME=PATH.onnx...
#include "app/registerbuiltins.h"
#include "backends/cpu/cpu.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/ops/ops.h"
#include "core/sched/scheduler.h"
#include "core/sched/session.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace tessera;

namespace {

double processCpuMs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct Candidate {
    std::string plan; // scheduler name
    std::unique_ptr<IBackend> backend;
    std::unique_ptr<CompiledPlan> compiled;
};

struct Model {
    ImportResult imported;
    std::vector<HostTensor> inputs;
    std::vector<Candidate> candidates;
};

// Runs `fn` with a cancel flag raised after `seconds`.
template <typename Fn> auto withDeadline(double seconds, Fn fn)
{
    std::atomic<bool> cancel{false};
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread watchdog([&] {
        std::unique_lock lock(m);
        if (!cv.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return done; }))
            cancel = true;
    });
    auto result = fn(&cancel);
    {
        std::lock_guard lock(m);
        done = true;
    }
    cv.notify_all();
    watchdog.join();
    return result;
}

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, sep);)
        if (!item.empty())
            out.push_back(item);
    return out;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: bench_cpu_serve THREADS NAME=PATH.onnx...\n");
        return 2;
    }
    const int threads = std::max(1, std::atoi(argv[1]));
    SchedulerRegistry schedulers;
    Extensions extensions(schedulers);
    std::vector<Diagnostic> pluginProblems;
    registerBuiltins(extensions, &pluginProblems);
    BackendRegistry backends; // registers the reference backend's import-time constant evaluator
    registerBuiltinBackends(backends);
    std::vector<const IScheduler *> algos;
    if (const char *only = std::getenv("TESSERA_BENCH_SCHEDULERS")) {
        for (const std::string &name : split(only, ',')) {
            auto s = schedulers.get(name);
            if (!s) {
                std::fprintf(stderr, "bench_cpu_serve: %s\n", s.status().str().c_str());
                return 2;
            }
            algos.push_back(*s);
        }
    } else {
        algos = schedulers.all();
    }
    const double scheduleSeconds =
        std::getenv("TESSERA_BENCH_SCHEDULE_S") ? std::atof(std::getenv("TESSERA_BENCH_SCHEDULE_S")) : 120.0;
    auto device = DeviceRegistry::standard().lookup("host");
    if (!device) {
        std::fprintf(stderr, "bench_cpu_serve: %s\n", device.status().str().c_str());
        return 2;
    }
    const double share = std::min(1.0, double(threads) / std::max(1, device->totalCores()));
    const double peak = device->peakFlops(DType::Float32) * share;
    double dram = 0;
    for (const MemoryLevel &l : device->levels)
        if (l.kind == MemoryKind::Memory)
            dram = l.bandwidthBytesPerSec; // the slowest memory level (fast → slow)

    std::map<std::string, Model> models;
    QJsonObject modelsJson;
    for (int a = 2; a < argc; ++a) {
        const std::string spec = argv[a];
        const auto eq = spec.find('=');
        const std::string name = spec.substr(0, eq);
        auto imported = extensions.importModel(spec.substr(eq + 1));
        if (!imported) {
            std::fprintf(stderr, "bench_cpu_serve: %s: %s\n", name.c_str(), imported.status().str().c_str());
            return 1;
        }
        Model &model = models[name];
        model.imported = std::move(*imported);
        const Graph &g = model.imported.graph;
        double flops = 0;
        std::int64_t weightBytes = 0;
        for (const Node &n : g.nodes())
            if (!n.opaque)
                flops += ops::opCost(g, n).flops;
        for (const Tensor &t : g.tensors())
            if (t.kind == Tensor::Kind::Initializer)
                weightBytes += t.bytes();
        std::mt19937 rng(1);
        for (TensorId id : g.inputs) {
            const Tensor &x = g.tensor(id);
            HostTensor input{x.name, x.dtype, x.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(x.bytes()))};
            for (std::int64_t i = 0; i < input.elements(); ++i)
                input.f32()[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
            model.inputs.push_back(std::move(input));
        }

        struct Screened {
            Candidate c;
            double cpuMs = 0;
        };
        std::vector<Screened> ok;
        QJsonObject screened;
        for (const IScheduler *algo : algos) {
            const std::string plan = algo->info().name;
            auto fail = [&](const std::string &why) {
                screened[QString::fromStdString(plan)] = QJsonObject{{"error", QString::fromStdString(why)}};
                std::fprintf(stderr, "bench_cpu_serve: %s/%s: %s\n", name.c_str(), plan.c_str(), why.c_str());
            };
            auto schedule = withDeadline(scheduleSeconds, [&](const std::atomic<bool> *cancel) {
                ScheduleSetup setup;
                setup.cancel = cancel;
                setup.modelProperties = model.imported.metadata.properties;
                return scheduleGraph(g, *device, *algo, setup);
            });
            if (!schedule) {
                fail(schedule.status().str());
                continue;
            }
            Candidate c{plan, createCpuBackend({.threads = threads}), nullptr};
            auto compiled = c.backend->compile(g, schedule->result.plan);
            if (!compiled) {
                fail(compiled.status().str());
                continue;
            }
            c.compiled = std::move(*compiled);
            auto warm = c.backend->run(*c.compiled, model.inputs);
            if (!warm) {
                fail(warm.status().str());
                continue;
            }
            std::vector<double> cpu;
            const int runs = warm->latencyMs > 2000 ? 1 : 3;
            for (int r = 0; r < runs; ++r) {
                const double c0 = processCpuMs();
                auto res = c.backend->run(*c.compiled, model.inputs);
                if (!res)
                    break;
                cpu.push_back(processCpuMs() - c0);
            }
            if (cpu.empty()) {
                fail("run failed");
                continue;
            }
            std::sort(cpu.begin(), cpu.end());
            const double median = cpu[cpu.size() / 2];
            screened[QString::fromStdString(plan)] = QJsonObject{{"cpu_ms", median},
                                                                 {"tasks", double(schedule->result.plan.tasks.size())},
                                                                 {"reference_ops", warm->metrics["ops/reference"]}};
            std::fprintf(stderr, "bench_cpu_serve: %s/%s: %.1f cpu ms, %.0f ops on reference kernels\n", name.c_str(),
                         plan.c_str(), median, warm->metrics["ops/reference"]);
            ok.push_back({std::move(c), median});
            std::sort(ok.begin(), ok.end(), [](const Screened &x, const Screened &y) { return x.cpuMs < y.cpuMs; });
            if (ok.size() > 2)
                ok.pop_back(); // keep the best two only (memory: every plan holds its constants)
        }
        if (ok.empty()) {
            std::fprintf(stderr, "bench_cpu_serve: %s: no plan ran\n", name.c_str());
            return 1;
        }
        QJsonArray candidates;
        for (Screened &s : ok) {
            candidates.append(QString::fromStdString(s.c.plan));
            model.candidates.push_back(std::move(s.c));
        }
        const double roofMs = std::max(flops / peak, double(weightBytes) / dram) * 1e3;
        modelsJson[QString::fromStdString(name)] = QJsonObject{{"gflop", flops / 1e9},
                                                               {"weight_mb", weightBytes / 1e6},
                                                               {"roofline_ms", roofMs},
                                                               {"screened", screened},
                                                               {"candidates", candidates}};
    }
    const QJsonObject ready{{"host", QJsonObject{{"name", QString::fromStdString(device->name)},
                                                 {"peak_gflops", peak / 1e9},
                                                 {"dram_gbs", dram / 1e9}}},
                            {"models", modelsJson}};
    std::printf("%s\n", QJsonDocument(ready).toJson(QJsonDocument::Compact).constData());
    std::fflush(stdout);

    for (std::string line; std::getline(std::cin, line);) {
        const auto words = split(line, ' ');
        if (words.empty() || words[0] == "quit")
            break;
        const auto parts = words.size() > 1 ? split(words[1], '/') : std::vector<std::string>{};
        auto m = parts.size() == 2 ? models.find(parts[0]) : models.end();
        Candidate *c = nullptr;
        if (m != models.end())
            for (Candidate &cand : m->second.candidates)
                if (cand.plan == parts[1])
                    c = &cand;
        if (!c) {
            std::printf("{\"error\": \"unknown model/plan '%s'\"}\n", line.c_str());
            std::fflush(stdout);
            continue;
        }
        const double c0 = processCpuMs();
        auto res = c->backend->run(*c->compiled, m->second.inputs);
        const double cpu = processCpuMs() - c0;
        if (!res)
            std::printf("{\"error\": \"%s\"}\n", res.status().str().c_str());
        else
            std::printf("{\"wall\": %.4f, \"cpu\": %.4f}\n", res->latencyMs, cpu);
        std::fflush(stdout);
    }
    return 0;
}
