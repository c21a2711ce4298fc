// bench_brickdl: BrickDL's planning time (issue 16: ResNet-50 and DarkNet-53
// each under 1 s, a 224³ 3-D convolution layer's brick plan under 1 s) and its
// modelled time and main-memory traffic on the A100 against layer fusion on
// the same device and cost model (docs/cost-model.md). Plan time is
// IScheduler::run alone; verification is reported apart.
// Needs tessera_plugin_brickdl, tessera_plugin_layerfusion and tessera_samples linked.
#include "core/hw/deviceregistry.h"
#include "core/onnx/importer.h"
#include "core/sched/session.h"
#include "plugins/brickdl/brickdl.h"
#include "plugins/layerfusion/layerfusion.h"
#include "samples/catalog.h"

#include <cstdio>
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

// The §4.5.2 proxy: three 3×3×3 convolutions of a 224³ volume (`channels` channels, same padding).
Graph layers3d(int layers, std::int64_t channels)
{
    Graph g;
    g.name = std::to_string(layers) + "_layers_224";
    const Shape shape{1, channels, 224, 224, 224};
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
        const TensorId y = tensor(name + "/y", shape, Tensor::Kind::Intermediate, nullptr);
        Node n;
        n.name = name;
        n.opType = "Conv";
        n.inputs = {x, w};
        n.outputs = {y};
        n.attrs["kernel_shape"] = {std::vector<std::int64_t>{3, 3, 3}};
        n.attrs["pads"] = {std::vector<std::int64_t>{1, 1, 1, 1, 1, 1}};
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
    auto b = scheduleGraph(g, device, *brickdl, setup);
    auto f = scheduleGraph(g, device, *fusion, {});
    if (!b || !f) {
        std::fprintf(stderr, "%s: %s\n", name, (!b ? b.status() : f.status()).str().c_str());
        return 1;
    }
    const std::string dram = device.levels.back().name;
    const auto &s = b->result.stats;
    const double bt = b->result.plan.estimatedLatencyNs(), ft = f->result.plan.estimatedLatencyNs();
    const double bb = levelBytes(b->result.plan, dram), fb = levelBytes(f->result.plan, dram);
    std::printf("| %s | %.0f | %.0f | %zu | %.0f P + %.0f M | %.3f | %.3f | %.2f | %.1f | %.1f | %.2f |\n", name,
                b->searchMs, b->verifyMs, b->result.plan.tasks.size(), s.at("padded_subgraphs"),
                s.at("memoized_subgraphs"), bt / 1e6, ft / 1e6, bt / ft, bb / 1048576.0, fb / 1048576.0, bb / fb);
    return 0;
}

} // namespace

int main()
{
    auto device = DeviceRegistry::standard().lookup("nvidia-a100");
    if (!device) {
        std::fprintf(stderr, "%s\n", device.status().str().c_str());
        return 1;
    }
    std::printf(
        "| model | plan ms | verify ms | tasks | sub-graphs | BrickDL est. ms | layer fusion est. ms | ratio | "
        "BrickDL %s MiB | layer fusion %s MiB | ratio |\n| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | "
        "---: | ---: | ---: |\n",
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
