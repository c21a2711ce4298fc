// The kernel table assembled from the family files, and the helpers every
// family shares (see kernel.h).
#include "backends/reference/kernel.h"

#include "core/support/assert.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace tessera::reference {

namespace {

const std::vector<KernelEntry> &table()
{
    static const std::vector<KernelEntry> t = [] {
        std::vector<KernelEntry> all;
        for (auto family :
             {convKernels(), matmulKernels(), elementwiseKernels(), mathKernels(), indexedKernels(), lossKernels(),
              poolKernels(), normKernels(), reduceKernels(), movementKernels(), shapeKernels(), resizeKernels(),
              quantKernels(), recurrentKernels(), nmsKernels(), uniqueKernels()})
            all.insert(all.end(), family.begin(), family.end());
        std::sort(all.begin(), all.end(), [](const KernelEntry &a, const KernelEntry &b) { return a.op < b.op; });
        for (std::size_t i = 1; i < all.size(); ++i)
            TS_ASSERT_MSG(all[i - 1].op != all[i].op, "kernel registered twice");
        return all;
    }();
    return t;
}

std::string lowerOp(const Node &n)
{
    std::string s = n.opType;
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

} // namespace

Expected<KernelPtr> makeKernel(const Graph &g, const Node &n)
{
    if (n.opaque)
        return Status::error(ErrorCode::Unsupported, "the reference backend cannot run opaque op '" + n.opType + "'",
                             {.node = n.name});
    if (!n.domain.empty() && n.domain != "ai.onnx")
        return Status::error(ErrorCode::Unsupported,
                             "the reference backend cannot run op '" + n.opType + "' of domain '" + n.domain + "'",
                             {.node = n.name});
    const auto &t = table();
    auto it = std::lower_bound(t.begin(), t.end(), std::string_view(n.opType),
                               [](const KernelEntry &e, std::string_view op) { return e.op < op; });
    if (it == t.end() || it->op != n.opType)
        return Status::error(ErrorCode::Unsupported, "the reference backend has no kernel for op '" + n.opType + "'",
                             {.node = n.name});
    for (TensorId id : n.inputs)
        if (id != kInvalidId && g.tensor(id).dtype == DType::String)
            return unsupported(n, "string tensors are not supported");
    // Kernels trust the graph's shapes and types: they must be what the op gives.
    if (ops::isKnownOp(n.opType)) {
        std::vector<ops::TensorType> types;
        TS_TRY(ops::inferShapes(g, n, types));
        for (std::size_t i = 0; i < n.outputs.size() && i < types.size(); ++i) {
            if (n.outputs[i] == kInvalidId)
                continue;
            const Tensor &t = g.tensor(n.outputs[i]);
            if (t.shape != types[i].shape || t.dtype != types[i].dtype)
                return Status::invalid(lowerOp(n) + ": output " + std::to_string(i) + " is " +
                                           std::string(dtypeName(t.dtype)) + " " + shapeStr(t.shape) +
                                           " in the graph, the op gives " + std::string(dtypeName(types[i].dtype)) +
                                           " " + shapeStr(types[i].shape),
                                       {.node = n.name, .tensor = t.name});
        }
    }
    return it->make(g, n);
}

std::vector<std::string_view> kernelOps()
{
    std::vector<std::string_view> ops;
    for (const KernelEntry &e : table())
        ops.push_back(e.op);
    return ops;
}

// --- preparing ------------------------------------------------------------------

Status unsupported(const Node &n, const std::string &message)
{
    return Status::error(ErrorCode::Unsupported, lowerOp(n) + ": " + message, {.node = n.name});
}

bool hasInput(const Node &n, std::size_t i)
{
    return i < n.inputs.size() && n.inputs[i] != kInvalidId;
}

const Tensor &inTensor(const Graph &g, const Node &n, std::size_t i)
{
    TS_ASSERT(hasInput(n, i));
    return g.tensor(n.inputs[i]);
}

const Tensor &outTensor(const Graph &g, const Node &n, std::size_t i)
{
    TS_ASSERT(i < n.outputs.size() && n.outputs[i] != kInvalidId);
    return g.tensor(n.outputs[i]);
}

Status expectType(const Graph &g, const Node &n, std::size_t i, std::initializer_list<DType> types)
{
    if (!hasInput(n, i))
        return Status::ok();
    const DType t = inTensor(g, n, i).dtype;
    if (std::find(types.begin(), types.end(), t) != types.end())
        return Status::ok();
    std::string names;
    for (DType x : types)
        names += (names.empty() ? "" : ", ") + std::string(dtypeName(x));
    return Status::error(ErrorCode::Unsupported,
                         lowerOp(n) + ": input " + std::to_string(i) + " has element type " +
                             std::string(dtypeName(t)) + ", the reference backend runs " + names,
                         {.node = n.name, .tensor = inTensor(g, n, i).name});
}

namespace {
Expected<const TensorData *> constData(const Graph &g, const Node &n, std::size_t i)
{
    const Tensor &t = inTensor(g, n, i);
    if (!t.isConstant() || t.data->isExternal())
        return Status::error(ErrorCode::Unsupported,
                             lowerOp(n) + ": input " + std::to_string(i) + " must be a constant with inline data",
                             {.node = n.name, .tensor = t.name});
    return t.data.get();
}
} // namespace

Expected<std::vector<std::int64_t>> constInts(const Graph &g, const Node &n, std::size_t i)
{
    auto d = constData(g, n, i);
    if (!d)
        return d.status();
    std::vector<std::int64_t> v;
    for (std::int64_t k = 0, e = numElements((*d)->shape).value_or(0); k < e; ++k) {
        auto x = (*d)->intAt(k);
        if (!x)
            return unsupported(n, "input " + std::to_string(i) + " must hold integers");
        v.push_back(*x);
    }
    return v;
}

Expected<std::vector<double>> constFloats(const Graph &g, const Node &n, std::size_t i)
{
    auto d = constData(g, n, i);
    if (!d)
        return d.status();
    std::vector<double> v;
    for (std::int64_t k = 0, e = numElements((*d)->shape).value_or(0); k < e; ++k) {
        auto x = (*d)->floatAt(k);
        if (!x)
            return unsupported(n, "input " + std::to_string(i) + " must hold numbers");
        v.push_back(*x);
    }
    return v;
}

Expected<std::int64_t> normAxis(const Node &n, std::int64_t axis, std::int64_t rank, std::int64_t extra)
{
    if (axis < -rank || axis > rank - 1 + extra)
        return Status::invalid(lowerOp(n) + ": axis " + std::to_string(axis) + " is out of range for rank " +
                                   std::to_string(rank),
                               {.node = n.name});
    return axis < 0 ? axis + rank : axis;
}

// --- iterating ------------------------------------------------------------------

std::vector<std::int64_t> stridesOf(const Shape &s)
{
    std::vector<std::int64_t> st(s.size(), 1);
    for (std::size_t i = s.size(); i-- > 1;)
        st[i - 1] = st[i] * s[i];
    return st;
}

std::vector<std::int64_t> broadcastStrides(const Shape &out, const Shape &in)
{
    TS_ASSERT(in.size() <= out.size());
    const auto st = stridesOf(in);
    std::vector<std::int64_t> r(out.size(), 0);
    const std::size_t lead = out.size() - in.size();
    for (std::size_t d = 0; d < in.size(); ++d)
        r[lead + d] = in[d] == 1 && out[lead + d] != 1 ? 0 : st[d];
    return r;
}

std::int64_t dot(std::span<const std::int64_t> idx, std::span<const std::int64_t> strides)
{
    std::int64_t off = 0;
    for (std::size_t d = 0; d < idx.size(); ++d)
        off += idx[d] * strides[d];
    return off;
}

MatMulGeometry::MatMulGeometry(const Shape &a, const Shape &b, const Shape &y)
    : aVector(a.size() == 1), bVector(b.size() == 1)
{
    const Shape a2 = aVector ? Shape{1, a[0]} : a, b2 = bVector ? Shape{b[0], 1} : b;
    k = a2.back();
    m = a2[a2.size() - 2];
    n = b2.back();
    batch = Shape(y.begin(), y.end() - (aVector ? 0 : 1) - (bVector ? 0 : 1));
    Shape full = batch;
    full.push_back(m);
    full.push_back(n);
    aBatch = broadcastStrides(batch, Shape(a2.begin(), a2.end() - 2));
    bBatch = broadcastStrides(batch, Shape(b2.begin(), b2.end() - 2));
    yStrides = stridesOf(full);
}

std::vector<Run> contiguousRuns(const ops::Region &r, const Shape &s)
{
    TS_ASSERT(r.size() == s.size());
    if (std::any_of(r.begin(), r.end(), [](const ops::Interval &i) { return i.empty(); }))
        return {};
    std::size_t k = r.size();
    std::int64_t len = 1;
    while (k > 0 && r[k - 1].begin == 0 && r[k - 1].end == s[k - 1])
        len *= s[--k];
    if (k == 0)
        return {{0, len}};
    const auto st = stridesOf(s);
    const ops::Region outer(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(k - 1));
    const std::int64_t base = r[k - 1].begin * st[k - 1], runLen = r[k - 1].size() * len;
    std::vector<Run> runs;
    forEachOffset(outer, std::span(st).first(k - 1), base, [&](std::int64_t off) { runs.push_back({off, runLen}); });
    return runs;
}

std::vector<std::int64_t> boxOffsets(const ops::Region &r, const Shape &s)
{
    std::vector<std::int64_t> offs;
    offs.reserve(static_cast<std::size_t>(std::max<std::int64_t>(0, ops::regionElements(r))));
    for (const Run &run : contiguousRuns(r, s))
        for (std::int64_t i = 0; i < run.length; ++i)
            offs.push_back(run.offset + i);
    return offs;
}

// --- sliding windows ----------------------------------------------------------

Expected<std::vector<Window>> forwardWindows(const Node &n, const Shape &inSpatial, const Shape &outSpatial,
                                             const Shape &kernel)
{
    const std::size_t k = inSpatial.size();
    auto list = [&](std::string_view name, std::size_t count, std::int64_t def) {
        std::vector<std::int64_t> v = n.attrInts(name, std::vector<std::int64_t>(count, def));
        return v.size() == count ? v : std::vector<std::int64_t>(count, def);
    };
    const auto strides = list("strides", k, 1), dilations = list("dilations", k, 1), pads = list("pads", 2 * k, 0);
    const std::string autoPad = n.attrString("auto_pad", "NOTSET");
    std::vector<Window> ws(k);
    for (std::size_t i = 0; i < k; ++i) {
        Window &w = ws[i];
        w = {.in = inSpatial[i],
             .out = outSpatial[i],
             .taps = kernel[i],
             .stride = strides[i],
             .dilation = dilations[i]};
        if (w.stride < 1 || w.dilation < 1 || w.taps < 1)
            return Status::invalid("window attributes must be positive", {.node = n.name});
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            const std::int64_t total =
                std::max<std::int64_t>(0, (w.out - 1) * w.stride + (w.taps - 1) * w.dilation + 1 - w.in);
            w.padBegin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.padEnd = total - w.padBegin;
        } else if (autoPad != "VALID") {
            w.padBegin = pads[i];
            w.padEnd = pads[k + i];
        }
    }
    return ws;
}

