#include "plugins/brickdl/gui/brickview.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

namespace tessera::brickdl {

namespace {

QColor stateColor(BrickState s, const std::string &strategy)
{
    switch (s) {
    case BrickState::NotStarted: return QColor(225, 225, 225);
    case BrickState::InProgress: return QColor(245, 150, 40);
    case BrickState::Complete: return strategy == "padded" ? QColor(90, 140, 215) : QColor(95, 175, 95);
    }
    return Qt::white;
}

QString mib(double bytes)
{
    return bytes >= 1048576.0 ? QStringLiteral("%1 MiB").arg(bytes / 1048576.0, 0, 'f', 2)
                              : QStringLiteral("%1 KiB").arg(bytes / 1024.0, 0, 'f', 1);
}

// The brick map: the last two blocked dims as rows and columns, other blocked dims at brick 0.
class MapCanvas final : public QWidget
{
public:
    explicit MapCanvas(BrickView *view) : QWidget(view), m_view(view) { setMinimumSize(240, 240); }

    // The grid's geometry: rows, columns, cell size and top-left corner.
    struct Geometry {
        std::size_t rowDim = 0, colDim = 0;
        std::int64_t rows = 1, cols = 1;
        double cell = 1;
        QPointF origin;
    };
    Geometry geometry(const BrickGrid &grid) const
    {
        Geometry g;
        const std::size_t nd = grid.dims().size();
        g.rowDim = nd >= 2 ? nd - 2 : 0;
        g.colDim = nd - 1;
        g.rows = nd >= 2 ? grid.count(g.rowDim) : 1;
        g.cols = grid.count(g.colDim);
        g.cell = std::min((width() - 20.0) / double(g.cols), (height() - 20.0) / double(g.rows));
        g.origin = QPointF((width() - g.cell * double(g.cols)) / 2, (height() - g.cell * double(g.rows)) / 2);
        return g;
    }

protected:
    void mousePressEvent(QMouseEvent *e) override
    {
        const BrickTimeline::Layer *layer = m_view->layer();
        if (!layer)
            return;
        const Geometry geo = geometry(layer->grid);
        const QPointF p = e->position() - geo.origin;
        if (p.x() >= 0 && p.y() >= 0 && p.x() < geo.cell * double(geo.cols) && p.y() < geo.cell * double(geo.rows))
            m_view->brickClicked();
    }

    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().base());
        const BrickTimeline::Layer *layer = m_view->layer();
        if (!layer) {
            p.drawText(rect(), Qt::AlignCenter, tr("no brick tasks in this plan"));
            return;
        }
        const BrickGrid &grid = layer->grid;
        const std::size_t nd = grid.dims().size();
        const Geometry geo = geometry(grid);
        const std::size_t rowDim = geo.rowDim, colDim = geo.colDim;
        const std::int64_t rows = geo.rows, cols = geo.cols;
        const double cell = geo.cell;
        const QPointF origin = geo.origin;
        std::vector<std::int64_t> c(nd, 0);
        for (std::int64_t r = 0; r < rows; ++r)
            for (std::int64_t k = 0; k < cols; ++k) {
                if (nd >= 2)
                    c[rowDim] = r;
                c[colDim] = k;
                const std::int64_t b = grid.logical(c);
                const QRectF box(origin.x() + double(k) * cell, origin.y() + double(r) * cell, cell, cell);
                p.fillRect(box.adjusted(0.5, 0.5, -0.5, -0.5),
                           stateColor(m_view->timeline().stateAt(*layer, b, m_view->time()), layer->strategy));
                p.setPen(QColor(160, 160, 160));
                p.drawRect(box);
            }
        // The running task's tile: the brick, or the padded brick with its halo.
        if (const auto *touch = m_view->timeline().touchAt(*layer, m_view->time())) {
            const auto d = [&](std::size_t i) { return static_cast<std::size_t>(grid.dims()[i]); };
            const double scaleC = cell / double(grid.extent(colDim));
            const double scaleR = nd >= 2 ? cell / double(grid.extent(rowDim)) : cell;
            const auto &cr = touch->region[d(colDim)];
            const ops::Interval rr = nd >= 2 ? touch->region[d(rowDim)] : ops::Interval{0, 1};
            const QRectF tile(origin.x() + double(cr.begin) * scaleC, origin.y() + double(rr.begin) * scaleR,
                              double(cr.size()) * scaleC, double(rr.size()) * scaleR);
            p.setPen(QPen(touch->recompute ? QColor(200, 30, 30) : QColor(40, 40, 40), 2,
                          touch->recompute ? Qt::DashLine : Qt::SolidLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(tile);
        }
    }

private:
    BrickView *m_view;
};

// Brick liveness: on-chip bytes live per task, the layer's share highlighted.
class LiveCanvas final : public QWidget
{
public:
    explicit LiveCanvas(BrickView *view) : QWidget(view), m_view(view) { setMinimumHeight(140); }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().base());
        const BrickTimeline &tl = m_view->timeline();
        const QRectF area(50, 18, width() - 60.0, height() - 36.0);
        p.setPen(palette().text().color());
        if (tl.taskCount == 0 || tl.level.empty()) {
            p.drawText(rect(), Qt::AlignCenter, tr("no on-chip buffers"));
            return;
        }
        const std::int64_t peak = *std::max_element(tl.liveBytes.begin(), tl.liveBytes.end());
        const bool capacityOnScale = tl.capacityBytes > 0 && tl.capacityBytes <= 2 * std::max<std::int64_t>(peak, 1);
        const double top = double(std::max<std::int64_t>(1, capacityOnScale ? tl.capacityBytes : peak)) * 1.1;
        const int columns = std::max(1, int(area.width()));
        const BrickTimeline::Layer *layer = m_view->layer();
        QPainterPath total, mine;
        total.moveTo(area.bottomLeft());
        mine.moveTo(area.bottomLeft());
        for (int x = 0; x < columns; ++x) {
            const auto from = static_cast<std::size_t>(double(x) / columns * double(tl.taskCount));
            const auto to =
                std::max(from + 1, static_cast<std::size_t>(double(x + 1) / columns * double(tl.taskCount)));
            std::int64_t live = 0, own = 0;
            for (std::size_t t = from; t < std::min(to, tl.taskCount); ++t) {
                live = std::max(live, tl.liveBytes[t]);
                if (layer)
                    own = std::max(own, tl.residentAt(*layer, static_cast<TaskId>(t)));
            }
            total.lineTo(area.left() + x, area.bottom() - double(live) / top * area.height());
            mine.lineTo(area.left() + x, area.bottom() - double(own) / top * area.height());
        }
        total.lineTo(area.bottomRight());
        mine.lineTo(area.bottomRight());
        p.fillPath(total, QColor(170, 190, 215));
        p.fillPath(mine, QColor(245, 150, 40, 200));
        p.setPen(palette().text().color());
        p.drawRect(area);
        p.drawText(QPointF(4, area.top() + 10), mib(top / 1.1));
        p.drawText(QPointF(4, area.bottom()), QStringLiteral("0"));
        QString caption = tr("%1 live (peak %2)").arg(QString::fromStdString(tl.level), mib(double(peak)));
        if (tl.capacityBytes > 0) {
            if (capacityOnScale) {
                const double y = area.bottom() - double(tl.capacityBytes) / top * area.height();
                p.setPen(QPen(QColor(200, 30, 30), 1, Qt::DashLine));
                p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
            }
            caption += tr(", capacity %1%2")
                           .arg(mib(double(tl.capacityBytes)), capacityOnScale ? QString() : tr(" (off scale)"));
        }
        p.setPen(palette().text().color());
        p.drawText(QPointF(area.left(), 13), caption);
        const double x = area.left() + (double(m_view->time()) + 0.5) / double(tl.taskCount) * area.width();
        p.setPen(QPen(QColor(40, 40, 40), 1));
        p.drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
        p.drawText(QPointF(area.left(), height() - 4.0),
                   tr("task %1 of %2 (issue order)").arg(m_view->time()).arg(tl.taskCount));
    }

private:
    BrickView *m_view;
};

} // namespace

