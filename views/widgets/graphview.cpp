// GraphView (graphview.h): scene rebuilding from a Composition, the layout
// job pipeline, navigation, selection, overlays and export.
#include "views/widgets/graphview.h"

#include "core/support/activity.h"
#include "core/support/assert.h"
#include "core/support/threadpriority.h"
#include "views/widgets/graphviewitems.h"
#include "views/widgets/graphviewprivate.h"

#include <QApplication>
#include <QFileInfo>
#include <QGestureEvent>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QNativeGestureEvent>
#include <QPainter>
#include <QPinchGesture>
#include <QScrollBar>
#include <QSvgGenerator>
#include <QToolTip>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>

namespace tessera {
namespace {

constexpr qreal kMinZoom = 0.01;
constexpr qreal kMaxZoom = 8.0;
constexpr qreal kSceneMargin = 40;
constexpr qreal kZoomStep = 1.25;
constexpr qreal kReadableZoom = 0.7; // the first view of a graph is at least this close
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Groups to expand so that about `budget` items are visible: breadth-first from
// the root, a group opens if its items still fit (its box is replaced by them).
layout::Expansion autoExpansion(const layout::NestedLayout &nl, int budget)
{
    const Hierarchy &h = nl.hierarchy();
    layout::Expansion e(h.groups().size(), 0);
    if (e.empty())
        return e;
    e[0] = 1;
    auto visible = static_cast<std::int64_t>(nl.directItemCount(0));
    std::deque<GroupId> queue(h.group(0).children.begin(), h.group(0).children.end());
    while (!queue.empty()) {
        const GroupId g = queue.front();
        queue.pop_front();
        const auto items = static_cast<std::int64_t>(nl.directItemCount(g));
        if (visible - 1 + items > budget || items > layout::kDefaultDotLimit)
            continue;
        e[static_cast<std::size_t>(g)] = 1;
        visible += items - 1;
        queue.insert(queue.end(), h.group(g).children.begin(), h.group(g).children.end());
    }
    return e;
}

// Per-group sum (or max) of a per-node vector over each group's subtree; NaN entries skipped.
std::vector<double> groupReduce(const Hierarchy &h, const std::vector<double> &perNode, bool max)
{
    std::vector<double> out(h.groups().size(), max ? kNaN : 0.0);
    for (std::size_t n = 0; n < perNode.size(); ++n) {
        const double v = perNode[n];
        if (!std::isfinite(v))
            continue;
        for (GroupId g = h.groupOf(static_cast<NodeId>(n)); g >= 0; g = h.group(g).parent) {
            double &o = out[static_cast<std::size_t>(g)];
            o = max ? (std::isnan(o) ? v : std::max(o, v)) : o + v;
        }
    }
    return out;
}

} // namespace

// ---------------------------------------------------------------------------
// GraphViewPrivate

GraphViewPrivate::GraphViewPrivate(GraphView *view) : q(view)
{
    pool.setMaxThreadCount(1);
    pool.setExpiryTimeout(-1);
}

void GraphViewPrivate::requestLayout()
{
    if (!nested)
        return;
    ++generation;
    if (!running && !dirty)
        requestTimer.start();
    if (running) {
        dirty = true;
        if (jobCancel)
            jobCancel->store(true); // the running layout is stale: stop it at its next level
    } else {
        startJob();
    }
}

void GraphViewPrivate::startJob()
{
    running = true;
    dirty = false;
    const quint64 gen = generation;
    jobCancel = std::make_shared<std::atomic<bool>>(false);
    auto job = [nl = nested, c = cache, e = expansion, gen, limit = dotLimit, cancel = jobCancel] {
        return LayoutJob{gen, nl, nl->compose(e, *c, limit, layout::kDefaultDotBudget, cancel.get())};
    };
    watcher.setFuture(QtConcurrent::run(&pool, [job = std::move(job)] {
        useBackgroundPriority();
        return job();
    }));
    emit q->layoutStarted();
    q->viewport()->update();
}

void GraphViewPrivate::jobFinished()
{
    running = false;
    LayoutJob job = watcher.result();
    if (job.generation == generation && job.nested == nested)
        apply(std::move(job.composition));
    else if (nested)
        startJob(); // the state moved on while this one ran
}

void GraphViewPrivate::apply(layout::Composition c)
{
    const ActivityScope activity("graph view: apply layout");
    // Where the anchor group sits on screen now, to keep it there.
    std::optional<QPoint> anchorView;
    if (anchorGroup >= 0) {
        const QRectF before = sceneRectOfGroup(anchorGroup);
        if (!before.isNull())
            anchorView = q->mapFromScene(before.topLeft());
    }

    clearScene();
    comp = std::move(c);
    for (std::size_t li = 0; li < comp.levels.size(); ++li) {
        const layout::Level &level = *comp.levels[li].level;
        groupPlaced[static_cast<std::size_t>(level.group)] = static_cast<int>(li);
        for (std::size_t i = 0; i < level.items.size(); ++i) {
            const layout::LevelItem &it = level.items[i];
            if (it.kind == layout::LevelItem::Kind::Node) {
                nodeLevel[static_cast<std::size_t>(it.id)] = static_cast<int>(li);
                nodeItem[static_cast<std::size_t>(it.id)] = static_cast<int>(i);
            } else if (it.kind == layout::LevelItem::Kind::Group) {
                groupLevel[static_cast<std::size_t>(it.id)] = static_cast<int>(li);
                groupItem[static_cast<std::size_t>(it.id)] = static_cast<int>(i);
            }
        }
    }
    for (std::size_t li = 0; li < comp.levels.size(); ++li) {
        auto *item = new LevelGraphicsItem(this, static_cast<int>(li));
        scene->addItem(item);
        items.push_back(item);
    }
    scene->setSceneRect(comp.bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));

