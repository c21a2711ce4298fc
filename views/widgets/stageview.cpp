#include "views/widgets/stageview.h"

#include "core/hw/device.h"
#include "core/sched/scheduler.h"
#include "views/models/format.h"
#include "views/models/layoutnodes.h"
#include "views/models/plansummary.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/graphviewstyle.h"

#include <QAction>
#include <QContextMenuEvent>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <optional>

namespace tessera::views {

namespace gs = tessera::graphstyle;

namespace {

constexpr int kGutter = 84; // lane labels
constexpr int kHeader = 60; // stage number, latency, utilisation bar
constexpr int kLaneHeight = 44;
constexpr int kLaneGap = 8;
constexpr int kLanePitch = kLaneHeight + kLaneGap;
constexpr double kMinColumn = 36; // px, proportional mode
constexpr double kEqualColumn = 132;
constexpr double kMedianColumn = 120; // px the median stage gets at zoom 1
constexpr double kColumnPad = 3;
constexpr double kMinZoom = 0.01, kMaxZoom = 400;

QColor backgroundColor()
{
    return QColor(0xfb, 0xfc, 0xfd);
}
QColor stripeColor()
{
    return QColor(0xf2, 0xf4, 0xf8);
}
QColor mutedText()
{
    return QColor(0x6b, 0x73, 0x80);
}
QColor darkText()
{
    return QColor(0x2b, 0x31, 0x3b);
}
QColor ruleColor()
{
    return QColor(0xc9, 0xcf, 0xd8);
}

QString html(const QString &s)
{
    return s.toHtmlEscaped();
}
QString html(const std::string &s)
{
    return QString::fromStdString(s).toHtmlEscaped();
}

QString menuText(QString s)
{
    return s.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

QString costText(const DecisionOption &o)
{
    if (!o.detail.empty())
        return QString::fromStdString(o.detail);
    if (std::isfinite(o.cost))
        return QStringLiteral("cost %1").arg(o.cost, 0, 'g', 4);
    return {};
}

} // namespace

struct StageView::Private {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ScheduleRun> run;
    std::optional<Device> device;
    std::vector<TaskTiming> measured;
    std::shared_ptr<const StageLayout> layout;
    QString hint;
    StageGeometry geometry;
    double pxPerNs = 1;
    double zoom = 1;
    bool equal = false;
    int selectedBox = -1;
    int selectedColumn = -1;
    StageTableModel *table = nullptr;
    QAction *equalAction = nullptr, *zoomInAction = nullptr, *zoomOutAction = nullptr, *fitAction = nullptr;

