// DFT, STFT and MelWeightMatrix (ONNX opset 17; semantics in spectral.h).
//
// Index maps: a DFT output element reads its input line along `axis` and both
// parts of the last dim (the other dims map one to one): those two input
// dims are reduced. An STFT frame f reads signal positions
// [f·step, f·step + L) — an affine window along time — plus the whole window
// and both parts; the batch dim maps one to one. MelWeightMatrix is a
// generator: it reads only its three run-time scalars (sample rate and edges),
// whole.
// FLOPs: a complex multiply-add (8) per term of each complex output element
// (L terms for DFT and STFT; STFT adds the window multiply, 2 per term);
// MelWeightMatrix 2 per output element.
#include "core/ops/spectral.h"

#include "core/ops/opdef.h"

#include <cmath>

namespace tessera::ops {

namespace {

Expected<std::int64_t> scalarInput(const detail::OpContext &c, std::size_t input, std::string_view what)
{
    auto v = c.constInts(input, what);
    if (!v)
        return v.status();
    if (v->size() != 1)
        return c.failAt(input, std::string(what) + " must have one element, got " + std::to_string(v->size()));
    return (*v)[0];
}

Status checkComplexDim(const detail::OpContext &c, std::size_t input, std::string_view what)
{
    const Shape &s = c.shape(input);
    if (s.size() < 2 || (s.back() != 1 && s.back() != 2))
        return c.failAt(input, std::string(what) + " has shape " + detail::dimsStr(s) +
                                   ", expected rank >= 2 with a last dim of 1 (real) or 2 (complex)");
    if (!isFloat(c.in(input).dtype))
        return c.failAt(input, std::string(what) + " is " + std::string(dtypeName(c.in(input).dtype)) +
                                   ", expected a floating-point type");
    return Status::ok();
}

} // namespace

Expected<DftSpec> dftSpec(const Graph &g, const Node &n)
{
    const detail::OpContext c(g, n);
    TS_TRY(checkComplexDim(c, 0, "input"));
    const std::int64_t r = c.rank(0);
    DftSpec s;
    // Opset 20 moved axis to input 2 (default -2).
    std::int64_t axis = n.attrInt("axis", g.opsetVersion >= 20 ? -2 : 1);
    if (c.has(2)) {
        auto a = scalarInput(c, 2, "axis");
        if (!a)
            return a.status();
        axis = *a;
    }
    if (axis < -r || axis > r - 2 || axis == -1)
        return c.fail("axis " + std::to_string(axis) + " is not in [-" + std::to_string(r) + ", -2] or [0, " +
                      std::to_string(r - 2) + "]");
    s.axis = axis < 0 ? axis + r : axis;
    s.inverse = n.attrInt("inverse", 0) != 0;
    s.onesided = n.attrInt("onesided", 0) != 0;
    s.complexInput = c.shape(0).back() == 2;
    s.length = c.shape(0)[static_cast<std::size_t>(s.axis)];
    if (c.has(1)) {
        auto l = scalarInput(c, 1, "dft_length");
        if (!l)
            return l.status();
        s.length = *l;
    }
    if (s.length < 1 || s.length > detail::kMaxExtent)
        return c.fail("dft length " + std::to_string(s.length) + " must be positive");
    if (s.onesided && (s.complexInput || s.inverse))
        return c.unsupported("onesided needs a real input and a forward transform");
    s.bins = s.onesided ? s.length / 2 + 1 : s.length;
    return s;
}

Expected<StftSpec> stftSpec(const Graph &g, const Node &n)
{
    const detail::OpContext c(g, n);
    TS_TRY(checkComplexDim(c, 0, "signal"));
    if (c.rank(0) != 3)
        return c.failAt(0, "signal has shape " + detail::dimsStr(c.shape(0)) + ", expected [batch, length, 1|2]");
    StftSpec s;
    auto step = scalarInput(c, 1, "frame_step");
    if (!step)
        return step.status();
    s.step = *step;
    if (s.step < 1)
        return c.failAt(1, "frame_step " + std::to_string(s.step) + " must be positive");
    s.window = c.has(2);
    if (s.window && c.rank(2) != 1)
        return c.failAt(2, "window has shape " + detail::dimsStr(c.shape(2)) + ", expected [frame_length]");
    if (c.has(3)) {
        auto l = scalarInput(c, 3, "frame_length");
        if (!l)
            return l.status();
        s.length = *l;
        if (s.window && c.shape(2)[0] != s.length)
            return c.failAt(2, "window has " + std::to_string(c.shape(2)[0]) + " entries, frame_length is " +
                                   std::to_string(s.length));
    } else if (s.window) {
        s.length = c.shape(2)[0];
    } else {
        return c.fail("needs a window or a frame_length");
    }
    const std::int64_t t = c.shape(0)[1];
    if (s.length < 1 || s.length > t)
        return c.fail("frame_length " + std::to_string(s.length) + " is not in [1, " + std::to_string(t) + "]");
    s.onesided = n.attrInt("onesided", 1) != 0;
    s.complexInput = c.shape(0)[2] == 2;
    if (s.onesided && s.complexInput)
        return c.unsupported("onesided needs a real signal");
    s.frames = (t - s.length) / s.step + 1;
    s.bins = s.onesided ? s.length / 2 + 1 : s.length;
    return s;
}

std::vector<double> melWeights(std::int64_t numMelBins, std::int64_t dftLength, double sampleRate, double lowerHz,
                               double upperHz)
{
    const std::int64_t rows = dftLength / 2 + 1;
    std::vector<double> w(static_cast<std::size_t>(rows * numMelBins), 0.0);
    auto mel = [](double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); };
    const double lo = mel(lowerHz), step = (mel(upperHz) - lo) / static_cast<double>(numMelBins + 2);
    std::vector<std::int64_t> bin(static_cast<std::size_t>(numMelBins + 2));
    for (std::size_t i = 0; i < bin.size(); ++i) {
        const double hz = 700.0 * (std::pow(10.0, (static_cast<double>(i) * step + lo) / 2595.0) - 1.0);
        bin[i] = static_cast<std::int64_t>(std::floor(static_cast<double>(dftLength + 1) * hz / sampleRate));
    }
    auto set = [&](std::int64_t row, std::int64_t col, double v) {
        if (row >= 0 && row < rows) // edges past the spectrum are dropped
            w[static_cast<std::size_t>(row * numMelBins + col)] = v;
    };
    for (std::int64_t m = 0; m < numMelBins; ++m) {
        const std::int64_t l = bin[static_cast<std::size_t>(m)], ctr = bin[static_cast<std::size_t>(m + 1)],
                           h = bin[static_cast<std::size_t>(m + 2)];
        if (ctr == l)
            set(ctr, m, 1.0);
        else
            for (std::int64_t j = l; j <= ctr; ++j)
                set(j, m, static_cast<double>(j - l) / static_cast<double>(ctr - l));
        for (std::int64_t j = ctr; j < h; ++j)
            set(j, m, static_cast<double>(h - j) / static_cast<double>(h - ctr));
    }
    return w;
}

