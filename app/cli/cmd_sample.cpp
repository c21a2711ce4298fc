// tessera-cli sample NAME --out FILE.onnx: writes one of the paper networks.
#include "app/cli/command.h"
#include "core/onnx/modelbuilder.h" // saveModel
#include "core/plugin/extensions.h"

#include <cstdio>
#include <onnx/onnx_pb.h>

namespace tessera::cli {

namespace {

int listSamples(const Extensions &extensions)
{
    for (const SampleNetwork &s : extensions.samples())
        std::printf("%-16s %s\n", s.info.name.c_str(), s.info.title.c_str());
    return 0;
}

int run(const Args &args, const Extensions &extensions)
{
    if (args.has("list"))
        return listSamples(extensions);
    if (args.positional().size() != 1)
        return fail(usageError("sample needs exactly one NAME (see 'tessera-cli sample --list')"));
    auto out = args.value("out");
    if (!out)
        return fail(usageError("sample needs --out FILE.onnx"));
    SampleOptions opts;
    auto batch = args.intValue("batch", opts.batch, 1, 1 << 16);
    auto seq = args.intValue("seq-len", opts.seqLen, 1, 1 << 20);
    auto seed = args.intValue("seed", static_cast<std::int64_t>(opts.seed), 0, INT64_MAX);
    auto image = args.intValue("image-size", 0, 0, 8192);
    for (const Status &s : {batch.status(), seq.status(), seed.status(), image.status()})
        if (!s.isOk())
            return fail(s);
    opts.batch = *batch;
    opts.seqLen = *seq;
    opts.seed = static_cast<std::uint64_t>(*seed);
    opts.imageSize = static_cast<int>(*image);

    auto model = extensions.buildSample(args.positional().front(), opts);
    if (!model)
        return fail(model.status());
    if (Status s = saveModel(**model, *out, args.has("external-data")); !s.isOk())
        return fail(s);
    std::fprintf(stderr, "tessera-cli: wrote %s\n", out->c_str());
    return 0;
}

} // namespace

Command sampleCommand()
{
    return {"sample",
            "sample NAME --out FILE.onnx [--batch N] [--seq-len N]",
            "build a network the papers evaluate, with synthetic weights",
            {
                {"out", true, false, "--out FILE.onnx   where to write the model"},
                {"batch", true, false, "--batch N        batch size (default 1)"},
                {"seq-len", true, false, "--seq-len N      sequence length for BERT and Conformer (default 128)"},
                {"seed", true, false, "--seed S         weight seed (default fixed)"},
                {"image-size", true, false, "--image-size N   input resolution (default: the network's)"},
                {"external-data", false, false, "--external-data  keep weights in FILE.onnx.data beside the model"},
                {"list", false, false, "--list           list the available samples"},
            },
            run};
}

} // namespace tessera::cli