    double columnX(std::size_t c, int scroll) const { return kGutter + geometry.left(c) - scroll; }
    // x of time `ns` inside column c's padded span, in viewport coordinates.
    double timeX(std::size_t c, double ns, int scroll) const
    {
        const StageColumn &col = layout->columns[c];
        const double span = col.latencyNs();
        const double f = span > 0 ? std::clamp((ns - col.startNs) / span, 0.0, 1.0) : 0.0;
        const double w = std::max(0.0, geometry.width(c) - 2 * kColumnPad);
        return columnX(c, scroll) + kColumnPad + f * w;
    }
    QRectF boxRect(std::size_t box, int hScroll, int vScroll) const
    {
        const StageBox &b = layout->boxes[box];
        const auto c = static_cast<std::size_t>(b.column);
        double x0 = timeX(c, b.startNs, hScroll), x1 = timeX(c, b.endNs, hScroll);
        if (x1 - x0 < 4) {
            const double mid = (x0 + x1) / 2;
            x0 = mid - 2;
            x1 = mid + 2;
        }
        const double y = kHeader + b.lane * kLanePitch + kLaneGap / 2.0 - vScroll;
        return QRectF(x0, y, x1 - x0, kLaneHeight);
    }
};

StageView::StageView(QWidget *parent) : QAbstractScrollArea(parent), d(std::make_unique<Private>())
{
    d->table = new StageTableModel(this);
    setFocusPolicy(Qt::StrongFocus);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    viewport()->setAutoFillBackground(false);
    setMinimumSize(240, kHeader + kLanePitch + 24);
    setAccessibleName(tr("Stage view"));

    d->equalAction = new QAction(tr("Equal Stage Widths"), this);
    d->equalAction->setCheckable(true);
    d->equalAction->setToolTip(tr("Draw every stage equally wide instead of proportional to its latency"));
    connect(d->equalAction, &QAction::toggled, this, &StageView::setEqualWidths);
    d->zoomInAction = new QAction(tr("Zoom In"), this);
    d->zoomInAction->setShortcut(QKeySequence::ZoomIn);
    d->zoomInAction->setShortcutContext(Qt::WidgetShortcut);
    connect(d->zoomInAction, &QAction::triggered, this, &StageView::zoomIn);
    d->zoomOutAction = new QAction(tr("Zoom Out"), this);
    d->zoomOutAction->setShortcut(QKeySequence::ZoomOut);
    d->zoomOutAction->setShortcutContext(Qt::WidgetShortcut);
    connect(d->zoomOutAction, &QAction::triggered, this, &StageView::zoomOut);
    d->fitAction = new QAction(tr("Fit Stages"), this);
    connect(d->fitAction, &QAction::triggered, this, &StageView::fitAll);
    addActions({d->zoomInAction, d->zoomOutAction});
    rebuild();
}

StageView::~StageView() = default;

void StageView::setState(WorkbenchState *state)
{
    connect(
        state, &WorkbenchState::scheduleFinished, this,
        [this, state](const std::shared_ptr<const ScheduleRun> &run) { setRun(state->graph(), run, state->device()); });
    // A measured timeline replaces the estimate only for the plan on show.
    const auto showMeasured = [this, state](const std::shared_ptr<const RunResult> &r) {
        if (r && state->resultIsCurrent())
            setTimeline(r->timeline);
    };
    connect(state, &WorkbenchState::backendRunFinished, this, showMeasured);
    connect(state, &WorkbenchState::backendRunRestored, this, showMeasured);
    connect(this, &StageView::nodesSelected, state,
            [state](const std::vector<NodeId> &nodes) { state->setHighlighted(nodes, true); });
    connect(this, &StageView::overrideRequested, state, &WorkbenchState::requestOverride);
}

void StageView::setRun(std::shared_ptr<const Graph> graph, std::shared_ptr<const ScheduleRun> run, const Device *device)
{
    d->graph = std::move(graph);
    d->run = std::move(run);
    d->device = device ? std::optional<Device>(*device) : std::nullopt;
    d->measured.clear();
    d->selectedBox = d->selectedColumn = -1;
    rebuild();
}

void StageView::setTimeline(std::vector<TaskTiming> measured)
{
    d->measured = std::move(measured);
    rebuild();
}

void StageView::clear()
{
    setRun(nullptr, nullptr, nullptr);
}

const StageLayout *StageView::stageLayout() const
{
    return d->layout.get();
}
StageTableModel *StageView::tableModel() const
{
    return d->table;
}
QString StageView::hint() const
{
    return d->hint;
}
bool StageView::equalWidths() const
{
    return d->equal;
}
double StageView::zoom() const
{
    return d->zoom;
}
QAction *StageView::equalWidthsAction() const
{
    return d->equalAction;
}
QAction *StageView::zoomInAction() const
{
    return d->zoomInAction;
}
QAction *StageView::zoomOutAction() const
{
    return d->zoomOutAction;
}
QAction *StageView::fitAction() const
{
    return d->fitAction;
}
int StageView::selectedBox() const
{
    return d->selectedBox;
}

void StageView::rebuild()
{
    d->layout.reset();
    d->selectedBox = d->selectedColumn = -1;
    if (!d->graph || !d->run) {
        d->hint = tr("No schedule yet — run a scheduler to see its stages.");
    } else {
        auto built = buildStageLayout(*d->graph, d->run->result.plan, d->device ? &*d->device : nullptr,
                                      d->measured.empty() ? nullptr : &d->measured);
        if (!built)
            d->hint = tr("Cannot show the stages: %1").arg(QString::fromStdString(built.status().message()));
        else if (built->empty())
            d->hint = tr("The plan has no tasks: there are no stages to show.");
        else {
            d->hint.clear();
            d->layout = std::make_shared<const StageLayout>(std::move(*built));
        }
    }
    d->table->setLayout(d->layout, d->graph);

    // The median stage gets kMedianColumn pixels at zoom 1.
    d->pxPerNs = 1;
    if (d->layout) {
        std::vector<double> latencies;
        for (const StageColumn &c : d->layout->columns)
            if (c.latencyNs() > 0)
                latencies.push_back(c.latencyNs());
        if (!latencies.empty()) {
            auto mid = latencies.begin() + static_cast<std::ptrdiff_t>(latencies.size() / 2);
            std::nth_element(latencies.begin(), mid, latencies.end());
            d->pxPerNs = kMedianColumn / *mid;
        }
    }
    relayout();
}

void StageView::relayout()
{
    d->geometry = d->layout ? StageGeometry(*d->layout, d->equal, d->zoom, d->pxPerNs, kEqualColumn, kMinColumn)
                            : StageGeometry();
    updateScrollBars();
    viewport()->update();
}

void StageView::updateScrollBars()
{
    const int contentW = static_cast<int>(std::ceil(d->geometry.totalWidth()));
    const int lanes = d->layout ? static_cast<int>(d->layout->lanes.size()) : 0;
    const int contentH = lanes * kLanePitch;
    const int viewW = std::max(0, viewport()->width() - kGutter);
    const int viewH = std::max(0, viewport()->height() - kHeader);
    horizontalScrollBar()->setRange(0, std::max(0, contentW - viewW));
    horizontalScrollBar()->setPageStep(std::max(1, viewW));
    horizontalScrollBar()->setSingleStep(24);
    verticalScrollBar()->setRange(0, std::max(0, contentH - viewH));
    verticalScrollBar()->setPageStep(std::max(1, viewH));
    verticalScrollBar()->setSingleStep(kLanePitch / 2);
}

void StageView::setEqualWidths(bool equal)
{
    if (d->equal == equal)
        return;
    d->equal = equal;
    const QSignalBlocker block(d->equalAction);
    d->equalAction->setChecked(equal);
    relayout();
}

void StageView::setZoom(double zoom, int anchorX)
{
    zoom = std::clamp(zoom, kMinZoom, kMaxZoom);
    if (zoom == d->zoom)
        return;
    // Keep the time (column and fraction) under the anchor where it is.
    const int scroll = horizontalScrollBar()->value();
    const double anchor = anchorX >= kGutter ? anchorX : kGutter + (viewport()->width() - kGutter) / 2.0;
    const double contentX = anchor - kGutter + scroll;
    const int column = d->geometry.columnAt(contentX);
    const double fraction = column >= 0 ? (contentX - d->geometry.left(static_cast<std::size_t>(column))) /
                                              std::max(1e-9, d->geometry.width(static_cast<std::size_t>(column)))
                                        : 0.0;
    d->zoom = zoom;
    relayout();
    if (column >= 0) {
        const auto c = static_cast<std::size_t>(column);
        const double x = d->geometry.left(c) + fraction * d->geometry.width(c);
        horizontalScrollBar()->setValue(static_cast<int>(std::lround(x - (anchor - kGutter))));
    }
}

void StageView::zoomIn()
{
    setZoom(d->zoom * 1.25);
}
void StageView::zoomOut()
{
    setZoom(d->zoom / 1.25);
}
void StageView::resetZoom()
{
    setZoom(1.0);
}

void StageView::fitAll()
{
    if (!d->layout)
        return;
    const double target = std::max(1, viewport()->width() - kGutter);
    auto widthAt = [&](double z) {
        return StageGeometry(*d->layout, d->equal, z, d->pxPerNs, kEqualColumn, kMinColumn).totalWidth();
    };
    double lo = kMinZoom, hi = kMaxZoom;
    if (widthAt(lo) >= target) {
        setZoom(lo);
        return;
    }
    for (int i = 0; i < 50; ++i) { // widths grow with zoom: bisect
        const double mid = std::sqrt(lo * hi);
        (widthAt(mid) <= target ? lo : hi) = mid;
    }
    setZoom(lo);
    horizontalScrollBar()->setValue(0);
}

void StageView::scrollToColumn(int column)
{
    if (!d->layout || column < 0 || static_cast<std::size_t>(column) >= d->geometry.count())
        return;
    const auto c = static_cast<std::size_t>(column);
    const double viewW = viewport()->width() - kGutter;
    horizontalScrollBar()->setValue(static_cast<int>(d->geometry.left(c) + d->geometry.width(c) / 2 - viewW / 2));
}

int StageView::columnAt(const QPoint &pos) const
{
    if (!d->layout || pos.x() < kGutter)
        return -1;
    return d->geometry.columnAt(pos.x() - kGutter + horizontalScrollBar()->value());
}

int StageView::boxAt(const QPoint &pos) const
{
    const int column = columnAt(pos);
    if (column < 0 || pos.y() < kHeader)
        return -1;
    const StageColumn &c = d->layout->columns[static_cast<std::size_t>(column)];
    for (std::int32_t b = c.firstBox; b < c.firstBox + c.boxCount; ++b)
        if (d->boxRect(static_cast<std::size_t>(b), horizontalScrollBar()->value(), verticalScrollBar()->value())
                .adjusted(-1, -1, 1, 1)
                .contains(pos))
            return b;
    return -1;
}

QRect StageView::boxRect(int box) const
{
    if (!d->layout || box < 0 || static_cast<std::size_t>(box) >= d->layout->boxes.size())
        return {};
    return d->boxRect(static_cast<std::size_t>(box), horizontalScrollBar()->value(), verticalScrollBar()->value())
        .toAlignedRect();
}

QRect StageView::headerRect(int column) const
{
    if (!d->layout || column < 0 || static_cast<std::size_t>(column) >= d->geometry.count())
        return {};
    const auto c = static_cast<std::size_t>(column);
    return QRectF(d->columnX(c, horizontalScrollBar()->value()), 0, d->geometry.width(c), kHeader).toAlignedRect();
}

// ---------------------------------------------------------------------------
// Painting

void StageView::paintEvent(QPaintEvent *)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), backgroundColor());
    if (!d->layout) {
        p.setPen(mutedText());
        p.setFont(gs::titleFont());
        p.drawText(viewport()->rect().adjusted(16, 16, -16, -16), Qt::AlignCenter | Qt::TextWordWrap, d->hint);
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setRenderHint(QPainter::TextAntialiasing, true);
    const int hScroll = horizontalScrollBar()->value();
    const int viewW = viewport()->width();
    const auto [first, last] = d->geometry.visible(hScroll, hScroll + viewW - kGutter);

    // Lanes and boxes under the header, right of the gutter.
    p.save();
    p.setClipRect(QRect(kGutter, kHeader, viewW - kGutter, viewport()->height() - kHeader));
    for (std::size_t c = first; c < last; ++c)
        paintColumn(p, c, d->columnX(c, hScroll));
    p.restore();

    p.save();
    p.setClipRect(QRect(kGutter, 0, viewW - kGutter, kHeader));
    p.fillRect(QRect(kGutter, 0, viewW - kGutter, kHeader), QColor(0xee, 0xf1, 0xf5));
    for (std::size_t c = first; c < last; ++c)
        paintHeader(p, c, d->columnX(c, hScroll));
    p.restore();
    p.setPen(ruleColor());
    p.drawLine(QPointF(0, kHeader - 0.5), QPointF(viewW, kHeader - 0.5));
    paintGutter(p);
}

