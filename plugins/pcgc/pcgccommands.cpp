#include "plugins/pcgc/pcgccommands.h"

#include "core/backend/backend.h"
#include "core/hw/deviceregistry.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/plugin/samples.h"
#include "plugins/pcgc/costlearn.h"

#include <cstdio>
#include <filesystem>
#include <onnx/onnx_pb.h>

namespace tessera::pcgc {

std::vector<std::string> splitList(const std::string &list)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = std::min(list.find(',', start), list.size());
        if (end > start)
            out.push_back(list.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

Expected<ImportResult> importSample(const Extensions &extensions, const std::string &name, SampleOptions options)
{
    auto proto = extensions.buildSample(name, options);
    if (!proto && options.imageSize > 0) {
        options.imageSize = 0;
        proto = extensions.buildSample(name, options);
    }
    if (!proto)
        return proto.status();
    std::string bytes;
    if (!(*proto)->SerializeToString(&bytes))
        return Status::error(ErrorCode::Internal, "sample '" + name + "' does not serialise");
    return importModelFromBytes(bytes, name + ".onnx");
}

namespace {

// A sample network by name (--batch, --seq-len and --image-size applied; the
// image size is dropped for a network without an image input), else a model file.
Expected<ImportResult> loadTrainingModel(const std::string &name, const cli::Args &args, const Extensions &extensions,
                                         int imageSize)
{
    if (extensions.findSample(name)) {
        auto batch = args.intValue("batch", 1, 1, 1 << 20);
        if (!batch)
            return batch.status();
        auto seqLen = args.intValue("seq-len", 128, 1, 1 << 20);
        if (!seqLen)
            return seqLen.status();
        SampleOptions o;
        o.batch = *batch;
        o.seqLen = *seqLen;
        o.imageSize = imageSize;
        return importSample(extensions, name, o);
    }
    return cli::loadModel(name, args, extensions);
}

void printAccuracy(const char *what, const Accuracy &a)
{
    std::printf("%-14s MAPE %.2f %% (analytic model %.2f %%), R² %.4f (log), on %d held-back ops\n", what, a.mape * 100,
                a.analyticMape * 100, a.r2, a.count);
}

int train(const cli::Args &args, const Extensions &extensions)
{
    if (!args.positional().empty())
        return cli::fail(cli::usageError("pcgc-train takes no positional arguments; name models with --models"));
    auto device = DeviceRegistry::standard().lookup(*args.value("device"));
    if (!device)
        return cli::fail(device.status());
    if (!extensions.backends())
        return cli::fail(Status::error(ErrorCode::Unavailable, "no backends are registered in this program"));
    auto backend = extensions.backends()->get(*args.value("backend"));
    if (!backend)
        return cli::fail(backend.status());
    auto seed = args.intValue("seed", 17, 0, std::int64_t(1) << 40);
    if (!seed)
        return cli::fail(seed.status());
    auto imageSize = args.intValue("image-size", 0, 0, 4096);
    if (!imageSize)
        return cli::fail(imageSize.status());
    TrainOptions options;
    options.seed = static_cast<std::uint64_t>(*seed);
    if (args.has("ac")) {
        try {
            options.ac = std::stod(*args.value("ac"));
        } catch (...) {
            options.ac = -1;
        }
        if (!(options.ac > options.labelFraction && options.ac <= 1))
            return cli::fail(cli::usageError("--ac expects a share in (0.1, 1], got '" + *args.value("ac") + "'"));
    }

    std::vector<ImportResult> models;
    for (const std::string &name : splitList(*args.value("models"))) {
        auto m = loadTrainingModel(name, args, extensions, static_cast<int>(*imageSize));
        if (!m)
            return cli::fail(m.status());
        if (m->graph.name.empty())
            m->graph.name = name;
        models.push_back(std::move(*m));
    }
    if (models.empty())
        return cli::fail(cli::usageError("--models names no model"));
    std::vector<const Graph *> graphs;
    for (const ImportResult &m : models)
        graphs.push_back(&m.graph);

    auto model = trainCostModel(graphs, *device, **backend, options);
    if (!model)
        return cli::fail(model.status());
    const std::string out = args.has("out") ? *args.value("out") : defaultModelPath(device->id);
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(out).parent_path(), ec);
    if (auto st = (*model)->save(out); !st.isOk())
        return cli::fail(st);

    const TrainingSummary &s = (*model)->summary();
    std::string names;
    for (const auto &n : s.graphs)
        names += (names.empty() ? "" : ", ") + n;
    std::printf("device         %s (fingerprint %s)\n", device->id.c_str(), deviceFingerprint(*device).c_str());
    std::printf("ops            %d distinct (fused) ops from %s\n", s.ops, names.c_str());
    std::printf(
        "labels         %d measured on %s (%.0f %%), %d held back, %d pseudo-labelled in %d rounds (AC %.2f)%s\n",
        s.measured, s.backend.c_str(), options.labelFraction * 100, s.heldBack, s.pseudoLabelled, s.rounds, s.ac,
        s.skipped ? (", " + std::to_string(s.skipped) + " not measurable").c_str() : "");
    printAccuracy("time model", (*model)->time().accuracy);
    if (const TargetModel *p = (*model)->power())
        printAccuracy("power model", p->accuracy);
    else
        std::printf("power model    none: %s\n", (*model)->powerNote().c_str());
    std::printf("training       %.1f s\n", s.seconds);
    std::printf("saved          %s\n", out.c_str());
    return 0;
}

} // namespace

cli::Command trainCommand()
{
    std::vector<cli::ArgSpec> options = cli::modelOptions();
    options.push_back({"device", true, false, "--device PRESET  device to train for (default stcp920)", "stcp920"});
    options.push_back({"backend", true, false, "--backend NAME   measuring backend (default sim)", "sim"});
    options.push_back({"models", true, false,
                       std::string("--models A,B     samples or model files (default ") + kDefaultTrainingModels + ")",
                       kDefaultTrainingModels});
    options.push_back(
        {"out", true, false, "--out FILE       where to save (default: data folder/tessera/pcgc/DEVICE.json)"});
    options.push_back({"seed", true, false, "--seed N         shuffle and bagging seed (default 17)"});
    options.push_back({"ac", true, false, "--ac X           labelled share that ends training (default 0.6)"});
    options.push_back(
        {"image-size", true, false, "--image-size N   image size of image samples (default: the network's)"});
    return {"pcgc-train", "pcgc-train --device PRESET [--backend sim] [--models A,B] [--out FILE]",
            "train PCGC's learned time and power cost model (pcgc §3.5) and report its accuracy", std::move(options),
            train};
}

} // namespace tessera::pcgc