// --- element conversion ----------------------------------------------------------

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (mant << 13); // inf / nan
    } else if (exp != 0) {
        bits = sign | ((exp + 112) << 23) | (mant << 13);
    } else if (mant == 0) {
        bits = sign;
    } else { // subnormal: normalize
        exp = 113;
        while (!(mant & 0x400u)) {
            mant <<= 1;
            --exp;
        }
        bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

std::uint16_t floatToHalf(float f)
{
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
    const std::uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // inf or nan
        return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) // rounds to >= 65520: overflow to inf
        return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (absx < 0x38800000u) { // below the smallest normal half: subnormal or zero
        if (absx < 0x33000000u)
            return sign; // < 2^-25 rounds to zero
        const std::uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
        const int shift = 126 - static_cast<int>(absx >> 23); // 14..24
        std::uint32_t r = mant >> shift;
        const std::uint32_t rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (r & 1u)))
            ++r;
        return static_cast<std::uint16_t>(sign | r);
    }
    std::uint32_t r = absx - 0x38000000u; // rebias exponent 127 -> 15
    const std::uint32_t rest = r & 0x1fffu;
    r >>= 13;
    if (rest > 0x1000u || (rest == 0x1000u && (r & 1u)))
        ++r;
    return static_cast<std::uint16_t>(sign | r);
}

