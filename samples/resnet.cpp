// ResNet-50 and ResNet-18-Tailor.
//
// resnet50: torchvision's resnet50 (He et al., CVPR 2016, "v1.5": the stride of
// a downsampling bottleneck sits on its 3×3 convolution). Exported un-fused:
// every convolution is Conv (no bias) → BatchNormalization, then Relu; the
// first bottleneck of each stage has a projection shortcut (downsample.0 Conv
// 1×1, downsample.1 BN). 53 Conv = stem + 16 × 3 + 4 projections, 25.56 M
// parameters. Head: GlobalAveragePool, Flatten, Gemm 1000.
//
// resnet18-tailor: the "ResNet18-Tailor" of GraphTurbo's GPU case study (§5.6),
// i.e. ResNet-18 after Tailor's skip-connection removal (Weng et al., "Tailor:
// Altering Skip Connections for Resource-Efficient Inference", 2023: SkipRemover
// retrains ResNet-18 with every skip connection dropped). What remains is a
// plain chain: stem conv 7×7/2 + ReLU, max-pool, 16 conv 3×3 + ReLU layers in
// four stages of 64/128/256/512 channels (stride 2 on the first conv of stages
// 2-4, no projection convs since there are no shortcuts), then average pool,
// FC and softmax — matching GraphTurbo's description that every layer is "a
// conv and ReLU op" with "avgpooling and softmax ops at the end". Batch norm is
// folded into the convolutions' biases (an inference graph), so 17 Conv with
// bias, 17 Relu, 11.5 M parameters.
//
// Node names follow torchvision's modules: "layer2/layer2.0/conv1".
#include "samples/networks.h"

namespace tessera::samples {

namespace {

std::string convBn(ModelBuilder &b, const std::string &x, const std::string &conv, const std::string &bn,
                   std::int64_t channels, std::int64_t kernel, std::int64_t stride)
{
    return b.batchNorm(b.conv(x, conv, channels, kernel, stride, -1, 1, 1, /*bias=*/false), bn);
}

std::string bottleneck(ModelBuilder &b, std::string x, std::int64_t width, std::int64_t stride, bool project)
{
    std::string y = b.relu(convBn(b, x, "conv1", "bn1", width, 1, 1), "relu1");
    y = b.relu(convBn(b, y, "conv2", "bn2", width, 3, stride), "relu2");
    y = convBn(b, y, "conv3", "bn3", width * 4, 1, 1);
    if (project)
        x = convBn(b, x, "downsample.0", "downsample.1", width * 4, 1, stride);
    return b.relu(b.binary("Add", y, x, "add"), "relu3");
}

std::string classifier(ModelBuilder &b, const std::string &x)
{
    return b.gemm(b.flatten(b.globalAvgPool(x, "avgpool"), "flatten"), "fc", 1000);
}

} // namespace

ModelResult buildResNet50(const SampleOptions &opts)
{
    const std::int64_t size = opts.imageSize ? opts.imageSize : 224;
    ModelBuilder b("resnet50", opts.seed);
    b.setCancel(opts.cancel);
    std::string x = b.input("input", {opts.batch, 3, size, size});
    x = b.maxPool(b.relu(convBn(b, x, "conv1", "bn1", 64, 7, 2), "relu"), "maxpool", 3, 2, 1);
    const int blocks[4] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage) {
        const std::string layer = "layer" + std::to_string(stage + 1);
        ScopeGuard scope(b, layer);
        for (int i = 0; i < blocks[stage]; ++i) {
            ScopeGuard block(b, layer + "." + std::to_string(i));
            x = bottleneck(b, x, 64 << stage, i == 0 && stage > 0 ? 2 : 1, i == 0);
        }
    }
    b.output(classifier(b, x));
    return b.finish();
}

ModelResult buildResNet18Tailor(const SampleOptions &opts)
{
    const std::int64_t size = opts.imageSize ? opts.imageSize : 224;
    ModelBuilder b("resnet18_tailor", opts.seed);
    b.setCancel(opts.cancel);
    std::string x = b.input("input", {opts.batch, 3, size, size});
    x = b.maxPool(b.relu(b.conv(x, "conv1", 64, 7, 2), "relu"), "maxpool", 3, 2, 1);
    for (int stage = 0; stage < 4; ++stage) {
        const std::string layer = "layer" + std::to_string(stage + 1);
        ScopeGuard scope(b, layer);
        for (int i = 0; i < 2; ++i) {
            ScopeGuard block(b, layer + "." + std::to_string(i));
            x = b.relu(b.conv(x, "conv1", 64 << stage, 3, i == 0 && stage > 0 ? 2 : 1), "relu1");
            x = b.relu(b.conv(x, "conv2", 64 << stage, 3), "relu2");
        }
    }
    b.output(b.softmax(classifier(b, x), "softmax"));
    return b.finish();
}

} // namespace tessera::samples
