// DenseNet-121 (Huang et al., CVPR 2017, Table 1; torchvision's densenet121).
//
// Growth rate k = 32, bottleneck width 4k, dense blocks of 6-12-24-16 layers,
// compression 0.5. Stem: Conv 7×7/2 → 64, BN, ReLU, MaxPool 3×3/2. A dense layer
// is pre-activation, BN → ReLU → Conv 1×1 (4k) → BN → ReLU → Conv 3×3 (k), over
// the Concat of the block input and every earlier layer's output (as
// torchvision's `torch.cat(inputs, 1)` exports: one Concat per layer after the
// first, one more for the block output). Transitions: BN, ReLU, Conv 1×1 (half
// the channels), AveragePool 2×2/2. Head: BN, ReLU, GlobalAveragePool, Flatten,
// Gemm 1000. Convolutions have no bias. 120 Conv, 58 Concat, 7.98 M parameters.
// Node names follow torchvision: "features/denseblock2/denselayer5/conv1".
#include "samples/networks.h"

namespace tessera::samples {

ModelResult buildDenseNet121(const SampleOptions &opts)
{
    constexpr std::int64_t growth = 32, bnSize = 4;
    const std::int64_t size = opts.imageSize ? opts.imageSize : 224;
    ModelBuilder b("densenet121", opts.seed);
    b.setCancel(opts.cancel);
    std::string x = b.input("input", {opts.batch, 3, size, size});
    auto bnReluConv = [&](const std::string &in, const std::string &suffix, std::int64_t c, std::int64_t k) {
        const std::string y = b.relu(b.batchNorm(in, "norm" + suffix), "relu" + suffix);
        return b.conv(y, "conv" + suffix, c, k, 1, -1, 1, 1, false);
    };
    {
        ScopeGuard features(b, "features");
        x = b.conv(x, "conv0", 64, 7, 2, 3, 1, 1, false);
        x = b.maxPool(b.relu(b.batchNorm(x, "norm0"), "relu0"), "pool0", 3, 2, 1);
        const int layers[4] = {6, 12, 24, 16};
        for (int blk = 0; blk < 4; ++blk) {
            {
                ScopeGuard block(b, "denseblock" + std::to_string(blk + 1));
                std::vector<std::string> inputs{x};
                for (int l = 1; l <= layers[blk]; ++l) {
                    ScopeGuard layer(b, "denselayer" + std::to_string(l));
                    const std::string in = inputs.size() == 1 ? inputs.front() : b.concat(inputs, "cat");
                    inputs.push_back(bnReluConv(bnReluConv(in, "1", bnSize * growth, 1), "2", growth, 3));
                }
                x = b.concat(inputs, "cat");
            }
            if (blk < 3) {
                ScopeGuard transition(b, "transition" + std::to_string(blk + 1));
                x = b.avgPool(bnReluConv(x, "", b.shape(x)[1] / 2, 1), "pool", 2, 2);
            }
        }
        x = b.batchNorm(x, "norm5");
    }
    x = b.flatten(b.globalAvgPool(b.relu(x, "relu"), "pool"), "flatten");
    b.output(b.gemm(x, "classifier", 1000));
    return b.finish();
}

} // namespace tessera::samples
