// Palette, fonts, metric scale and legend of the graph view (graphviewstyle.h).
#include "views/widgets/graphviewstyle.h"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <array>
#include <iterator>

namespace tessera::graphstyle {

QColor background()
{
    return QColor(0xfb, 0xfb, 0xfc);
}

QColor categoryColor(layout::OpCategory c)
{
    static const std::array<QColor, layout::kOpCategoryCount> colors{
        QColor(0x2f, 0x6d, 0xb5), // conv: blue
        QColor(0x6a, 0x4c, 0xad), // matmul: violet
        QColor(0xb0, 0x52, 0x3a), // elementwise: brick
        QColor(0x2e, 0x7d, 0x5b), // norm: green
        QColor(0x2f, 0x8a, 0x94), // pool: teal
        QColor(0x76, 0x7d, 0x88), // shape: slate
        QColor(0xa0, 0x7a, 0x22), // data movement: ochre
        QColor(0x4a, 0x50, 0x5c), // other: charcoal
    };
    return colors[static_cast<std::size_t>(c)];
}

QColor opaqueColor()
{
    return QColor(0x9a, 0x9a, 0x9a);
}
QColor edgeColor()
{
    return QColor(0x7d, 0x84, 0x90);
}
QColor frameFill(int depth)
{
    return depth % 2 ? QColor(0xf0, 0xf3, 0xf7) : QColor(0xe6, 0xeb, 0xf2);
}
QColor frameBorder()
{
    return QColor(0xb4, 0xbd, 0xca);
}
QColor highlightColor()
{
    return QColor(0xff, 0x9f, 0x1a);
}
QColor selectionColor()
{
    return QColor(0x1e, 0x88, 0xe5);
}

QColor textOn(const QColor &fill)
{
    const double lum = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF();
    return lum > 0.55 ? QColor(0x20, 0x24, 0x2a) : Qt::white;
}

namespace {
QFont font(qreal px, bool bold)
{
    QFont f;
    f.setPixelSize(static_cast<int>(px));
    f.setBold(bold);
    f.setHintingPreference(QFont::PreferNoHinting); // scales smoothly under zoom
    return f;
}
} // namespace

QFont titleFont()
{
    return font(11, true);
}
QFont bodyFont()
{
    return font(10, false);
}
QFont smallFont()
{
    return font(7, false);
}

MetricScale::MetricScale(const std::vector<double> &values, bool logScale) : m_log(logScale)
{
    for (double v : values) {
        if (!hasValue(v))
            continue;
        const double x = m_log ? std::log10(v) : v;
        m_min = m_valid ? std::min(m_min, x) : x;
        m_max = m_valid ? std::max(m_max, x) : x;
        m_valid = true;
    }
}

QColor MetricScale::ramp(double t)
{
    // Viridis at five stops, linearly interpolated.
    static const std::array<QColor, 5> stops{QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b),
                                             QColor(0x21, 0x91, 0x8c), QColor(0x5e, 0xc9, 0x62),
                                             QColor(0xfd, 0xe7, 0x25)};
    t = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
    const auto i = std::min(static_cast<std::size_t>(t), stops.size() - 2);
    const double f = t - static_cast<double>(i);
    const QColor &a = stops[i], &b = stops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

QColor MetricScale::color(double v) const
{
    if (!m_valid || !hasValue(v))
        return QColor(0xd9, 0xdc, 0xe1);
    const double x = m_log ? std::log10(v) : v;
    return ramp(m_max > m_min ? (x - m_min) / (m_max - m_min) : 1.0);
}

QString formatValue(double v)
{
    const double a = std::abs(v);
    if (a != 0 && (a >= 1e5 || a < 1e-2))
        return QString::number(v, 'e', 2);
    return QString::number(v, 'g', 4);
}

void drawLegend(QPainter *p, const QRectF &area, const MetricScale &scale, const QString &metric)
{
    if (!scale.valid())
        return;
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    const QFont title = titleFont(), body = bodyFont();
    const QString name = metric + (scale.logScale() ? QStringLiteral("  (log scale)") : QString());
    const double w = std::max(200.0, QFontMetricsF(title).horizontalAdvance(name) + 24);
    const QRectF box(area.left() + 12, area.bottom() - 12 - 62, w, 62);
    p->setPen(QPen(frameBorder(), 1));
    p->setBrush(QColor(255, 255, 255, 235));
    p->drawRoundedRect(box, 6, 6);
    p->setFont(title);
    p->setPen(QColor(0x20, 0x24, 0x2a));
    p->drawText(QRectF(box.left() + 12, box.top() + 6, w - 24, 16), Qt::AlignLeft | Qt::AlignVCenter, name);
    const QRectF bar(box.left() + 12, box.top() + 26, w - 24, 10);
    QLinearGradient g(bar.topLeft(), bar.topRight());
    for (int i = 0; i <= 8; ++i)
        g.setColorAt(i / 8.0, MetricScale::ramp(i / 8.0));
    p->setPen(Qt::NoPen);
    p->setBrush(g);
    p->drawRect(bar);
    p->setFont(body);
    p->setPen(QColor(0x4a, 0x50, 0x5c));
    const auto label = [&](double x) { return formatValue(scale.logScale() ? std::pow(10.0, x) : x); };
    const QRectF labels(bar.left(), bar.bottom() + 3, bar.width(), 14);
    p->drawText(labels, Qt::AlignLeft | Qt::AlignVCenter, label(scale.min()));
    p->drawText(labels, Qt::AlignRight | Qt::AlignVCenter, label(scale.max()));
    p->restore();
}

QColor paletteColor(int category)
{
    if (category < 0)
        return QColor(0xd5, 0xd9, 0xe0);
    // ColorBrewer "Paired" reordered so that neighbours differ in hue.
    static const QColor base[] = {{0x1f, 0x78, 0xb4}, {0xff, 0x7f, 0x00}, {0x33, 0xa0, 0x2c}, {0xe3, 0x1a, 0x1c},
                                  {0x6a, 0x3d, 0x9a}, {0xb1, 0x59, 0x28}, {0xa6, 0xce, 0xe3}, {0xfd, 0xbf, 0x6f},
                                  {0xb2, 0xdf, 0x8a}, {0xfb, 0x9a, 0x99}, {0xca, 0xb2, 0xd6}, {0xe6, 0xc8, 0x3c}};
    constexpr int n = static_cast<int>(std::size(base));
    const QColor c = base[category % n];
    switch ((category / n) % 3) {
    case 1: return c.darker(135);
    case 2: return c.lighter(125);
    default: return c;
    }
}

QColor mixedColor()
{
    return QColor(0xf3, 0xf4, 0xf6);
}

void drawCategoryLegend(QPainter *p, const QRectF &area, const std::vector<QString> &names, const QString &title,
                        int maxRows)
{
    if (names.empty())
        return;
    p->save();
    p->setRenderHint(QPainter::Antialiasing);
    const QFont titleF = titleFont(), body = bodyFont();
    const QFontMetricsF tm(titleF), bm(body);
    const int shown = std::min<int>(maxRows, static_cast<int>(names.size()));
    const bool more = shown < static_cast<int>(names.size());
    const qreal row = 16;
    const qreal maxText = 260;
    qreal w = tm.horizontalAdvance(title);
    for (int i = 0; i < shown; ++i)
        w = std::max(w, 18 + std::min(maxText, bm.horizontalAdvance(names[static_cast<std::size_t>(i)])));
    w += 24;
    const qreal h = 30 + row * (shown + (more ? 1 : 0));
    const QRectF box(area.left() + 12, area.bottom() - 12 - h, w, h);
    p->setPen(QPen(frameBorder(), 1));
    p->setBrush(QColor(255, 255, 255, 235));
    p->drawRoundedRect(box, 6, 6);
    p->setFont(titleF);
    p->setPen(QColor(0x20, 0x24, 0x2a));
    p->drawText(QRectF(box.left() + 12, box.top() + 6, w - 24, 16), Qt::AlignLeft | Qt::AlignVCenter, title);
    p->setFont(body);
    for (int i = 0; i < shown + (more ? 1 : 0); ++i) {
        const qreal y = box.top() + 26 + row * i;
        if (i == shown) {
            p->setPen(QColor(0x6b, 0x73, 0x80));
            p->drawText(QRectF(box.left() + 12, y, w - 24, row), Qt::AlignLeft | Qt::AlignVCenter,
                        QStringLiteral("… %1 more").arg(names.size() - static_cast<std::size_t>(shown)));
            break;
        }
        p->setPen(Qt::NoPen);
        p->setBrush(paletteColor(i));
        p->drawRoundedRect(QRectF(box.left() + 12, y + 3, 10, 10), 2, 2);
        p->setPen(QColor(0x30, 0x36, 0x40));
        p->drawText(QRectF(box.left() + 30, y, w - 42, row), Qt::AlignLeft | Qt::AlignVCenter,
                    bm.elidedText(names[static_cast<std::size_t>(i)], Qt::ElideMiddle, maxText));
    }
    p->restore();
}

} // namespace tessera::graphstyle