bool isNumeric(DType t)
{
    return t != DType::Undefined && t != DType::String;
}

double loadNumber(DType t, const std::uint8_t *data, std::int64_t i)
{
    auto get = [&]<typename T>(T) {
        T v;
        std::memcpy(&v, data + static_cast<std::size_t>(i) * sizeof(T), sizeof(T));
        return v;
    };
    switch (t) {
    case DType::Float32: return get(float{});
    case DType::Float64: return get(double{});
    case DType::Float16: return halfToFloat(get(std::uint16_t{}));
    case DType::BFloat16: {
        const std::uint32_t bits = static_cast<std::uint32_t>(get(std::uint16_t{})) << 16;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    case DType::Int8: return get(std::int8_t{});
    case DType::UInt8: return get(std::uint8_t{});
    case DType::Int16: return get(std::int16_t{});
    case DType::Int32: return get(std::int32_t{});
    case DType::Int64: return static_cast<double>(get(std::int64_t{}));
    case DType::UInt16: return get(std::uint16_t{});
    case DType::UInt32: return get(std::uint32_t{});
    case DType::UInt64: return static_cast<double>(get(std::uint64_t{}));
    case DType::Bool: return get(std::uint8_t{}) != 0 ? 1.0 : 0.0;
    case DType::Undefined:
    case DType::String: break;
    }
    TS_UNREACHABLE("loadNumber of a non-numeric type");
}

void storeNumber(DType t, std::uint8_t *data, std::int64_t i, double v)
{
    auto put = [&]<typename T>(T x) { std::memcpy(data + static_cast<std::size_t>(i) * sizeof(T), &x, sizeof(T)); };
    switch (t) {
    case DType::Float32: return put(static_cast<float>(v));
    case DType::Float64: return put(v);
    case DType::Float16: return put(floatToHalf(static_cast<float>(v)));
    case DType::BFloat16: {
        const float f = static_cast<float>(v);
        std::uint32_t bits;
        std::memcpy(&bits, &f, 4);
        return put(static_cast<std::uint16_t>(bits >> 16));
    }
    case DType::Int8: return put(static_cast<std::int8_t>(v));
    case DType::UInt8: return put(static_cast<std::uint8_t>(v));
    case DType::Int16: return put(static_cast<std::int16_t>(v));
    case DType::Int32: return put(static_cast<std::int32_t>(v));
    case DType::Int64: return put(static_cast<std::int64_t>(v));
    case DType::UInt16: return put(static_cast<std::uint16_t>(v));
    case DType::UInt32: return put(static_cast<std::uint32_t>(v));
    case DType::UInt64: return put(static_cast<std::uint64_t>(v));
    case DType::Bool: return put(static_cast<std::uint8_t>(v != 0));
    case DType::Undefined:
    case DType::String: break;
    }
    TS_UNREACHABLE("storeNumber of a non-numeric type");
}

} // namespace tessera::reference
