// bench_sim: timing-only simulation (backends/sim) of the layer-fusion plans of
// graphturbo-osdi23 Table 2's networks on STCP920 at the table's batch sizes
// (ResNet-50 b64, BERT-base-128 b32, MobileNet-v2 b128, DenseNet-121 b32,
// ViT-B/16 b32 at 224² and 384²), timed in f32 and as f16 (dtype option: the
// paper's precision, docs/simulator.md). Per network: wall time of scheduling (the same-run baseline)
// and of compile + simulate, simulator events and events per second, the
// simulated throughput and its ratio to the paper's TVM column (the issue's
// calibration target: within 2×).
//
// Usage: bench_sim [network...]   (default: all five; names as `tessera-cli sample --list`)
// Links: tessera_app_common tessera_samples onnx_proto (besides tessera_core).
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/scheduler.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <onnx/onnx_pb.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench/benchsample.h"

using namespace tessera;

namespace {

struct Network {
    const char *sample;
    const char *title;
    std::int64_t batch;
    double paperTvm;  // items/s, graphturbo-osdi23 Table 2, TVM column
    int imageSize{0}; // 0: the sample's default
};

// The paper does not say which Vision Transformer it ran: ViT-B/16 at the sample's 224² and at
// 384², the resolution of the ImageNet fine-tuned ViT-B/16 of its reference [11] (docs/simulator.md).
const Network kNetworks[] = {
    {"resnet50", "ResNet-50", 64, 1064},
    {"bert", "BERT-base-128", 32, 512},
    {"mobilenetv2", "MobileNet-v2", 128, 1416},
    {"densenet121", "DenseNet-121", 32, 456},
    {"vit", "ViT-B/16", 32, 40},
    {"vit", "ViT-B/16 384²", 32, 40, 384},
};

} // namespace

int main(int argc, char **argv)
{
    std::vector<std::string> wanted(argv + 1, argv + argc);
    SchedulerRegistry schedulers;
    registerBuiltinSchedulers(schedulers);
    BackendRegistry backends;
    registerBuiltinBackends(backends);
    IBackend *sim = backends.find("sim");
    const IScheduler *fusion = schedulers.find("layer-fusion");
    auto device = DeviceRegistry::standard().lookup("stcp920");
    if (!sim || !fusion || !device) {
        std::fprintf(stderr, "bench_sim: missing the sim backend, layer-fusion or stcp920\n");
        return 1;
    }
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("tessera-bench-sim-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);

    std::printf("| network | batch | dtype | tasks | schedule ms | sim ms | ratio | events | events/s | sim time ms | "
                "items/s | paper TVM | sim / paper |\n");
    std::printf("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    int status = 0;
    for (const Network &n : kNetworks) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), n.sample) == wanted.end())
            continue;
        samples::SampleOptions o;
        o.batch = n.batch;
        o.imageSize = n.imageSize;
        auto imported = bench::importSample(n.sample, o, dir);
        if (!imported) {
            std::fprintf(stderr, "%s: %s\n", n.sample, imported.status().str().c_str());
            status = 1;
            continue;
        }
        const Graph &g = imported->graph;
        auto t0 = std::chrono::steady_clock::now();
        auto run = scheduleGraph(g, *device, *fusion, {});
        const double scheduleMs = bench::msSince(t0);
        if (!run) {
            std::fprintf(stderr, "%s: %s\n", n.sample, run.status().str().c_str());
            status = 1;
            continue;
        }
        std::vector<HostTensor> inputs;
        for (TensorId id : g.inputs)
            inputs.push_back({.name = g.tensor(id).name});
        for (const char *dtype : {"f32", "f16"}) {
            t0 = std::chrono::steady_clock::now();
            CompileContext ctx{&*device, {{"dtype", dtype}}};
            auto compiled = sim->compileFor(g, run->result.plan, ctx);
            Expected<RunResult> r = compiled ? sim->run(**compiled, inputs) : Expected<RunResult>(compiled.status());
            const double simMs = bench::msSince(t0);
            if (!r) {
                std::fprintf(stderr, "%s: %s\n", n.sample, r.status().str().c_str());
                status = 1;
                continue;
            }
            const double events = r->metrics.at("events");
            const double items = r->metrics.at("throughput");
            std::printf("| %s | %lld | %s | %zu | %.0f | %.1f | %.3f | %.0f | %.3g | %.2f | %.0f | %.0f | %.2f |\n",
                        n.title, static_cast<long long>(n.batch), dtype, run->result.plan.tasks.size(), scheduleMs,
                        simMs, simMs / scheduleMs, events, events / (simMs / 1e3), r->metrics.at("sim_time_ms"), items,
                        n.paperTvm, items / n.paperTvm);
        }
        std::fflush(stdout);
    }
    std::filesystem::remove_all(dir);
    return status;
}
