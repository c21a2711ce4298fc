// bench_cpufused: the fused intermediates of tiled tasks (issue 13 item 1,
// backends/cpu/fusedintermediates.cpp) on and off, in one process on the
// same plans. For each sample model (batch 1, synthetic weights, the sample
// catalog) and each tiling scheduler (planned for the host device, as
// `tessera-cli run` does), the plan is compiled twice — CpuBackendOptions::
// fuseIntermediates true and false — and run alternately; printed per plan:
// the median process CPU time and wall time per run of each, the arena
// bytes, the arena plus every worker's scratch ("arena_and_scratch_bytes"),
// the fused intermediates and the relative L2 of the fused run's outputs
// against the whole-tensor run's.
//
// Guard: exits 1 when a fused run's outputs differ by a relative L2 of 1e-5
// or more, 2 when its arena and scratch together exceed the whole-tensor
// run's arena by more than 1 % (the buffers a run holds grew; a row whose
// fused intermediates leave the arena's peak as it was and add their
// workers' scratch is marked "more bytes"). BENCH_CPUFUSED_ALL=1 prints every
// run's CPU time.
//
// Usage: bench_cpufused [runs=5] [models=squeezenet,resnet50,mobilenetv2]
//                       [algos=welder,graphturbo,brickdl] [image=0 (the network's)]
// Links: tessera_backend_cpu tessera_app_common tessera_samples onnx_proto.
#include "app/registerbuiltins.h"
#include "backends/cpu/cpu.h"
#include "core/backend/outputcheck.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/scheduler.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <onnx/onnx_pb.h>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench/benchcpu.h"

using namespace tessera;

namespace {

int fail(const Status &s)
{
    std::fprintf(stderr, "bench_cpufused: %s\n", s.str().c_str());
    return 1;
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    const auto models = split(argc > 2 ? argv[2] : "squeezenet,resnet50,mobilenetv2");
    const auto algos = split(argc > 3 ? argv[3] : "welder,graphturbo,brickdl");
    samples::SampleOptions options;
    if (argc > 4 && std::atoi(argv[4]) > 0)
        options.imageSize = std::atoi(argv[4]);

    SchedulerRegistry schedulers;
    Extensions extensions(schedulers);
    std::vector<Diagnostic> pluginProblems;
    registerBuiltins(extensions, &pluginProblems);
    auto device = DeviceRegistry::standard().lookup("host");
    if (!device)
        return fail(device.status());
    const auto dir = std::filesystem::temp_directory_path() / ("tessera-bench-cpufused-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);

    std::printf("%d runs per plan and setting, alternating; cpu = median process CPU ms per run\n", runs);
    std::printf("%-12s %-11s %9s %9s %9s %9s %11s %11s %11s %6s %10s %9s\n", "model", "plan", "cpu whole", "cpu fused",
                "wall whole", "wall fused", "arena whole", "arena fused", "+scratch", "fused", "scratch", "rel L2");
    int status = 0;
    for (const std::string &name : models) {
        auto imported = bench::importRegisteredSample(extensions, name, options, dir);
        if (!imported)
            return fail(imported.status());
        const Graph &g = imported->graph;
        const std::vector<HostTensor> inputs = bench::uniformInput(g);

        for (const std::string &algo : algos) {
            auto scheduler = schedulers.get(algo);
            if (!scheduler)
                return fail(scheduler.status());
            auto schedule = scheduleGraph(g, *device, **scheduler, {});
            if (!schedule)
                return fail(schedule.status());
            const ExecutionPlan &plan = schedule->result.plan;
            auto fusedCpu = createCpuBackend({.fuseIntermediates = true});
            auto wholeCpu = createCpuBackend({.fuseIntermediates = false});
            auto fused = fusedCpu->compile(g, plan);
            if (!fused)
                return fail(fused.status());
            auto whole = wholeCpu->compile(g, plan);
            if (!whole)
                return fail(whole.status());
            std::vector<double> cpu[2], wall[2];
            RunResult last[2];
            for (int r = -1; r < runs; ++r) // run -1: warm-up
                for (int on = 0; on < 2; ++on) {
                    IBackend &backend = on ? *fusedCpu : *wholeCpu;
                    CompiledPlan &compiled = on ? **fused : **whole;
                    const double c0 = bench::processCpuMs();
                    auto result = backend.run(compiled, inputs);
                    if (!result)
                        return fail(result.status());
                    if (r < 0)
                        continue;
                    cpu[on].push_back(bench::processCpuMs() - c0);
                    wall[on].push_back(result->latencyMs);
                    last[on] = std::move(*result);
                }
            double err = 0;
            for (std::size_t o = 0; o < last[0].outputs.size(); ++o)
                err = std::max(err, relativeL2(last[1].outputs[o], last[0].outputs[o]));
            const double arenaWhole = last[0].metrics["arena_bytes"], arenaFused = last[1].metrics["arena_bytes"];
            const double held = last[1].metrics["arena_and_scratch_bytes"];
            if (err >= 1e-5)
                status = 1;
            else if (held > arenaWhole * 1.01 && status == 0)
                status = 2;
            if (std::getenv("BENCH_CPUFUSED_ALL"))
                for (int on = 0; on < 2; ++on) {
                    std::printf("  %s cpu ms:", on ? "fused" : "whole");
                    for (double c : cpu[on])
                        std::printf(" %.0f", c);
                    std::printf("\n");
                }
            std::printf("%-12s %-11s %9.1f %9.1f %10.1f %10.1f %11.0f %11.0f %11.0f %6.0f %10.0f %9.1e%s\n",
                        name.c_str(), algo.c_str(), median(cpu[0]), median(cpu[1]), median(wall[0]), median(wall[1]),
                        arenaWhole, arenaFused, held, last[1].metrics["fused_intermediates/tensors"],
                        last[1].metrics["fused_intermediates/scratch_bytes"], err,
                        held > arenaWhole ? "  more bytes" : "");
        }
    }
    std::filesystem::remove_all(dir);
    return status;
}
