// bench_welder: Welder's search time (issue 15: BERT-base and MobileNetV2 under 5 s each, ViT
// under 10 s, a replay after an override under 500 ms) and, as Fig. 13 compares them, the kernel
// count, HBM traffic and estimated latency of welder against welder-base (register level only)
// and welder-none (no inter-operator connection), on the V100 preset with the shared device cost
// model. Search time is IScheduler::run alone (ScheduleRun::searchMs), cold: option reuse=false,
// so no run starts from another's tilings; "schedule CPU s" is the process CPU time of the whole
// scheduleGraph (search and verification, every thread). The replay rows schedule once with reuse=true, then
// force one decision (the first fused kernel's second tile candidate; the first connected edge
// left unconnected) and time the whole re-schedule (search + verification), as the workbench's
// replay runs it. Each replay runs BENCH_WELDER_REPEAT times (default 3), each time after a first
// schedule that starts from nothing kept, reported as the median wall and CPU time. The cold search of the same model
// in the same run (reuse=false) is the baseline. `bench_welder --replay-only MODEL...` prints the replay table alone
// (its cold baseline included); BENCH_WELDER_THREADS=N sets option threads (default: one per core). Under `valgrind
// --tool=callgrind --instr-atstart=no` only the timed replays are instrumented (BENCH_WELDER_ONLY=tile or connect: that
// kind alone). Needs tessera_plugin_welder, tessera_plugin_ios and tessera_samples linked.
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "plugins/ios/iosimport.h"
#include "plugins/welder/welder.h"
#include "samples/catalog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <onnx/onnx_pb.h>
#include <string>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#endif

namespace {

using namespace tessera;
using Clock = std::chrono::steady_clock;

double levelBytes(const ExecutionPlan &plan, const std::string &level)
{
    double bytes = 0;
    for (const Task &t : plan.tasks) {
        const auto it = t.cost.bytesByLevel.find(level);
        if (it != t.cost.bytesByLevel.end())
            bytes += double(it->second);
    }
    return bytes;
}

Expected<Graph> load(const std::string &name)
{
    if (name == "randwire" || name == "nasnet") {
        auto imported = importIosNetwork(name);
        if (!imported)
            return imported.status();
        return std::move(imported->graph);
    }
    auto model = samples::buildSample(name, {});
    std::string bytes;
    if (!model)
        return model.status();
    if (!(*model)->SerializeToString(&bytes))
        return Status::invalid(name + ": cannot serialise");
    auto imported = importModelFromBytes(bytes, name + ".onnx");
    if (!imported)
        return imported.status();
    return std::move(imported->graph);
}

// CPU time of the process (every thread), ms: on a shared machine the wall time is an upper bound.
double cpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Timing {
    double wallMs = -1, cpuMs = -1;
};

ScheduleSetup replaySetup()
{
    ScheduleSetup setup;
    setup.options = {{"reuse", "true"}};
    if (const char *threads = std::getenv("BENCH_WELDER_THREADS"))
        setup.options["threads"] = threads;
    return setup;
}

// A one-node graph: scheduling it with reuse=true replaces the tilings Welder keeps (it keeps the
// last schedule's only), so the next schedule of a model starts cold.
Graph evictionGraph()
{
    Graph g;
    g.name = "evict";
    Tensor x, y;
    x.name = "x";
    x.shape = {1, 8};
    x.kind = Tensor::Kind::Input;
    y.name = "y";
    y.shape = {1, 8};
    const TensorId xi = g.addTensor(x), yi = g.addTensor(y);
    Node n;
    n.name = "relu";
    n.opType = "Relu";
    n.inputs = {xi};
    n.outputs = {yi};
    g.addNode(n);
    g.inputs = {xi};
    g.outputs = {yi};
    return g;
}

double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// `repeat` times: a first schedule with reuse=true from nothing kept (the cold search a session
// starts with), then the schedule with one override (the whole re-schedule: search and
// verification, as the workbench replays it). Median wall and CPU ms of the replay (and of the
// first schedule in `first`); -1 when the override was not applied.
Timing replay(const Graph &g, const Device &device, const IScheduler &welder, const std::string &key,
              const std::string &option, int repeat, Timing *first)
{
    static const Graph evict = evictionGraph();
    std::vector<double> walls, cpus, firstWalls, firstCpus;
    for (int i = 0; i < repeat; ++i) {
        if (!scheduleGraph(evict, device, welder, replaySetup()))
            return {};
        auto t0 = Clock::now();
        double cpu0 = cpuMs();
        if (!scheduleGraph(g, device, welder, replaySetup()))
            return {};
        firstWalls.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        firstCpus.push_back(cpuMs() - cpu0);
        ScheduleSetup setup = replaySetup();
        setup.overrides[key] = option;
        if (std::getenv("BENCH_WELDER_SPLIT")) {
            std::fprintf(stderr, "replay %s starts\n", key.c_str()); // a profiler may attach now
            std::fflush(stderr);
        }
        CALLGRIND_START_INSTRUMENTATION;
        t0 = Clock::now();
        cpu0 = cpuMs();
        auto run = scheduleGraph(g, device, welder, setup);
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        const double cpu = cpuMs() - cpu0;
        CALLGRIND_STOP_INSTRUMENTATION;
        if (!run || run->overrideReports.empty() || run->overrideReports[0].outcome != OverrideReport::Outcome::Applied)
            return {};
        if (std::getenv("BENCH_WELDER_SPLIT"))
            std::fprintf(stderr,
                         "replay %s: search %.0f ms, verify %.0f ms, rest %.0f ms; CPU %.0f ms (all threads); tilings "
                         "searched %.0f (level 0: %.0f), journalled edges %.0f, trials %.0f, kernels lowered before "
                         "%.0f\n",
                         key.c_str(), run->searchMs, run->verifyMs, ms - run->searchMs - run->verifyMs, cpu,
                         run->result.stats.at("tilings_searched"), run->result.stats.at("tilings_searched_level0"),
                         run->result.stats.at("journalled_edges"), run->result.stats.at("connect_trials"),
                         run->result.stats.at("lowering_reused"));
        walls.push_back(ms);
        cpus.push_back(cpu);
    }
    if (first)
        *first = {median(firstWalls), median(firstCpus)};
    return {median(walls), median(cpus)};
}

} // namespace