    if (fitOnNext) {
        fitOnNext = false;
        initialView();
    } else if (anchorView) {
        const QRectF after = sceneRectOfGroup(anchorGroup);
        if (!after.isNull()) {
            const QPointF shift = after.topLeft() - q->mapToScene(*anchorView);
            q->centerOn(q->mapToScene(q->viewport()->rect().center()) + shift);
        }
    }
    anchorGroup = -1;
    if (pendingCenter != kInvalidId && nodeVisible(pendingCenter)) {
        q->centerOn(sceneRectOfNode(pendingCenter).center());
        pendingCenter = kInvalidId;
    }
    q->viewport()->update();
    emit q->layoutFinished(requestTimer.elapsed());
    emit q->viewportChanged();
}

void GraphViewPrivate::clearScene()
{
    scene->clear();
    items.clear();
    comp = {};
    const std::size_t nodes = graph ? graph->nodeCount() : 0, groups = hierarchy ? hierarchy->groups().size() : 0;
    nodeLevel.assign(nodes, -1);
    nodeItem.assign(nodes, -1);
    groupLevel.assign(groups, -1);
    groupItem.assign(groups, -1);
    groupPlaced.assign(groups, -1);
}

void GraphViewPrivate::initialView()
{
    // Fit when that keeps text readable; otherwise fill the width (at most 100 %) and start at the top.
    q->fitAll();
    if (q->transform().m11() >= kReadableZoom)
        return;
    const QRectF b = comp.bounds.adjusted(-16, -16, 16, 16);
    const qreal s = std::clamp(q->viewport()->width() / b.width(), kReadableZoom, 1.0);
    q->setTransform(QTransform::fromScale(s, s));
    q->centerOn(b.center().x(), b.top() + q->viewport()->height() / (2 * s));
    emit q->viewportChanged();
}

void GraphViewPrivate::setExpanded(GroupId g, bool on, bool anchor)
{
    if (!hierarchy || g <= 0 || static_cast<std::size_t>(g) >= expansion.size())
        return;
    if (static_cast<bool>(expansion[static_cast<std::size_t>(g)]) == on)
        return;
    expansion[static_cast<std::size_t>(g)] = on;
    if (anchor)
        anchorGroup = g;
    requestLayout();
}

Hit GraphViewPrivate::hitTest(QPointF scenePos) const
{
    for (std::size_t li = comp.levels.size(); li-- > 0;) {
        const layout::PlacedLevel &pl = comp.levels[li];
        if (pl.parent >= 0 && !pl.frame.contains(scenePos))
            continue;
        const QPointF local = scenePos - pl.origin;
        for (const layout::LevelItem &it : pl.level->items) {
            if (!it.rect.contains(local))
                continue;
            if (it.kind == layout::LevelItem::Kind::Node)
                return {Hit::Kind::Node, it.id, false};
            if (it.kind == layout::LevelItem::Kind::Group && !it.expanded)
                return {Hit::Kind::GroupBox, it.id, false};
        }
        if (pl.parent >= 0)
            return {Hit::Kind::GroupFrame, pl.level->group, local.y() < 0};
    }
    return {};
}

