// The NeRF MLP (Mildenhall et al., ECCV 2020, Fig. 7 and §5.1; nerf-pytorch's
// NeRF with use_viewdirs).
//
// Inputs are already positionally encoded, one row per sample point (batch =
// rays × samples along each ray): "position" γ(x) [batch, 63] (3 + 3·2·10,
// L = 10) and "direction" γ(d) [batch, 27] (3 + 3·2·4, L = 4). Trunk: 8 fully
// connected layers of 256 with ReLU; the encoded position is concatenated
// again to the input of the 6th (skip after layer index 4, input 319). Heads:
// density σ = ReLU(Gemm 1) from the trunk; a 256 feature layer (no
// activation) concatenated with γ(d) → Gemm 128 + ReLU → Gemm 3 + Sigmoid for
// the view-dependent colour. 12 Gemm, 2 Concat, 595,844 parameters. Outputs
// "rgb" [batch, 3] and "sigma" [batch, 1] after their activations.
#include "samples/networks.h"

namespace tessera::samples {

ModelResult buildNerfMlp(const SampleOptions &opts)
{
    constexpr std::int64_t width = 256, depth = 8, skip = 4;
    ModelBuilder b("nerf_mlp", opts.seed);
    b.setCancel(opts.cancel);
    const std::string pts = b.input("position", {opts.batch, 63});
    const std::string views = b.input("direction", {opts.batch, 27});
    std::string h = pts;
    {
        ScopeGuard trunk(b, "pts_linears");
        for (std::int64_t i = 0; i < depth; ++i) {
            const std::string name = "pts_linears." + std::to_string(i);
            h = b.relu(b.gemm(h, name, width), name + "/relu");
            if (i == skip)
                h = b.concat({pts, h}, "skip_cat", 1);
        }
    }
    const std::string sigma = b.relu(b.gemm(h, "alpha_linear", 1), "sigma");
    std::string f = b.concat({b.gemm(h, "feature_linear", width), views}, "views_cat", 1);
    f = b.relu(b.gemm(f, "views_linears.0", width / 2), "views_linears.0/relu");
    b.output(b.unary("Sigmoid", b.gemm(f, "rgb_linear", 3), "rgb"));
    b.output(sigma);
    return b.finish();
}

} // namespace tessera::samples
