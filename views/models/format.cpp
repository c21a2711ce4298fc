// Number formatting for the workbench (see format.h).
#include "views/models/format.h"

#include <cmath>

namespace tessera::views {

namespace {
// Three significant digits: 1.23, 12.3, 123.
QString threeDigits(double v)
{
    const int decimals = v < 10 ? 2 : v < 100 ? 1 : 0;
    return QString::number(v, 'f', decimals);
}

QString scaled(double value, double base, const char *const *prefixes, int count, const QString &unit)
{
    const double mag = std::fabs(value);
    int i = 0;
    double v = mag;
    while (v >= base && i + 1 < count) {
        v /= base;
        ++i;
    }
    // Never show four digits ("1000 k", "1023 KiB"): move to the next prefix.
    if (i + 1 < count && v >= 999.5) {
        v /= base;
        ++i;
    }
    const QString sign = value < 0 ? QStringLiteral("-") : QString();
    const QString number = i == 0 ? QString::number(std::llround(v)) : threeDigits(v);
    const QString suffix = QString::fromUtf8(prefixes[i]) + unit;
    return sign + number + (suffix.isEmpty() ? QString() : QLatin1Char(' ') + suffix);
}

constexpr const char *kSi[] = {"", "k", "M", "G", "T", "P"};
constexpr const char *kBinary[] = {"", "Ki", "Mi", "Gi", "Ti"};
} // namespace

QString formatCount(double value)
{
    return scaled(value, 1000.0, kSi, 6, QString());
}

QString formatFlops(double flops)
{
    return scaled(flops, 1000.0, kSi, 6, QStringLiteral("FLOP"));
}

QString formatBytes(std::int64_t bytes)
{
    return scaled(static_cast<double>(bytes), 1024.0, kBinary, 5, QStringLiteral("B"));
}

QString formatShape(const Shape &shape)
{
    if (shape.empty())
        return QStringLiteral("scalar");
    QString s;
    for (std::size_t i = 0; i < shape.size(); ++i) {
        if (i)
            s += QChar(0x00D7);
        s += QString::number(shape[i]);
    }
    return s;
}

QString formatRatio(double value)
{
    if (value == 0)
        return QStringLiteral("0");
    return std::fabs(value) >= 1000 ? formatCount(value) : threeDigits(value);
}

} // namespace tessera::views
