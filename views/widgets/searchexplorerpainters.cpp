// The DP explorer's drawings (see searchexplorerpainters.h).
#include "views/widgets/searchexplorerpainters.h"

#include "core/sched/scheduler.h"
#include "views/models/format.h"
#include "views/models/plansummary.h"
#include "views/widgets/graphviewstyle.h"
#include "views/widgets/searchexplorer.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTransform>

#include <algorithm>
#include <cmath>

namespace tessera::views {

namespace explorercolors {

QColor pathColor()
{
    return graphstyle::highlightColor();
} // the path, the transition taken
QColor pathInk()
{
    return QColor(0xb3, 0x5c, 0x00);
} // text on the path
QColor pathFill()
{
    return QColor(0xff, 0xf1, 0xde);
}
QColor selectColor()
{
    return graphstyle::selectionColor();
}
QColor edgeGrey()
{
    return QColor(0xa7, 0xae, 0xb8);
}
QColor boxBorder()
{
    return QColor(0xb4, 0xbd, 0xca);
}
QColor mutedInk()
{
    return QColor(0x5f, 0x66, 0x70);
}
QColor stageBar()
{
    return QColor(0x4f, 0x74, 0xb0);
}
QColor restBar()
{
    return QColor(0xc6, 0xd4, 0xea);
}
QColor chosenStageBar()
{
    return QColor(0xe0, 0x7b, 0x00);
}
QColor chosenRestBar()
{
    return QColor(0xff, 0xd3, 0x9e);
}
QColor bestInk()
{
    return QColor(0xc9, 0x8a, 0x00);
}

QFont smaller(QFont f, double by)
{
    f.setPointSizeF(std::max(6.0, f.pointSizeF() - by));
    return f;
}

} // namespace explorercolors

using namespace explorercolors;

// ---- the neighbourhood: a state's ways on, as bars ------------------------------------

void SearchNeighbourhoodView::set(const SearchSpaceModel *model, int table, int state, int transition)
{
    m_model = model;
    m_table = table;
    m_state = state;
    m_transition = transition;
    update();
}

void SearchNeighbourhoodView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(rect(), palette().color(QPalette::Base));
    m_rows.clear();
    const SearchSpace::Table *t = m_model ? m_model->table(m_table) : nullptr;
    if (!t || m_state < 0 || m_state >= static_cast<int>(t->states.size())) {
        p.setPen(mutedInk());
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("Select a state in the tree."));
        return;
    }
    const auto &ix = m_model->tableIndex(m_table);
    const SearchSpace::State &s = t->states[static_cast<std::size_t>(m_state)];
    const auto out = ix.outgoing(m_state);
    const double w = width();

    // Header: the state and its numbers.
    QFont title = font();
    title.setBold(true);
    title.setPointSizeF(title.pointSizeF() + 1);
    p.setFont(title);
    p.setPen(s.onPath ? pathInk() : palette().color(QPalette::Text));
    const QString head = (s.onPath ? QStringLiteral("◆ ") : QString()) + QString::fromStdString(s.label);
    p.drawText(QRectF(10, 4, w - 20, 20), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(title).elidedText(head, Qt::ElideMiddle, w - 20));
    p.setFont(smaller(font(), 0.5));
    p.setPen(mutedInk());
    const double via = ix.via[static_cast<std::size_t>(m_state)];
    const QFontMetricsF sfm(p.font());
    const QString line1 =
        QStringLiteral("cost[S] %1 · best schedule through S %2 (%3)")
            .arg(formatDurationNs(s.cost), std::isfinite(via) ? formatDurationNs(via) : QStringLiteral("—"),
                 searchDeltaText(m_model->stateDelta(m_table, m_state)));
    const QString line2 =
        QStringLiteral("%1 schedules to ∅ · %2 ways on, cheapest first").arg(searchCountText(s.count)).arg(out.size());
    p.drawText(QRectF(10, 24, w - 20, 16), Qt::AlignLeft | Qt::AlignVCenter,
               sfm.elidedText(line1, Qt::ElideRight, w - 20));
    p.drawText(QRectF(10, 40, w - 20, 16), Qt::AlignLeft | Qt::AlignVCenter,
               sfm.elidedText(line2, Qt::ElideRight, w - 20));
    if (out.empty()) {
        p.drawText(QRectF(0, kHeader, w, height() - kHeader), Qt::AlignCenter,
                   s.size == 0 ? QStringLiteral("∅ — everything is scheduled")
                               : QStringLiteral("no transitions kept for this state (see the table's note)"));
        return;
    }

    // Rows, cheapest first, as many as fit.
    const int fit = std::max(1, static_cast<int>((height() - kHeader - kFooter) / kRow));
    const int shown =
        std::min(static_cast<int>(out.size()), out.size() > static_cast<std::size_t>(fit) ? fit - 1 : fit);
    double maxCost = 0, labelW = 0;
    const QFontMetricsF fm(font());
    for (int r = 0; r < shown; ++r) {
        const auto &tr = t->transitions[static_cast<std::size_t>(out[static_cast<std::size_t>(r)])];
        maxCost = std::max(maxCost, tr.totalCost);
        labelW = std::max(labelW, fm.horizontalAdvance(QString::fromStdString(tr.label)));
    }
    const double markW = 34, valueW = fm.horizontalAdvance(QStringLiteral("999.9 µs  +999%")) + 8;
    labelW = std::min(std::max(labelW + 12, 60.0), (w - markW - valueW) * 0.42);
    const double barX = markW + labelW, barW = std::max(40.0, w - barX - valueW - 10);
    for (int r = 0; r < shown; ++r) {
        const std::int32_t i = out[static_cast<std::size_t>(r)];
        const auto &tr = t->transitions[static_cast<std::size_t>(i)];
        const bool chosen = s.choice == i, best = ix.best[static_cast<std::size_t>(m_state)] == i;
        const QRectF row(0, kHeader + r * kRow, w, kRow);
        m_rows.push_back({row, i});
        if (chosen)
            p.fillRect(row.adjusted(2, 1, -2, -1), pathFill());
        if (i == m_transition) {
            p.setPen(QPen(selectColor(), 1.5));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(row.adjusted(2, 1, -2, -1), 3, 3);
        }
        // Marks and label.
        QFont f = font();
        f.setBold(chosen);
        p.setFont(f);
        p.setPen(chosen ? pathInk() : palette().color(QPalette::Text));
        p.drawText(QRectF(6, row.top(), 14, kRow), Qt::AlignCenter, chosen ? QStringLiteral("✓") : QString());
        p.setPen(bestInk());
        p.drawText(QRectF(20, row.top(), 14, kRow), Qt::AlignCenter, best ? QStringLiteral("★") : QString());
        p.setPen(chosen ? pathInk() : palette().color(QPalette::Text));
        p.drawText(QRectF(markW, row.top(), labelW - 8, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetricsF(f).elidedText(QString::fromStdString(tr.label), Qt::ElideMiddle, labelW - 8));
        // Bar: the stage, then the rest of the schedule.
        const double scale = maxCost > 0 ? barW / maxCost : 0;
        const double stageW = std::max(1.0, tr.stepCost * scale), totalW = std::max(stageW, tr.totalCost * scale);
        const QRectF bar(barX, row.top() + 5, totalW, kRow - 10);
        p.setPen(Qt::NoPen);
        p.setBrush(chosen ? chosenRestBar() : restBar());
        p.drawRect(bar);
        p.setBrush(chosen ? chosenStageBar() : stageBar());
        p.drawRect(QRectF(bar.left(), bar.top(), stageW, bar.height()));
        // Value.
        p.setFont(f);
        p.setPen(chosen ? pathInk() : palette().color(QPalette::Text));
        const QString value = formatDurationNs(tr.totalCost) + QStringLiteral("  ") +
                              searchDeltaText(m_model->transitionDelta(m_table, i));
        p.drawText(QRectF(w - valueW - 6, row.top(), valueW, kRow), Qt::AlignRight | Qt::AlignVCenter, value);
    }
    // Footer: what is not shown, and the legend.
    p.setFont(smaller(font(), 0.5));
    const double fy = kHeader + shown * kRow;
    if (shown < static_cast<int>(out.size())) {
        p.setPen(mutedInk());
        p.drawText(QRectF(markW, fy, w - markW, kRow), Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("… %1 more, all in the tree").arg(formatCount(double(out.size()) - shown)));
    }
    const double ly = height() - kFooter + 4;
    auto swatch = [&](double x, const QColor &c, const QString &text) {
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        p.drawRect(QRectF(x, ly + 4, 10, 10));
        p.setPen(mutedInk());
        const double tw = QFontMetricsF(p.font()).horizontalAdvance(text);
        p.drawText(QRectF(x + 14, ly, tw + 2, 18), Qt::AlignLeft | Qt::AlignVCenter, text);
        return x + 14 + tw + 14;
    };
    double x = swatch(10, stageBar(), QStringLiteral("stage"));
    x = swatch(x, restBar(), QStringLiteral("rest, cost[S − S']"));
    p.setPen(mutedInk());
    p.drawText(QRectF(x, ly, w - x - 6, 18), Qt::AlignLeft | Qt::AlignVCenter,
               QFontMetricsF(p.font()).elidedText(QStringLiteral("✓ taken   ★ cheapest   double-click: force"),
                                                  Qt::ElideRight, w - x - 6));
}

