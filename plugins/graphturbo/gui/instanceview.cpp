#include "plugins/graphturbo/gui/instanceview.h"

#include "core/support/units.h"

#include <QColor>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QSplitter>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace tessera::graphturbo {

namespace {

std::string fastestLevel(const Device *device)
{
    return device && !device->levels.empty() ? device->levels.front().name : std::string("L1");
}

// A task's first and last use of every buffer.
std::vector<std::pair<TaskId, TaskId>> bufferLiveness(const ExecutionPlan &plan)
{
    std::vector<std::pair<TaskId, TaskId>> live(plan.buffers.size(), {-1, -1});
    for (const Task &t : plan.tasks)
        for (const auto *list : {&t.reads, &t.writes})
            for (BufferId b : *list) {
                if (b < 0 || static_cast<std::size_t>(b) >= live.size())
                    continue;
                auto &[first, last] = live[static_cast<std::size_t>(b)];
                if (first < 0)
                    first = t.id;
                last = std::max(last, t.id);
            }
    return live;
}

QColor stageColor(std::int32_t stage)
{
    if (stage < 0)
        return QColor(150, 150, 150);
    return QColor::fromHsvF(std::fmod(0.08 + 0.618034 * stage, 1.0), 0.55, 0.85);
}

// The one formatting helper (core/support/units.h), as every view.
QString bytesText(double b)
{
    return QString::fromStdString(units::bytes(b));
}

// "c0: 0-7"; unbound parts as "–".
QString coresText(const Binding &b)
{
    const QString cluster = b.cluster >= 0 ? QStringLiteral("c%1: ").arg(b.cluster) : QString();
    if (b.core < 0)
        return cluster + QStringLiteral("–");
    return cluster + QStringLiteral("%1-%2").arg(b.core).arg(b.core + b.coreCount - 1);
}

} // namespace

Occupancy lbOccupancy(const ExecutionPlan &plan, const Device *device)
{
    Occupancy o;
    o.level = fastestLevel(device);
    if (device && !device->levels.empty())
        o.capacity = device->levels.front().capacityBytes;
    const auto live = bufferLiveness(plan);
    // Bytes alive per task at the level's instance 0 (core 0 for per-core levels).
    std::vector<std::int64_t> delta(plan.tasks.size() + 1, 0);
    for (const Buffer &b : plan.buffers) {
        if (b.level != o.level || b.scopeIndex > 0)
            continue;
        const auto [first, last] = live[static_cast<std::size_t>(b.id)];
        if (first < 0)
            continue;
        delta[static_cast<std::size_t>(first)] += b.bytes;
        delta[static_cast<std::size_t>(last) + 1] -= b.bytes;
    }
    std::int64_t running = 0;
    for (const Task &t : plan.tasks) {
        running += delta[static_cast<std::size_t>(t.id)];
        if (t.kind == TaskKind::Compute && t.binding.cluster <= 0)
            o.columns.push_back({t.id, t.stage, running});
    }
    return o;
}

std::vector<std::pair<std::string, int>> scopeCounts(const ExecutionPlan &plan, const Device *device)
{
    std::map<std::string, int> counts;
    std::set<std::pair<TensorId, std::string>> seen; // a slice split over cores counts once
    for (const Task &t : plan.tasks) {
        if (t.kind != TaskKind::Compute)
            continue;
        for (BufferId b : t.writes) {
            const Buffer &buf = plan.buffers[static_cast<std::size_t>(b)];
            if (buf.tensor == kInvalidId)
                continue;
            if (seen.insert({buf.tensor, buf.level + "#" + std::to_string(t.id)}).second)
                ++counts[buf.level];
        }
    }
    std::vector<std::pair<std::string, int>> out;
    if (device)
        for (const MemoryLevel &l : device->levels)
            out.push_back({l.name, counts.count(l.name) ? counts[l.name] : 0});
    else
        out.assign(counts.begin(), counts.end());
    return out;
}

