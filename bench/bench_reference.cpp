// bench_reference: ResNet-50 (batch 1, 224×224, synthetic weights) on the
// reference backend. Times compile and run of the sequential plan, the
// layer-fusion plan and a tiled plan (every layer-fusion kernel split into
// four tiles along H, or its longest dim), checks that all three give the
// sequential plan's output bit for bit, and prints a table.
//
// Usage: bench_reference [runs=3] [image=224]
// Links: tessera_backend_reference tessera_samples tessera_plugin_sequential
//        tessera_plugin_layerfusion onnx_proto (besides tessera_core).
#include "backends/reference/reference.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/plan/tiles.h"
#include "core/sched/session.h"
#include "plugins/layerfusion/layerfusion.h"
#include "plugins/sequential/sequential.h"
#include "samples/catalog.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <onnx/onnx_pb.h>
#include <random>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tessera;

namespace {

double msSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Every kernel of `base` as `parts` tasks, tiles along dim 2 (or the longest dim).
ExecutionPlan tiled(const Graph &g, const ExecutionPlan &base, int parts)
{
    ExecutionPlan p;
    p.algorithm = "tiled";
    std::map<TensorId, std::vector<TaskId>> producers;
    for (const Kernel &k : base.kernels) {
        const KernelId kid = p.addKernel(k.name, k.nodes, "tiled");
        std::set<TaskId> deps;
        for (NodeId n : k.nodes)
            for (TensorId t : g.node(n).inputs)
                if (t != kInvalidId && producers.count(t) &&
                    std::find(k.nodes.begin(), k.nodes.end(), g.tensor(t).producer) == k.nodes.end())
                    deps.insert(producers[t].begin(), producers[t].end());
        std::vector<NodeTile> outs;
        bool scalar = false;
        for (NodeId n : kernelOutputNodes(g, k.nodes))
            for (std::size_t oi = 0; oi < g.node(n).outputs.size(); ++oi)
                if (const TensorId t = g.node(n).outputs[oi]; t != kInvalidId) {
                    scalar = scalar || g.tensor(t).shape.empty();
                    outs.push_back({n, static_cast<std::int32_t>(oi), ops::fullRegion(g.tensor(t).shape)});
                }
        const int count = scalar ? 1 : parts;
        for (int part = 0; part < count; ++part) {
            Task t;
            t.kernel = kid;
            t.deps.assign(deps.begin(), deps.end());
            for (NodeTile tile : outs) {
                if (count > 1) {
                    ops::Region &r = tile.region;
                    std::size_t dim =
                        std::max_element(r.begin(), r.end(), [](auto &a, auto &b) { return a.end < b.end; }) -
                        r.begin();
                    if (r.size() > 2 && r[2].end >= parts)
                        dim = 2;
                    const std::int64_t e = r[dim].end;
                    r[dim] = {e * part / count, e * (part + 1) / count};
                }
                t.tiles.push_back(tile);
            }
            const TaskId id = p.addTask(t);
            for (NodeId n : k.nodes)
                for (TensorId o : g.node(n).outputs)
                    if (o != kInvalidId)
                        producers[o].push_back(id);
        }
    }
    return p;
}

int fail(const Status &s)
{
    std::fprintf(stderr, "bench_reference: %s\n", s.str().c_str());
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
    samples::SampleOptions options;
    options.imageSize = argc > 2 ? std::atoi(argv[2]) : 224;

    const auto tBuild = std::chrono::steady_clock::now();
    auto model = samples::buildSample("resnet50", options);
    if (!model)
        return fail(model.status());
    const auto dir = std::filesystem::temp_directory_path() / ("tessera-bench-ref-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "resnet50.onnx").string();
    if (Status s = samples::saveModel(**model, path, true); !s)
        return fail(s);
    auto imported = importModel(path);
    if (!imported)
        return fail(imported.status());
    const Graph &g = imported->graph;
    std::printf("ResNet-50, batch 1, %dx%d: %zu nodes, built and imported in %.0f ms\n", options.imageSize,
                options.imageSize, g.nodeCount(), msSince(tBuild));

    auto device = DeviceRegistry::standard().lookup("stcp920");
    if (!device)
        return fail(device.status());
    auto seq = scheduleGraph(g, *device, *createSequentialScheduler(), {});
    auto fused = scheduleGraph(g, *device, *createLayerFusionScheduler(), {});
    if (!seq)
        return fail(seq.status());
    if (!fused)
        return fail(fused.status());
    const ExecutionPlan split = tiled(g, fused->result.plan, 4);

    std::mt19937 rng(1);
    const Tensor &x = g.tensor(g.inputs.at(0));
    HostTensor input{x.name, x.dtype, x.shape, std::vector<std::uint8_t>(static_cast<std::size_t>(x.bytes()))};
    for (std::int64_t i = 0; i < input.elements(); ++i)
        input.f32()[i] = std::uniform_real_distribution<float>(-1, 1)(rng);

    auto backend = createReferenceBackend();
    std::printf("\n%-14s %6s %11s %10s %10s %10s %12s  %s\n", "plan", "tasks", "compile ms", "run ms", "best ms",
                "conv ms", "peak MiB", "output");
    std::vector<std::uint8_t> reference;
    int status = 0;
    const std::vector<const ExecutionPlan *> plans{&seq->result.plan, &fused->result.plan, &split};
    for (const ExecutionPlan *plan : plans) {
        const auto tc = std::chrono::steady_clock::now();
        auto compiled = backend->compile(g, *plan);
        if (!compiled)
            return fail(compiled.status());
        const double compileMs = msSince(tc);
        double total = 0, best = 1e300;
        RunResult last;
        for (int i = 0; i < runs; ++i) {
            auto r = backend->run(**compiled, {input});
            if (!r)
                return fail(r.status());
            total += r->latencyMs;
            best = std::min(best, r->latencyMs);
            last = std::move(*r);
        }
        const auto &out = last.outputs.at(0).bytes;
        if (reference.empty())
            reference = out;
        const bool same = out == reference;
        status |= same ? 0 : 1;
        std::printf("%-14s %6zu %11.1f %10.1f %10.1f %10.1f %12.1f  %s\n", plan->algorithm.c_str(), plan->tasks.size(),
                    compileMs, total / runs, best, last.metrics["op_ms/Conv"],
                    last.metrics["peak_host_bytes"] / (1024.0 * 1024.0), same ? "= sequential" : "DIFFERS");
    }
    std::filesystem::remove_all(dir);
    return status;
}
