// Normalizations: BatchNormalization (ONNX -7/-9/-14/-15), LayerNormalization
// (-17), InstanceNormalization (-1/-6) and Softmax, LogSoftmax, Hardmax (-11 and -13, chosen by the graph's
// opset; the three share their geometry).
//
// BatchNormalization: X [N, C, D...] (rank 1: C = 1), scale/B/mean/var [C].
//   Inference: Y = (X - mean[c]) / sqrt(var[c] + eps) * scale[c] + B[c],
//   element-wise. Training (opset >= 14: training_mode=1; before: more than
//   one output, as opset 7-13 define it): Y[n, c, ...] uses the batch
//   statistics of channel c, so it reads X[:, c, :] whole and not mean/var;
//   outputs 1 and 2 (running or saved mean/var, [C]) read X[:, c, :] and
//   input mean (output 1) or var (output 2); saved_mean/saved_var (opset < 14
//   outputs 3, 4) read X only. spatial=0 (opset 7-8) is unsupported.
// LayerNormalization: normalized axes [axis, rank); Y[i, j] reads X[i, :],
//   Scale[j], B[j] (Scale/B broadcast to X.shape[axis:]); Mean and InvStdDev
//   ([d0 .. d(axis-1), 1 ...], type stash_type) read X[i, :] only.
// InstanceNormalization: X [N, C, D...] (rank >= 3), scale/B [C]; Y[n, c, ...]
//   reads X[n, c, :] (the statistics of its own (n, c) plane), scale[c], B[c].
// Softmax: opset < 13 coerces the input to 2-D at `axis` (default 1), so each
//   output reads every element of its row of dims [axis, rank); opset >= 13
//   normalizes along the single `axis` (default -1).
// FLOPs per element: BatchNormalization 2 (the folded a*x + b), 5 in
// training (plus mean, centred square); LayerNormalization 8 (mean 1,
// variance 3, normalize 2, scale 1, bias 1; 7 without B);
// InstanceNormalization 8 (the same count); Softmax 5 (max,
// subtract, exp, sum, divide); LogSoftmax 5 (max, subtract, exp, sum, log
// shared per row: counted per element like Softmax); Hardmax 2 (max, compare).
//
// LRN (ONNX LRN-13): X [N, C, D...]; Y[n, c, d] = X[n, c, d] / (bias +
//   alpha/size · Σ X[n, c', d]²)^beta over c' in [c - ⌊(size-1)/2⌋,
//   c + ⌈(size-1)/2⌉] ∩ [0, C): a window of `size` taps along the channels.
//   FLOPs per element: 2·size (squares and sums) + 4 (scale, bias, pow, divide).
// MeanVarianceNormalization (-13): Y = (X - E[X]) / (sqrt(E[X²] - E[X]²) +
//   1e-9), the moments over `axes` (default [0, 2, 3]); each output element
//   reads the reduced dims whole. FLOPs per element 6 (as LayerNormalization
//   without scale and bias).
#include "core/ops/opdef.h"