int SearchNeighbourhoodView::rowAt(const QPointF &pos) const
{
    for (const auto &r : m_rows)
        if (r.rect.contains(pos))
            return r.transition;
    return -1;
}

void SearchNeighbourhoodView::mousePressEvent(QMouseEvent *e)
{
    const int i = rowAt(e->position());
    if (i >= 0 && onSelect)
        onSelect(i);
}

void SearchNeighbourhoodView::mouseDoubleClickEvent(QMouseEvent *e)
{
    const int i = rowAt(e->position());
    if (i >= 0 && onForce)
        onForce(i);
}

// ---- the table: Fig. 3.4 (2), or its path ---------------------------------------------

void SearchDagView::setTable(const SearchSpaceModel *model, int table)
{
    m_model = model;
    m_table = table;
    m_layout = {};
    if (const SearchSpace::Table *t = model ? model->table(table) : nullptr) {
        SearchDagMetrics m;
        QFont bold = font(); // path states are drawn bold: measure them so
        bold.setBold(true);
        const QFontMetricsF fm(bold);
        m.textWidth = [fm](const QString &s) { return fm.horizontalAdvance(s) + 2; };
        m.lineHeight = fm.height();
        m_layout = layoutSearchDag(*t, m, SearchExplorer::kWholeDagStates);
    }
    setMinimumSize(m_layout.size.toSize().expandedTo(QSize(0, 0)));
    updateGeometry();
    update();
}