QRectF GraphViewPrivate::sceneRectOfNode(NodeId n) const
{
    if (!nodeVisible(n))
        return {};
    const auto &pl = comp.levels[static_cast<std::size_t>(nodeLevel[static_cast<std::size_t>(n)])];
    return pl.level->items[static_cast<std::size_t>(nodeItem[static_cast<std::size_t>(n)])].rect.translated(pl.origin);
}

QRectF GraphViewPrivate::sceneRectOfGroup(GroupId g) const
{
    if (g < 0 || static_cast<std::size_t>(g) >= groupLevel.size() || groupLevel[static_cast<std::size_t>(g)] < 0)
        return {};
    const auto &pl = comp.levels[static_cast<std::size_t>(groupLevel[static_cast<std::size_t>(g)])];
    return pl.level->items[static_cast<std::size_t>(groupItem[static_cast<std::size_t>(g)])].rect.translated(pl.origin);
}

bool GraphViewPrivate::needsExpansionFor(NodeId n) const
{
    for (GroupId g : hierarchy->ancestry(hierarchy->groupOf(n)))
        if (!layout::isExpanded(expansion, g))
            return true;
    return false;
}

QString GraphViewPrivate::toolTip(const Hit &hit) const
{
    QString t;
    if (hit.kind == Hit::Kind::Node) {
        const Node &n = graph->node(hit.id);
        t = QStringLiteral("<b>%1</b> <span style='color:#6b7380'>%2%3</span>")
                .arg(QString::fromStdString(n.name).toHtmlEscaped(), QString::fromStdString(n.opType).toHtmlEscaped(),
                     n.opaque ? QStringLiteral(" (opaque)") : QString());
        for (std::size_t i = 0; i < n.outputs.size(); ++i)
            if (const Tensor *o = graph->output(n, i))
                t += QStringLiteral("<br>→ %1 <span style='color:#6b7380'>%2 %3</span>")
                         .arg(QString::fromStdString(o->name).toHtmlEscaped(),
                              QString::fromStdString(shapeStr(o->shape)),
                              QString::fromLatin1(dtypeName(o->dtype).data(),
                                                  static_cast<qsizetype>(dtypeName(o->dtype).size())));
        if (const double f = flops.empty() ? 0 : flops[static_cast<std::size_t>(hit.id)]; f > 0)
            t += QStringLiteral("<br>") + layout::flopsText(f);
        if (scale.valid())
            t += QStringLiteral("<br>%1: %2")
                     .arg(metricName.toHtmlEscaped(), graphstyle::formatValue(nodeOverlay(hit.id)));
        if (hasCategories()) {
            const int c = categories[static_cast<std::size_t>(hit.id)];
            t += QStringLiteral("<br>%1: %2")
                     .arg(categoryTitle.toHtmlEscaped(),
                          c >= 0 ? categoryNames[static_cast<std::size_t>(c)].toHtmlEscaped() : QStringLiteral("—"));
        }
    } else if (hit.kind != Hit::Kind::None) {
        const Group &g = hierarchy->group(hit.id);
        t = QStringLiteral("<b>%1</b><br>%2 nodes")
                .arg(QString::fromStdString(g.path).toHtmlEscaped())
                .arg(g.totalNodes);
        if (const QString f = layout::flopsText(groupFlopsTotal(hit.id)); !f.isEmpty())
            t += QStringLiteral(" · ") + f;
        if (scale.valid())
            t += QStringLiteral("<br>%1: Σ %2")
                     .arg(metricName.toHtmlEscaped(), graphstyle::formatValue(groupOverlaySum(hit.id)));
        t += QStringLiteral("<br><span style='color:#6b7380'>double-click to %1</span>")
                 .arg(hit.kind == Hit::Kind::GroupBox ? QStringLiteral("expand") : QStringLiteral("collapse"));
    }
    return t;
}

