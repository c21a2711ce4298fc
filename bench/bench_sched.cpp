// Scheduling framework benchmarks (issue 3): schedule + lower + verify
// ResNet-50 with each baseline, and replay with one override. Prints one line
// per measurement: median of N runs, with the sequential baseline measured in
// the same run as the reference for ratios.
#include "app/registerbuiltins.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "samples/catalog.h"

#include <QCoreApplication>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <onnx/onnx_pb.h>
#include <vector>

using namespace tessera;

namespace {

double medianMs(int runs, const std::function<void()> &fn)
{
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        const auto a = std::chrono::steady_clock::now();
        fn();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    auto proto = samples::buildSample("resnet50", {});
    if (!proto) {
        std::fprintf(stderr, "%s\n", proto.status().str().c_str());
        return 1;
    }
    std::string bytes;
    (*proto)->SerializeToString(&bytes);
    Expected<ImportResult> model = Status::invalid("unset");
    const double importMs = medianMs(5, [&] { model = importModelFromBytes(bytes, "resnet50.onnx"); });
    if (!model) {
        std::fprintf(stderr, "%s\n", model.status().str().c_str());
        return 1;
    }
    const Graph &g = model->graph;
    auto device = DeviceRegistry::standard().lookup("stcp920");
    SchedulerRegistry reg;
    registerBuiltinSchedulers(reg);

    std::printf("%-44s %10s\n", "measurement (ResNet-50, batch 1, stcp920)", "median ms");
    std::printf("%-44s %10.2f\n", "import from memory (102 MB protobuf)", importMs);
    for (const char *algo : {"sequential", "greedy", "layer-fusion"}) {
        const IScheduler *s = reg.find(algo);
        double search = 0, verify = 0;
        const double total = medianMs(9, [&] {
            auto run = scheduleGraph(g, *device, *s, {});
            search = run->searchMs;
            verify = run->verifyMs;
        });
        std::printf("%-44s %10.2f   (search %.2f, verify %.2f)\n",
                    (std::string("schedule+lower+verify ") + algo).c_str(), total, search, verify);
    }
    // Replay with one override: split the first fused kernel.
    const IScheduler *lf = reg.find("layer-fusion");
    auto first = scheduleGraph(g, *device, *lf, {});
    ScheduleSetup setup;
    for (const DecisionRecord &d : first->decisions.records())
        if (d.options.size() > 1) {
            setup.overrides[d.key] = d.options[1].id;
            break;
        }
    const double replay = medianMs(9, [&] { (void)scheduleGraph(g, *device, *lf, setup); });
    std::printf("%-44s %10.2f\n", "replay layer-fusion with one override", replay);
    return 0;
}