int main(int argc, char **argv)
{
    auto device = DeviceRegistry::standard().lookup("nvidia-v100");
    if (!device) {
        std::fprintf(stderr, "%s\n", device.status().str().c_str());
        return 1;
    }
    auto welder = createWelderScheduler();
    const std::string dram = device->levels.back().name;
    std::vector<std::string> models{"bert", "mobilenetv2", "vit", "resnet50", "randwire"};
    // --replay-only: the replay table alone (no cold runs of the three variants).
    bool replayOnly = false;
    if (argc > 1 && std::string(argv[1]) == "--replay-only") {
        replayOnly = true;
        --argc;
        ++argv;
    }
    if (argc > 1)
        models.assign(argv + 1, argv + argc);
    std::printf("| model | variant | search s | schedule CPU s | kernels | %s MiB | est. ms |\n| --- | --- | ---: | "
                "---: | ---: | "
                "---: | ---: |\n",
                dram.c_str());
    struct Replay {
        std::string model;
        Timing cold, warm, tile, connect;
    };
    const int repeat =
        std::getenv("BENCH_WELDER_REPEAT") ? std::max(1, std::atoi(std::getenv("BENCH_WELDER_REPEAT"))) : 3;
    const std::string only = std::getenv("BENCH_WELDER_ONLY") ? std::getenv("BENCH_WELDER_ONLY") : "";
    std::vector<Replay> replays;
    int failures = 0;
    for (const std::string &name : models) {
        auto g = load(name);
        if (!g) {
            std::fprintf(stderr, "%s: %s\n", name.c_str(), g.status().str().c_str());
            return 1;
        }
        for (const char *variant : {"welder", "base", "none"}) {
            if (replayOnly)
                break;
            ScheduleSetup setup;
            setup.options = {{"variant", variant}, {"reuse", "false"}};
            if (const char *threads = std::getenv("BENCH_WELDER_THREADS"))
                setup.options["threads"] = threads;
            const double cpu0 = cpuMs();
            auto run = scheduleGraph(*g, *device, *welder, setup);
            const double cpu = cpuMs() - cpu0;
            if (!run) {
                std::fprintf(stderr, "%s %s: %s\n", name.c_str(), variant, run.status().str().c_str());
                ++failures;
                continue;
            }
            std::printf("| %s | welder%s%s | %.2f | %.2f | %zu | %.1f | %.3f |\n", name.c_str(),
                        std::string(variant) == "welder" ? "" : "-", std::string(variant) == "welder" ? "" : variant,
                        run->searchMs / 1e3, cpu / 1e3, run->result.plan.kernels.size(),
                        levelBytes(run->result.plan, dram) / 1048576.0, run->result.plan.estimatedLatencyNs() / 1e6);
            std::fflush(stdout);
        }
        // The baseline: a cold search of the same model (reuse=false), welder variant; its
        // decisions name the overrides.
        Replay r{name, {}, {}, {}, {}};
        ScheduleSetup cold = replaySetup();
        cold.options["reuse"] = "false";
        const auto t0 = Clock::now();
        const double cpu0 = cpuMs();
        auto first = scheduleGraph(*g, *device, *welder, cold);
        if (!first) {
            ++failures;
            continue;
        }
        r.cold = {std::chrono::duration<double, std::milli>(Clock::now() - t0).count(), cpuMs() - cpu0};
        if (only.empty() || only == "tile")
            for (const DecisionRecord &d : first->decisions.records())
                if (d.role == "welder.tile" && d.options.size() >= 2) {
                    r.tile = replay(*g, *device, *welder, d.key, d.options[1].id, repeat, &r.warm);
                    break;
                }
        if (only.empty() || only == "connect")
            for (const DecisionRecord &d : first->decisions.records())
                if (d.role == "welder.connect" && d.chosen != 0) {
                    r.connect = replay(*g, *device, *welder, d.key, d.options[0].id, repeat, &r.warm);
                    break;
                }
        replays.push_back(r);
    }
    std::printf("\n| model | cold search, reuse off: wall ms (CPU ms) | first schedule, reuse on: wall ms (CPU ms) | "
                "replay, tile override: wall ms (CPU ms) | replay, connect override: wall ms (CPU ms) |\n| --- | "
                "---: | ---: | ---: | ---: |\n");
    for (const Replay &r : replays)
        std::printf("| %s | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) | %.0f (%.0f) |\n", r.model.c_str(), r.cold.wallMs,
                    r.cold.cpuMs, r.warm.wallMs, r.warm.cpuMs, r.tile.wallMs, r.tile.cpuMs, r.connect.wallMs,
                    r.connect.cpuMs);
    return failures ? 1 : 0;
}
