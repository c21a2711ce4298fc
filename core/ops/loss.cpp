// Loss ops that inference exports keep (ONNX opset 12-13):
// NegativeLogLikelihoodLoss(input [N, C, d...], target [N, d...] int,
// weight [C]?) and SoftmaxCrossEntropyLoss(scores [N, C, d...], labels,
// weights?) with its optional log_prob output (scores' shape).
// reduction "none" gives target's shape, "sum"/"mean" a scalar;
// ignore_index marks targets that contribute nothing.
// Index map: a documented conservative hull — every output element may
// read every input element (a mean divides by the total weight); axes are
// opaque, so schedulers run these ops whole.
// FLOPs: NLL 2 per target element (weight, negate) plus 1 per element for
// sum/mean; SCE adds 5 per score element for the log-softmax.
#include "core/ops/opdef.h"

namespace tessera::ops::detail {

namespace {

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0), &t = c.shape(1);
    if (x.size() < 2)
        return c.failAt(0, "input must have rank >= 2 [N, C, ...], got " + dimsStr(x));
    if (!isInteger(c.in(1).dtype))
        return c.failAt(1, "target must be an integer tensor");
    Shape want = x;
    want.erase(want.begin() + 1);
    if (t != want)
        return c.failAt(1, "target has shape " + dimsStr(t) + ", expected " + dimsStr(want));
    if (c.has(2) && c.shape(2) != Shape{x[1]})
        return c.failAt(2, "weight has shape " + dimsStr(c.shape(2)) + ", expected " + std::to_string(x[1]));
    const std::string red = c.n.attrString("reduction", "mean");
    if (red != "none" && red != "sum" && red != "mean")
        return c.fail("reduction '" + red + "' is not none, sum or mean");
    outs = {{c.in(0).dtype, red == "none" ? t : Shape{}}};
    if (c.n.outputs.size() == 2)
        outs.push_back({c.in(0).dtype, x});
    return Status::ok();
}

double flops(const OpContext &c)
{
    const double t = elements(c.shape(1));
    const double sce = c.n.opType == "SoftmaxCrossEntropyLoss" ? 5 * elements(c.shape(0)) : 0;
    return 3 * t + sce;
}

Status regions(const OpContext &c, int, const Region &, std::vector<InputRegion> &in)
{
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i)) {
            std::vector<DimRange> dims;
            for (std::int64_t d : c.shape(i))
                dims.push_back(fullDim(d));
            in[i] = makeRegion(dims);
        }
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    for (std::size_t i = 0; i < c.n.inputs.size(); ++i)
        if (c.has(i))
            in[i].opaque = true;
}

using K = Attribute::Kind;
constexpr AttrSpec kAttrs[] = {{"ignore_index", K::Int}, {"reduction", K::String}};
constexpr OpDef kOps[] = {
    {"NegativeLogLikelihoodLoss", 2, 3, 1, 1, kAttrs, infer, flops, regions, axes},
    {"SoftmaxCrossEntropyLoss", 2, 3, 1, 2, kAttrs, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> lossOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
