// Number formatting (see units.h).
#include "core/support/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>

namespace tessera::units {

namespace {

// `v` (≥ 0) rounded to `digits` significant figures.
double roundSignificant(double v, int digits)
{
    if (v == 0 || !std::isfinite(v))
        return v;
    const double step = std::pow(10.0, std::floor(std::log10(v)) - digits + 1);
    return std::round(v / step) * step;
}

// `v` (0 ≤ v < 1000) with `digits` significant figures, fixed notation.
std::string significant(double v, int digits)
{
    const double r = roundSignificant(v, digits);
    const int magnitude = r > 0 ? static_cast<int>(std::floor(std::log10(r))) : 0;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", std::max(0, digits - 1 - magnitude), v);
    return buf;
}

struct Scale {
    double base;
    std::initializer_list<const char *> prefixes; // smallest first; the first is the unscaled unit
};

// `value` scaled through `scale` with `digits` significant figures. In the
// first unit, integral values (and every value at three figures) print as
// integers: "950", "512 B".
std::string scaled(double value, const Scale &scale, const std::string &unit, int digits)
{
    if (std::isnan(value))
        return "n/a";
    const std::string sign = value < 0 ? "-" : "";
    double v = std::fabs(value);
    auto prefix = scale.prefixes.begin();
    const auto last = std::prev(scale.prefixes.end());
    // Never four digits before the point: "1000 k" becomes "1.00 M".
    while (prefix != last && roundSignificant(v, digits) >= 999.5) {
        v /= scale.base;
        ++prefix;
    }
    const std::string suffix = std::string(*prefix) + unit;
    auto withUnit = [&](const std::string &number) { return sign + number + (suffix.empty() ? "" : " " + suffix); };
    char buf[32];
    if (roundSignificant(v, digits) >= 999.5 || std::isinf(v)) { // beyond the largest prefix
        std::snprintf(buf, sizeof buf, "%.2e", v);
        return withUnit(buf);
    }
    if (prefix == scale.prefixes.begin() && (v == std::floor(v) || digits <= 3))
        return withUnit(std::to_string(std::llround(v)));
    return withUnit(significant(v, digits));
}

const Scale kSi{1000.0, {"", "k", "M", "G", "T", "P", "E", "Z", "Y"}};
const Scale kBinary{1024.0, {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}};

} // namespace

std::string count(double value)
{
    return scaled(value, kSi, "", 3);
}

std::string flops(double flops)
{
    return scaled(flops, kSi, "FLOP", 3);
}

std::string bytes(double bytes)
{
    return scaled(bytes, kBinary, "B", 3);
}

std::string durationNs(double ns)
{
    if (ns == 0)
        return "0 ns";
    const Scale time{1000.0, {"ns", "µs", "ms", "s"}};
    return scaled(ns, time, "", 4);
}

std::string durationMs(double ms)
{
    return durationNs(ms * 1e6);
}

std::string energyJ(double joules)
{
    if (joules == 0)
        return "0 J";
    const Scale energy{1000.0, {"nJ", "µJ", "mJ", "J", "kJ", "MJ"}};
    return scaled(joules * 1e9, energy, "", 4);
}

std::string powerW(double watts)
{
    if (watts == 0)
        return "0 W";
    const Scale power{1000.0, {"µW", "mW", "W", "kW", "MW"}};
    return scaled(watts * 1e6, power, "", 4);
}

std::string rate(double perSecond, const char *unit)
{
    return scaled(perSecond, kSi, "", 4) + " " + unit;
}

} // namespace tessera::units
