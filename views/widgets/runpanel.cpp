// RunPanel and RunTimelineStrip (see runpanel.h).
#include "views/widgets/runpanel.h"

#include "core/sched/scheduler.h"
#include "views/models/format.h"
#include "views/models/plansummary.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/stepperdelegate.h"

#include <QComboBox>
#include <QElapsedTimer>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardItemModel>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

namespace tessera::views {

namespace {

constexpr TaskKind kKinds[] = {TaskKind::Compute, TaskKind::Copy,         TaskKind::Concat,
                               TaskKind::Split,   TaskKind::Redistribute, TaskKind::Barrier};

QColor kindColor(TaskKind kind)
{
    switch (kind) {
    case TaskKind::Compute: return {0x3b, 0x82, 0xf6};
    case TaskKind::Copy: return {0xf5, 0x9e, 0x0b};
    case TaskKind::Concat: return {0x8b, 0x5c, 0xf6};
    case TaskKind::Split: return {0x14, 0xb8, 0xa6};
    case TaskKind::Redistribute: return {0xef, 0x44, 0x44};
    case TaskKind::Barrier: return {0x9c, 0xa3, 0xaf};
    }
    return Qt::gray;
}

QString kindName(TaskKind kind)
{
    const std::string_view n = taskKindName(kind);
    return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}

// A tick step of 1, 2 or 5 × 10^k giving about `wanted` ticks over `span`.
double tickStep(double span, int wanted)
{
    if (span <= 0 || wanted <= 0)
        return 1;
    const double raw = span / wanted;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (raw <= m * mag)
            return m * mag;
    return 10 * mag;
}

QString elapsedText(qint64 ms)
{
    return ms < 10000 ? QString::number(ms / 1000.0, 'f', 1) + QStringLiteral(" s")
                      : QString::number(ms / 1000) + QStringLiteral(" s");
}

constexpr int kRunnerItemRole = Qt::UserRole + 1; // backend name on the picker's items

// The metrics table's Share column: the text over a translucent bar as long as the share.
class ShareBarDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        const double share = index.data(RunMetricsModel::ValueRole).toDouble();
        if (!(share > 0))
            return;
        QRect bar = option.rect.adjusted(3, 3, -3, -3);
        bar.setWidth(static_cast<int>(std::lround(bar.width() * std::min(share, 1.0))));
        if (bar.width() > 0)
            painter->fillRect(bar, stepcolors::tint(stepcolors::accent(), 70));
    }
};

} // namespace

// --- RunTimelineStrip ------------------------------------------------------------------------

RunTimelineStrip::RunTimelineStrip(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("Wheel: zoom · drag: pan · double click: whole run · click a task: its nodes in the graph"));
}

void RunTimelineStrip::setResult(std::shared_ptr<const RunResult> result, std::shared_ptr<const ExecutionPlan> plan,
                                 bool keepWindow)
{
    const int lanesBefore = m_timeline.laneCount();
    m_result = std::move(result);
    m_plan = std::move(plan);
    m_timeline = m_result ? RunTimeline(m_result->timeline, m_plan.get()) : RunTimeline();
    m_labelWidth = -1;
    if (!keepWindow)
        m_zoomed = false;
    m_segmentsWidth = -1;
    if (m_timeline.laneCount() != lanesBefore)
        updateGeometry();
    update();
}

QString RunTimelineStrip::laneName(int lane) const
{
    if (lane < 0 || lane >= m_timeline.laneCount())
        return {};
    const std::int32_t id = m_timeline.laneId(lane);
    if (m_result && id >= 0 && static_cast<std::size_t>(id) < m_result->laneNames.size() &&
        !m_result->laneNames[static_cast<std::size_t>(id)].empty())
        return QString::fromStdString(m_result->laneNames[static_cast<std::size_t>(id)]);
    return QStringLiteral("lane %1").arg(id);
}

std::pair<double, double> RunTimelineStrip::window() const
{
    if (m_zoomed)
        return {m_t0, m_t1};
    return {0.0, m_timeline.spanNs()};
}

void RunTimelineStrip::setWindow(double t0, double t1)
{
    const double span = m_timeline.spanNs();
    if (!(span > 0))
        return;
    const double width = std::clamp(t1 - t0, span * 1e-6, span);
    t0 = std::clamp(t0, 0.0, span - width);
    m_t0 = t0;
    m_t1 = t0 + width;
    m_zoomed = width < span * (1 - 1e-9);
    update();
}

void RunTimelineStrip::zoomAt(int x, double factor)
{
    if (!(factor > 0) || m_timeline.empty())
        return;
    const Geometry g = geometry();
    const auto [t0, t1] = window();
    const double fx = std::clamp(double(x - g.plot.left()) / std::max(1, g.plot.width()), 0.0, 1.0);
    const double at = t0 + fx * (t1 - t0);
    const double width = (t1 - t0) / factor;
    setWindow(at - fx * width, at - fx * width + width);
}

