// Painting of one laid-out level (graphviewitems.h). Edges that enter or leave
// an expanded child are bent onto that child's input/output port, so a line
// runs from the outside edge through the frame to the port and fans out inside.
#include "views/widgets/graphviewitems.h"

#include "views/widgets/graphviewprivate.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace tessera {
namespace {

using layout::LevelItem;
namespace gs = graphstyle;

constexpr qreal kNodeRadius = 4;
constexpr qreal kGroupRadius = 6;
constexpr qreal kFrameRadius = 8;
constexpr qreal kHeaderBand = 21; // coloured title band of a node box

// The port item of `kind` in the level of expanded group g, in g's content coordinates.
const LevelItem *portOf(const GraphViewPrivate *d, GroupId g, LevelItem::Kind kind, QPointF *origin)
{
    const int placed = d->groupPlaced[static_cast<std::size_t>(g)];
    if (placed < 0)
        return nullptr;
    const auto &pl = d->comp.levels[static_cast<std::size_t>(placed)];
    *origin = pl.origin;
    for (const LevelItem &it : pl.level->items)
        if (it.kind == kind)
            return &it;
    return nullptr;
}

// Cubic Bézier chain (P0 (C1 C2 P)*) as a polyline with steps of about 2 scene units.
QPolygonF flatten(const std::vector<QPointF> &pts)
{
    QPolygonF out;
    out << pts[0];
    for (std::size_t i = 1; i + 2 < pts.size(); i += 3) {
        const QPointF a = pts[i - 1], c1 = pts[i], c2 = pts[i + 1], b = pts[i + 2];
        const qreal hull = QLineF(a, c1).length() + QLineF(c1, c2).length() + QLineF(c2, b).length();
        const int steps = std::clamp(static_cast<int>(hull / 2), 1, 400);
        for (int k = 1; k <= steps; ++k)
            out << layout::bezierPoint(a, c1, c2, b, static_cast<double>(k) / steps);
    }
    return out;
}

// Only the runs of segments that touch `clip`: zoomed in, a long edge would
// otherwise be stroked in full, thousands of pixels outside the viewport.
void drawClipped(QPainter *p, const QPolygonF &line, const QRectF &clip)
{
    qsizetype start = -1;
    for (qsizetype i = 0; i + 1 < line.size(); ++i) {
        const bool in = QRectF(line[i], line[i + 1]).normalized().adjusted(-0.5, -0.5, 0.5, 0.5).intersects(clip);
        if (in && start < 0)
            start = i;
        if (!in && start >= 0) {
            p->drawPolyline(line.constData() + start, static_cast<int>(i - start + 1));
            start = -1;
        }
    }
    if (start >= 0)
        p->drawPolyline(line.constData() + start, static_cast<int>(line.size() - start));
}

QPolygonF arrowHead(const std::vector<QPointF> &pts)
{
    const std::size_t n = pts.size();
    const QPointF tip = pts[n - 1];
    QPointF back = layout::bezierPoint(pts[n - 4], pts[n - 3], pts[n - 2], tip, 0.85);
    if (QLineF(back, tip).length() < 1)
        back = pts[n - 2];
    QLineF dir(tip, back);
    if (dir.length() < 1e-6)
        dir = QLineF(tip, tip - QPointF(0, 1));
    dir.setLength(7.5);
    const QPointF base = dir.p2();
    const QPointF normal = QPointF(-(base - tip).y(), (base - tip).x()) * (3.4 / 7.5);
    return QPolygonF({tip, base + normal, base - normal});
}

QStaticText staticText(const QString &text, const QFont &font)
{
    QStaticText st(text);
    st.setTextFormat(Qt::PlainText);
    st.prepare(QTransform(), font);
    return st;
}

void drawCentred(QPainter *p, const QStaticText &text, const QRectF &box)
{
    const QSizeF s = text.size();
    p->drawStaticText(QPointF(box.center().x() - s.width() / 2, box.center().y() - s.height() / 2), text);
}

QString nodeCountText(std::int64_t n)
{
    return n == 1 ? QStringLiteral("1 node") : QStringLiteral("%1 nodes").arg(n);
}

void drawPlusMinus(QPainter *p, QPointF c, bool plus, const QColor &colour)
{
    p->setPen(QPen(colour, 1.2));
    p->setBrush(Qt::NoBrush);
    p->drawEllipse(c, 6, 6);
    p->drawLine(QPointF(c.x() - 3, c.y()), QPointF(c.x() + 3, c.y()));
    if (plus)
        p->drawLine(QPointF(c.x(), c.y() - 3), QPointF(c.x(), c.y() + 3));
}

void drawBadge(QPainter *p, QPointF topRight, int count)
{
    const QString text = QString::number(count);
    p->setFont(gs::bodyFont());
    const qreal w = std::max<qreal>(16, QFontMetricsF(gs::bodyFont()).horizontalAdvance(text) + 10);
    const QRectF r(topRight.x() - w + 6, topRight.y() - 8, w, 16);
    p->setPen(Qt::NoPen);
    p->setBrush(gs::highlightColor());
    p->drawRoundedRect(r, 8, 8);
    p->setPen(Qt::white);
    p->drawText(r, Qt::AlignCenter, text);
}

} // namespace