void GraphViewPrivate::zoomBy(qreal factor, QPoint anchor)
{
    const qreal current = q->transform().m11();
    factor = std::clamp(current * factor, kMinZoom, kMaxZoom) / current;
    if (std::abs(factor - 1) < 1e-9)
        return;
    const QPointF before = q->mapToScene(anchor);
    q->scale(factor, factor);
    const QPointF after = q->mapToScene(anchor);
    q->centerOn(q->mapToScene(q->viewport()->rect().center()) + (before - after));
    emit q->viewportChanged();
}

QRectF GraphViewPrivate::exportRect() const
{
    return comp.levels.empty() ? QRectF() : comp.bounds.adjusted(-20, -20, 20, 20);
}

void GraphViewPrivate::renderScene(QPainter *p, const QRectF &target) const
{
    p->fillRect(target, graphstyle::background());
    p->setRenderHint(QPainter::Antialiasing);
    p->setRenderHint(QPainter::TextAntialiasing);
    scene->render(p, target, exportRect(), Qt::KeepAspectRatio);
    if (scale.valid()) {
        const qreal s = target.width() / exportRect().width();
        p->save();
        p->translate(target.topLeft());
        p->scale(s, s);
        graphstyle::drawLegend(p, QRectF(QPointF(0, 0), exportRect().size()), scale, metricName);
        if (hasCategories())
            graphstyle::drawCategoryLegend(p, QRectF(QPointF(0, 0), exportRect().size()), categoryNames, categoryTitle);
        p->restore();
    }
}

void GraphViewPrivate::repaint()
{
    q->viewport()->update();
    scene->update();
}

double GraphViewPrivate::nodeOverlay(NodeId n) const
{
    return static_cast<std::size_t>(n) < overlay.size() ? overlay[static_cast<std::size_t>(n)] : kNaN;
}

double GraphViewPrivate::groupOverlayMax(GroupId g) const
{
    return static_cast<std::size_t>(g) < groupMax.size() ? groupMax[static_cast<std::size_t>(g)] : kNaN;
}

double GraphViewPrivate::groupOverlaySum(GroupId g) const
{
    return static_cast<std::size_t>(g) < groupSum.size() ? groupSum[static_cast<std::size_t>(g)] : kNaN;
}

double GraphViewPrivate::groupFlopsTotal(GroupId g) const
{
    return static_cast<std::size_t>(g) < groupFlops.size() ? groupFlops[static_cast<std::size_t>(g)] : 0.0;
}

// ---------------------------------------------------------------------------
// GraphView

GraphView::GraphView(QWidget *parent) : QGraphicsView(parent), d(std::make_unique<GraphViewPrivate>(this))
{
    d->scene = new QGraphicsScene(this);
    d->scene->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    setScene(d->scene);
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState | QGraphicsView::DontAdjustForAntialiasing);
    setTransformationAnchor(QGraphicsView::NoAnchor);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setDragMode(QGraphicsView::NoDrag);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // drag, wheel, keys and the minimap navigate
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setBackgroundBrush(graphstyle::background());
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->grabGesture(Qt::PinchGesture);
    connect(&d->watcher, &QFutureWatcher<LayoutJob>::finished, this, [this] { d->jobFinished(); });
}

GraphView::~GraphView()
{
    d->pool.waitForDone(); // a running job holds only shared state, but finish it before the watcher goes
}

void GraphView::setGraph(std::shared_ptr<const Graph> graph, Hierarchy hierarchy)
{
    const ActivityScope activity("graph view: set graph");
    if (!graph) {
        clear();
        return;
    }
    if (hierarchy.groups().empty()) {
        hierarchy.reset(graph->nodeCount()); // every node in the root
        hierarchy.finalize();
    }
    TS_ASSERT_MSG(hierarchy.group(0).totalNodes == static_cast<std::int64_t>(graph->nodeCount()),
                  "GraphView::setGraph: the hierarchy does not cover the graph's nodes");
    d->graph = std::move(graph);
    d->hierarchy = std::make_shared<const Hierarchy>(std::move(hierarchy));
    d->clearScene();
    d->nested = std::make_shared<const layout::NestedLayout>(d->graph, d->hierarchy);
    d->cache = std::make_shared<layout::LevelCache>();
    d->expansion = autoExpansion(*d->nested, d->autoExpandBudget);
    d->highlighted.clear();
    d->groupHighlights.clear();
    d->selectedNode = kInvalidId;
    d->selectedGroup = -1;
    d->categories.clear();
    d->groupCategory.clear();
    d->categoryNames.clear();
    d->flops.clear();
    d->groupFlops.clear();
    d->overlay.clear();
    d->groupMax.clear();
    d->groupSum.clear();
    d->scale = {};
    d->pendingCenter = kInvalidId;
    d->anchorGroup = -1;
    d->fitOnNext = true;
    d->requestLayout();
}

