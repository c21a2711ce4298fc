// Darknet-53, the YOLOv3 backbone (Redmon & Farhadi, "YOLOv3: An Incremental
// Improvement", 2018, Table 1), as an ImageNet classifier at 256×256.
//
// Every convolution is Conv (no bias) → BatchNormalization → LeakyRelu(0.1).
// Stem Conv 3×3 → 32, then five stages; each stage opens with a Conv 3×3/2
// doubling the channels (64, 128, 256, 512, 1024) and repeats 1, 2, 8, 8, 4
// residual units of Conv 1×1 (half the channels) → Conv 3×3 plus an identity
// Add. 52 Conv, 23 Add. The classifier head is GlobalAveragePool, Flatten,
// Gemm 1000 (Darknet's cfg spells the same fully connected layer as a 1×1
// convolution over the pooled 1×1 map; it is the 53rd layer of the name).
// 41.6 M parameters. Node names: "stage3/stage3.4/conv2".
#include "samples/networks.h"

namespace tessera::samples {

ModelResult buildDarknet53(const SampleOptions &opts)
{
    const std::int64_t size = opts.imageSize ? opts.imageSize : 256;
    ModelBuilder b("darknet53", opts.seed);
    b.setCancel(opts.cancel);
    auto convBnLeaky = [&](const std::string &x, const std::string &name, std::int64_t c, std::int64_t k,
                           std::int64_t stride) {
        ScopeGuard scope(b, name);
        const std::string y = b.batchNorm(b.conv(x, "conv", c, k, stride, -1, 1, 1, false), "bn");
        return b.node("LeakyRelu", "leaky", {y}, {ModelBuilder::aFloat("alpha", 0.1f)}, {b.shape(y)}).front();
    };
    std::string x = b.input("input", {opts.batch, 3, size, size});
    x = convBnLeaky(x, "conv0", 32, 3, 1);
    const int repeats[5] = {1, 2, 8, 8, 4};
    for (int stage = 0; stage < 5; ++stage) {
        const std::string name = "stage" + std::to_string(stage + 1);
        const std::int64_t c = std::int64_t{64} << stage;
        ScopeGuard scope(b, name);
        x = convBnLeaky(x, "downsample", c, 3, 2);
        for (int i = 0; i < repeats[stage]; ++i) {
            ScopeGuard unit(b, name + "." + std::to_string(i));
            const std::string y = convBnLeaky(convBnLeaky(x, "conv1", c / 2, 1, 1), "conv2", c, 3, 1);
            x = b.binary("Add", x, y, "add");
        }
    }
    x = b.flatten(b.globalAvgPool(x, "avgpool"), "flatten");
    b.output(b.gemm(x, "fc", 1000));
    return b.finish();
}

} // namespace tessera::samples