LevelGraphicsItem::LevelGraphicsItem(const GraphViewPrivate *d, int placedIndex) : d(d), m_index(placedIndex)
{
    const layout::PlacedLevel &placed = d->comp.levels[static_cast<std::size_t>(placedIndex)];
    m_level = placed.level;
    setPos(placed.origin);
    setZValue(placed.depth);
    setFlag(ItemUsesExtendedStyleOption);
    m_bounds = QRectF(QPointF(0, 0), m_level->size);
    if (placed.parent >= 0) {
        m_frame = placed.frame.translated(-placed.origin);
        m_bounds |= m_frame;
    }

    const auto &items = m_level->items;
    m_edges.reserve(m_level->edges.size());
    for (const layout::LevelEdge &e : m_level->edges) {
        EdgeGeometry geo;
        std::vector<QPointF> pts = e.path;
        if (pts.size() >= 4) {
            QPointF childOrigin;
            const LevelItem &from = items[static_cast<std::size_t>(e.from)];
            const LevelItem &to = items[static_cast<std::size_t>(e.to)];
            if (from.kind == LevelItem::Kind::Group && from.expanded)
                if (const LevelItem *port = portOf(d, from.id, LevelItem::Kind::OutPort, &childOrigin)) {
                    const QPointF start(port->rect.center().x() + childOrigin.x() - placed.origin.x(),
                                        from.rect.bottom());
                    const QPointF delta = start - pts[0];
                    pts[0] += delta;
                    pts[1] += delta;
                }
            if (to.kind == LevelItem::Kind::Group && to.expanded)
                if (const LevelItem *port = portOf(d, to.id, LevelItem::Kind::InPort, &childOrigin)) {
                    const QPointF end(port->rect.center().x() + childOrigin.x() - placed.origin.x(), to.rect.top());
                    const QPointF delta = end - pts.back();
                    pts[pts.size() - 1] += delta;
                    pts[pts.size() - 2] += delta;
                }
            geo.polyline = flatten(pts);
            const bool runsOn =
                to.kind == LevelItem::Kind::OutPort || (to.kind == LevelItem::Kind::Group && to.expanded);
            if (!runsOn)
                geo.arrow = arrowHead(pts);
            geo.chord = QLineF(pts.front(), pts.back());
            geo.bounds = geo.polyline.boundingRect().adjusted(-8, -8, 8, 8);
            m_bounds |= geo.bounds;
        }
        m_edges.push_back(std::move(geo));
    }
    if (!m_frame.isNull())
        for (const LevelItem &it : items) {
            const QPointF c = it.rect.center();
            if (it.kind == LevelItem::Kind::InPort)
                m_portLines.emplace_back(QPointF(c.x(), m_frame.top()), c);
            else if (it.kind == LevelItem::Kind::OutPort)
                m_portLines.emplace_back(QPointF(c.x(), m_frame.bottom()), c);
        }
    markHubEdges();
    m_bounds.adjust(-6, -10, 6, 6); // selection outlines and badges
    m_labels.resize(items.size());
}