void GraphView::clear()
{
    ++d->generation;
    if (d->jobCancel)
        d->jobCancel->store(true);
    d->dirty = false;
    d->graph.reset();
    d->hierarchy.reset();
    d->clearScene();
    d->nested.reset();
    d->cache.reset();
    d->expansion.clear();
    d->highlighted.clear();
    d->groupHighlights.clear();
    d->selectedNode = kInvalidId;
    d->selectedGroup = -1;
    d->scale = {};
    d->scene->setSceneRect(QRectF());
    viewport()->update();
    emit viewportChanged();
}

std::shared_ptr<const Graph> GraphView::graph() const
{
    return d->graph;
}

const Hierarchy &GraphView::hierarchy() const
{
    static const Hierarchy empty;
    return d->hierarchy ? *d->hierarchy : empty;
}

void GraphView::setAutoExpandBudget(int visibleItems)
{
    d->autoExpandBudget = std::max(0, visibleItems);
}
int GraphView::autoExpandBudget() const
{
    return d->autoExpandBudget;
}

void GraphView::expandGroup(GroupId g)
{
    d->setExpanded(g, true, true);
}
void GraphView::collapseGroup(GroupId g)
{
    d->setExpanded(g, false, true);
}
void GraphView::toggleGroup(GroupId g)
{
    d->setExpanded(g, !isExpanded(g), true);
}

void GraphView::expandAll()
{
    if (!d->nested)
        return;
    std::fill(d->expansion.begin(), d->expansion.end(), 1);
    d->requestLayout();
}

void GraphView::collapseAll()
{
    if (!d->nested)
        return;
    std::fill(d->expansion.begin(), d->expansion.end(), 0);
    d->expansion[0] = 1;
    d->requestLayout();
}

void GraphView::expandToNode(NodeId n)
{
    if (!d->graph || n < 0 || static_cast<std::size_t>(n) >= d->graph->nodeCount() || !d->needsExpansionFor(n))
        return;
    for (GroupId g : d->hierarchy->ancestry(d->hierarchy->groupOf(n)))
        d->expansion[static_cast<std::size_t>(g)] = 1;
    d->requestLayout();
}

bool GraphView::isExpanded(GroupId g) const
{
    return d->hierarchy && layout::isExpanded(d->expansion, g);
}

void GraphView::setHighlighted(std::vector<NodeId> nodes)
{
    if (!d->graph)
        return;
    d->highlighted.assign(d->graph->nodeCount(), 0);
    d->groupHighlights.assign(d->hierarchy->groups().size(), 0);
    for (NodeId n : nodes) {
        if (n < 0 || static_cast<std::size_t>(n) >= d->graph->nodeCount() ||
            d->highlighted[static_cast<std::size_t>(n)])
            continue;
        d->highlighted[static_cast<std::size_t>(n)] = 1;
        for (GroupId g = d->hierarchy->groupOf(n); g >= 0; g = d->hierarchy->group(g).parent)
            ++d->groupHighlights[static_cast<std::size_t>(g)];
    }
    d->repaint();
}

void GraphView::centerOnNode(NodeId n)
{
    if (!d->graph || n < 0 || static_cast<std::size_t>(n) >= d->graph->nodeCount())
        return;
    if (d->needsExpansionFor(n) || !d->nodeVisible(n)) {
        d->pendingCenter = n;
        expandToNode(n);
        return;
    }
    centerOn(d->sceneRectOfNode(n).center());
    emit viewportChanged();
}

void GraphView::selectNode(NodeId n)
{
    if (!d->graph || n >= static_cast<NodeId>(d->graph->nodeCount()))
        return;
    const bool changed = d->selectedNode != n || d->selectedGroup != -1;
    d->selectedNode = n < 0 ? kInvalidId : n;
    d->selectedGroup = -1;
    if (n >= 0)
        centerOnNode(n);
    d->repaint();
    if (changed)
        emit nodeSelected(d->selectedNode);
}

