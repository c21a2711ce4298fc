// GraphView's private state, shared with its graphics items (graphviewitems.h).
// Everything here lives on the GUI thread except what a layout job captures by
// value or shared_ptr (NestedLayout, LevelCache, an Expansion copy).
#pragma once

#include "views/models/graphlayout.h"
#include "views/widgets/graphview.h"
#include "views/widgets/graphviewstyle.h"

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <vector>

class QGraphicsScene;

namespace tessera {

class LevelGraphicsItem;

struct LayoutJob {
    quint64 generation = 0;
    std::shared_ptr<const layout::NestedLayout> nested; // the graph it was made for
    layout::Composition composition;
};

struct Hit {
    enum class Kind : std::uint8_t { None, Node, GroupBox, GroupFrame };
    Kind kind = Kind::None;
    std::int32_t id = -1;
    bool onHeader = false; // GroupFrame: on its title strip
};

class GraphViewPrivate
{
public:
    explicit GraphViewPrivate(GraphView *view);

    // Layout requests: coalesced, one job at a time, stale results dropped.
    void requestLayout();
    void startJob();
    void jobFinished();
    void apply(layout::Composition comp);
    void clearScene(); // no items, every lookup sized for the current graph and empty
    void initialView();
    void setExpanded(GroupId g, bool on, bool anchor);

    Hit hitTest(QPointF scenePos) const;
    QRectF sceneRectOfNode(NodeId n) const;   // empty if not visible
    QRectF sceneRectOfGroup(GroupId g) const; // box or frame; empty if not visible
    QString toolTip(const Hit &hit) const;
    bool nodeVisible(NodeId n) const
    {
        return n >= 0 && static_cast<std::size_t>(n) < nodeLevel.size() && nodeLevel[static_cast<std::size_t>(n)] >= 0;
    }
    bool needsExpansionFor(NodeId n) const;
    void zoomBy(qreal factor, QPoint anchor);
    void renderScene(QPainter *p, const QRectF &target) const; // whole scene + legend
    QRectF exportRect() const;
    void repaint();

    // Per-node and per-group annotation lookups used while painting.
    double nodeOverlay(NodeId n) const;
    double groupOverlayMax(GroupId g) const;
    double groupOverlaySum(GroupId g) const;
    double groupFlopsTotal(GroupId g) const;

    GraphView *q;
    QGraphicsScene *scene = nullptr;

    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const Hierarchy> hierarchy;
    std::shared_ptr<const layout::NestedLayout> nested;
    std::shared_ptr<layout::LevelCache> cache;
    layout::Expansion expansion;
    layout::Composition comp;               // what the scene shows
    std::vector<LevelGraphicsItem *> items; // one per comp.levels entry
    std::vector<int> nodeLevel, nodeItem;   // visible nodes: placed level and item index, else -1
    std::vector<int> groupLevel, groupItem; // groups shown as an item of some level, else -1
    std::vector<int> groupPlaced;           // expanded groups: their placed level, else -1

    std::vector<char> highlighted;    // per node
    std::vector<int> groupHighlights; // highlighted nodes under each group
    NodeId selectedNode = kInvalidId;
    GroupId selectedGroup = -1;
    std::vector<double> flops, groupFlops;
    std::vector<double> overlay, groupMax, groupSum;
    QString metricName;
    graphstyle::MetricScale scale;
    std::vector<int> categories, groupCategory; // groupCategory: -1 none, -2 mixed
    std::vector<QString> categoryNames;
    QString categoryTitle;
    bool hasCategories() const { return !categories.empty(); }
    QColor nodeCategoryColor(NodeId n) const;
    QColor groupCategoryColor(GroupId g) const;

    int autoExpandBudget = 160;
    int dotLimit = layout::kDefaultDotLimit;

    QThreadPool pool; // one thread: gvc is not thread-safe, and jobs are serial anyway
    QFutureWatcher<LayoutJob> watcher;
    quint64 generation = 0;
    // Set when the running job's layout is superseded: compose() stops at its next level.
    std::shared_ptr<std::atomic<bool>> jobCancel;
    bool running = false;
    bool dirty = false;
    QElapsedTimer requestTimer;
    bool fitOnNext = false;
    NodeId pendingCenter = kInvalidId;
    GroupId anchorGroup = -1; // keep this group where it was on screen across a relayout
    QPointF anchorScenePos;

    QPoint pressPos, lastPos;
    bool pressed = false;
    bool panning = false;
};

} // namespace tessera