void LevelGraphicsItem::markHubEdges()
{
    const auto &items = m_level->items;
    std::vector<int> fanOut(items.size(), 0);
    for (const layout::LevelEdge &e : m_level->edges)
        ++fanOut[static_cast<std::size_t>(e.from)];
    constexpr qreal kStub = 26;
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
        EdgeGeometry &geo = m_edges[k];
        const layout::LevelEdge &e = m_level->edges[k];
        const LevelItem &from = items[static_cast<std::size_t>(e.from)];
        if (geo.polyline.size() < 2 || fanOut[static_cast<std::size_t>(e.from)] < kHubFanOut)
            continue;
        qreal length = 0;
        for (qsizetype i = 1; i < geo.polyline.size(); ++i)
            length += QLineF(geo.polyline[i - 1], geo.polyline[i]).length();
        if (length < kHubLength)
            continue;
        geo.stubbed = true;
        qreal run = 0;
        geo.head << geo.polyline.front();
        for (qsizetype i = 1; i < geo.polyline.size() && run < kStub; ++i) {
            run += QLineF(geo.polyline[i - 1], geo.polyline[i]).length();
            geo.head << geo.polyline[i];
        }
        run = 0;
        geo.tail << geo.polyline.back();
        for (qsizetype i = geo.polyline.size() - 2; i >= 0 && run < kStub; --i) {
            run += QLineF(geo.polyline[i + 1], geo.polyline[i]).length();
            geo.tail.prepend(geo.polyline[i]);
        }
        geo.hubName = hubNameOf(from, items[static_cast<std::size_t>(e.to)]);
    }
}

// What a stub names: the hub node or group; for a level's input port, the
// producer outside the level of the consumer's input (the port itself is no name).
QString LevelGraphicsItem::hubNameOf(const LevelItem &from, const LevelItem &to) const
{
    if (from.kind == LevelItem::Kind::Node)
        return QString::fromStdString(d->graph->node(from.id).name);
    if (from.kind == LevelItem::Kind::Group)
        return QString::fromStdString(d->hierarchy->group(from.id).name);
    if (to.kind != LevelItem::Kind::Node)
        return {};
    for (TensorId t : d->graph->node(to.id).inputs) {
        if (t == kInvalidId)
            continue;
        const NodeId producer = d->graph->tensor(t).producer;
        if (producer == kInvalidId)
            continue;
        const std::vector<GroupId> chain = d->hierarchy->ancestry(d->hierarchy->groupOf(producer));
        if (std::find(chain.begin(), chain.end(), m_level->group) == chain.end())
            return QString::fromStdString(d->graph->node(producer).name);
    }
    return {};
}

int LevelGraphicsItem::stubbedEdgeCount() const
{
    return static_cast<int>(
        std::count_if(m_edges.begin(), m_edges.end(), [](const EdgeGeometry &e) { return e.stubbed; }));
}

QRectF LevelGraphicsItem::boundingRect() const
{
    return m_bounds;
}

const LevelGraphicsItem::Labels &LevelGraphicsItem::labels(std::size_t index) const
{
    Labels &l = m_labels[index];
    if (l.ready)
        return l;
    static const QFontMetricsF title(gs::titleFont()), body(gs::bodyFont()), small(gs::smallFont());
    const LevelItem &item = m_level->items[index];
    const qreal w = item.rect.width();
    if (item.kind == LevelItem::Kind::Node) {
        const Node &n = d->graph->node(item.id);
        l.title =
            staticText(title.elidedText(QString::fromStdString(n.opType), Qt::ElideRight, w - 10), gs::titleFont());
        l.body =
            staticText(body.elidedText(layout::nodeShapeText(*d->graph, n), Qt::ElideRight, w - 10), gs::bodyFont());
        l.detail =
            staticText(small.elidedText(QString::fromStdString(n.name), Qt::ElideMiddle, w - 8), gs::smallFont());
    } else {
        l.title = staticText(
            title.elidedText(QString::fromStdString(d->hierarchy->group(item.id).name), Qt::ElideMiddle, w - 44),
            gs::titleFont());
    }
    l.ready = true;
    return l;
}

void LevelGraphicsItem::paint(QPainter *p, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const qreal lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(p->worldTransform());
    const QRectF exposed = option->exposedRect;
    p->setRenderHint(QPainter::Antialiasing, lod >= gs::kSketchLod);
    p->setRenderHint(QPainter::TextAntialiasing, true);
    if (!m_frame.isNull())
        paintFrame(p, exposed, lod);
    paintEdges(p, exposed, lod);
    const auto &items = m_level->items;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const LevelItem &item = items[i];
        if (!item.rect.intersects(exposed))
            continue;
        if (item.kind == LevelItem::Kind::Node)
            paintNode(p, item, i, lod);
        else if (item.kind == LevelItem::Kind::Group && !item.expanded)
            paintGroupBox(p, item, i, lod);
    }
}

