// RunComparisonModel (see runcomparisonmodel.h).
#include "views/models/runcomparisonmodel.h"

#include "core/sched/scheduler.h"

#include <algorithm>

namespace tessera::views {

RunComparisonModel::RunComparisonModel(QObject *parent) : QAbstractTableModel(parent) {}

void RunComparisonModel::setRun(int side, std::shared_ptr<const ScheduleRun> run, QString title, Measurement measured)
{
    Q_ASSERT(side == 0 || side == 1);
    beginResetModel();
    Side &s = m_sides[side];
    s.summary.reset();
    if (run)
        s.summary = summarizeRun(*run, measured);
    s.run = std::move(run);
    s.title = std::move(title);
    rebuild();
    endResetModel();
}

void RunComparisonModel::setRuns(std::shared_ptr<const ScheduleRun> first, QString firstTitle,
                                 std::shared_ptr<const ScheduleRun> second, QString secondTitle,
                                 Measurement firstMeasured, Measurement secondMeasured)
{
    beginResetModel();
    for (int side : {0, 1}) {
        Side &s = m_sides[side];
        s.run = side == 0 ? std::move(first) : std::move(second);
        s.title = side == 0 ? std::move(firstTitle) : std::move(secondTitle);
        s.summary.reset();
        if (s.run)
            s.summary = summarizeRun(*s.run, side == 0 ? firstMeasured : secondMeasured);
    }
    rebuild();
    endResetModel();
}

void RunComparisonModel::rebuild()
{
    m_rows.clear();
    const auto indexIn = [this](int side, const QString &key) {
        const auto &summary = m_sides[side].summary;
        if (!summary)
            return -1;
        const SummaryRow *r = summary->find(key);
        return r ? static_cast<int>(r - summary->rows.data()) : -1;
    };
    // The first side's rows in order, then the second's that it lacks; then
    // grouped by section (stable, so each section keeps that order).
    for (int side : {0, 1}) {
        if (!m_sides[side].summary)
            continue;
        for (const SummaryRow &r : m_sides[side].summary->rows)
            if (side == 0 || indexIn(0, r.key) < 0)
                m_rows.push_back({&r, {indexIn(0, r.key), indexIn(1, r.key)}});
    }
    std::stable_sort(m_rows.begin(), m_rows.end(),
                     [](const Row &a, const Row &b) { return a.meta->section < b.meta->section; });
}

const SummaryRow *RunComparisonModel::cell(int row, int side) const
{
    const int i = m_rows[static_cast<std::size_t>(row)].index[side];
    return i < 0 ? nullptr : &m_sides[side].summary->rows[static_cast<std::size_t>(i)];
}

int RunComparisonModel::rowOfKey(const QString &key) const
{
    auto it = std::find_if(m_rows.begin(), m_rows.end(), [&](const Row &r) { return r.meta->key == key; });
    return it == m_rows.end() ? -1 : static_cast<int>(it - m_rows.begin());
}

double RunComparisonModel::value(int row, int side) const
{
    const SummaryRow *c = cell(row, side);
    return c ? c->value : std::nan("");
}

int RunComparisonModel::winner(int row) const
{
    const int c = compareValues(value(row, 0), value(row, 1), m_rows[static_cast<std::size_t>(row)].meta->better);
    return c < 0 ? 0 : c > 0 ? 1 : -1;
}

int RunComparisonModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunComparisonModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunComparisonModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const int row = index.row();
    const SummaryRow &meta = *m_rows[static_cast<std::size_t>(row)].meta;
    const int side = index.column() == FirstColumn ? 0 : index.column() == SecondColumn ? 1 : -1;
    switch (role) {
    case KeyRole: return meta.key;
    case SectionRole: return static_cast<int>(meta.section);
    case ValueRole: return side < 0 ? QVariant() : QVariant(value(row, side));
    case BetterRole: return side < 0 ? QVariant() : QVariant(winner(row) == side);
    case Qt::TextAlignmentRole:
        return index.column() == MetricColumn ? QVariant() : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DisplayRole:
        if (index.column() == MetricColumn)
            return meta.label;
        if (side >= 0) {
            const SummaryRow *c = cell(row, side);
            return c ? c->text : QStringLiteral("—");
        }
        {
            const SummaryRow *ca = cell(row, 0), *cb = cell(row, 1);
            if (!ca || !cb)
                return QStringLiteral("—");
            const double a = ca->value, b = cb->value;
            if (std::isnan(a) || std::isnan(b) || a == 0)
                return ca->text == cb->text ? QStringLiteral("=") : QStringLiteral("≠");
            if (nearlyEqual(a, b))
                return QStringLiteral("=");
            const double pct = (b - a) / std::fabs(a) * 100;
            return (pct > 0 ? QStringLiteral("+") : QString()) + QString::number(pct, 'f', 1) + QStringLiteral(" %");
        }
    }
    return {};
}

QVariant RunComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::TextAlignmentRole)
        return section == MetricColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                       : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (section) {
    case MetricColumn: return QStringLiteral("Metric");
    case FirstColumn:
    case SecondColumn: {
        const Side &s = m_sides[section - FirstColumn];
        if (role == Qt::ToolTipRole && s.summary)
            return QStringLiteral("%1 on %2").arg(s.summary->algorithm, s.summary->device);
        return s.title.isEmpty() ? (section == FirstColumn ? QStringLiteral("A") : QStringLiteral("B")) : s.title;
    }
    case ChangeColumn:
        return role == Qt::ToolTipRole ? QStringLiteral("the second run relative to the first")
                                       : QStringLiteral("Change");
    }
    return {};
}

} // namespace tessera::views