void StageView::paintColumn(QPainter &p, std::size_t c, double x0) const
{
    const StageLayout &layout = *d->layout;
    const StageColumn &col = layout.columns[c];
    const double w = d->geometry.width(c);
    const double h = viewport()->height();
    const int hScroll = horizontalScrollBar()->value(), vScroll = verticalScrollBar()->value();
    if (static_cast<int>(c) == d->selectedColumn)
        p.fillRect(QRectF(x0, kHeader, w, h), QColor(0xdc, 0xea, 0xfa));
    else if (c % 2)
        p.fillRect(QRectF(x0, kHeader, w, h), stripeColor());

    static const QFontMetricsF titleMetrics(gs::bodyFont());
    QFont boxFont = gs::bodyFont();
    boxFont.setBold(true);
    const QFontMetricsF boxMetrics(boxFont);
    for (std::int32_t bi = col.firstBox; bi < col.firstBox + col.boxCount; ++bi) {
        const StageBox &b = layout.boxes[static_cast<std::size_t>(bi)];
        const QRectF r = d->boxRect(static_cast<std::size_t>(bi), hScroll, vScroll);
        if (r.bottom() < kHeader || r.top() > h)
            continue;
        const QColor fill = b.compute ? gs::categoryColor(layout::opCategory(b.opType.toStdString()))
                                      : gs::categoryColor(layout::OpCategory::DataMovement).lighter(150);
        const bool selected = bi == d->selectedBox;
        QPen border(selected ? gs::selectionColor() : fill.darker(140), selected ? 2.5 : 1.0);
        if (!b.compute)
            border.setStyle(Qt::DashLine);
        p.setPen(border);
        p.setBrush(fill);
        p.drawRoundedRect(r, 3, 3);
        const QColor text = gs::textOn(fill);
        if (b.merged && r.width() > 8) { // Fig. 3.1's merged operator: a double outline
            QColor inner = text;
            inner.setAlphaF(0.85f);
            p.setPen(QPen(inner, 1.2));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(r.adjusted(2.5, 2.5, -2.5, -2.5), 2, 2);
        }
        // Operators of a group run one after the other: ticks at the edges where one ends.
        if (b.tasks.size() > 1 && r.width() > 3.0 * static_cast<double>(b.tasks.size())) {
            p.setPen(QPen(fill.lighter(170), 1.5));
            for (std::size_t i = 0; i + 1 < b.tasks.size(); ++i) {
                const double x = d->timeX(c, layout.timing[static_cast<std::size_t>(b.tasks[i])].endNs, hScroll);
                if (x <= r.left() + 2 || x >= r.right() - 2)
                    continue;
                p.drawLine(QPointF(x, r.top() + 1), QPointF(x, r.top() + 5));
                p.drawLine(QPointF(x, r.bottom() - 5), QPointF(x, r.bottom() - 1));
            }
        }
        // Text starts at the visible left edge of a box scrolled partly out of view.
        const double pad = b.merged ? 6 : 5;
        const QRectF inner(std::max(r.left(), double(kGutter)) + pad, r.top() + 4,
                           r.right() - pad - (std::max(r.left(), double(kGutter)) + pad), r.height() - 8);
        if (inner.width() < 14)
            continue;
        // A single hierarchical name keeps its tail ("…block4/37/Conv"), a sequence its head.
        const bool one = b.kernels.size() <= 1 && b.tasks.size() <= 1;
        const QString first = boxMetrics.elidedText(b.text, one ? Qt::ElideLeft : Qt::ElideRight, inner.width());
        QString second = b.opTypeCount > 1 ? QStringLiteral("%1 ×%2").arg(b.opType).arg(b.opTypeCount) : b.opType;
        if (b.flops > 0)
            second += (second.isEmpty() ? QString() : QStringLiteral(" · ")) + formatFlops(b.flops);
        second = titleMetrics.elidedText(second, Qt::ElideRight, inner.width());
        const QString ellipsis(QChar(0x2026));
        p.setPen(text);
        if (first != ellipsis) {
            p.setFont(boxFont);
            p.drawText(QRectF(inner.left(), inner.top(), inner.width(), inner.height() / 2),
                       Qt::AlignLeft | Qt::AlignVCenter, first);
        }
        if (second != ellipsis) {
            p.setFont(gs::bodyFont());
            p.drawText(QRectF(inner.left(), inner.center().y(), inner.width(), inner.height() / 2),
                       Qt::AlignLeft | Qt::AlignVCenter, second);
        }
    }

    // The stage boundary: dashed where a barrier ends the stage (the thesis' dotted lines).
    QPen rule(col.barrier >= 0 ? QColor(0x8a, 0x93, 0xa1) : ruleColor(), 1.0);
    rule.setStyle(col.barrier >= 0 ? Qt::DashLine : Qt::SolidLine);
    p.setPen(rule);
    p.drawLine(QPointF(x0 + w - 0.5, kHeader), QPointF(x0 + w - 0.5, h));
}