void RunTimelineStrip::panBy(int pixels)
{
    const Geometry g = geometry();
    const auto [t0, t1] = window();
    const double dt = (t1 - t0) * pixels / std::max(1, g.plot.width());
    setWindow(t0 + dt, t1 + dt);
}

void RunTimelineStrip::resetZoom()
{
    m_zoomed = false;
    update();
}

RunTimelineStrip::Geometry RunTimelineStrip::geometry() const
{
    const QFontMetrics fm(font());
    Geometry g;
    const int lanes = std::max(1, m_timeline.laneCount());
    int gutter = 8;
    if (m_timeline.laneCount() > 1 || (m_result && !m_result->laneNames.empty())) {
        if (m_labelWidth < 0) { // the widest lane name, once per result
            m_labelWidth = fm.horizontalAdvance(QStringLiteral("lane 000"));
            for (int l = 0; l < m_timeline.laneCount(); ++l)
                m_labelWidth = std::max(m_labelWidth, fm.horizontalAdvance(laneName(l)));
        }
        gutter = std::min(m_labelWidth, std::max(60, width() / 4)) + 10;
    }
    g.legendTop = 2;
    const int plotTop = g.legendTop + fm.height() + 6;
    const int axisHeight = fm.height() + 8;
    // Lanes share the height there is: 1 to 20 pixels each.
    const int room = height() - plotTop - axisHeight;
    g.lanePitch = std::clamp(static_cast<double>(room) / lanes, 1.0, 20.0);
    g.plot =
        QRect(gutter, plotTop, std::max(1, width() - gutter - 10), static_cast<int>(std::lround(lanes * g.lanePitch)));
    g.axisTop = g.plot.bottom() + 1;
    return g;
}

QSize RunTimelineStrip::sizeHint() const
{
    const QFontMetrics fm(font());
    const int lanes = std::max(1, m_timeline.laneCount());
    return {400, fm.height() + 8 + std::min(lanes * 16, 240) + fm.height() + 10};
}

QSize RunTimelineStrip::minimumSizeHint() const
{
    const QFontMetrics fm(font());
    const int lanes = std::max(1, m_timeline.laneCount());
    return {120, fm.height() + 8 + std::min(lanes * 2, 60) + fm.height() + 10};
}

void RunTimelineStrip::resizeEvent(QResizeEvent *event)
{
    m_segmentsWidth = -1;
    QWidget::resizeEvent(event);
}

int RunTimelineStrip::laneAt(const Geometry &g, int y) const
{
    if (y < g.plot.top() || y > g.plot.bottom() || g.lanePitch <= 0)
        return -1;
    int lane = static_cast<int>((y - g.plot.top()) / g.lanePitch);
    while (lane > 0 && g.laneTop(lane) > y) // rounding: the lane whose rows hold y
        --lane;
    while (g.laneTop(lane + 1) <= y)
        ++lane;
    return lane < m_timeline.laneCount() ? lane : -1;
}