namespace tessera::ops::detail {

namespace {

// --- BatchNormalization ---------------------------------------------------------------

bool training(const OpContext &c)
{
    return c.opset() >= 14 ? c.n.attrInt("training_mode", 0) != 0 : c.n.outputs.size() > 1;
}

Status inferBatchNorm(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0);
    if (x.empty())
        return c.failAt(0, "input X must have rank >= 1");
    if (c.opset() < 9 && c.n.attrInt("spatial", 1) == 0)
        return c.unsupported("spatial=0 (per-activation statistics) is not supported");
    const std::int64_t ch = x.size() >= 2 ? x[1] : 1;
    static constexpr const char *kNames[] = {"X", "scale", "B", "mean", "var"};
    for (std::size_t i = 1; i < 5; ++i)
        if (c.shape(i) != Shape{ch})
            return c.failAt(i, std::string(kNames[i]) + " has shape " + dimsStr(c.shape(i)) + ", expected " +
                                   std::to_string(ch));
    const std::size_t maxOuts = training(c) ? (c.opset() >= 14 ? 3 : 5) : 1;
    if (c.n.outputs.size() > maxOuts)
        return c.fail("has " + std::to_string(c.n.outputs.size()) + " outputs, at most " + std::to_string(maxOuts) +
                      (training(c) ? " in training mode" : " outside training mode"));
    outs = {{c.in(0).dtype, x}};
    for (std::size_t i = 1; i < c.n.outputs.size(); ++i)
        outs.push_back({i <= 2 ? c.in(i + 2).dtype : c.in(0).dtype, {ch}});
    return Status::ok();
}

double flopsBatchNorm(const OpContext &c)
{
    return (training(c) ? 5 : 2) * elements(c.shape(0));
}

// X's region when statistics over every dim but the channel are needed.
InputRegion statsRegion(const Shape &x, Interval channels)
{
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back(d == 1 ? identityDim(channels, x[1]) : fullDim(x[d]));
    return makeRegion(dims);
}

Status regionsBatchNorm(const OpContext &c, int output, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    const bool channelDim = x.size() >= 2;
    if (output == 0) {
        const DimRange ch = channelDim ? identityDim(tile[1], x[1]) : broadcastDim();
        if (training(c)) {
            in[0] = statsRegion(x, tile.size() >= 2 ? tile[1] : Interval{0, 1});
        } else {
            std::vector<DimRange> dims;
            for (std::size_t d = 0; d < x.size(); ++d)
                dims.push_back(identityDim(tile[d], x[d]));
            in[0] = makeRegion(dims);
            in[3] = in[4] = makeRegion({ch});
        }
        in[1] = in[2] = makeRegion({ch});
        return Status::ok();
    }
    const Interval channels = channelDim ? tile[0] : Interval{0, 1};
    in[0] = statsRegion(x, channels);
    if (output <= 2)
        in[static_cast<std::size_t>(output) + 2] = makeRegion({identityDim(tile[0], c.shape(3)[0])});
    return Status::ok();
}

void axesBatchNorm(const OpContext &c, int output, std::vector<InputAxes> &in)
{
    const Shape &x = c.shape(0);
    const bool channelDim = x.size() >= 2;
    const int chOut = output == 0 ? 1 : 0; // the output dim holding channels
    InputAxes param;
    if (output != 0 || channelDim)
        param.maps = {axisMap(chOut, 0)};
    else
        param = broadcastAxes(x, Shape{1}); // rank-1 X: C = 1, broadcast over N
    InputAxes xa;
    if (output == 0 && !training(c)) {
        for (std::size_t d = 0; d < x.size(); ++d)
            xa.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d)));
    } else {
        for (std::size_t d = 0; d < x.size(); ++d)
            if (d == 1)
                xa.maps.push_back(axisMap(chOut, 1));
            else
                xa.reducedDims.push_back(static_cast<int>(d));
    }
    in[0] = xa;
    if (output == 0) {
        in[1] = in[2] = param;
        if (!training(c))
            in[3] = in[4] = param;
    } else if (output <= 2) {
        in[static_cast<std::size_t>(output) + 2] = param;
    }
}

// --- LayerNormalization ------------------------------------------------------------

Expected<std::int64_t> layerNormAxis(const OpContext &c)
{
    return c.axis(c.n.attrInt("axis", -1), c.rank(0), "axis", 1);
}

Status inferLayerNorm(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0);
    auto axis = layerNormAxis(c);
    if (!axis)
        return axis.status();
    const Shape normalized(x.begin() + *axis, x.end());
    for (std::size_t i = 1; i < 3; ++i) {
        if (!c.has(i))
            continue;
        const Shape &s = c.shape(i);
        bool ok = s.size() <= normalized.size();
        for (std::size_t d = 0; ok && d < s.size(); ++d)
            ok = s[d] == 1 || s[d] == normalized[normalized.size() - s.size() + d];
        if (!ok)
            return c.failAt(i, std::string(i == 1 ? "Scale" : "B") + " has shape " + dimsStr(s) +
                                   ", not broadcastable to the normalized shape " + dimsStr(normalized));
    }
    const DType stash = fromOnnxDType(static_cast<int>(c.n.attrInt("stash_type", 1)));
    if (stash == DType::Undefined)
        return c.fail("stash_type " + std::to_string(c.n.attrInt("stash_type", 1)) + " is not a known element type");
    outs = {{c.in(0).dtype, x}};
    Shape stats = x;
    std::fill(stats.begin() + *axis, stats.end(), 1);
    for (std::size_t i = 1; i < c.n.outputs.size(); ++i)
        outs.push_back({stash, stats});
    return Status::ok();
}

double flopsLayerNorm(const OpContext &c)
{
    return (c.has(2) ? 8 : 7) * elements(c.shape(0));
}

// X's region when dims [from, rank) are read whole.
InputRegion rowRegion(const Region &tile, const Shape &x, std::int64_t from)
{
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back(static_cast<std::int64_t>(d) < from ? identityDim(tile[d], x[d]) : fullDim(x[d]));
    return makeRegion(dims);
}

InputAxes rowAxes(const Shape &x, std::int64_t from, std::int64_t to)
{
    InputAxes ax;
    for (std::size_t d = 0; d < x.size(); ++d)
        if (static_cast<std::int64_t>(d) >= from && static_cast<std::int64_t>(d) < to)
            ax.reducedDims.push_back(static_cast<int>(d));
        else
            ax.maps.push_back(axisMap(static_cast<int>(d), static_cast<int>(d)));
    return ax;
}