BrickView::BrickView(QWidget *parent) : QWidget(parent)
{
    auto *top = new QHBoxLayout;
    m_layers = new QComboBox(this);
    m_layers->setObjectName(QStringLiteral("brickdlLayer"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("brickdlTime"));
    top->addWidget(m_layers, 1);
    top->addWidget(m_slider, 2);
    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("brickdlInfo"));
    m_info->setWordWrap(true);
    m_map = new MapCanvas(this);
    m_map->setObjectName(QStringLiteral("brickdlMap"));
    m_live = new LiveCanvas(this);
    auto *col = new QVBoxLayout(this);
    col->addLayout(top);
    col->addWidget(m_info);
    col->addWidget(m_map, 3);
    col->addWidget(m_live, 1);
    connect(m_layers, &QComboBox::currentIndexChanged, this, [this](int i) { setLayer(i); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) { setTime(v); });
}

void BrickView::brickClicked() const
{
    if (const auto *l = layer(); l && m_selectNode)
        m_selectNode(l->node);
}

const BrickTimeline::Layer *BrickView::layer() const
{
    return m_layer >= 0 && m_layer < int(m_timeline.layers.size()) ? &m_timeline.layers[std::size_t(m_layer)] : nullptr;
}

void BrickView::setPlan(std::shared_ptr<const Graph> graph, std::shared_ptr<const ScheduleRun> run,
                        const Device *device)
{
    m_graph = std::move(graph);
    m_run = std::move(run);
    m_timeline = brickTimeline(*m_graph, m_run->result.plan, device);
    const QSignalBlocker block(m_layers), blockSlider(m_slider);
    m_layers->clear();
    for (const auto &l : m_timeline.layers)
        m_layers->addItem(
            QStringLiteral("sub-graph %1 · %2 · %3 · brick %4")
                .arg(l.subgraph)
                .arg(QString::fromStdString(m_graph->node(l.node).name), QString::fromStdString(l.strategy))
                .arg(l.grid.brick()));
    m_slider->setRange(0, std::max(0, int(m_timeline.taskCount) - 1));
    m_layer = m_timeline.layers.empty() ? -1 : 0;
    m_time = 0;
    if (const auto *l = layer(); l && !l->touches.empty())
        m_time = l->touches[l->touches.size() / 2].task; // a moment when this layer is busy
    m_slider->setValue(m_time);
    updateInfo();
}

