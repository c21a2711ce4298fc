// GraphView: the model graph drawn in a QGraphicsView, block by block.
//
// The graph is shown through its Hierarchy: every group is either collapsed
// (one box with its name, node count and FLOPs) or expanded (a frame holding
// the layout of its direct nodes and child groups). Layout is nested and cached
// per group (views/models/graphlayout.h) and runs on one worker thread; results
// arrive queued with a generation number, stale ones are dropped, and the view
// keeps showing the previous layout meanwhile. Nothing here blocks the GUI
// thread for longer than building a few hundred items.
//
// Interaction: drag or trackpad-scroll pans; the mouse wheel, pinch, +/- zoom;
// F fits, 0 resets; a click selects a node or group; a double-click on a group
// box or frame header toggles it.
#pragma once

#include "core/ir/graph.h"
#include "core/ir/hierarchy.h"

#include <QGraphicsView>
#include <QString>

#include <memory>
#include <vector>

namespace tessera {

class GraphViewPrivate;

class GraphView : public QGraphicsView
{
    Q_OBJECT

public:
    explicit GraphView(QWidget *parent = nullptr);
    ~GraphView() override;

    // Shows `graph`; groups are expanded breadth-first while the visible item
    // count stays within autoExpandBudget(). An empty hierarchy (no groups) is
    // treated as a single root group holding every node; otherwise it must be
    // finalized and cover exactly the graph's nodes (asserted).
    void setGraph(std::shared_ptr<const Graph> graph, Hierarchy hierarchy);
    void clear();
    std::shared_ptr<const Graph> graph() const;
    const Hierarchy &hierarchy() const;

    void setAutoExpandBudget(int visibleItems); // default 160; 0 shows only the root's children
    int autoExpandBudget() const;

    // Expansion. The root group 0 is always expanded. Each call schedules a layout.
    void expandGroup(GroupId g);
    void collapseGroup(GroupId g);
    void toggleGroup(GroupId g);
    void expandAll();
    void collapseAll();
    void expandToNode(NodeId n); // expands every ancestor group of n
    bool isExpanded(GroupId g) const;

    // Search results: outlined; a collapsed group holding any is outlined too.
    void setHighlighted(std::vector<NodeId> nodes);
    // Expands to the node if needed, then centres on it (after the layout lands).
    void centerOnNode(NodeId n);
    // Selects (and centres on) the node; emits nodeSelected. kInvalidId clears.
    void selectNode(NodeId n);
    NodeId selectedNode() const;   // kInvalidId if none
    GroupId selectedGroup() const; // -1 if none

    // Per-node FLOPs (size = node count); group boxes then show their total.
    void setNodeFlops(std::vector<double> flopsPerNode);

    // Colours every node by a metric (size = node count; NaN = no value) with a
    // legend; a collapsed group takes the colour of its hottest node and shows
    // the sum over its nodes. logScale maps log10 (values <= 0 have no colour).
    void setOverlay(std::vector<double> perNode, QString metricName, bool logScale);
    // Colours every node by a category (size = node count; -1 = none) with a
    // legend of `names`; a collapsed group takes its nodes' category when they
    // share one, else a neutral "mixed" fill. Replaces a metric overlay.
    void setCategories(std::vector<int> perNode, std::vector<QString> names, QString title);
    void clearOverlay(); // metric or categories
    bool hasOverlay() const;
    bool hasCategories() const;

    void fitAll();
    void zoomIn();
    void zoomOut();
    void resetZoom();        // 100 %
    qreal zoomLevel() const; // 1.0 = 100 %

    // The whole scene at full detail (not just the viewport).
    bool exportSvg(const QString &path);
    bool exportPng(const QString &path, qreal scale = 1.0);

    bool isLayoutPending() const;
    // Scene rectangles of what is on screen now; empty if hidden in a collapsed group.
    QRectF nodeRect(NodeId n) const;
    QRectF groupRect(GroupId g) const; // a collapsed box or an expanded frame
    int stubbedEdgeCount() const;      // hub edges drawn as stubs (graphviewitems.h), over every level
    int visibleItemCount() const;      // graphics items in the scene: one per laid-out level (root + expanded groups)

signals:
    void nodeSelected(tessera::NodeId node);
    void groupSelected(tessera::GroupId group);
    void layoutStarted();
    void layoutFinished(qint64 ms); // wall time from request to the scene being rebuilt
    void viewportChanged();         // pan or zoom: the minimap follows

protected:
    void wheelEvent(QWheelEvent *e) override;
    void mousePressEvent(QMouseEvent *e) override;
    void mouseMoveEvent(QMouseEvent *e) override;
    void mouseReleaseEvent(QMouseEvent *e) override;
    void mouseDoubleClickEvent(QMouseEvent *e) override;
    void keyPressEvent(QKeyEvent *e) override;
    bool viewportEvent(QEvent *e) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent *e) override;
    void drawBackground(QPainter *p, const QRectF &rect) override;
    void drawForeground(QPainter *p, const QRectF &rect) override;

private:
    friend class GraphViewPrivate;
    friend class MiniMap;
    std::unique_ptr<GraphViewPrivate> d;
};

} // namespace tessera

#include "views/widgets/minimap.h"