void LevelGraphicsItem::paintFrame(QPainter *p, const QRectF &exposed, qreal lod) const
{
    const layout::PlacedLevel &placed = d->comp.levels[static_cast<std::size_t>(m_index)];
    const GroupId g = m_level->group;
    const bool selected = d->selectedGroup == g;
    if (m_frame.adjusted(kFrameRadius + 2, kFrameRadius + 2, -kFrameRadius - 2, -kFrameRadius - 2).contains(exposed)) {
        p->fillRect(exposed, gs::frameFill(placed.depth)); // zoomed into the inside: no border, no corners
    } else {
        p->setPen(QPen(selected ? gs::selectionColor() : gs::frameBorder(), selected ? 2.0 : 1.0));
        p->setBrush(gs::frameFill(placed.depth));
        p->drawRoundedRect(m_frame, kFrameRadius, kFrameRadius);
    }
    if (lod < gs::kTextLod)
        return;
    const Group &grp = d->hierarchy->group(g);
    const QPointF button(m_frame.right() - 14, m_frame.top() + layout::BoxMetrics::kHeader / 2);
    drawPlusMinus(p, button, false, QColor(0x6b, 0x73, 0x80));
    // The text ends 9 px before the collapse button (radius 6): the name takes what it
    // needs, the count and FLOPs the rest (elided, or dropped below 24 px), and both
    // are clipped to the strip, so no glyph is cut or runs under the button.
    const qreal textLeft = m_frame.left() + 10;
    const QRectF header(textLeft, m_frame.top() + 4, std::max<qreal>(0, button.x() - 15 - textLeft),
                        layout::BoxMetrics::kHeader - 8);
    if (header.width() < 12)
        return;
    static const QFontMetricsF titleMetrics(gs::titleFont()), bodyMetrics(gs::bodyFont());
    const QString fullName = QString::fromStdString(grp.name);
    QStringList infoParts{nodeCountText(grp.totalNodes)};
    if (const QString f = layout::flopsText(d->groupFlopsTotal(g)); !f.isEmpty())
        infoParts << f;
    const QString info = infoParts.join(QStringLiteral("  ·  "));
    const qreal infoWidth = bodyMetrics.horizontalAdvance(info);
    qreal nameRoom = header.width();
    if (titleMetrics.horizontalAdvance(fullName) + 10 + infoWidth > header.width())
        nameRoom = std::max(header.width() * 0.6, header.width() - 10 - infoWidth);
    const QString name = titleMetrics.elidedText(fullName, Qt::ElideMiddle, nameRoom);
    const qreal infoLeft = header.left() + titleMetrics.horizontalAdvance(name) + 10;
    const qreal infoRoom = header.right() - infoLeft;
    p->save();
    p->setClipRect(header, Qt::IntersectClip);
    p->setFont(gs::titleFont());
    p->setPen(QColor(0x2b, 0x31, 0x3b));
    p->drawText(header, Qt::AlignLeft | Qt::AlignVCenter, name);
    if (infoRoom >= 24) {
        p->setFont(gs::bodyFont());
        p->setPen(QColor(0x6b, 0x73, 0x80));
        p->drawText(QRectF(infoLeft, header.top(), infoRoom, header.height()), Qt::AlignLeft | Qt::AlignVCenter,
                    fitWholeParts(infoParts, QStringLiteral("  ·  "), infoRoom, bodyMetrics));
    }
    p->restore();
}

void LevelGraphicsItem::paintEdges(QPainter *p, const QRectF &exposed, qreal lod) const
{
    const int selectedItem = d->selectedNode >= 0 ? m_level->itemOfNode(d->selectedNode) : -1;
    QPen pen(gs::edgeColor(), 1.2);
    if (lod < gs::kSketchLod) {
        pen.setCosmetic(true);
        pen.setWidthF(1.0);
        p->setPen(pen);
        std::vector<QLineF> lines;
        for (const EdgeGeometry &e : m_edges)
            if (!e.stubbed && e.bounds.intersects(exposed))
                lines.push_back(e.chord);
        p->drawLines(lines.data(), static_cast<int>(lines.size()));
        return;
    }
    // Below 100 % a scaled 1.2 pen is thinner than a pixel: a cosmetic 1 px pen looks
    // the same and takes Qt's fast cosmetic stroker instead of the path stroker.
    const bool thin = lod < 1.0;
    const auto width = [&](qreal w) { return thin ? std::max<qreal>(1.0, w * lod) : w; };
    pen.setCosmetic(thin);
    pen.setWidthF(width(1.2));
    pen.setCapStyle(Qt::RoundCap);
    for (const QLineF &l : m_portLines) {
        p->setPen(pen);
        p->drawLine(l);
        p->setPen(Qt::NoPen);
        p->setBrush(gs::edgeColor());
        p->drawEllipse(l.p2(), 2.5, 2.5);
    }
    const bool arrows = lod >= 0.25;
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
        const EdgeGeometry &e = m_edges[k];
        if (e.polyline.isEmpty() || !e.bounds.intersects(exposed))
            continue;
        const auto &le = m_level->edges[k];
        const bool hot = selectedItem >= 0 && (le.from == selectedItem || le.to == selectedItem);
        const QColor c = hot ? gs::selectionColor() : gs::edgeColor();
        pen.setColor(c);
        pen.setWidthF(width(hot ? 2.0 : 1.2));
        p->setPen(pen);
        p->setBrush(Qt::NoBrush);
        if (e.stubbed && !hot) {
            paintStubs(p, e, pen, lod);
        } else if (thin)
            p->drawPolyline(e.polyline);
        else
            drawClipped(p, e.polyline, exposed.adjusted(-8, -8, 8, 8));
        if (arrows && !e.arrow.isEmpty()) {
            p->setPen(Qt::NoPen);
            p->setBrush(c);
            p->drawPolygon(e.arrow);
        }
    }
}