void StageView::paintHeader(QPainter &p, std::size_t c, double x0) const
{
    const StageLayout &layout = *d->layout;
    const StageColumn &col = layout.columns[c];
    const double w = d->geometry.width(c);
    if (static_cast<int>(c) == d->selectedColumn)
        p.fillRect(QRectF(x0, 0, w, kHeader), QColor(0xcf, 0xe2, 0xf8));
    // Sticky: the text starts at the visible left edge of a column scrolled partly out of view.
    const double left = std::max(x0, double(kGutter));
    const QRectF inner(left + 5, 4, x0 + w - 5 - (left + 5), kHeader - 8);
    p.setPen(ruleColor());
    p.drawLine(QPointF(x0 + w - 0.5, 0), QPointF(x0 + w - 0.5, kHeader));
    if (inner.width() < 8)
        return;
    static const QFontMetricsF title(gs::titleFont()), body(gs::bodyFont());
    QString name = stageTitle(layout, static_cast<std::int32_t>(c));
    if (inner.width() < 70 && col.stage >= 0)
        name = QString::number(col.stage);
    name = title.elidedText(name, Qt::ElideRight, inner.width());
    p.setFont(gs::titleFont());
    p.setPen(darkText());
    p.drawText(QRectF(inner.left(), inner.top(), inner.width(), 16), Qt::AlignLeft | Qt::AlignVCenter, name);
    const QString shape = col.merged ? tr("merged") : col.groups > 1 ? tr("%1 groups").arg(col.groups) : QString();
    const double shapeLeft = inner.left() + title.horizontalAdvance(name) + 8;
    if (!shape.isEmpty() && inner.right() - shapeLeft >= body.horizontalAdvance(shape)) {
        p.setFont(gs::bodyFont());
        p.setPen(mutedText());
        p.drawText(QRectF(shapeLeft, inner.top(), inner.right() - shapeLeft, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   shape);
    }
    QString numbers = formatDurationNs(col.latencyNs());
    if (col.flops > 0)
        numbers += QStringLiteral(" · ") + formatFlops(col.flops);
    p.setFont(gs::bodyFont());
    p.setPen(mutedText());
    p.drawText(QRectF(inner.left(), inner.top() + 17, inner.width(), 14), Qt::AlignLeft | Qt::AlignVCenter,
               body.elidedText(numbers, Qt::ElideRight, inner.width()));

    // Utilisation bar, with its percentage when there is room.
    const QString pct = formatUtilisation(col.utilisation);
    const double pctW = body.horizontalAdvance(QStringLiteral("100 %")) + 4;
    const bool label = inner.width() >= pctW + 30;
    const QRectF bar(inner.left(), inner.top() + 36, inner.width() - (label ? pctW : 0), 8);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0xdd, 0xe2, 0xe9));
    p.drawRoundedRect(bar, 2, 2);
    if (std::isfinite(col.utilisation) && col.utilisation > 0) {
        const double u = std::min(col.utilisation, 1.0);
        p.setBrush(gs::MetricScale::ramp(u));
        p.drawRoundedRect(QRectF(bar.left(), bar.top(), std::max(2.0, bar.width() * u), bar.height()), 2, 2);
        if (col.utilisation > 1.0) { // the estimate overlaps streams without contention
            p.setBrush(QColor(0xc6, 0x28, 0x28));
            p.drawRect(QRectF(bar.right() - 3, bar.top() - 2, 3, bar.height() + 4));
        }
    }
    if (label) {
        p.setPen(col.utilisation > 1.0 ? QColor(0xc6, 0x28, 0x28) : darkText());
        p.drawText(QRectF(bar.right() + 2, bar.top() - 4, pctW - 2, 16), Qt::AlignRight | Qt::AlignVCenter, pct);
    }
}

