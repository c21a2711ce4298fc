// Synthetic graph inputs (see inputs.h).
#include "core/backend/inputs.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace tessera {

namespace {

// One LCG step; callers use the top bits, which have the longest periods.
std::uint64_t next(std::uint64_t &s)
{
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return s;
}

// Uniform in [0, 1) from the top 24 bits: exactly representable as a float.
float unitFloat(std::uint64_t s)
{
    return static_cast<float>(s >> 40) / static_cast<float>(1 << 24);
}

// Round to nearest even; inputs are finite and small, but every case is handled.
std::uint16_t toHalf(float f)
{
    const auto x = std::bit_cast<std::uint32_t>(f);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    const std::uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) // inf or nan
        return static_cast<std::uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u));
    if (absx >= 0x477ff000u) // rounds to beyond the largest half
        return static_cast<std::uint16_t>(sign | 0x7c00u);
    if (absx < 0x38800000u) { // subnormal half (or zero): scale by 2^24 and round
        const float scaled = std::bit_cast<float>(absx) * 16777216.0f;
        const auto m = static_cast<std::uint32_t>(scaled);
        const float rest = scaled - static_cast<float>(m);
        const std::uint32_t r = m + ((rest > 0.5f || (rest == 0.5f && (m & 1u))) ? 1u : 0u);
        return static_cast<std::uint16_t>(sign | r);
    }
    const std::uint32_t rounded = absx + 0xfffu + ((absx >> 13) & 1u) - (0x70u << 23);
    return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

std::uint16_t toBFloat16(float f)
{
    const auto x = std::bit_cast<std::uint32_t>(f);
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return static_cast<std::uint16_t>((x >> 16) | 0x40u); // quiet nan
    return static_cast<std::uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

template <typename T> void store(std::vector<std::uint8_t> &bytes, std::int64_t i, T v)
{
    std::memcpy(bytes.data() + static_cast<std::size_t>(i) * sizeof(T), &v, sizeof(T));
}

template <typename T>
void fillInts(std::vector<std::uint8_t> &bytes, std::int64_t n, std::uint64_t seed, std::int64_t low, std::int64_t high)
{
    using Limits = std::numeric_limits<T>;
    const auto lo = std::clamp<std::int64_t>(
        low, static_cast<std::int64_t>(Limits::lowest()),
        static_cast<std::int64_t>(std::min<std::uint64_t>(Limits::max(), std::numeric_limits<std::int64_t>::max())));
    const auto hi = std::clamp<std::int64_t>(
        std::max(high, low), lo,
        static_cast<std::int64_t>(std::min<std::uint64_t>(Limits::max(), std::numeric_limits<std::int64_t>::max())));
    if (lo == 0 && hi == 0)
        return; // already zeroed
    // Span of [lo, hi] as an unsigned count; 0 means the whole 64-bit range.
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    std::uint64_t s = seed;
    for (std::int64_t i = 0; i < n; ++i) {
        const std::uint64_t r = next(s) >> 16;
        const std::uint64_t offset = span == 0 ? next(s) : r % span;
        store(bytes, i, static_cast<T>(static_cast<std::uint64_t>(lo) + offset));
    }
}

} // namespace

HostTensor syntheticInput(const Tensor &t, std::uint64_t seed, const SyntheticInputOptions &options)
{
    HostTensor h{t.name, t.dtype, t.shape, {}};
    const std::int64_t n = t.elements();
    h.bytes.assign(static_cast<std::size_t>(n) * dtypeSize(t.dtype), 0);
    const float lo = options.floatLow, width = options.floatHigh - options.floatLow;
    std::uint64_t s = seed;
    switch (t.dtype) {
    case DType::Float32:
        for (std::int64_t i = 0; i < n; ++i)
            store(h.bytes, i, lo + unitFloat(next(s)) * width);
        break;
    case DType::Float64:
        for (std::int64_t i = 0; i < n; ++i)
            store(h.bytes, i, static_cast<double>(lo) + static_cast<double>(next(s) >> 11) * 0x1p-53 * width);
        break;
    case DType::Float16:
        for (std::int64_t i = 0; i < n; ++i)
            store(h.bytes, i, toHalf(lo + unitFloat(next(s)) * width));
        break;
    case DType::BFloat16:
        for (std::int64_t i = 0; i < n; ++i)
            store(h.bytes, i, toBFloat16(lo + unitFloat(next(s)) * width));
        break;
    case DType::Int8: fillInts<std::int8_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::UInt8: fillInts<std::uint8_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::Int16: fillInts<std::int16_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::Int32: fillInts<std::int32_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::Int64: fillInts<std::int64_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::UInt16: fillInts<std::uint16_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::UInt32: fillInts<std::uint32_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::UInt64: fillInts<std::uint64_t>(h.bytes, n, seed, options.intLow, options.intHigh); break;
    case DType::Bool:
        fillInts<std::uint8_t>(h.bytes, n, seed, std::clamp<std::int64_t>(options.intLow, 0, 1),
                               std::clamp<std::int64_t>(options.intHigh, 0, 1));
        break;
    case DType::String:
    case DType::Undefined: break;
    }
    return h;
}

std::vector<HostTensor> syntheticInputs(const Graph &g, std::uint64_t firstSeed, const SyntheticInputOptions &options)
{
    std::vector<HostTensor> out;
    out.reserve(g.inputs.size());
    std::uint64_t seed = firstSeed;
    for (TensorId id : g.inputs)
        out.push_back(syntheticInput(g.tensor(id), seed++, options));
    return out;
}

} // namespace tessera