// A hub edge's two stubs: open-ended lines (a dot where they stop), the arrow
// into the consumer, and the hub's name beside the entering stub.
void LevelGraphicsItem::paintStubs(QPainter *p, const EdgeGeometry &e, QPen pen, qreal lod) const
{
    pen.setStyle(Qt::DashLine);
    p->setPen(pen);
    p->drawPolyline(e.head);
    p->drawPolyline(e.tail);
    p->setPen(Qt::NoPen);
    p->setBrush(pen.color());
    p->drawEllipse(e.head.back(), 2.2, 2.2);
    p->drawEllipse(e.tail.front(), 2.2, 2.2);
    if (lod < gs::kTextLod || e.hubName.isEmpty())
        return;
    static const QFontMetricsF metrics(gs::smallFont());
    const QString text = metrics.elidedText(QStringLiteral("from ") + e.hubName, Qt::ElideMiddle, 160);
    p->setFont(gs::smallFont());
    p->setPen(gs::edgeColor().darker(130));
    // Beside the stub's open end, on the side it comes from, clear of the consumer.
    const QPointF open = e.tail.front();
    const bool fromLeft = open.x() <= e.tail.back().x();
    const qreal w = metrics.horizontalAdvance(text);
    p->drawText(QPointF(fromLeft ? open.x() - w - 4 : open.x() + 4, open.y() - 4), text);
}

void LevelGraphicsItem::paintNode(QPainter *p, const LevelItem &item, std::size_t index, qreal lod) const
{
    const Node &node = d->graph->node(item.id);
    const QRectF r = item.rect;
    const bool overlay = d->scale.valid();
    const QColor header = overlay              ? d->scale.color(d->nodeOverlay(item.id))
                          : d->hasCategories() ? d->nodeCategoryColor(item.id)
                          : node.opaque        ? gs::opaqueColor()
                                               : gs::categoryColor(layout::opCategory(node.opType));
    const bool selected = d->selectedNode == item.id;
    const bool highlighted = !d->highlighted.empty() && d->highlighted[static_cast<std::size_t>(item.id)];

    if (highlighted || selected) {
        p->setPen(QPen(selected ? gs::selectionColor() : gs::highlightColor(), selected ? 2.5 : 3.0));
        p->setBrush(Qt::NoBrush);
        p->drawRoundedRect(r.adjusted(-3, -3, 3, 3), kNodeRadius + 2, kNodeRadius + 2);
    }
    if (lod < gs::kTextLod) {
        p->fillRect(r, header);
        return;
    }
    p->setPen(Qt::NoPen);
    p->setBrush(header);
    p->drawRoundedRect(r, kNodeRadius, kNodeRadius);
    const QRectF body(r.left(), r.top() + kHeaderBand, r.width(), r.height() - kHeaderBand);
    p->setBrush(Qt::white);
    p->drawRoundedRect(body, kNodeRadius, kNodeRadius);
    p->drawRect(body.adjusted(0, 0, 0, -kNodeRadius));
    QPen border(node.opaque ? QColor(0x70, 0x70, 0x70) : header.darker(125), node.opaque ? 1.3 : 1.0);
    if (node.opaque)
        border.setStyle(Qt::DashLine);
    p->setPen(border);
    p->setBrush(Qt::NoBrush);
    p->drawRoundedRect(r, kNodeRadius, kNodeRadius);

    const Labels &l = labels(index);
    p->setFont(gs::titleFont());
    p->setPen(gs::textOn(header));
    drawCentred(p, l.title, QRectF(r.left(), r.top(), r.width(), kHeaderBand));
    p->setPen(QColor(0x4a, 0x50, 0x5c));
    if (lod >= gs::kDetailLod) {
        const qreal h = body.height() / 2;
        p->setFont(gs::smallFont());
        drawCentred(p, l.detail, QRectF(body.left(), body.top() + 1, body.width(), h));
        drawCentred(p, l.body, QRectF(body.left(), body.top() + h - 1, body.width(), h));
    } else {
        p->setFont(gs::bodyFont());
        drawCentred(p, l.body, body);
    }
}