void RunTimelineStrip::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    const QPalette pal = palette();
    p.fillRect(rect(), pal.base());
    const QFontMetrics fm(font());
    const Geometry g = geometry();
    QColor faint = pal.color(QPalette::Text);
    faint.setAlpha(110);

    if (m_timeline.empty() || m_timeline.spanNs() <= 0) {
        p.setPen(faint);
        p.drawText(rect(), Qt::AlignCenter, tr("The Gantt of a run appears here"));
        return;
    }
    const auto [t0, t1] = window();

    // Legend: the kinds this run has, with their task counts.
    std::array<int, std::size(kKinds)> counts{};
    for (int l = 0; l < m_timeline.laneCount(); ++l)
        for (const TimelineTask &t : m_timeline.lane(l))
            ++counts[static_cast<std::size_t>(t.kind)];
    int x = g.plot.left();
    const int sw = fm.height() - 4;
    for (TaskKind k : kKinds) {
        const int n = counts[static_cast<std::size_t>(k)];
        if (!n)
            continue;
        p.fillRect(QRect(x, g.legendTop + 3, sw, sw), kindColor(k));
        x += sw + 4;
        const QString text = QStringLiteral("%1 %2").arg(kindName(k)).arg(n);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QPoint(x, g.legendTop + fm.ascent() + 1), text);
        x += fm.horizontalAdvance(text) + 14;
    }
    const QString lanesText = m_timeline.laneCount() == 1 ? tr("1 lane") : tr("%1 lanes").arg(m_timeline.laneCount());
    QString info =
        tr("%1 tasks · %2 · %3").arg(m_timeline.taskCount()).arg(lanesText, formatDurationNs(m_timeline.spanNs()));
    if (m_zoomed)
        info =
            tr("%1 – %2 of %3").arg(formatDurationNs(t0), formatDurationNs(t1), formatDurationNs(m_timeline.spanNs()));
    const QRect infoRect(std::max(x, g.plot.left()), g.legendTop, g.plot.right() - std::max(x, g.plot.left()),
                         fm.height() + 2);
    if (fm.horizontalAdvance(info) <= infoRect.width()) {
        p.setPen(faint);
        p.drawText(infoRect, Qt::AlignRight | Qt::AlignVCenter, info);
    }

    // Lanes: alternating backgrounds, names, then the cached segments of the window.
    const int w = g.plot.width();
    if (m_segmentsWidth != w || m_segmentsWindow != std::pair{t0, t1}) {
        m_segments.assign(static_cast<std::size_t>(m_timeline.laneCount()), {});
        for (int l = 0; l < m_timeline.laneCount(); ++l)
            m_segments[static_cast<std::size_t>(l)] = m_timeline.segments(l, t0, t1, w);
        m_segmentsWidth = w;
        m_segmentsWindow = {t0, t1};
    }
    const int gap = g.lanePitch >= 10 ? 2 : 0;
    QFont laneFont = font();
    if (g.lanePitch < fm.height())
        laneFont.setPixelSize(std::max(7, static_cast<int>(g.lanePitch) - 1));
    const QFontMetrics lfm(laneFont);
    // Label every lane when the names fit (their glyphs, not the line spacing), else every k-th.
    const int labelEvery = std::max(1, static_cast<int>(std::ceil((lfm.ascent() + 1) / g.lanePitch)));
    for (int l = 0; l < m_timeline.laneCount(); ++l) {
        const int top = g.laneTop(l), laneHeight = g.laneHeight(l);
        if (l % 2)
            p.fillRect(QRect(g.plot.left(), top, w, laneHeight), pal.alternateBase());
        if (g.plot.left() > 10 && l % labelEvery == 0) {
            p.setFont(laneFont);
            p.setPen(pal.color(QPalette::Text));
            const QRect label(2, top, g.plot.left() - 8, std::max(laneHeight, lfm.height()));
            p.drawText(label, Qt::AlignRight | Qt::AlignVCenter,
                       lfm.elidedText(laneName(l), Qt::ElideLeft, label.width()));
            p.setFont(font());
        }
        const int y = top + gap, h = laneHeight - 2 * gap;
        for (const RunTimeline::Segment &s : m_segments[static_cast<std::size_t>(l)]) {
            QColor c = kindColor(s.kind);
            const int sx = g.plot.left() + s.x0;
            int sw2 = s.x1 - s.x0;
            if (sw2 >= 4) {
                // Wide tasks: a 1-pixel gap and alternating shades keep neighbours apart.
                if (s.index % 2)
                    c = c.darker(118);
                sw2 -= 1;
            } else if (s.count > 1) {
                c = c.darker(108); // a column of merged narrow tasks
            }
            p.fillRect(QRect(sx, y, sw2, std::max(1, h)), c);
        }
    }

    // Time axis over the window.
    p.setPen(faint);
    p.drawLine(g.plot.left(), g.axisTop, g.plot.right(), g.axisTop);
    const double span = t1 - t0;
    const double step = tickStep(span, std::max(1, w / 110));
    for (double t = std::ceil(t0 / step) * step; t <= t1 * (1 + 1e-9); t += step) {
        const int tx = g.plot.left() + static_cast<int>(std::lround((t - t0) / span * (w - 1)));
        p.setPen(faint);
        p.drawLine(tx, g.axisTop, tx, g.axisTop + 4);
        const QString label = formatDurationNs(t);
        const int lw = fm.horizontalAdvance(label);
        const int lx = std::clamp(tx - lw / 2, g.plot.left(), g.plot.right() - lw);
        p.setPen(pal.color(QPalette::Text));
        p.drawText(QPoint(lx, g.axisTop + 5 + fm.ascent()), label);
    }
}

std::pair<int, int> RunTimelineStrip::entryAt(QPoint pos) const
{
    if (m_timeline.empty() || m_timeline.spanNs() <= 0)
        return {-1, -1};
    const Geometry g = geometry();
    const int lane = laneAt(g, pos.y());
    if (lane < 0 || pos.x() < g.plot.left() - 2 || pos.x() > g.plot.right() + 2)
        return {-1, -1};
    const auto [t0, t1] = window();
    const double nsPerPixel = (t1 - t0) / g.plot.width();
    const double ns = t0 + (pos.x() - g.plot.left() + 0.5) * nsPerPixel;
    const int index = m_timeline.taskAt(lane, ns, 2 * nsPerPixel);
    return index < 0 ? std::pair{-1, -1} : std::pair{lane, index};
}

void RunTimelineStrip::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        m_pressPos = event->pos();
        std::tie(m_pressT0, m_pressT1) = window();
        m_dragged = false;
    }
    QWidget::mousePressEvent(event);
}

void RunTimelineStrip::mouseMoveEvent(QMouseEvent *event)
{
    if ((event->buttons() & Qt::LeftButton) && m_pressPos.x() >= 0) {
        const int dx = event->pos().x() - m_pressPos.x();
        if (std::abs(dx) >= 3)
            m_dragged = true;
        if (m_dragged) {
            const Geometry g = geometry();
            const double dt = (m_pressT1 - m_pressT0) * dx / std::max(1, g.plot.width());
            setWindow(m_pressT0 - dt, m_pressT1 - dt);
            setCursor(Qt::ClosedHandCursor);
        }
    }
    QWidget::mouseMoveEvent(event);
}