NodeId GraphView::selectedNode() const
{
    return d->selectedNode;
}
GroupId GraphView::selectedGroup() const
{
    return d->selectedGroup;
}

void GraphView::setNodeFlops(std::vector<double> flopsPerNode)
{
    if (!d->graph)
        return;
    flopsPerNode.resize(d->graph->nodeCount(), 0.0);
    d->groupFlops = groupReduce(*d->hierarchy, flopsPerNode, false);
    d->flops = std::move(flopsPerNode);
    d->repaint();
}

void GraphView::setOverlay(std::vector<double> perNode, QString metricName, bool logScale)
{
    if (!d->graph)
        return;
    perNode.resize(d->graph->nodeCount(), kNaN);
    d->categories.clear();
    d->groupCategory.clear();
    d->categoryNames.clear();
    d->scale = graphstyle::MetricScale(perNode, logScale);
    std::vector<double> usable = perNode; // values the scale cannot show do not add up either
    for (double &v : usable)
        if (!d->scale.hasValue(v))
            v = kNaN;
    d->groupMax = groupReduce(*d->hierarchy, usable, true);
    d->groupSum = groupReduce(*d->hierarchy, usable, false);
    d->overlay = std::move(perNode);
    d->metricName = std::move(metricName);
    d->repaint();
}

void GraphView::setCategories(std::vector<int> perNode, std::vector<QString> names, QString title)
{
    if (!d->graph)
        return;
    perNode.resize(d->graph->nodeCount(), -1);
    d->scale = {};
    d->overlay.clear();
    d->metricName.clear();
    // A group's category: the one all its nodes share (-1 for none), else -2.
    d->groupCategory.assign(d->hierarchy->groups().size(), -3); // -3: no node seen yet
    for (std::size_t n = 0; n < perNode.size(); ++n)
        for (GroupId g = d->hierarchy->groupOf(static_cast<NodeId>(n)); g >= 0; g = d->hierarchy->group(g).parent) {
            int &c = d->groupCategory[static_cast<std::size_t>(g)];
            c = c == -3 || c == perNode[n] ? perNode[n] : -2;
        }
    for (int &c : d->groupCategory)
        if (c == -3)
            c = -1;
    d->categories = std::move(perNode);
    d->categoryNames = std::move(names);
    d->categoryTitle = std::move(title);
    d->repaint();
}

bool GraphView::hasCategories() const
{
    return d->hasCategories();
}

QColor GraphViewPrivate::nodeCategoryColor(NodeId n) const
{
    return graphstyle::paletteColor(
        static_cast<std::size_t>(n) < categories.size() ? categories[static_cast<std::size_t>(n)] : -1);
}

QColor GraphViewPrivate::groupCategoryColor(GroupId g) const
{
    const int c = static_cast<std::size_t>(g) < groupCategory.size() ? groupCategory[static_cast<std::size_t>(g)] : -1;
    return c == -2 ? graphstyle::mixedColor() : graphstyle::paletteColor(c);
}

void GraphView::clearOverlay()
{
    d->categories.clear();
    d->groupCategory.clear();
    d->categoryNames.clear();
    d->categoryTitle.clear();
    d->scale = {};
    d->overlay.clear();
    d->groupMax.clear();
    d->groupSum.clear();
    d->metricName.clear();
    d->repaint();
}

bool GraphView::hasOverlay() const
{
    return d->scale.valid() || d->hasCategories();
}

void GraphView::fitAll()
{
    if (d->comp.levels.empty())
        return;
    fitInView(d->comp.bounds.adjusted(-16, -16, 16, 16), Qt::KeepAspectRatio);
    const qreal z = transform().m11();
    if (z > 1.0 || z < kMinZoom) {
        setTransform(QTransform::fromScale(std::clamp(z, kMinZoom, 1.0), std::clamp(z, kMinZoom, 1.0)));
        centerOn(d->comp.bounds.center());
    }
    emit viewportChanged();
}

void GraphView::zoomIn()
{
    d->zoomBy(kZoomStep, viewport()->rect().center());
}
void GraphView::zoomOut()
{
    d->zoomBy(1 / kZoomStep, viewport()->rect().center());
}
void GraphView::resetZoom()
{
    d->zoomBy(1 / transform().m11(), viewport()->rect().center());
}
qreal GraphView::zoomLevel() const
{
    return transform().m11();
}