class OccupancyChart final : public QWidget
{
public:
    explicit OccupancyChart(QWidget *parent) : QWidget(parent) { setMinimumHeight(140); }
    void setOccupancy(Occupancy o)
    {
        m_occ = std::move(o);
        update();
    }

protected:
    void paintEvent(QPaintEvent *) override
    {
        QPainter p(this);
        p.fillRect(rect(), palette().base());
        const QRectF area = QRectF(rect()).adjusted(56, 22, -10, -18);
        p.setPen(palette().text().color());
        p.drawText(QRectF(rect()).adjusted(8, 2, -8, 0), Qt::AlignLeft | Qt::AlignTop,
                   QStringLiteral("%1 occupancy of core 0 (cluster 0) per compute task (Fig. 3b)")
                       .arg(QString::fromStdString(m_occ.level)));
        if (m_occ.columns.empty()) {
            p.drawText(area, Qt::AlignCenter, QStringLiteral("no compute tasks"));
            return;
        }
        std::int64_t top = m_occ.capacity;
        for (const OccupancyColumn &c : m_occ.columns)
            top = std::max(top, c.bytes);
        top = std::max<std::int64_t>(top, 1);
        const double w = area.width() / double(m_occ.columns.size());
        for (std::size_t i = 0; i < m_occ.columns.size(); ++i) {
            const OccupancyColumn &c = m_occ.columns[i];
            const double h = area.height() * double(c.bytes) / double(top);
            const QRectF bar(area.left() + w * double(i), area.bottom() - h, std::max(1.0, w - 1.0), h);
            p.fillRect(bar, stageColor(c.stage));
        }
        p.setPen(QPen(palette().text().color(), 1));
        p.drawLine(area.bottomLeft(), area.bottomRight());
        p.drawLine(area.bottomLeft(), area.topLeft());
        p.drawText(QRectF(0, area.top() - 6, 52, 14), Qt::AlignRight, bytesText(double(top)));
        p.drawText(QRectF(0, area.bottom() - 8, 52, 14), Qt::AlignRight, QStringLiteral("0"));
        p.drawText(QRectF(area.left(), area.bottom() + 2, area.width(), 14), Qt::AlignCenter,
                   QStringLiteral("%1 compute tasks in schedule order").arg(m_occ.columns.size()));
        if (m_occ.capacity > 0) {
            const double y = area.bottom() - area.height() * double(m_occ.capacity) / double(top);
            p.setPen(QPen(QColor(200, 40, 40), 1.5, Qt::DashLine));
            p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y));
            p.drawText(QRectF(area.left() + 4, y - 15, area.width() - 8, 14), Qt::AlignRight,
                       QStringLiteral("capacity %1").arg(bytesText(double(m_occ.capacity))));
        }
    }

private:
    Occupancy m_occ;
};

InstanceView::InstanceView(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto *split = new QSplitter(Qt::Vertical, this);
    m_chart = new OccupancyChart(split);
    m_table = new QTableView(split);
    m_model = new QStandardItemModel(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split);
    m_footer = new QLabel(this);
    m_footer->setContentsMargins(6, 2, 6, 4);
    layout->addWidget(m_footer);
    clear();
}

void InstanceView::clear()
{
    m_model->clear();
    m_model->setHorizontalHeaderLabels({QStringLiteral("#"), QStringLiteral("Instance"), QStringLiteral("Sub-graph"),
                                        QStringLiteral("Slice"), QStringLiteral("Output in"), QStringLiteral("Cores"),
                                        QStringLiteral("Est. time")});
    m_chart->setOccupancy({});
    m_footer->setText(QStringLiteral("no plan"));
}

void InstanceView::setPlan(const ExecutionPlan &plan, const Device *device)
{
    clear();
    m_chart->setOccupancy(lbOccupancy(plan, device));
    int row = 0;
    for (const Task &t : plan.tasks) {
        if (t.kind != TaskKind::Compute)
            continue;
        const Kernel &k = plan.kernels[static_cast<std::size_t>(t.kernel)];
        std::string level;
        for (BufferId b : t.writes)
            if (plan.buffers[static_cast<std::size_t>(b)].tensor != kInvalidId) {
                level = plan.buffers[static_cast<std::size_t>(b)].level;
                break;
            }
        std::string slice = "whole";
        if (!t.tiles.empty()) {
            slice = "[";
            for (std::size_t d = 0; d < t.tiles.front().region.size(); ++d) {
                const auto &iv = t.tiles.front().region[d];
                slice += (d ? "," : "") + std::to_string(iv.begin) + ":" + std::to_string(iv.end);
            }
            slice += "]";
        }
        const std::string name = t.label.substr(0, t.label.find(' '));
        QList<QStandardItem *> items{new QStandardItem(QString::number(++row)),
                                     new QStandardItem(QString::fromStdString(name)),
                                     new QStandardItem(QString::fromStdString(k.name)),
                                     new QStandardItem(QString::fromStdString(slice)),
                                     new QStandardItem(QString::fromStdString(level)),
                                     new QStandardItem(coresText(t.binding)),
                                     new QStandardItem(QString::fromStdString(units::durationNs(t.cost.timeNs)))};
        items[1]->setData(stageColor(t.stage), Qt::DecorationRole);
        items[1]->setData(QString::fromStdString(t.label), Qt::ToolTipRole);
        m_model->appendRow(items);
    }
    m_table->resizeColumnsToContents();
    QStringList counts;
    for (const auto &[level, n] : scopeCounts(plan, device))
        counts << QStringLiteral("%1: %2").arg(QString::fromStdString(level)).arg(n);
    m_footer->setText(QStringLiteral("Instance outputs per level (Table 3): ") + counts.join(QStringLiteral(", ")));
}

} // namespace tessera::graphturbo