void StageView::paintGutter(QPainter &p) const
{
    const StageLayout &layout = *d->layout;
    const int h = viewport()->height();
    const int vScroll = verticalScrollBar()->value();
    p.fillRect(QRect(0, 0, kGutter, h), QColor(0xee, 0xf1, 0xf5));
    p.setPen(ruleColor());
    p.drawLine(QPointF(kGutter - 0.5, 0), QPointF(kGutter - 0.5, h));
    static const QFontMetricsF body(gs::bodyFont()), title(gs::titleFont());
    p.setFont(gs::titleFont());
    p.setPen(darkText());
    const QString count = layout.columns.size() == 1 ? tr("1 stage") : tr("%1 stages").arg(layout.columns.size());
    p.drawText(QRectF(8, 6, kGutter - 12, 16), Qt::AlignLeft | Qt::AlignVCenter,
               title.elidedText(count, Qt::ElideRight, kGutter - 12));
    p.setFont(gs::bodyFont());
    p.setPen(mutedText());
    p.drawText(QRectF(8, 23, kGutter - 12, 14), Qt::AlignLeft | Qt::AlignVCenter,
               body.elidedText(formatMs(layout.totalNs / 1e6), Qt::ElideRight, kGutter - 12));
    p.drawText(QRectF(8, 38, kGutter - 12, 14), Qt::AlignLeft | Qt::AlignVCenter,
               layout.measured ? tr("measured") : tr("estimated"));
    p.save();
    p.setClipRect(QRect(0, kHeader, kGutter, h - kHeader));
    p.setPen(darkText());
    for (std::size_t l = 0; l < layout.lanes.size(); ++l) {
        const double y = kHeader + static_cast<double>(l) * kLanePitch + kLaneGap / 2.0 - vScroll;
        if (y + kLaneHeight < kHeader || y > h)
            continue;
        p.drawText(QRectF(8, y, kGutter - 12, kLaneHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   body.elidedText(layout.lanes[l].label, Qt::ElideRight, kGutter - 12));
    }
    p.restore();
    p.setPen(ruleColor());
    p.drawLine(QPointF(0, kHeader - 0.5), QPointF(kGutter, kHeader - 0.5));
}

// ---------------------------------------------------------------------------
// Interaction

void StageView::resizeEvent(QResizeEvent *e)
{
    QAbstractScrollArea::resizeEvent(e);
    updateScrollBars();
}

void StageView::scrollContentsBy(int, int)
{
    viewport()->update();
}

void StageView::mousePressEvent(QMouseEvent *e)
{
    if (e->button() != Qt::LeftButton || !d->layout) {
        QAbstractScrollArea::mousePressEvent(e);
        return;
    }
    const QPoint pos = e->position().toPoint();
    const int column = columnAt(pos);
    if (column >= 0 && pos.y() < kHeader) {
        d->selectedColumn = column;
        d->selectedBox = -1;
        viewport()->update();
        emit nodesSelected(d->layout->columnNodes(column));
        return;
    }
    const int box = boxAt(pos);
    d->selectedColumn = -1;
    d->selectedBox = box;
    viewport()->update();
    if (box >= 0)
        emit nodesSelected(d->layout->boxes[static_cast<std::size_t>(box)].nodes);
}

void StageView::wheelEvent(QWheelEvent *e)
{
    const QPoint delta = e->angleDelta();
    if (e->modifiers() & Qt::ControlModifier) {
        if (delta.y() != 0)
            setZoom(d->zoom * std::pow(1.25, delta.y() / 120.0), static_cast<int>(e->position().x()));
        e->accept();
        return;
    }
    // A timeline scrolls sideways: the vertical wheel pans horizontally unless lanes overflow.
    const bool sideways = delta.x() != 0 || (e->modifiers() & Qt::ShiftModifier) || verticalScrollBar()->maximum() == 0;
    if (sideways) {
        const int step = delta.x() != 0 ? delta.x() : delta.y();
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - step);
        e->accept();
        return;
    }
    QAbstractScrollArea::wheelEvent(e);
}

