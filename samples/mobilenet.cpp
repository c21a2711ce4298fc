// MobileNetV2, width multiplier 1.0, 224×224 (Sandler et al., CVPR 2018,
// Table 2; torchvision's mobilenet_v2).
//
// Stem Conv 3×3/2 → 32; 17 inverted-residual blocks from the (t, c, n, s)
// table below, each an optional 1×1 expansion (t ≠ 1), a depthwise 3×3 with the
// stride, and a linear 1×1 projection, with a residual Add when stride is 1 and
// the channel count is unchanged; Conv 1×1 → 1280; GlobalAveragePool, Flatten,
// Gemm 1000. Every conv is Conv (no bias) → BatchNormalization, and ReLU6 is
// Clip(0, 6) as PyTorch exports it. 52 Conv, 10 Add, 3.50 M parameters.
// Node names follow torchvision: "features/features.3/conv.1.0".
#include "samples/networks.h"

namespace tessera::samples {

ModelResult buildMobileNetV2(const SampleOptions &opts)
{
    const std::int64_t size = opts.imageSize ? opts.imageSize : 224;
    ModelBuilder b("mobilenetv2", opts.seed);
    b.setCancel(opts.cancel);
    const std::string zero = b.constantScalar("relu6.min", 0.0f);
    const std::string six = b.constantScalar("relu6.max", 6.0f);
    // Conv2dNormActivation: conv "<p>.0", bn "<p>.1", ReLU6 "<p>.2".
    auto convBn = [&](const std::string &x, const std::string &p, std::int64_t c, std::int64_t k, std::int64_t s,
                      std::int64_t groups, bool relu6) {
        std::string y = b.batchNorm(b.conv(x, p + ".0", c, k, s, -1, groups, 1, false), p + ".1");
        if (relu6)
            y = b.node("Clip", p + ".2", {y, zero, six}, {}, {b.shape(y)}).front();
        return y;
    };

    std::string x = b.input("input", {opts.batch, 3, size, size});
    {
        ScopeGuard features(b, "features");
        {
            ScopeGuard s(b, "features.0");
            x = convBn(x, "features.0", 32, 3, 2, 1, true);
        }
        struct Setting {
            std::int64_t t, c, n, s;
        };
        static constexpr Setting settings[] = {{1, 16, 1, 1}, {6, 24, 2, 2},  {6, 32, 3, 2}, {6, 64, 4, 2},
                                               {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
        int index = 1;
        for (const Setting &st : settings) {
            for (std::int64_t i = 0; i < st.n; ++i, ++index) {
                ScopeGuard s(b, "features." + std::to_string(index));
                const std::int64_t in = b.shape(x)[1], hidden = in * st.t, stride = i == 0 ? st.s : 1;
                std::string y = x;
                int part = 0;
                if (st.t != 1)
                    y = convBn(y, "conv." + std::to_string(part++), hidden, 1, 1, 1, true);
                y = convBn(y, "conv." + std::to_string(part++), hidden, 3, stride, hidden, true);
                y = b.batchNorm(b.conv(y, "conv." + std::to_string(part), st.c, 1, 1, 0, 1, 1, false),
                                "conv." + std::to_string(part + 1));
                x = stride == 1 && in == st.c ? b.binary("Add", x, y, "add") : y;
            }
        }
        ScopeGuard s(b, "features.18");
        x = convBn(x, "features.18", 1280, 1, 1, 1, true);
    }
    x = b.flatten(b.globalAvgPool(x, "pool"), "flatten");
    ScopeGuard head(b, "classifier");
    b.output(b.gemm(x, "classifier.1", 1000));
    return b.finish();
}

} // namespace tessera::samples
