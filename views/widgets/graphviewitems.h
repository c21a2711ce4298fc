// LevelGraphicsItem: one graphics item per laid-out level (the root or an
// expanded group) that paints the group's frame, its edges, its direct nodes
// and its collapsed child groups. A 20,000-node graph is then a handful of
// items, not 20,000: painting culls by the exposed rectangle and drops text,
// arrows and curves by level of detail (graphviewstyle.h thresholds). Edge
// geometry is built once; labels are elided and laid out lazily (QStaticText)
// and cached.
//
// Hub edges: an edge from an item with kHubFanOut or more out-edges in its
// level that runs longer than kHubLength (an attention mask feeding every
// encoder layer, a NASNet cell's input reused cells later) is drawn as two
// short stubs — one leaving the hub, one entering the consumer with the hub's
// name beside it — instead of a line across the graph. Selecting either end
// draws it whole. Bundling was the other choice; stubs keep every edge
// readable at its ends without a layout change, as schematic editors do with
// net labels.
#pragma once

#include "views/models/graphlayout.h"

#include <QFontMetricsF>
#include <QGraphicsItem>
#include <QPolygonF>
#include <QStaticText>
#include <QStringList>

#include <memory>
#include <vector>

namespace tessera {

class GraphViewPrivate;

class LevelGraphicsItem final : public QGraphicsItem
{
public:
    LevelGraphicsItem(const GraphViewPrivate *d, int placedIndex);

    QRectF boundingRect() const override;
    void paint(QPainter *p, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    const layout::Level &level() const { return *m_level; }
    int stubbedEdgeCount() const; // hub edges drawn as stubs

    static constexpr int kHubFanOut = 4;
    static constexpr qreal kHubLength = 600;     // scene units of path
    QRectF frameRect() const { return m_frame; } // item-local; null for the root

private:
    struct EdgeGeometry {
        QPolygonF polyline; // the Bézier flattened once (2-unit steps)
        QPolygonF arrow;    // empty where the line runs on (into a port or an expanded group)
        QLineF chord;       // start to end, for sketch level of detail
        QRectF bounds;
        // Hub edges (see above): the first and last stretch of the polyline, and
        // the hub's name drawn beside the entering stub.
        bool stubbed = false;
        QPolygonF head, tail;
        QString hubName;
    };
    struct Labels {
        bool ready = false;
        QStaticText title, body, detail; // elided to their box, laid out once
    };

    void paintFrame(QPainter *p, const QRectF &exposed, qreal lod) const;
    void paintEdges(QPainter *p, const QRectF &exposed, qreal lod) const;
    void paintStubs(QPainter *p, const EdgeGeometry &e, QPen pen, qreal lod) const;
    void markHubEdges();
    QString hubNameOf(const layout::LevelItem &from, const layout::LevelItem &to) const;
    void paintNode(QPainter *p, const layout::LevelItem &item, std::size_t index, qreal lod) const;
    void paintGroupBox(QPainter *p, const layout::LevelItem &item, std::size_t index, qreal lod) const;
    const Labels &labels(std::size_t index) const;

    const GraphViewPrivate *d;
    int m_index;
    std::shared_ptr<const layout::Level> m_level;
    QRectF m_frame;
    QRectF m_bounds;
    std::vector<EdgeGeometry> m_edges;
    std::vector<QLineF> m_portLines; // frame border -> port centre
    mutable std::vector<Labels> m_labels;
};

// A group header's second line ("10 nodes · 148 MFLOPs") in `room`: as many
// whole parts as fit, joined by `separator` ("3 nodes" rather than "3 nodes ...");
// only a first part that does not fit alone is elided.
QString fitWholeParts(const QStringList &parts, const QString &separator, qreal room, const QFontMetricsF &metrics);

} // namespace tessera