bool GraphView::exportSvg(const QString &path)
{
    const QRectF src = d->exportRect();
    if (src.isEmpty())
        return false;
    QSvgGenerator gen;
    gen.setFileName(path);
    gen.setSize(src.size().toSize());
    gen.setViewBox(QRectF(QPointF(0, 0), src.size()));
    gen.setTitle(d->graph ? QString::fromStdString(d->graph->name) : QString());
    gen.setDescription(QStringLiteral("Tessera graph view"));
    QPainter p;
    if (!p.begin(&gen))
        return false;
    d->renderScene(&p, QRectF(QPointF(0, 0), src.size()));
    p.end();
    return QFileInfo(path).size() > 0;
}

bool GraphView::exportPng(const QString &path, qreal scale)
{
    const QRectF src = d->exportRect();
    if (src.isEmpty() || !(scale > 0))
        return false;
    constexpr qreal kMaxSide = 16384; // QPainter's raster engine limit is 32767; keep memory sane
    scale = std::min(scale, kMaxSide / std::max(src.width(), src.height()));
    QImage image((src.size() * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull())
        return false;
    QPainter p(&image);
    d->renderScene(&p, QRectF(QPointF(0, 0), QSizeF(image.size())));
    p.end();
    return image.save(path, "PNG");
}

bool GraphView::isLayoutPending() const
{
    return d->running || d->dirty;
}

QRectF GraphView::nodeRect(NodeId n) const
{
    return d->sceneRectOfNode(n);
}

QRectF GraphView::groupRect(GroupId g) const
{
    if (g >= 0 && static_cast<std::size_t>(g) < d->groupPlaced.size() &&
        d->groupPlaced[static_cast<std::size_t>(g)] > 0)
        return d->comp.levels[static_cast<std::size_t>(d->groupPlaced[static_cast<std::size_t>(g)])].frame;
    return d->sceneRectOfGroup(g);
}

int GraphView::stubbedEdgeCount() const
{
    int n = 0;
    for (QGraphicsItem *item : d->scene->items())
        if (auto *level = dynamic_cast<LevelGraphicsItem *>(item))
            n += level->stubbedEdgeCount();
    return n;
}

int GraphView::visibleItemCount() const
{
    return static_cast<int>(d->scene->items().size());
}

void GraphView::wheelEvent(QWheelEvent *e)
{
    const bool trackpad = !e->pixelDelta().isNull() && !(e->modifiers() & Qt::ControlModifier);
    if (trackpad || (e->modifiers() & Qt::ShiftModifier)) {
        const QPoint delta = trackpad ? e->pixelDelta() : QPoint(0, e->angleDelta().y() / 2);
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    } else {
        d->zoomBy(std::pow(1.2, e->angleDelta().y() / 120.0), e->position().toPoint());
    }
    e->accept();
}

void GraphView::mousePressEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton && e->button() != Qt::MiddleButton) {
        QGraphicsView::mousePressEvent(e);
        return;
    }
    d->pressed = true;
    d->panning = e->button() == Qt::MiddleButton;
    d->pressPos = d->lastPos = e->position().toPoint();
    if (d->panning)
        viewport()->setCursor(Qt::ClosedHandCursor);
    e->accept();
}

