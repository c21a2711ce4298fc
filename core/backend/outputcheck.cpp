#include "core/backend/outputcheck.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera {

OutputCheck checkOutput(const HostTensor &got, const HostTensor &want, double tolerance)
{
    constexpr double kInf = std::numeric_limits<double>::infinity();
    OutputCheck c{got.name};
    if (got.shape != want.shape || got.dtype != want.dtype || got.bytes.size() != want.bytes.size()) {
        c.ok = false;
        c.relL2 = kInf;
        return c;
    }
    if (got.dtype != DType::Float32) {
        c.ok = got.bytes == want.bytes;
        c.relL2 = c.ok ? 0 : kInf;
        return c;
    }
    double num = 0, den = 0;
    for (std::int64_t i = 0; i < got.elements(); ++i) {
        const double a = got.f32()[i], b = want.f32()[i];
        if (!std::isfinite(a) && std::isfinite(b)) {
            ++c.badValues;
            continue;
        }
        if (!std::isfinite(b))
            continue; // the reference's own NaN/Inf: not this backend's fault
        num += (a - b) * (a - b);
        den += b * b;
    }
    c.relL2 = std::sqrt(num / std::max(den, 1e-30));
    c.ok = c.badValues == 0 && c.relL2 < tolerance;
    return c;
}

double relativeL2(const HostTensor &got, const HostTensor &want)
{
    const OutputCheck c = checkOutput(got, want, std::numeric_limits<double>::infinity());
    return c.badValues ? std::numeric_limits<double>::infinity() : c.relL2;
}

} // namespace tessera