void LevelGraphicsItem::paintGroupBox(QPainter *p, const LevelItem &item, std::size_t index, qreal lod) const
{
    const GroupId g = item.id;
    const QRectF r = item.rect;
    const bool overlay = d->scale.valid() || d->hasCategories();
    const QColor fill = d->scale.valid()     ? d->scale.color(d->groupOverlayMax(g))
                        : d->hasCategories() ? d->groupCategoryColor(g)
                                             : QColor(Qt::white);
    const bool selected = d->selectedGroup == g;
    const int hits = d->groupHighlights.empty() ? 0 : d->groupHighlights[static_cast<std::size_t>(g)];

    // A second card peeking out below: "there is more inside".
    p->setPen(QPen(gs::frameBorder(), 1));
    p->setBrush(QColor(0xee, 0xf1, 0xf5));
    p->drawRoundedRect(r.translated(3, 3), kGroupRadius, kGroupRadius);
    p->setPen(QPen(selected ? gs::selectionColor()
                   : hits   ? gs::highlightColor()
                            : QColor(0x8f, 0x99, 0xa8),
                   selected || hits ? 2.5 : 1.2));
    p->setBrush(fill);
    p->drawRoundedRect(r, kGroupRadius, kGroupRadius);
    if (lod < gs::kTextLod)
        return;
    p->setPen(Qt::NoPen);
    p->setBrush(overlay ? fill.darker(130) : QColor(0x5d, 0x6b, 0x82));
    p->drawRoundedRect(QRectF(r.left() + 1.5, r.top() + 6, 3.5, r.height() - 12), 1.5, 1.5);

    const QColor text = overlay ? gs::textOn(fill) : QColor(0x20, 0x24, 0x2a);
    const Labels &l = labels(index);
    const QRectF inner(r.left() + 13, r.top() + 5, r.width() - 40, r.height() - 10);
    p->setFont(gs::titleFont());
    p->setPen(text);
    p->drawStaticText(QPointF(inner.left(), inner.top() + (inner.height() / 2 - l.title.size().height()) / 2), l.title);
    QStringList info{nodeCountText(d->hierarchy->group(g).totalNodes)};
    if (d->scale.valid())
        info << QStringLiteral("Σ ") + gs::formatValue(d->groupOverlaySum(g));
    else if (d->hasCategories() && d->groupCategory[static_cast<std::size_t>(g)] == -2)
        info << QStringLiteral("mixed");
    else if (const QString f = layout::flopsText(d->groupFlopsTotal(g)); !f.isEmpty())
        info << f;
    p->setFont(gs::bodyFont());
    p->setPen(overlay ? text : QColor(0x6b, 0x73, 0x80));
    static const QFontMetricsF bodyMetrics(gs::bodyFont());
    p->drawText(QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() / 2),
                Qt::AlignLeft | Qt::AlignVCenter,
                fitWholeParts(info, QStringLiteral(" · "), inner.width(), bodyMetrics));
    drawPlusMinus(p, QPointF(r.right() - 14, r.center().y()), true, overlay ? text : QColor(0x6b, 0x73, 0x80));
    if (hits)
        drawBadge(p, r.topRight(), hits);
}

QString fitWholeParts(const QStringList &parts, const QString &separator, qreal room, const QFontMetricsF &metrics)
{
    if (parts.isEmpty())
        return {};
    QString fitted = parts.front();
    if (metrics.horizontalAdvance(fitted) > room)
        return metrics.elidedText(fitted, Qt::ElideRight, room);
    for (qsizetype i = 1; i < parts.size(); ++i) {
        const QString longer = fitted + separator + parts[i];
        if (metrics.horizontalAdvance(longer) > room)
            break;
        fitted = longer;
    }
    return fitted;
}

} // namespace tessera