void RunTimelineStrip::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        if (!m_dragged) {
            const auto [lane, index] = entryAt(event->pos());
            if (lane >= 0)
                emit taskClicked(m_timeline.lane(lane)[static_cast<std::size_t>(index)].task);
        }
        m_pressPos = QPoint(-1, -1);
        m_dragged = false;
        unsetCursor();
    }
    QWidget::mouseReleaseEvent(event);
}

void RunTimelineStrip::mouseDoubleClickEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton)
        resetZoom();
    QWidget::mouseDoubleClickEvent(event);
}

void RunTimelineStrip::wheelEvent(QWheelEvent *event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0 || m_timeline.empty()) {
        QWidget::wheelEvent(event);
        return;
    }
    zoomAt(static_cast<int>(event->position().x()), std::pow(1.25, steps));
    event->accept();
}

QString RunTimelineStrip::toolTipAt(QPoint pos) const
{
    const auto [lane, index] = entryAt(pos);
    if (lane < 0)
        return {};
    const TimelineTask &t = m_timeline.lane(lane)[static_cast<std::size_t>(index)];
    QString label, kernelText, nodesText;
    if (m_plan && t.task >= 0 && static_cast<std::size_t>(t.task) < m_plan->tasks.size()) {
        const Task &task = m_plan->tasks[static_cast<std::size_t>(t.task)];
        label = QString::fromStdString(task.label);
        std::vector<NodeId> nodes;
        for (const NodeTile &tile : task.tiles)
            if (std::find(nodes.begin(), nodes.end(), tile.node) == nodes.end())
                nodes.push_back(tile.node);
        if (task.kernel >= 0 && static_cast<std::size_t>(task.kernel) < m_plan->kernels.size()) {
            const Kernel &k = m_plan->kernels[static_cast<std::size_t>(task.kernel)];
            kernelText = QString::fromStdString(k.name.empty() ? "#" + std::to_string(task.kernel) : k.name);
            if (nodes.empty())
                nodes = k.nodes;
        }
        constexpr std::size_t kListed = 6;
        for (std::size_t i = 0; i < nodes.size() && i < kListed; ++i) {
            const NodeId id = nodes[i];
            const QString name =
                m_graph && id >= 0 && static_cast<std::size_t>(id) < m_graph->nodeCount()
                    ? QString::fromStdString(m_graph->node(id).name + " (" + m_graph->node(id).opType + ")")
                    : QStringLiteral("node %1").arg(id);
            nodesText += (i ? QStringLiteral(", ") : QString()) + name.toHtmlEscaped();
        }
        if (nodes.size() > kListed)
            nodesText += tr(" and %1 more").arg(nodes.size() - kListed);
    }
    if (label.isEmpty())
        label = kernelText.isEmpty() ? tr("task %1").arg(t.task) : kernelText;
    QString text = tr("<b>%1</b><br>%2 task #%3 on %4<br>%5 → %6 (%7)")
                       .arg(label.toHtmlEscaped(), kindName(t.kind))
                       .arg(t.task)
                       .arg(laneName(lane).toHtmlEscaped(), formatDurationNs(t.startNs), formatDurationNs(t.endNs),
                            formatDurationNs(t.endNs - t.startNs));
    if (!kernelText.isEmpty())
        text += tr("<br>kernel: %1").arg(kernelText.toHtmlEscaped());
    if (!nodesText.isEmpty())
        text += tr("<br>nodes: %1").arg(nodesText);
    return text;
}