void GraphView::mouseMoveEvent(QMouseEvent *e)
{
    const QPoint pos = e->position().toPoint();
    if (!d->pressed) {
        const Hit hit = d->hitTest(mapToScene(pos));
        viewport()->setCursor(hit.kind == Hit::Kind::None ? Qt::ArrowCursor : Qt::PointingHandCursor);
        return;
    }
    if (!d->panning && (pos - d->pressPos).manhattanLength() >= QApplication::startDragDistance()) {
        d->panning = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    if (d->panning) {
        const QPoint delta = pos - d->lastPos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    }
    d->lastPos = pos;
    e->accept();
}

void GraphView::mouseReleaseEvent(QMouseEvent *e)
{
    if (!d->pressed) {
        QGraphicsView::mouseReleaseEvent(e);
        return;
    }
    const bool click = !d->panning;
    d->pressed = d->panning = false;
    viewport()->setCursor(Qt::ArrowCursor);
    if (!click)
        return;
    const Hit hit = d->hitTest(mapToScene(e->position().toPoint()));
    if (hit.kind == Hit::Kind::Node) {
        const bool changed = d->selectedNode != hit.id;
        d->selectedNode = hit.id;
        d->selectedGroup = -1;
        d->repaint();
        if (changed)
            emit nodeSelected(hit.id);
    } else if (hit.kind == Hit::Kind::GroupBox || hit.kind == Hit::Kind::GroupFrame) {
        const bool changed = d->selectedGroup != hit.id;
        d->selectedGroup = hit.id;
        d->selectedNode = kInvalidId;
        d->repaint();
        if (changed)
            emit groupSelected(hit.id);
    }
    e->accept();
}

void GraphView::mouseDoubleClickEvent(QMouseEvent *e)
{
    const Hit hit = d->hitTest(mapToScene(e->position().toPoint()));
    if (hit.kind == Hit::Kind::GroupBox || (hit.kind == Hit::Kind::GroupFrame && hit.onHeader))
        toggleGroup(hit.id);
    e->accept();
}

void GraphView::keyPressEvent(QKeyEvent *e)
{
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); break;
    case Qt::Key_Minus: zoomOut(); break;
    case Qt::Key_0: resetZoom(); break;
    case Qt::Key_F: fitAll(); break;
    case Qt::Key_Return:
    case Qt::Key_Enter:
        if (d->selectedGroup > 0)
            toggleGroup(d->selectedGroup);
        break;
    case Qt::Key_Escape: selectNode(kInvalidId); break;
    default: QGraphicsView::keyPressEvent(e); return;
    }
    e->accept();
}

bool GraphView::viewportEvent(QEvent *e)
{
    switch (e->type()) {
    case QEvent::ToolTip: {
        auto *help = static_cast<QHelpEvent *>(e);
        const QString text = d->toolTip(d->hitTest(mapToScene(help->pos())));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    case QEvent::NativeGesture: {
        auto *g = static_cast<QNativeGestureEvent *>(e);
        if (g->gestureType() == Qt::ZoomNativeGesture) {
            d->zoomBy(1 + g->value(), mapFromGlobal(g->globalPosition().toPoint()));
            return true;
        }
        break;
    }
    case QEvent::Gesture: {
        auto *g = static_cast<QGestureEvent *>(e);
        if (auto *pinch = static_cast<QPinchGesture *>(g->gesture(Qt::PinchGesture))) {
            if (pinch->changeFlags() & QPinchGesture::ScaleFactorChanged)
                d->zoomBy(pinch->scaleFactor(), mapFromGlobal(pinch->centerPoint().toPoint()));
            return true;
        }
        break;
    }
    default: break;
    }
    return QGraphicsView::viewportEvent(e);
}

void GraphView::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    emit viewportChanged();
}

void GraphView::resizeEvent(QResizeEvent *e)
{
    QGraphicsView::resizeEvent(e);
    emit viewportChanged();
}

void GraphView::drawBackground(QPainter *p, const QRectF &rect)
{
    p->fillRect(rect, graphstyle::background());
}

void GraphView::drawForeground(QPainter *p, const QRectF &)
{
    const bool pending = isLayoutPending();
    if (!d->scale.valid() && !d->hasCategories() && !pending)
        return;
    p->save();
    p->resetTransform();
    const QRectF area = viewport()->rect();
    if (d->scale.valid())
        graphstyle::drawLegend(p, area, d->scale, d->metricName);
    if (d->hasCategories())
        graphstyle::drawCategoryLegend(p, area, d->categoryNames, d->categoryTitle);
    if (pending) {
        p->setRenderHint(QPainter::Antialiasing);
        p->setFont(graphstyle::titleFont());
        const QString text = QStringLiteral("Laying out…");
        if (d->comp.levels.empty()) {
            p->setPen(QColor(0x6b, 0x73, 0x80));
            p->drawText(area, Qt::AlignCenter, text);
        } else {
            const QRectF badge(area.right() - 112, area.top() + 10, 100, 24);
            p->setPen(QPen(graphstyle::frameBorder(), 1));
            p->setBrush(QColor(255, 255, 255, 230));
            p->drawRoundedRect(badge, 12, 12);
            p->setPen(QColor(0x4a, 0x50, 0x5c));
            p->drawText(badge, Qt::AlignCenter, text);
        }
    }
    p->restore();
}

} // namespace tessera