void StageView::keyPressEvent(QKeyEvent *e)
{
    switch (e->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); return;
    case Qt::Key_Minus: zoomOut(); return;
    case Qt::Key_0: resetZoom(); return;
    case Qt::Key_F: fitAll(); return;
    default: QAbstractScrollArea::keyPressEvent(e);
    }
}

void StageView::fillDecisionMenu(QMenu &menu, int column)
{
    if (!d->layout || !d->run || !d->graph || column < 0 ||
        static_cast<std::size_t>(column) >= d->layout->columns.size())
        return;
    menu.setToolTipsVisible(true);
    menu.addSection(tr("Decisions of %1").arg(stageTitle(*d->layout, column)));
    const auto decisions = decisionsForStage(*d->layout, column, *d->run, d->graph->nodeCount());
    if (decisions.empty()) {
        menu.addAction(tr("No decision of this run concerns this stage"))->setEnabled(false);
        return;
    }
    for (const StageDecision &sd : decisions) {
        const DecisionRecord &r = *sd.decision;
        const auto chosen = static_cast<std::size_t>(r.chosen);
        QString title = QString::fromStdString(r.role);
        if (chosen < r.options.size())
            title += QStringLiteral(": ") + QString::fromStdString(r.options[chosen].label);
        if (r.overridden)
            title += QStringLiteral(" ✎");
        QMenu *sub = menu.addMenu(menuText(title));
        sub->setToolTipsVisible(true);
        sub->menuAction()->setToolTip(QString::fromStdString(r.key));
        for (std::size_t i = 0; i < r.options.size(); ++i) {
            const DecisionOption &o = r.options[i];
            QString text = QString::fromStdString(o.label.empty() ? o.id : o.label);
            if (static_cast<std::int32_t>(i) == r.preferred)
                text += QStringLiteral(" ★");
            if (const QString cost = costText(o); !cost.isEmpty())
                text += QLatin1Char('\t') + cost;
            QAction *a = sub->addAction(menuText(text));
            a->setCheckable(true);
            a->setChecked(i == chosen);
            a->setEnabled(o.legal());
            a->setToolTip(o.legal() ? QString::fromStdString(o.id)
                                    : tr("cannot be chosen: %1").arg(QString::fromStdString(o.illegalReason)));
            if (i == chosen)
                continue; // choosing what was used changes nothing
            connect(a, &QAction::triggered, this, [this, key = r.key, id = o.id] { emit overrideRequested(key, id); });
        }
    }
}

