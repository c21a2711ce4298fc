#include "views/widgets/bartimeline.h"

#include <QFontMetrics>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace tessera::views {

namespace {
constexpr int kRowH = 14;
constexpr int kLegendH = 20;
constexpr int kAxisH = 22;
constexpr int kMargin = 6;
} // namespace

BarTimeline::BarTimeline(QWidget *parent) : QWidget(parent)
{
    setMouseTracking(false);
    setAutoFillBackground(true);
}

void BarTimeline::setRows(std::vector<TimelineRow> rows, QString axis, std::vector<std::pair<QColor, QString>> legend)
{
    m_rows = std::move(rows);
    m_axis = std::move(axis);
    m_legend = std::move(legend);
    m_span = 0;
    for (const TimelineRow &r : m_rows)
        for (const TimelineBar &b : r.bars)
            m_span = std::max(m_span, b.end);
    if (m_span <= 0)
        m_span = 1;
    updateGeometry();
    update();
}

void BarTimeline::clear()
{
    setRows({}, {}, {});
}

QSize BarTimeline::sizeHint() const
{
    return {640, kLegendH + kAxisH + 2 * kMargin + kRowH * std::max<int>(4, static_cast<int>(m_rows.size()))};
}

QSize BarTimeline::minimumSizeHint() const
{
    return {240, kLegendH + kAxisH + 2 * kMargin + kRowH * 4};
}

int BarTimeline::labelWidth() const
{
    const QFontMetrics fm(font());
    int w = 40;
    for (const TimelineRow &r : m_rows)
        w = std::max(w, fm.horizontalAdvance(r.label) + 8);
    return std::min(w, width() / 3);
}

QRectF BarTimeline::barRect(int row, const TimelineBar &b) const
{
    const double x0 = labelWidth() + kMargin;
    const double w = std::max(1.0, double(width() - x0 - kMargin));
    const double left = x0 + b.start / m_span * w;
    const double right = x0 + b.end / m_span * w;
    return {left, double(kMargin + kLegendH + row * kRowH + 1), std::max(3.0, right - left), double(kRowH - 2)};
}

std::pair<int, int> BarTimeline::barAt(QPointF p) const
{
    for (int r = 0; r < static_cast<int>(m_rows.size()); ++r)
        for (int i = 0; i < static_cast<int>(m_rows[static_cast<std::size_t>(r)].bars.size()); ++i)
            if (barRect(r, m_rows[static_cast<std::size_t>(r)].bars[static_cast<std::size_t>(i)]).contains(p))
                return {r, i};
    return {-1, -1};
}

void BarTimeline::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const QFontMetrics fm(font());
    // Legend.
    int x = kMargin;
    for (const auto &[color, text] : m_legend) {
        p.fillRect(QRect(x, kMargin + 4, 12, 12), color);
        p.setPen(palette().text().color());
        p.drawText(x + 16, kMargin + 14, text);
        x += 16 + fm.horizontalAdvance(text) + 14;
    }
    if (m_rows.empty()) {
        p.setPen(palette().placeholderText().color());
        p.drawText(rect(), Qt::AlignCenter, tr("nothing to show"));
        return;
    }
    const int lw = labelWidth();
    const int top = kMargin + kLegendH;
    const int bottom = top + static_cast<int>(m_rows.size()) * kRowH;
    // Row labels and stripes.
    for (int r = 0; r < static_cast<int>(m_rows.size()); ++r) {
        const int y = top + r * kRowH;
        if (r % 2)
            p.fillRect(QRect(0, y, width(), kRowH), palette().alternateBase());
        p.setPen(palette().text().color());
        p.drawText(QRect(kMargin, y, lw - 4, kRowH), Qt::AlignVCenter | Qt::AlignLeft,
                   fm.elidedText(m_rows[static_cast<std::size_t>(r)].label, Qt::ElideMiddle, lw - 4));
    }
    // Bars.
    for (int r = 0; r < static_cast<int>(m_rows.size()); ++r)
        for (const TimelineBar &b : m_rows[static_cast<std::size_t>(r)].bars) {
            const QRectF rc = barRect(r, b);
            p.fillRect(rc, b.color);
            if (b.marked) {
                p.fillRect(rc, QBrush(b.color.darker(190), Qt::BDiagPattern));
                p.setPen(QPen(b.color.darker(250), 1.5));
                p.drawRect(rc.adjusted(0.5, 0.5, -0.5, -0.5));
            }
        }
    // Axis: ticks at round steps.
    const double x0 = lw + kMargin;
    const double w = std::max(1.0, double(width() - x0 - kMargin));
    p.setPen(palette().text().color());
    p.drawLine(QPointF(x0, bottom + 2), QPointF(x0 + w, bottom + 2));
    const double raw = m_span / 8;
    const double mag = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-12))));
    double step = mag;
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * mag >= raw) {
            step = m * mag;
            break;
        }
    for (double v = 0; v <= m_span + step * 1e-9; v += step) {
        const double px = x0 + v / m_span * w;
        p.drawLine(QPointF(px, bottom + 2), QPointF(px, bottom + 6));
        const QString label = QString::number(v, 'g', 4);
        const double tw = fm.horizontalAdvance(label);
        p.drawText(QPointF(px + 2 + tw > width() ? px - 2 - tw : px + 2, bottom + 17), label);
    }
    p.drawText(QRect(0, bottom + 4, lw, kAxisH - 4), Qt::AlignRight | Qt::AlignVCenter, m_axis);
}

void BarTimeline::mousePressEvent(QMouseEvent *e)
{
    const auto [r, b] = barAt(e->position());
    if (r >= 0 && barClicked)
        barClicked(r, b);
    QWidget::mousePressEvent(e);
}

bool BarTimeline::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const auto [r, b] = barAt(help->pos());
        if (r >= 0)
            QToolTip::showText(help->globalPos(),
                               m_rows[static_cast<std::size_t>(r)].bars[static_cast<std::size_t>(b)].tip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

} // namespace tessera::views