Status regionsLayerNorm(const OpContext &c, int output, const Region &tile, std::vector<InputRegion> &in)
{
    auto axis = layerNormAxis(c);
    if (!axis)
        return axis.status();
    in[0] = rowRegion(tile, c.shape(0), *axis);
    if (output == 0)
        for (std::size_t i = 1; i < 3; ++i)
            if (c.has(i))
                in[i] = broadcastRegion(tile, c.shape(0), c.shape(i));
    return Status::ok();
}

void axesLayerNorm(const OpContext &c, int output, std::vector<InputAxes> &in)
{
    auto axis = layerNormAxis(c);
    if (!axis)
        return;
    in[0] = rowAxes(c.shape(0), *axis, c.rank(0));
    if (output == 0)
        for (std::size_t i = 1; i < 3; ++i)
            if (c.has(i))
                in[i] = broadcastAxes(c.shape(0), c.shape(i));
}

// --- InstanceNormalization ---------------------------------------------------------

Status inferInstanceNorm(const OpContext &c, std::vector<TensorType> &outs)
{
    const Shape &x = c.shape(0);
    if (x.size() < 3)
        return c.failAt(0, "input has shape " + dimsStr(x) + ", InstanceNormalization needs rank >= 3 (N, C, D...)");
    for (std::size_t i = 1; i < 3; ++i)
        if (c.shape(i) != Shape{x[1]})
            return c.failAt(i, std::string(i == 1 ? "scale" : "B") + " has shape " + dimsStr(c.shape(i)) +
                                   ", expected " + std::to_string(x[1]));
    outs = {{c.in(0).dtype, x}};
    return Status::ok();
}

double flopsInstanceNorm(const OpContext &c)
{
    return 8 * elements(c.shape(0));
}

Status regionsInstanceNorm(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    in[0] = rowRegion(tile, x, 2);
    in[1] = in[2] = makeRegion({identityDim(tile[1], x[1])});
    return Status::ok();
}

void axesInstanceNorm(const OpContext &c, int, std::vector<InputAxes> &in)
{
    in[0] = rowAxes(c.shape(0), 2, c.rank(0));
    InputAxes param;
    param.maps = {axisMap(1, 0)};
    in[1] = in[2] = param;
}

// --- LRN ------------------------------------------------------------------------------

Status inferLRN(const OpContext &c, std::vector<TensorType> &outs)
{
    if (c.rank(0) < 3)
        return c.failAt(0, "input has shape " + dimsStr(c.shape(0)) + ", LRN needs rank >= 3 (N, C, D...)");
    const std::int64_t size = c.n.attrInt("size", 0);
    if (size < 1 || size > kMaxExtent)
        return c.fail("size " + std::to_string(size) + " must be positive");
    outs = {{c.in(0).dtype, c.shape(0)}};
    return Status::ok();
}

double flopsLRN(const OpContext &c)
{
    return static_cast<double>(2 * c.n.attrInt("size", 1) + 4) * elements(c.shape(0));
}

