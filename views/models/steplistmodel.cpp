// StepListModel (see steplistmodel.h).
#include "views/models/steplistmodel.h"

#include "core/sched/scheduler.h"
#include "views/models/plansummary.h" // formatMs

#include <QList>

#include <algorithm>

namespace tessera::views {

namespace {
QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}
} // namespace

StepListModel::StepListModel(QObject *parent) : QAbstractTableModel(parent) {}

void StepListModel::setRun(std::shared_ptr<const ScheduleRun> run)
{
    beginResetModel();
    m_run = std::move(run);
    m_decisionRows.clear();
    if (m_run)
        for (const TraceStep &s : m_run->trace.steps())
            if (s.decision >= 0)
                m_decisionRows.push_back(s.index);
    endResetModel();
}

const TraceStep *StepListModel::step(int row) const
{
    if (!m_run || row < 0 || row >= rowCount())
        return nullptr;
    return &m_run->trace.steps()[static_cast<std::size_t>(row)];
}

const DecisionRecord *StepListModel::decision(int row) const
{
    const TraceStep *s = step(row);
    if (!s || s->decision < 0)
        return nullptr;
    const auto &records = m_run->decisions.records();
    return static_cast<std::size_t>(s->decision) < records.size() ? &records[static_cast<std::size_t>(s->decision)]
                                                                  : nullptr;
}

std::vector<NodeId> StepListModel::touched(int row) const
{
    const TraceStep *s = step(row);
    return s ? s->touched : std::vector<NodeId>{};
}

int StepListModel::nextDecision(int row) const
{
    auto it = std::upper_bound(m_decisionRows.begin(), m_decisionRows.end(), row);
    return it == m_decisionRows.end() ? -1 : *it;
}

int StepListModel::previousDecision(int row) const
{
    auto it = std::lower_bound(m_decisionRows.begin(), m_decisionRows.end(), row);
    return it == m_decisionRows.begin() ? -1 : *std::prev(it);
}

int StepListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() || !m_run ? 0 : static_cast<int>(m_run->trace.size());
}

int StepListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant StepListModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const TraceStep &s = *step(index.row());
    const DecisionRecord *d = decision(index.row());
    switch (role) {
    case TouchedNodesRole: return QVariant::fromValue(QList<int>(s.touched.begin(), s.touched.end()));
    case DecisionIndexRole: return s.decision;
    case OverriddenRole: return d && d->overridden;
    case Qt::TextAlignmentRole:
        return index.column() == IndexColumn || index.column() == ElapsedColumn
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == DecisionColumn && d) {
            const auto label = [&](std::int32_t i) { return qs(d->options[static_cast<std::size_t>(i)].label); };
            QString tip = QStringLiteral("%1\nkey: %2\nused: %3%4")
                              .arg(qs(d->role), qs(d->key), label(d->chosen),
                                   d->overridden ? QStringLiteral(" (override)") : QString());
            if (d->chosen != d->preferred)
                tip += QStringLiteral("\nscheduler preferred: ") + label(d->preferred);
            return tip;
        }
        if (index.column() == TitleColumn || index.column() == ConclusionColumn)
            return qs(s.why.empty() ? s.conclusion : s.conclusion + " — " + s.why);
        return {};
    case Qt::DisplayRole:
        switch (index.column()) {
        case IndexColumn: return s.index;
        case PhaseColumn: return qs(s.phase);
        case TitleColumn: return qs(s.title);
        case ConclusionColumn: return qs(s.conclusion);
        case DecisionColumn:
            if (!d)
                return {};
            return (d->overridden ? QStringLiteral("✎ ") : QStringLiteral("◆ ")) +
                   qs(d->options[static_cast<std::size_t>(d->chosen)].id);
        case ElapsedColumn: return formatMs(s.elapsedMs); // the one helper: "21.00 µs", "1.204 ms"
        }
    }
    return {};
}

QVariant StepListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == ElapsedColumn)
        return QStringLiteral("time since the run started");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case IndexColumn: return QStringLiteral("#");
    case PhaseColumn: return QStringLiteral("Phase");
    case TitleColumn: return QStringLiteral("Step");
    case ConclusionColumn: return QStringLiteral("Conclusion");
    case DecisionColumn: return QStringLiteral("Decision");
    case ElapsedColumn: return QStringLiteral("Time");
    }
    return {};
}

} // namespace tessera::views
