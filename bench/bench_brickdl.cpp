// bench_brickdl: BrickDL's planning time (issue 16: ResNet-50 and DarkNet-53
// each under 1 s, a 224³ 3-D convolution layer's brick plan under 1 s) and its
// modelled time and main-memory traffic on the A100 against layer fusion on
// the same device and cost model (docs/cost-model.md). Plan time is
// IScheduler::run alone; verification is reported apart.
// `bench_brickdl --section45` prints instead §4.5's micro-benchmarks under the
// model: each merged sub-graph costed as the one kernel the device runs
// (plugins/brickdl/mergedcost.h), padded and memoized, beside the paper's
// Fig. 10 / Fig. 11 totals (reference bench_graphsize.csv, bench_bricksize.csv).
// Needs tessera_plugin_brickdl, tessera_plugin_layerfusion and tessera_samples linked.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "plugins/brickdl/brickdl.h"
#include "plugins/brickdl/memoized.h"
#include "plugins/brickdl/mergedcost.h"
#include "plugins/brickdl/padded.h"
#include "plugins/layerfusion/layerfusion.h"
#include "samples/catalog.h"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <onnx/onnx_pb.h>
#include <string>

namespace {

using namespace tessera;

// Bytes the plan's tasks move at `level` (the cost model's traffic).
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

// §4.5's proxies: `layers` 3×3×3 convolutions of an n³ volume (`channels` channels), same
// padding (§4.5.2) or none (§4.5.1: "padding = 0", the volume shrinks by 2 per layer).
Graph layers3d(int layers, std::int64_t channels, std::int64_t n = 224, bool same = true)
{
    Graph g;
    g.name = std::to_string(layers) + "_layers_" + std::to_string(n);
    Shape shape{1, channels, n, n, n};
    auto tensor = [&](const std::string &name, Shape s, Tensor::Kind kind, std::shared_ptr<TensorData> data) {
        Tensor t;
        t.name = name;
        t.shape = std::move(s);
        t.kind = kind;
        t.data = std::move(data);
        return g.addTensor(std::move(t));
    };
    TensorId x = tensor("x", shape, Tensor::Kind::Input, nullptr);
    g.inputs = {x};
    for (int i = 1; i <= layers; ++i) {
        const std::string name = "conv" + std::to_string(i);
        auto data = std::make_shared<TensorData>();
        data->dtype = DType::Float32;
        data->shape = {channels, channels, 3, 3, 3};
        data->bytes.resize(static_cast<std::size_t>(channels * channels * 27 * 4));
        const TensorId w = tensor(name + "/w", data->shape, Tensor::Kind::Initializer, data);
        if (!same)
            for (std::size_t d = 2; d < 5; ++d)
                shape[d] -= 2;
        const TensorId y = tensor(name + "/y", shape, Tensor::Kind::Intermediate, nullptr);
        Node n;
        n.name = name;
        n.opType = "Conv";
        n.inputs = {x, w};
        n.outputs = {y};
        n.attrs["kernel_shape"] = {std::vector<std::int64_t>{3, 3, 3}};
        const std::int64_t p = same ? 1 : 0;
        n.attrs["pads"] = {std::vector<std::int64_t>{p, p, p, p, p, p}};
        g.addNode(std::move(n));
        x = y;
    }
    g.outputs = {x};
    return g;
}

int row(const char *name, const Graph &g, const Device &device, std::map<std::string, std::string> options = {})
{
    auto brickdl = createBrickdlScheduler();
    auto fusion = createLayerFusionScheduler();
    ScheduleSetup setup;
    setup.options = std::move(options);
    const std::clock_t cpu0 = std::clock();
    auto b = scheduleGraph(g, device, *brickdl, setup);
    const double cpuMs = 1e3 * double(std::clock() - cpu0) / CLOCKS_PER_SEC; // on a shared machine: the fair figure
    auto f = scheduleGraph(g, device, *fusion, {});
    if (!b || !f) {
        std::fprintf(stderr, "%s: %s\n", name, (!b ? b.status() : f.status()).str().c_str());
        return 1;
    }
    const std::string dram = device.levels.back().name;
    const auto &s = b->result.stats;
    const double bt = b->result.plan.estimatedLatencyNs(), ft = f->result.plan.estimatedLatencyNs();
    const double bb = levelBytes(b->result.plan, dram), fb = levelBytes(f->result.plan, dram);
    std::printf("| %s | %.0f | %.0f | %.0f | %zu | %.0f P + %.0f M | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f |\n", name,
                b->searchMs, b->verifyMs, cpuMs, b->result.plan.tasks.size(), s.at("padded_subgraphs"),
                s.at("memoized_subgraphs"), bt / 1e6, ft / 1e6, bt / ft, bb / 1048576.0, fb / 1048576.0, bb / fb);
    return 0;
}

// Modelled ms of nodes [first, first + len) merged with brick b (L2 as the on-chip level): padded, memoized.
std::pair<double, double> mergedMs(const Graph &g, int first, int len, std::int64_t b, const Device &device)
{
    static const DeviceCostModel cost(device);
    brickdl::SubGraph sub;
    for (int i = first; i < first + len; ++i)
        sub.nodes.push_back(i);
    sub.outputs = brickdl::subGraphOutputs(g, sub.nodes);
    sub.merged = true;
    auto p = brickdl::padBricks(g, sub, b);
    auto m = brickdl::memoizeBricks(g, sub, b, device.totalCores());
    if (!p || !m)
        return {-1, -1};
    auto pk = brickdl::paddedKernel(g, sub, *p, cost, "L2");
    auto mk = brickdl::memoizedKernel(g, sub, *m, cost, "L2");
    if (!pk || !mk)
        return {-1, -1};
    return {(pk->estimate.cost.timeNs + cost.syncNs()) / 1e6, (mk->estimate.cost.timeNs + cost.syncNs()) / 1e6};
}

int section45(const Device &device)
{
    const Graph six = layers3d(6, 64, 112, false);
    std::printf(
        "| §4.5.1 six layers, 112³, 8³ bricks | 2+2+2 | 3+3 | 4+2 | 6 |\n| --- | ---: | ---: | ---: | ---: |\n");
    std::vector<std::pair<double, double>> parts;
    for (const std::vector<int> &lens : std::vector<std::vector<int>>{{2, 2, 2}, {3, 3}, {4, 2}, {6}}) {
        std::pair<double, double> sum{0, 0};
        int first = 0;
        for (int len : lens) {
            const auto [pm, mm] = mergedMs(six, first, len, 8, device);
            sum.first += pm;
            sum.second += mm;
            first += len;
        }
        parts.push_back(sum);
    }
    std::printf("| padded, model ms | %.1f | %.1f | %.1f | %.1f |\n", parts[0].first, parts[1].first, parts[2].first,
                parts[3].first);
    std::printf("| memoized, model ms | %.2f | %.2f | %.2f | %.2f |\n", parts[0].second, parts[1].second,
                parts[2].second, parts[3].second);
    std::printf("| paper padded / memoized (cuDNN 1440) | 1420 / 1395 | 1345 / 1310 | 1392 / 1423 | 1569 / 1617 |\n\n");
    const Graph three = layers3d(3, 64);
    std::printf("| §4.5.2 three layers, 224³ | 4³ | 8³ | 16³ | 32³ |\n| --- | ---: | ---: | ---: | ---: |\n");
    std::vector<std::pair<double, double>> sizes;
    for (std::int64_t b : {4, 8, 16, 32})
        sizes.push_back(mergedMs(three, 0, 3, b, device));
    std::printf("| padded, model ms | %.1f | %.1f | %.1f | %.1f |\n", sizes[0].first, sizes[1].first, sizes[2].first,
                sizes[3].first);
    std::printf("| memoized, model ms | %.1f | %.1f | %.1f | %.1f |\n", sizes[0].second, sizes[1].second,
                sizes[2].second, sizes[3].second);
    std::printf("| paper padded / memoized (cuDNN 918) | 955 / 981 | 850 / 871 | 810 / 785 | 930 / 900 |\n");
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    auto device = DeviceRegistry::standard().lookup("nvidia-a100");
    if (!device) {
        std::fprintf(stderr, "%s\n", device.status().str().c_str());
        return 1;
    }
    if (argc > 1 && std::strcmp(argv[1], "--section45") == 0)
        return section45(*device);
    std::printf(
        "| model | plan ms | verify ms | CPU ms (plan + verify) | tasks | sub-graphs | BrickDL est. ms | layer fusion "
        "est. ms | ratio | BrickDL %s MiB | layer fusion %s MiB | ratio |\n| --- | ---: | ---: | ---: | ---: | --- | "
        "---: | ---: | ---: | ---: | ---: | ---: |\n",
        device->levels.back().name.c_str(), device->levels.back().name.c_str());
    int failures = 0;
    for (const char *name : {"resnet50", "darknet53", "vgg16"}) {
        auto model = samples::buildSample(name, {});
        std::string bytes;
        if (!model || !(*model)->SerializeToString(&bytes)) {
            std::fprintf(stderr, "%s: cannot build\n", name);
            return 1;
        }
        auto imported = importModelFromBytes(bytes, std::string(name) + ".onnx");
        if (!imported) {
            std::fprintf(stderr, "%s\n", imported.status().str().c_str());
            return 1;
        }
        failures += row(name, imported->graph, *device);
    }
    // One 224³ layer does not fit the 40 MB L2 even alone (§4.5.2 measures it
    // merged), so the brick plan is made against main memory as the level.
    failures += row("1-layer 224³ conv (64 ch, level HBM)", layers3d(1, 64), *device, {{"level", "HBM"}});
    failures += row("3-layer 224³ conv (4 ch, level HBM)", layers3d(3, 4), *device, {{"level", "HBM"}});
    return failures ? 1 : 0;
}