void BrickView::setTime(TaskId task)
{
    m_time = task;
    if (m_slider->value() != task) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(task);
    }
    updateInfo();
}

void BrickView::setLayer(int index)
{
    m_layer = index;
    if (m_layers->currentIndex() != index) {
        const QSignalBlocker block(m_layers);
        m_layers->setCurrentIndex(index);
    }
    updateInfo();
}

void BrickView::updateInfo()
{
    const BrickTimeline::Layer *l = layer();
    QString text;
    if (l && m_run) {
        double delta = -1, rho = -1;
        const std::string tag = "sub-graph " + std::to_string(l->subgraph);
        for (const TraceStep &s : m_run->trace.steps()) {
            if (s.title.rfind(tag + " ", 0) != 0)
                continue;
            for (const auto &[k, v] : s.numbers) {
                if (k == "delta")
                    delta = v;
                if (k == "rho")
                    rho = v;
            }
        }
        std::int64_t done = 0;
        for (std::int64_t b = 0; b < l->grid.brickCount(); ++b)
            done += m_timeline.stateAt(*l, b, m_time) == BrickState::Complete;
        text = tr("%1 %2: %3 bricks (%4 complete), strategy %5")
                   .arg(QString::fromStdString(m_graph->node(l->node).opType),
                        QString::fromStdString(m_graph->node(l->node).name))
                   .arg(l->grid.brickCount())
                   .arg(done)
                   .arg(QString::fromStdString(l->strategy));
        if (delta >= 0)
            text += tr(", Δ = %1 %").arg(100 * delta, 0, 'f', 1);
        if (rho >= 0)
            text += tr(", ρ = %1").arg(rho, 0, 'f', 1);
        if (const auto *t = m_timeline.touchAt(*l, m_time))
            text += t->recompute ? tr("; running: padded brick with halo") : tr("; running: brick");
    }
    m_info->setText(text);
    m_map->update();
    m_live->update();
}

} // namespace tessera::brickdl
