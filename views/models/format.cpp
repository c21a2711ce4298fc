// Number formatting for the workbench (see format.h).
#include "views/models/format.h"

#include "core/support/units.h"

#include <cmath>

namespace tessera::views {

namespace {
QString q(const std::string &s)
{
    return QString::fromStdString(s);
}
} // namespace

QString formatCount(double value)
{
    return q(units::count(value));
}

QString formatFlops(double flops)
{
    return q(units::flops(flops));
}

QString formatBytes(std::int64_t bytes)
{
    return q(units::bytes(static_cast<double>(bytes)));
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
    if (std::fabs(value) >= 1000)
        return formatCount(value);
    const double mag = std::fabs(value);
    return QString::number(value, 'f', mag < 10 ? 2 : mag < 100 ? 1 : 0);
}

} // namespace tessera::views