void StageView::contextMenuEvent(QContextMenuEvent *e)
{
    const int column = columnAt(e->pos());
    if (column < 0)
        return;
    d->selectedColumn = column;
    d->selectedBox = -1;
    viewport()->update();
    QMenu menu(this);
    fillDecisionMenu(menu, column);
    menu.exec(e->globalPos());
}

bool StageView::viewportEvent(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, viewport());
        return true;
    }
    return QAbstractScrollArea::viewportEvent(e);
}

QString StageView::toolTipAt(const QPoint &pos) const
{
    const int column = columnAt(pos);
    if (column < 0)
        return {};
    const StageLayout &layout = *d->layout;
    const StageColumn &col = layout.columns[static_cast<std::size_t>(column)];
    const double latency = col.latencyNs();
    if (pos.y() < kHeader) {
        QString t = QStringLiteral("<b>%1</b>%2<br>")
                        .arg(html(stageTitle(layout, column)), col.merged ? tr(" — merged operator") : QString());
        t += tr("latency %1 (%2 → %3)<br>")
                 .arg(formatMs(latency / 1e6), formatMs(col.startNs / 1e6), formatMs(col.endNs / 1e6));
        t += tr("%1 in %2 group(s), %3 operator(s)<br>").arg(formatFlops(col.flops)).arg(col.groups).arg(col.ops);
        if (latency > 0 && col.flops > 0)
            t += tr("achieved %1 TFLOP/s").arg(col.flops / latency / 1e3, 0, 'g', 3);
        if (layout.peakFlops > 0)
            t += tr(" · utilisation %1 of %2 TFLOP/s (%3)")
                     .arg(formatUtilisation(col.utilisation))
                     .arg(layout.peakFlops / 1e12, 0, 'g', 3)
                     .arg(QString::fromStdString(std::string(dtypeName(layout.peakDtype))));
        if (col.utilisation > 1.0)
            t += tr("<br><i>over 100 %: the estimate runs streams side by side without contention</i>");
        if (col.barrier >= 0)
            t += tr("<br>ends with a barrier at %1").arg(formatMs(col.barrierStartNs / 1e6));
        t += tr("<br>%1 (summed over its tasks; %2)")
                 .arg(html(costPartsText(col.cost)), QString::fromUtf8(costKindName(col.cost.kind)));
        return t;
    }
    const int box = boxAt(pos);
    if (box < 0)
        return {};
    const StageBox &b = layout.boxes[static_cast<std::size_t>(box)];
    QString t = QStringLiteral("<b>%1</b> · %2<br>")
                    .arg(html(stageTitle(layout, column)), html(layout.lanes[static_cast<std::size_t>(b.lane)].label));
    t += html(b.text) + QStringLiteral("<br>");
    if (d->graph) {
        QStringList names;
        for (std::size_t i = 0; i < b.nodes.size() && i < 12; ++i) {
            const Node &n = d->graph->node(b.nodes[i]);
            names << html(n.opType + " " + n.name);
        }
        if (b.nodes.size() > 12)
            names << tr("… %1 more").arg(b.nodes.size() - 12);
        t += names.join(QStringLiteral("<br>")) + QStringLiteral("<br>");
    }
    t += tr("time %1 (from %2)").arg(formatMs((b.endNs - b.startNs) / 1e6), formatMs(b.startNs / 1e6));
    if (b.flops > 0) {
        t += QStringLiteral(" · ") + formatFlops(b.flops);
        if (col.flops > 0)
            t += tr(" (%1 % of the stage)").arg(b.flops / col.flops * 100, 0, 'f', 0);
    }
    if (b.merged)
        t += tr("<br>merged operator (strategy \"merge\")");
    if (b.tasks.size() > 1)
        t += tr("<br>%1 tasks, run in order").arg(b.tasks.size());
    t += tr("<br>%1 (%2)").arg(html(costPartsText(b.cost)), QString::fromUtf8(costKindName(b.cost.kind)));
    return t;
}

} // namespace tessera::views
