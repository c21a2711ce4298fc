// VGG-16 (Simonyan & Zisserman, ICLR 2015, configuration D; torchvision's vgg16).
//
// Thirteen Conv 3×3 (pad 1, bias) + Relu in five stages of 64, 128, 256, 512,
// 512 channels, each stage closed by MaxPool 2×2/2; then Flatten and the
// classifier Gemm 4096 → Relu → Gemm 4096 → Relu → Gemm 1000 (dropout is an
// identity at inference and is not exported). torchvision's adaptive 7×7
// average pool is an identity at 224 and is left out; at other image sizes
// the first FC takes 512 × (size/32)² inputs. 138.36 M parameters at 224.
// Node names follow torchvision's flat Sequentials: "features/features.28",
// "classifier/classifier.6".
#include "samples/networks.h"

namespace tessera::samples {

ModelResult buildVgg16(const SampleOptions &opts)
{
    const std::int64_t size = opts.imageSize ? opts.imageSize : 224;
    ModelBuilder b("vgg16", opts.seed);
    b.setCancel(opts.cancel);
    std::string x = b.input("input", {opts.batch, 3, size, size});
    {
        ScopeGuard features(b, "features");
        static constexpr std::int64_t cfg[] = {64, 64,  0,   128, 128, 0,   256, 256, 256,
                                               0,  512, 512, 512, 0,   512, 512, 512, 0}; // 0 = max-pool
        int index = 0;
        for (std::int64_t c : cfg) {
            const std::string name = "features." + std::to_string(index);
            if (c == 0) {
                x = b.maxPool(x, name, 2, 2);
                index += 1;
            } else {
                x = b.relu(b.conv(x, name, c, 3), "features." + std::to_string(index + 1));
                index += 2;
            }
        }
    }
    x = b.flatten(x, "flatten");
    ScopeGuard classifier(b, "classifier");
    x = b.relu(b.gemm(x, "classifier.0", 4096), "classifier.1");
    x = b.relu(b.gemm(x, "classifier.3", 4096), "classifier.4");
    b.output(b.gemm(x, "classifier.6", 1000));
    return b.finish();
}

} // namespace tessera::samples
