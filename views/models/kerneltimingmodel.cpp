// KernelTimingModel (see kerneltimingmodel.h).
#include "views/models/kerneltimingmodel.h"

#include "views/models/format.h"
#include "views/models/plansummary.h"

#include <algorithm>
#include <cmath>

namespace tessera::views {

KernelTimingModel::KernelTimingModel(QObject *parent) : QAbstractTableModel(parent) {}

void KernelTimingModel::setPlan(std::shared_ptr<const ExecutionPlan> plan)
{
    if (plan == m_plan)
        return;
    beginResetModel();
    m_plan = std::move(plan);
    m_rows.clear();
    m_rowOf.clear();
    m_runs = 0;
    endResetModel();
}

void KernelTimingModel::setRun(const RunResult &soFar)
{
    if (!m_plan)
        return;
    // A task's span: from its first entry's start to its last entry's end (a
    // backend may record a task on several lanes), in order of first finishing.
    std::vector<TaskId> order;
    std::map<TaskId, std::pair<double, double>> span;
    for (const TaskTiming &t : soFar.timeline) {
        if (t.task < 0 || static_cast<std::size_t>(t.task) >= m_plan->tasks.size() ||
            m_plan->tasks[static_cast<std::size_t>(t.task)].kind != TaskKind::Compute)
            continue;
        auto [it, inserted] = span.try_emplace(t.task, t.startNs, t.endNs);
        if (inserted)
            order.push_back(t.task);
        it->second = {std::min(it->second.first, t.startNs), std::max(it->second.second, t.endNs)};
    }
    std::vector<Row> added;
    int firstChanged = -1, lastChanged = -1;
    for (TaskId task : order) {
        const double ns = std::max(0.0, span[task].second - span[task].first);
        if (auto it = m_rowOf.find(task); it != m_rowOf.end()) {
            Row &row = m_rows[static_cast<std::size_t>(it->second)];
            if (row.current == ns)
                continue;
            row.current = ns;
            firstChanged = firstChanged < 0 ? it->second : std::min(firstChanged, it->second);
            lastChanged = std::max(lastChanged, it->second);
            continue;
        }
        m_rowOf[task] = static_cast<int>(m_rows.size() + added.size());
        added.push_back({task, {}, ns});
    }
    if (firstChanged >= 0)
        emit dataChanged(index(firstChanged, MeasuredColumn), index(lastChanged, RatioColumn));
    if (added.empty())
        return;
    const int first = static_cast<int>(m_rows.size());
    beginInsertRows({}, first, first + static_cast<int>(added.size()) - 1);
    m_rows.insert(m_rows.end(), std::make_move_iterator(added.begin()), std::make_move_iterator(added.end()));
    endInsertRows();
}

void KernelTimingModel::commitRun()
{
    bool any = false;
    for (Row &row : m_rows)
        if (row.current >= 0) {
            row.samples.push_back(row.current);
            row.current = -1;
            any = true;
        }
    if (any) {
        ++m_runs;
        if (!m_rows.empty())
            emit dataChanged(index(0, MeasuredColumn), index(rowCount() - 1, RatioColumn));
    }
}

void KernelTimingModel::dropRun()
{
    // Rows that only the dropped run had go; the others show their samples again.
    if (std::none_of(m_rows.begin(), m_rows.end(), [](const Row &r) { return r.current >= 0; }))
        return;
    std::vector<Row> kept;
    for (Row &row : m_rows) {
        row.current = -1;
        if (!row.samples.empty())
            kept.push_back(std::move(row));
    }
    beginResetModel();
    m_rows = std::move(kept);
    m_rowOf.clear();
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        m_rowOf[m_rows[i].task] = static_cast<int>(i);
    endResetModel();
}

int KernelTimingModel::rowOfTask(TaskId task) const
{
    const auto it = m_rowOf.find(task);
    return it == m_rowOf.end() ? -1 : it->second;
}

double KernelTimingModel::measuredNs(const Row &row) const
{
    std::vector<double> all = row.samples;
    if (row.current >= 0)
        all.push_back(row.current);
    if (all.empty())
        return std::nan("");
    std::sort(all.begin(), all.end());
    const std::size_t n = all.size();
    return n % 2 ? all[n / 2] : (all[n / 2 - 1] + all[n / 2]) / 2;
}

double KernelTimingModel::predictedNs(const Row &row) const
{
    return m_plan->tasks[static_cast<std::size_t>(row.task)].cost.timeNs;
}

int KernelTimingModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int KernelTimingModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelTimingModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const Row &row = m_rows[static_cast<std::size_t>(index.row())];
    const Task &task = m_plan->tasks[static_cast<std::size_t>(row.task)];
    const double predicted = predictedNs(row);
    const double measured = measuredNs(row);
    const int runs = static_cast<int>(row.samples.size()) + (row.current >= 0 ? 1 : 0);
    const double ratio = predicted > 0 && !std::isnan(measured) ? measured / predicted : std::nan("");
    if (role == TaskRole)
        return static_cast<int>(row.task);
    if (role == ValueRole) {
        switch (index.column()) {
        case PredictedColumn: return predicted;
        case MeasuredColumn: return measured;
        case RunsColumn: return static_cast<double>(runs);
        case RatioColumn: return ratio;
        default: return {};
        }
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == KernelColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == PredictedColumn)
        return tr("%1 by the schedule's cost source; %2")
            .arg(QString::fromUtf8(costKindName(task.cost.kind).data()),
                 QString::fromStdString(costPartsText(task.cost)));
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case KernelColumn: {
        if (!task.label.empty())
            return QString::fromStdString(task.label);
        if (task.kernel >= 0 && static_cast<std::size_t>(task.kernel) < m_plan->kernels.size())
            return QString::fromStdString(m_plan->kernels[static_cast<std::size_t>(task.kernel)].name);
        return tr("task %1").arg(row.task);
    }
    case PredictedColumn:
        return task.cost.kind == CostKind::Estimated
                   ? formatDurationNs(predicted)
                   : QStringLiteral("%1 (%2)").arg(formatDurationNs(predicted),
                                                   QString::fromUtf8(costKindName(task.cost.kind).data()));
    case MeasuredColumn: return std::isnan(measured) ? QString() : formatDurationNs(measured);
    case RunsColumn: return runs;
    case RatioColumn: return std::isnan(ratio) ? QString() : QStringLiteral("%1×").arg(formatRatio(ratio));
    default: return {};
    }
}

QVariant KernelTimingModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case KernelColumn: return tr("Kernel");
    case PredictedColumn: return tr("Predicted");
    case MeasuredColumn: return tr("Measured (median)");
    case RunsColumn: return tr("Runs");
    case RatioColumn: return tr("Ratio");
    default: return {};
    }
}

} // namespace tessera::views