Status regionsLRN(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    const Shape &x = c.shape(0);
    const std::int64_t size = c.n.attrInt("size", 1);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back(d == 1 ? windowDim(tile[d], 1, 1, size, (size - 1) / 2, x[d]) : identityDim(tile[d], x[d]));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesLRN(const OpContext &c, int, std::vector<InputAxes> &in)
{
    const std::int64_t size = c.n.attrInt("size", 1);
    for (int d = 0; d < static_cast<int>(c.rank(0)); ++d)
        in[0].maps.push_back(d == 1 ? axisMap(1, 1, 1, -((size - 1) / 2), size) : axisMap(d, d));
}

// --- MeanVarianceNormalization ------------------------------------------------------------

Expected<std::vector<bool>> mvnAxes(const OpContext &c)
{
    auto ax = c.axes(c.n.attrInts("axes", {0, 2, 3}), c.rank(0), "axes");
    if (!ax)
        return ax.status();
    std::vector<bool> reduced(static_cast<std::size_t>(c.rank(0)), false);
    for (std::int64_t a : *ax)
        reduced[static_cast<std::size_t>(a)] = true;
    return reduced;
}

Status inferMVN(const OpContext &c, std::vector<TensorType> &outs)
{
    auto r = mvnAxes(c);
    if (!r)
        return r.status();
    outs = {{c.in(0).dtype, c.shape(0)}};
    return Status::ok();
}

double flopsMVN(const OpContext &c)
{
    return 6 * elements(c.shape(0));
}

Status regionsMVN(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto r = mvnAxes(c);
    if (!r)
        return r.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> dims;
    for (std::size_t d = 0; d < x.size(); ++d)
        dims.push_back((*r)[d] ? fullDim(x[d]) : identityDim(tile[d], x[d]));
    in[0] = makeRegion(dims);
    return Status::ok();
}

void axesMVN(const OpContext &c, int, std::vector<InputAxes> &in)
{
    auto r = mvnAxes(c);
    if (!r)
        return;
    for (int d = 0; d < static_cast<int>(c.rank(0)); ++d)
        if ((*r)[static_cast<std::size_t>(d)])
            in[0].reducedDims.push_back(d);
        else
            in[0].maps.push_back(axisMap(d, d));
}

// --- Softmax --------------------------------------------------------------------------

// Dims [first, last) that each output element reads whole.
Expected<std::pair<std::int64_t, std::int64_t>> softmaxDims(const OpContext &c)
{
    const bool coerce2d = c.opset() < 13;
    auto axis = c.axis(c.n.attrInt("axis", coerce2d ? 1 : -1), c.rank(0), "axis");
    if (!axis)
        return axis.status();
    return std::pair{*axis, coerce2d ? c.rank(0) : *axis + 1};
}

Status inferSoftmax(const OpContext &c, std::vector<TensorType> &outs)
{
    auto dims = softmaxDims(c);
    if (!dims)
        return dims.status();
    outs = {{c.in(0).dtype, c.shape(0)}};
    return Status::ok();
}

double flopsSoftmax(const OpContext &c)
{
    return (c.n.opType == "Hardmax" ? 2 : 5) * elements(c.shape(0));
}

Status regionsSoftmax(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    auto dims = softmaxDims(c);
    if (!dims)
        return dims.status();
    const Shape &x = c.shape(0);
    std::vector<DimRange> r;
    for (std::int64_t d = 0; d < c.rank(0); ++d) {
        const auto i = static_cast<std::size_t>(d);
        r.push_back(d >= dims->first && d < dims->second ? fullDim(x[i]) : identityDim(tile[i], x[i]));
    }
    in[0] = makeRegion(r);
    return Status::ok();
}

void axesSoftmax(const OpContext &c, int, std::vector<InputAxes> &in)
{
    if (auto dims = softmaxDims(c))
        in[0] = rowAxes(c.shape(0), dims->first, dims->second);
}

using K = Attribute::Kind;
constexpr AttrSpec kBatchNormAttrs[] = {
    {"epsilon", K::Float}, {"momentum", K::Float}, {"spatial", K::Int}, {"training_mode", K::Int}};
constexpr AttrSpec kLayerNormAttrs[] = {{"axis", K::Int}, {"epsilon", K::Float}, {"stash_type", K::Int}};
constexpr AttrSpec kSoftmaxAttrs[] = {{"axis", K::Int}};
constexpr AttrSpec kInstanceNormAttrs[] = {{"epsilon", K::Float}};
constexpr AttrSpec kLRNAttrs[] = {{"alpha", K::Float}, {"beta", K::Float}, {"bias", K::Float}, {"size", K::Int}};
constexpr AttrSpec kMVNAttrs[] = {{"axes", K::Ints}};
constexpr OpDef kOps[] = {
    {"BatchNormalization", 5, 5, 1, 5, kBatchNormAttrs, inferBatchNorm, flopsBatchNorm, regionsBatchNorm,
     axesBatchNorm},
    {"LayerNormalization", 2, 3, 1, 3, kLayerNormAttrs, inferLayerNorm, flopsLayerNorm, regionsLayerNorm,
     axesLayerNorm},
    {"InstanceNormalization", 3, 3, 1, 1, kInstanceNormAttrs, inferInstanceNorm, flopsInstanceNorm, regionsInstanceNorm,
     axesInstanceNorm},
    {"LRN", 1, 1, 1, 1, kLRNAttrs, inferLRN, flopsLRN, regionsLRN, axesLRN},
    {"MeanVarianceNormalization", 1, 1, 1, 1, kMVNAttrs, inferMVN, flopsMVN, regionsMVN, axesMVN},
    {"Softmax", 1, 1, 1, 1, kSoftmaxAttrs, inferSoftmax, flopsSoftmax, regionsSoftmax, axesSoftmax},
    {"LogSoftmax", 1, 1, 1, 1, kSoftmaxAttrs, inferSoftmax, flopsSoftmax, regionsSoftmax, axesSoftmax},
    {"Hardmax", 1, 1, 1, 1, kSoftmaxAttrs, inferSoftmax, flopsSoftmax, regionsSoftmax, axesSoftmax},
};

} // namespace

std::span<const OpDef> normOps()
{
    return kOps;
}

} // namespace tessera::ops::detail