bool RunTimelineStrip::event(QEvent *event)
{
    if (event->type() == QEvent::FontChange)
        m_labelWidth = -1;
    if (event->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty())
            QToolTip::showText(help->globalPos(), toolTip(), this);
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

// --- RunPanel --------------------------------------------------------------------------------

RunPanel::RunPanel(WorkbenchState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_metrics(new RunMetricsModel(this)), m_outputs(new RunOutputsModel(this)),
      m_backendBox(new QComboBox(this)), m_runButton(new QPushButton(tr("Run"), this)),
      m_cancelButton(new QPushButton(tr("Cancel"), this)), m_pauseButton(new QPushButton(tr("Pause"), this)),
      m_progress(new QProgressBar(this)), m_live(new QLabel(this)), m_status(new QLabel(this)),
      m_timeline(new RunTimelineStrip(this)), m_metricsView(new QTableView(this)), m_outputsView(new QTableView(this)),
      m_kernels(new KernelTimingModel(this)), m_kernelsView(new QTableView(this)), m_tabs(new QTabWidget(this)),
      m_liveTimer(new QTimer(this)), m_elapsed(new QElapsedTimer)
{
    setObjectName(QStringLiteral("runPanel"));
    m_backendBox->setObjectName(QStringLiteral("runBackend"));
    m_backendBox->setModel(new QStandardItemModel(m_backendBox));
    m_backendBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_backendBox->setToolTip(tr("Backend that compiles and runs the plan"));
    m_runButton->setObjectName(QStringLiteral("runButton"));
    m_runButton->setToolTip(tr("Compile the current plan on the backend and run it with synthetic inputs"));
    m_cancelButton->setObjectName(QStringLiteral("cancelRunButton"));
    m_cancelButton->setToolTip(tr("Stop the run after the task in progress"));
    m_pauseButton->setObjectName(QStringLiteral("pauseRunButton"));
    m_pauseButton->setToolTip(tr("Hold the run after the task in progress; again to resume"));
    m_progress->setTextVisible(false);
    m_progress->setMaximumHeight(m_runButton->sizeHint().height() - 8);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    m_live->setMinimumWidth(m_live->fontMetrics().horizontalAdvance(QStringLiteral("000000 / 000000 tasks · 00.0 s")));
    m_status->setTextFormat(Qt::RichText);
    m_status->setWordWrap(false);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_liveTimer->setInterval(100);
    connect(m_liveTimer, &QTimer::timeout, this, &RunPanel::updateLive);

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(new QLabel(tr("Backend:"), this));
    top->addWidget(m_backendBox);
    top->addWidget(m_runButton);
    top->addWidget(m_pauseButton);
    top->addWidget(m_cancelButton);
    top->addSpacing(8);
    top->addWidget(m_progress, 1);
    top->addWidget(m_live);

    for (QTableView *v : {m_metricsView, m_outputsView, m_kernelsView}) {
        v->verticalHeader()->hide();
        v->verticalHeader()->setDefaultSectionSize(v->fontMetrics().height() + 6);
        v->setSelectionBehavior(QAbstractItemView::SelectRows);
        v->setEditTriggers(QAbstractItemView::NoEditTriggers);
        v->setShowGrid(false);
        v->setAlternatingRowColors(true);
        v->setWordWrap(false);
        v->horizontalHeader()->setHighlightSections(false);
        // A header and two rows at least: the Gantt above may take the rest.
        v->setMinimumHeight(3 * v->verticalHeader()->defaultSectionSize() + 4);
    }
    m_metricsView->setObjectName(QStringLiteral("runMetrics"));
    m_metricsView->setModel(m_metrics);
    m_metricsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_metricsView->horizontalHeader()->setSectionResizeMode(RunMetricsModel::ShareColumn, QHeaderView::Stretch);
    m_metricsView->setItemDelegateForColumn(RunMetricsModel::ShareColumn, new ShareBarDelegate(m_metricsView));
    // Long per-kernel metric names ("kernel/12 block0/conv1+relu1/wall_ms")
    // are elided in the middle rather than pushing the values out of view.
    m_metricsView->horizontalHeader()->setMaximumSectionSize(
        m_metricsView->fontMetrics().horizontalAdvance(QStringLiteral("kernel/12 block0/conv1+relu/wall_ms")));
    m_metricsView->setTextElideMode(Qt::ElideMiddle);
    m_outputsView->setObjectName(QStringLiteral("runOutputs"));
    m_outputsView->setModel(m_outputs);
    m_outputsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_outputsView->horizontalHeader()->setStretchLastSection(true);
    m_outputsView->setTextElideMode(Qt::ElideRight);

    m_kernelsView->setObjectName(QStringLiteral("runKernels"));
    m_kernelsView->setModel(m_kernels);
    m_kernelsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_kernelsView->horizontalHeader()->setSectionResizeMode(KernelTimingModel::KernelColumn, QHeaderView::Stretch);
    m_kernelsView->setTextElideMode(Qt::ElideMiddle);
    m_tabs->setObjectName(QStringLiteral("runTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_kernelsView, tr("Kernels: predicted vs measured"));
    m_tabs->addTab(m_outputsView, tr("Outputs"));

    auto *tables = new QSplitter(Qt::Horizontal, this);
    tables->addWidget(m_metricsView);
    tables->addWidget(m_tabs);
    tables->setStretchFactor(0, 2);
    tables->setStretchFactor(1, 3);
    tables->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(6);
    layout->addLayout(top);
    layout->addWidget(m_status);
    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_timeline);
    m_split->addWidget(tables);
    m_split->setStretchFactor(0, 0); // the Gantt keeps the height fitTimeline gave it,
    m_split->setStretchFactor(1, 1); // the tables take what the dock gains or loses
    m_split->setChildrenCollapsible(false);
    layout->addWidget(m_split, 1);

    connect(m_runButton, &QPushButton::clicked, this, &RunPanel::run);
    connect(m_cancelButton, &QPushButton::clicked, this, &RunPanel::cancel);
    connect(m_pauseButton, &QPushButton::clicked, this, &RunPanel::togglePause);
    connect(m_backendBox, &QComboBox::currentIndexChanged, this, [this] {
        if (!isRunning())
            setStatus(idleText(), Tone::Neutral);
        updateButtons();
    });
    Q_ASSERT(state);
    connect(m_state, &WorkbenchState::backendRunStarted, this, &RunPanel::onStarted);
    connect(m_state, &WorkbenchState::backendRunProgress, this, &RunPanel::onProgress);
    connect(m_state, &WorkbenchState::backendRunUpdated, this, &RunPanel::onUpdated);
    connect(m_state, &WorkbenchState::backendRunPausedChanged, this, [this] {
        updateButtons();
        updateLive();
    });
    connect(m_state, &WorkbenchState::backendRunFinished, this, &RunPanel::onFinished);
    connect(m_state, &WorkbenchState::backendRunRestored, this, &RunPanel::onRestored);
    // A task clicked on the timeline: its nodes (tiles, else its kernel's) light up in the graph.
    connect(m_timeline, &RunTimelineStrip::taskClicked, this, [this](TaskId id) {
        if (!m_runPlan || id < 0 || static_cast<std::size_t>(id) >= m_runPlan->tasks.size())
            return;
        const Task &task = m_runPlan->tasks[static_cast<std::size_t>(id)];
        std::vector<NodeId> nodes;
        for (const NodeTile &tile : task.tiles)
            if (std::find(nodes.begin(), nodes.end(), tile.node) == nodes.end())
                nodes.push_back(tile.node);
        if (nodes.empty() && task.kernel >= 0 && static_cast<std::size_t>(task.kernel) < m_runPlan->kernels.size())
            nodes = m_runPlan->kernels[static_cast<std::size_t>(task.kernel)].nodes;
        if (nodes.empty())
            return;
        // The first node becomes the selection (the inspector shows it), all are outlined.
        m_state->selectNode(nodes.front(), true);
        m_state->setHighlighted(std::move(nodes), true);
    });
    connect(m_state, &WorkbenchState::backendRunFailed, this, &RunPanel::onFailed);
    connect(m_state, &WorkbenchState::scheduleFinished, this,
            [this](const std::shared_ptr<const ScheduleRun> &run) { setPlan(m_state->graph(), run); });

    setStatus(idleText(), Tone::Neutral);
    updateButtons();
}

RunPanel::~RunPanel() = default;

void RunPanel::setBackends(const BackendRegistry *registry)
{
    m_registry = registry;
    auto *model = static_cast<QStandardItemModel *>(m_backendBox->model());
    {
        const QSignalBlocker block(m_backendBox);
        model->clear();
        if (registry)
            for (IBackend *b : registry->all()) {
                const BackendInfo &info = b->info();
                auto *item = new QStandardItem(QString::fromStdString(info.title.empty() ? info.name : info.title));
                item->setData(QString::fromStdString(info.name), kRunnerItemRole);
                if (info.available) {
                    item->setToolTip(QString::fromStdString(info.summary));
                } else {
                    item->setText(item->text() + tr(" — unavailable"));
                    item->setToolTip(tr("Unavailable: %1").arg(QString::fromStdString(info.unavailableReason)));
                    item->setEnabled(false);
                }
                model->appendRow(item);
            }
        m_backendBox->setCurrentIndex(-1);
        for (int i = 0; i < model->rowCount(); ++i)
            if (model->item(i)->isEnabled()) {
                m_backendBox->setCurrentIndex(i);
                break;
            }
    }
    if (!isRunning())
        setStatus(idleText(), Tone::Neutral);
    updateButtons();
}

bool RunPanel::selectBackend(const QString &name)
{
    auto *model = static_cast<QStandardItemModel *>(m_backendBox->model());
    for (int i = 0; i < model->rowCount(); ++i)
        if (model->item(i)->data(kRunnerItemRole).toString() == name) {
            if (!model->item(i)->isEnabled())
                return false;
            m_backendBox->setCurrentIndex(i);
            return true;
        }
    return false;
}

QString RunPanel::selectedBackend() const
{
    return m_backendBox->currentIndex() < 0 ? QString() : m_backendBox->currentData(kRunnerItemRole).toString();
}

IBackend *RunPanel::currentBackend() const
{
    if (!m_registry)
        return nullptr;
    IBackend *b = m_registry->find(selectedBackend().toStdString());
    return b && b->info().available ? b : nullptr;
}

void RunPanel::setPlan(std::shared_ptr<const Graph> graph, std::shared_ptr<const ScheduleRun> run)
{
    if (!graph || !run) {
        graph.reset();
        run.reset();
    }
    const bool same = run == m_schedule && graph == m_graph;
    m_graph = std::move(graph);
    m_schedule = std::move(run);
    if (!isRunning() && !same)
        setStatus(idleText(), Tone::Neutral);
    updateButtons();
}

QString RunPanel::idleText() const
{
    if (!m_schedule)
        return tr("No plan yet — schedule the model to run its plan on a backend.");
    if (!m_registry || m_backendBox->count() == 0)
        return tr("No backends are registered.");
    if (!currentBackend())
        return tr("No available backend — every registered backend is unavailable here.");
    const ExecutionPlan &plan = m_schedule->result.plan;
    return tr("Ready: %1 tasks in %2 kernels, estimated %3 on %4; inputs are synthetic (seed 1).%5")
        .arg(plan.tasks.size())
        .arg(plan.kernels.size())
        .arg(formatDurationNs(plan.estimatedLatencyNs()), QString::fromStdString(plan.device).toHtmlEscaped(),
             resultIsStale() ? tr(" The tables below show a run of an earlier plan.") : QString());
}

void RunPanel::setStatus(const QString &text, Tone tone)
{
    QString color;
    if (tone == Tone::Bad)
        color = stepcolors::bad().name();
    else if (tone == Tone::Good)
        color = palette().color(QPalette::Text).name();
    m_status->setText(color.isEmpty() ? text : QStringLiteral("<span style=\"color:%1\">%2</span>").arg(color, text));
    m_statusPlain = QTextDocumentFragment::fromHtml(text).toPlainText();
    m_status->setToolTip(m_statusPlain);
}

QString RunPanel::statusText() const
{
    return m_statusPlain;
}

bool RunPanel::resultIsStale() const
{
    return m_lastResult && (!m_schedule || m_runPlan.get() != &m_schedule->result.plan);
}

bool RunPanel::isRunning() const
{
    return m_state->isBackendRunning();
}

void RunPanel::updateButtons()
{
    const bool running = isRunning();
    m_runButton->setEnabled(m_schedule && currentBackend());
    m_runButton->setText(running ? tr("Restart") : tr("Run"));
    m_cancelButton->setEnabled(running);
    const IBackend *backend = m_registry ? m_registry->find(m_state->backendRunBackend().toStdString()) : nullptr;
    const bool canPause = running && backend && !backend->info().capabilities.measured;
    m_pauseButton->setEnabled(canPause);
    m_pauseButton->setText(m_state->isBackendRunPaused() ? tr("Resume") : tr("Pause"));
    m_pauseButton->setToolTip(running && !canPause
                                  ? tr("This backend measures wall-clock time: a pause would count as run time")
                                  : tr("Hold the run after the task in progress; again to resume"));
    m_backendBox->setEnabled(!running);
}

bool RunPanel::run()
{
    if (!m_schedule || !m_graph) {
        setStatus(tr("No plan yet — schedule the model first, then run its plan."), Tone::Bad);
        return false;
    }
    IBackend *backend = currentBackend();
    if (!backend) {
        setStatus(tr("No available backend to run the plan on."), Tone::Bad);
        return false;
    }
    m_runPlan = std::shared_ptr<const ExecutionPlan>(m_schedule, &m_schedule->result.plan);
    m_runBackendTitle =
        QString::fromStdString(backend->info().title.empty() ? backend->info().name : backend->info().title);
    m_state->requestBackendRun({backend, m_graph, m_schedule}); // inputs: synthetic, seed 1
    updateButtons();
    return true;
}

void RunPanel::cancel()
{
    m_state->requestCancelBackendRun();
}

void RunPanel::togglePause()
{
    if (isRunning())
        m_state->requestPauseBackendRun(!m_state->isBackendRunPaused());
}

// The streamed part of the run: the Gantt of the tasks finished so far.
void RunPanel::onUpdated(std::shared_ptr<const RunResult> soFar)
{
    if (!soFar || soFar->timeline.empty())
        return;
    m_kernels->setRun(*soFar);
    m_timeline->setGraph(m_graph);
    m_timeline->setResult(std::move(soFar), m_runPlan, !m_firstUpdate); // a new run starts unzoomed
    m_firstUpdate = false;
    fitTimeline();
}

void RunPanel::onStarted()
{
    m_elapsed->start();
    m_liveTimer->start();
    m_firstUpdate = true;
    // A run the panel did not start itself (asked for elsewhere) still has its plan and title.
    if (const std::shared_ptr<const ScheduleRun> s = m_state->backendRunSchedule();
        s && (!m_runPlan || m_runPlan.get() != &s->result.plan)) {
        m_runPlan = std::shared_ptr<const ExecutionPlan>(s, &s->result.plan);
        const IBackend *b = m_registry ? m_registry->find(m_state->backendRunBackend().toStdString()) : nullptr;
        m_runBackendTitle =
            b && !b->info().title.empty() ? QString::fromStdString(b->info().title) : m_state->backendRunBackend();
    }
    m_kernels->dropRun();          // a superseded run's spans, if it streamed any
    m_kernels->setPlan(m_runPlan); // the same plan again: its rows stay and gain a sample
    m_tabs->setCurrentWidget(m_kernelsView);
    m_progress->setRange(0, 0); // busy until the first task reports (compiling)
    setStatus(tr("Compiling and running the plan on %1…").arg(m_runBackendTitle.toHtmlEscaped()), Tone::Neutral);
    updateLive();
    updateButtons();
}

void RunPanel::onProgress(int done, int total)
{
    if (done > 0) {
        m_progress->setRange(0, std::max(1, total));
        m_progress->setValue(done);
    }
    updateLive();
}

void RunPanel::updateLive()
{
    const qint64 ms = m_elapsed->isValid() ? m_elapsed->elapsed() : 0;
    const int done = m_state->tasksDone(), total = m_state->tasksTotal();
    if (isRunning())
        m_live->setText(done == 0 ? tr("compiling · %1").arg(elapsedText(ms))
                                  : tr("%1 / %2 tasks · %3%4")
                                        .arg(done)
                                        .arg(total)
                                        .arg(elapsedText(ms))
                                        .arg(m_state->isBackendRunPaused() ? tr(" · paused") : QString()));
}

void RunPanel::showResult(const std::shared_ptr<const RunResult> &result)
{
    m_liveTimer->stop();
    m_lastResult = result;
    const int total = static_cast<int>(result->timeline.size());
    m_progress->setRange(0, std::max(1, total));
    m_progress->setValue(std::max(1, total));
    m_metrics->setResult(result);
    m_outputs->setResult(result);
    m_kernels->setPlan(m_runPlan);
    m_kernels->setRun(*result);
    m_kernels->commitRun();
    m_timeline->setGraph(m_graph);
    m_timeline->setResult(result, m_runPlan);
    fitTimeline();
    // Columns follow their resize modes (to contents; Share and the values
    // stretch) once the new rows and the split's new heights are laid out.
    for (QTableView *v : {m_metricsView, m_outputsView, m_kernelsView})
        QMetaObject::invokeMethod(v->horizontalHeader(), "resizeSections", Qt::QueuedConnection);
}

void RunPanel::fitTimeline()
{
    const int lanes = m_timeline->timeline().laneCount();
    const QList<int> sizes = m_split->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (lanes == m_splitLanes || total <= 0 || !m_split->isVisible())
        return; // a drag of the handle is kept while the lanes stay; hidden: sized when shown
    m_splitLanes = lanes;
    const int want = std::min(m_timeline->sizeHint().height(), total * 3 / 4);
    m_split->setSizes({want, total - want});
}

void RunPanel::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    QTimer::singleShot(0, this, &RunPanel::fitTimeline); // once the layout has its sizes
}

QString RunPanel::measuredText(const RunResult &result) const
{
    const double estimatedMs = m_runPlan ? m_runPlan->estimatedLatencyNs() / 1e6 : 0;
    // A simulator's clock is simulated time, not a measurement.
    const QString how = result.metrics.count("sim_time_ms") ? tr("simulated") : tr("measured");
    QString text = tr("<b>%1</b> %2 on %3 · <b>%4</b> estimated for %5")
                       .arg(formatMs(result.latencyMs), how, m_runBackendTitle.toHtmlEscaped(), formatMs(estimatedMs),
                            QString::fromStdString(m_runPlan ? m_runPlan->device : std::string()).toHtmlEscaped());
    if (estimatedMs > 0 && result.latencyMs > 0) {
        const double ratio = result.latencyMs / estimatedMs;
        text += ratio >= 1 ? tr(" (%1× the estimate)").arg(formatRatio(ratio))
                           : tr(" (%1× faster than the estimate)").arg(formatRatio(1 / ratio));
    }
    return text;
}

void RunPanel::onFinished(std::shared_ptr<const RunResult> result)
{
    showResult(result);
    m_live->setText(tr("%1 tasks · %2").arg(result->timeline.size()).arg(elapsedText(m_elapsed->elapsed())));
    setStatus(measuredText(*result), Tone::Good);
    updateButtons();
    emit runFinished(result);
}

// A run stored in the project, shown as it was measured; its outputs were not stored.
void RunPanel::onRestored(std::shared_ptr<const RunResult> result, const QString &when)
{
    const std::shared_ptr<const ScheduleRun> schedule = m_state->backendRunSchedule();
    if (!result || !schedule)
        return;
    m_runPlan = std::shared_ptr<const ExecutionPlan>(schedule, &schedule->result.plan);
    const IBackend *backend = m_registry ? m_registry->find(m_state->backendRunBackend().toStdString()) : nullptr;
    m_runBackendTitle = backend && !backend->info().title.empty() ? QString::fromStdString(backend->info().title)
                                                                  : m_state->backendRunBackend();
    showResult(result);
    m_live->setText(tr("%1 tasks · stored %2").arg(result->timeline.size()).arg(when));
    setStatus(measuredText(*result) + tr("<br>Stored in the project (%1); run again to see the outputs.").arg(when),
              Tone::Good);
    updateButtons();
}

void RunPanel::onFailed(const QString &message)
{
    m_liveTimer->stop();
    m_kernels->dropRun();
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    if (message == QLatin1String("cancelled")) {
        m_live->setText(tr("cancelled at %1 / %2").arg(m_state->tasksDone()).arg(m_state->tasksTotal()));
        setStatus(tr("Run cancelled after %1 of %2 tasks.%3")
                      .arg(m_state->tasksDone())
                      .arg(m_state->tasksTotal())
                      .arg(m_lastResult ? tr(" The tables show the last completed run.") : QString()),
                  Tone::Neutral);
    } else {
        m_live->clear();
        setStatus(tr("Run failed: %1").arg(message.toHtmlEscaped()), Tone::Bad);
    }
    updateButtons();
}

} // namespace tessera::views