void SearchDagView::setSelection(int state, int transition)
{
    m_state = state;
    m_transition = transition;
    update();
}

QTransform SearchDagView::transform() const
{
    const QSizeF sz = m_layout.size;
    double scale = 1;
    if (m_layout.whole && sz.width() > 0 && sz.height() > 0)
        scale = std::clamp(std::min(width() / sz.width(), height() / sz.height()), 1.0, 1.5);
    QTransform t;
    t.translate(std::max(0.0, (width() - sz.width() * scale) / 2), std::max(0.0, (height() - sz.height() * scale) / 2));
    t.scale(scale, scale);
    return t;
}

void SearchDagView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    const SearchSpace::Table *t = m_model ? m_model->table(m_table) : nullptr;
    if (!t || m_layout.boxes.empty()) {
        p.setPen(mutedInk());
        p.drawText(rect(), Qt::AlignCenter, QStringLiteral("nothing to draw"));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing);
    p.setTransform(transform());
    const auto &edges = m_layout.edges;
    auto isPath = [&](const SearchDagLayout::Edge &e) {
        const auto &tr = t->transitions[static_cast<std::size_t>(e.transition)];
        const auto &from = t->states[static_cast<std::size_t>(tr.from)];
        return from.onPath && from.choice == e.transition;
    };
    auto isSelected = [&](const SearchDagLayout::Edge &e) {
        return t->transitions[static_cast<std::size_t>(e.transition)].from == m_state || e.transition == m_transition;
    };
    auto curve = [](const SearchDagLayout::Edge &e) {
        QPainterPath path(e.points.front());
        for (std::size_t i = 0; i + 1 < e.points.size(); ++i) {
            QPointF c1, c2;
            SearchDagLayout::Edge::segment(e.points[i], e.points[i + 1], c1, c2);
            path.cubicTo(c1, c2, e.points[i + 1]);
        }
        return path;
    };
    auto arrow = [&](const SearchDagLayout::Edge &e, const QColor &c, double size) {
        const QPointF tip = e.points.back(); // curves arrive vertically
        QPolygonF head;
        head << tip << tip + QPointF(-size / 2, -size) << tip + QPointF(size / 2, -size);
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        p.drawPolygon(head);
    };
    // Edges: plain, then the selected state's, then the path on top.
    for (int pass = 0; pass < 3; ++pass)
        for (const auto &e : edges) {
            const bool path = isPath(e), sel = isSelected(e);
            if ((pass == 0 && (path || sel)) || (pass == 1 && (path || !sel)) || (pass == 2 && !path))
                continue;
            const QColor c = pass == 2 ? pathColor() : pass == 1 ? selectColor() : edgeGrey();
            p.setPen(QPen(c, pass == 2 ? 3 : pass == 1 ? 1.6 : 1.1));
            p.setBrush(Qt::NoBrush);
            p.drawPath(curve(e));
            arrow(e, c, pass == 2 ? 10 : 7);
        }
    // Boxes.
    const QFontMetricsF fm(font());
    std::vector<QRectF> taken; // for the labels below
    for (const auto &b : m_layout.boxes) {
        const auto &s = t->states[static_cast<std::size_t>(b.state)];
        const bool selected = b.state == m_state;
        p.setPen(QPen(selected   ? selectColor()
                      : s.onPath ? pathColor()
                                 : boxBorder(),
                      selected   ? 2.4
                      : s.onPath ? 1.8
                                 : 1));
        p.setBrush(s.onPath ? pathFill() : palette().color(QPalette::Base));
        p.drawRoundedRect(b.rect, 5, 5);
        QFont f = font();
        f.setBold(s.onPath);
        p.setFont(f);
        p.setPen(s.onPath ? pathInk() : palette().color(QPalette::Text));
        const QRectF line1(b.rect.left() + 4, b.rect.top() + 4, b.rect.width() - 8, fm.height());
        p.drawText(line1, Qt::AlignCenter,
                   QFontMetricsF(f).elidedText(QString::fromStdString(s.label), Qt::ElideMiddle, line1.width()));
        p.setFont(smaller(font(), 1));
        p.setPen(mutedInk());
        p.drawText(QRectF(b.rect.left(), line1.bottom(), b.rect.width(), fm.height()), Qt::AlignCenter,
                   searchStateCostText(s));
        taken.push_back(b.rect.adjusted(-3, -3, 3, 3));
    }
    // Edge labels: the path's first, then the selected state's, then (when few) the rest,
    // each at the first spot along its curve that covers no box and no other label.
    const bool all = edges.size() <= 30;
    const QFont small = smaller(font(), 1);
    const QFontMetricsF sfm(small);
    p.setFont(small);
    std::vector<const SearchDagLayout::Edge *> order;
    for (int pass = 0; pass < 3; ++pass)
        for (const auto &e : edges) {
            const bool path = isPath(e), sel = isSelected(e) && !path;
            if ((pass == 0 && path) || (pass == 1 && sel) || (pass == 2 && all && !path && !sel))
                order.push_back(&e);
        }
    static constexpr double kSpots[] = {0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78, 0.15, 0.85};
    for (const SearchDagLayout::Edge *e : order) {
        const bool path = isPath(*e), sel = isSelected(*e);
        const auto &tr = t->transitions[static_cast<std::size_t>(e->transition)];
        QString text = sfm.elidedText(QString::fromStdString(tr.label), Qt::ElideMiddle, 260);
        if (path || sel)
            text += QStringLiteral("  ") + formatDurationNs(tr.stepCost);
        const double tw = sfm.horizontalAdvance(text) + 10, th = sfm.height() + 2;
        auto pillAt = [&](const QPointF &at) {
            return m_layout.whole ? QRectF(at.x() - tw / 2, at.y() - th / 2, tw, th)
                                  : QRectF(at.x() + 10, at.y() - th / 2, tw, th); // right of the column
        };
        QRectF pill;
        bool found = false;
        for (double spot : kSpots) {
            pill = pillAt(e->pointAt(spot));
            if (std::none_of(taken.begin(), taken.end(), [&](const QRectF &r) { return r.intersects(pill); })) {
                found = true;
                break;
            }
        }
        if (!found && !path && !sel)
            continue; // an unimportant label that would cover something
        if (!found)
            pill = pillAt(e->pointAt(0.5));
        taken.push_back(pill.adjusted(-2, -1, 2, 1));
        QColor bg = palette().color(QPalette::Base);
        bg.setAlpha(240);
        p.setPen(QPen(path ? pathColor() : sel ? selectColor() : boxBorder(), 0.8));
        p.setBrush(bg);
        p.drawRoundedRect(pill, 4, 4);
        p.setPen(path ? pathInk() : sel ? selectColor().darker(130) : mutedInk());
        p.drawText(pill, Qt::AlignCenter, text);
    }
}

void SearchDagView::mousePressEvent(QMouseEvent *e)
{
    const QPointF at = transform().inverted().map(e->position());
    for (const auto &b : m_layout.boxes)
        if (b.rect.contains(at) && onSelectState) {
            onSelectState(b.state);
            return;
        }
}

} // namespace tessera::views