namespace detail {

namespace {

Status infer(const OpContext &c, std::vector<TensorType> &outs)
{
    const std::string_view op = c.n.opType;
    if (op == "DFT") {
        auto s = dftSpec(c.g, c.n);
        if (!s)
            return s.status();
        Shape y = c.shape(0);
        y[static_cast<std::size_t>(s->axis)] = s->bins;
        y.back() = 2;
        outs = {{c.in(0).dtype, y}};
    } else if (op == "STFT") {
        auto s = stftSpec(c.g, c.n);
        if (!s)
            return s.status();
        outs = {{c.in(0).dtype, {c.shape(0)[0], s->frames, s->bins, 2}}};
    } else { // MelWeightMatrix
        auto mels = scalarInput(c, 0, "num_mel_bins");
        if (!mels)
            return mels.status();
        auto len = scalarInput(c, 1, "dft_length");
        if (!len)
            return len.status();
        if (*mels < 1 || *mels > kMaxExtent || *len < 1 || *len > kMaxExtent)
            return c.fail("num_mel_bins " + std::to_string(*mels) + " and dft_length " + std::to_string(*len) +
                          " must be positive");
        const DType t = fromOnnxDType(static_cast<int>(c.n.attrInt("output_datatype", 1)));
        if (!isFloat(t) && !isInteger(t))
            return c.fail("output_datatype " + std::to_string(c.n.attrInt("output_datatype", 1)) +
                          " is not a numeric element type");
        outs = {{t, {*len / 2 + 1, *mels}}};
    }
    return Status::ok();
}

double flops(const OpContext &c)
{
    const double complexOut = elements(c.outs[0].shape) / 2;
    if (c.n.opType == "DFT")
        return 8 * complexOut * static_cast<double>(dftSpec(c.g, c.n)->length);
    if (c.n.opType == "STFT")
        return 10 * complexOut * static_cast<double>(stftSpec(c.g, c.n)->length);
    return 2 * elements(c.outs[0].shape);
}

Status regions(const OpContext &c, int, const Region &tile, std::vector<InputRegion> &in)
{
    if (c.n.opType == "DFT") {
        const Shape &x = c.shape(0);
        const auto axis = static_cast<std::size_t>(dftSpec(c.g, c.n)->axis);
        std::vector<DimRange> dims;
        for (std::size_t d = 0; d < x.size(); ++d)
            dims.push_back(d == axis || d + 1 == x.size() ? fullDim(x[d]) : identityDim(tile[d], x[d]));
        in[0] = makeRegion(dims);
    } else if (c.n.opType == "STFT") {
        const Shape &x = c.shape(0);
        const StftSpec s = *stftSpec(c.g, c.n);
        in[0] =
            makeRegion({identityDim(tile[0], x[0]), windowDim(tile[1], s.step, 1, s.length, 0, x[1]), fullDim(x[2])});
        if (s.window)
            in[2] = wholeRegion(c.shape(2));
    } else {
        for (std::size_t i = 2; i < 5; ++i)
            if (c.has(i))
                in[i] = wholeRegion(c.shape(i));
    }
    return Status::ok();
}

void axes(const OpContext &c, int, std::vector<InputAxes> &in)
{
    if (c.n.opType == "DFT") {
        const int rank = static_cast<int>(c.rank(0));
        const int axis = static_cast<int>(dftSpec(c.g, c.n)->axis);
        InputAxes x;
        for (int d = 0; d < rank; ++d)
            if (d == axis || d == rank - 1)
                x.reducedDims.push_back(d);
            else
                x.maps.push_back(axisMap(d, d));
        in[0] = x;
        for (std::size_t i = 1; i < 3; ++i)
            if (c.has(i))
                in[i].opaque = true; // dft_length, axis: compile time
    } else if (c.n.opType == "STFT") {
        const StftSpec s = *stftSpec(c.g, c.n);
        in[0] = {.maps = {axisMap(0, 0), axisMap(1, 1, s.step, 0, s.length)}, .reducedDims = {2}};
        in[1].opaque = true;
        if (s.window)
            in[2] = wholeAxes(c.shape(2));
        if (c.has(3))
            in[3].opaque = true;
    } else {
        in[0].opaque = in[1].opaque = true;
        for (std::size_t i = 2; i < 5; ++i)
            if (c.has(i))
                in[i] = wholeAxes(c.shape(i));
    }
}

using K = Attribute::Kind;
constexpr AttrSpec kDft[] = {{"axis", K::Int}, {"inverse", K::Int}, {"onesided", K::Int}};
constexpr AttrSpec kStft[] = {{"onesided", K::Int}};
constexpr AttrSpec kMel[] = {{"output_datatype", K::Int}};

constexpr OpDef kOps[] = {
    {"DFT", 1, 3, 1, 1, kDft, infer, flops, regions, axes},
    {"STFT", 2, 4, 1, 1, kStft, infer, flops, regions, axes},
    {"MelWeightMatrix", 5, 5, 1, 1, kMel, infer, flops, regions, axes},
};

} // namespace

std::span<const OpDef> spectralOps()
{
    return kOps;
}

} // namespace detail

} // namespace tessera::ops
