// DecisionOverridesModel (see decisionoverridesmodel.h).
#include "views/models/decisionoverridesmodel.h"

#include <algorithm>

namespace tessera::views {

DecisionOverridesModel::DecisionOverridesModel(QObject *parent) : QAbstractTableModel(parent) {}

void DecisionOverridesModel::setReports(std::vector<OverrideReport> reports)
{
    beginResetModel();
    m_reports = std::move(reports);
    endResetModel();
}

int DecisionOverridesModel::count(OverrideReport::Outcome outcome) const
{
    return static_cast<int>(std::count_if(m_reports.begin(), m_reports.end(),
                                          [outcome](const OverrideReport &r) { return r.outcome == outcome; }));
}

int DecisionOverridesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_reports.size());
}

int DecisionOverridesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DecisionOverridesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const OverrideReport &r = m_reports[static_cast<std::size_t>(index.row())];
    switch (role) {
    case OutcomeRole: return static_cast<int>(r.outcome);
    case KeyRole: return QString::fromStdString(r.key);
    case Qt::ToolTipRole:
        return QString::fromStdString(r.key + " → " + r.optionId + (r.reason.empty() ? "" : "\n" + r.reason));
    case Qt::DisplayRole:
        switch (index.column()) {
        case OutcomeColumn: return QString::fromUtf8(outcomeName(r.outcome));
        case KeyColumn: return QString::fromStdString(r.key);
        case OptionColumn: return QString::fromStdString(r.optionId);
        case ReasonColumn: return QString::fromStdString(r.reason);
        }
    }
    return {};
}

QVariant DecisionOverridesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case OutcomeColumn: return QStringLiteral("Outcome");
    case KeyColumn: return QStringLiteral("Decision");
    case OptionColumn: return QStringLiteral("Option");
    case ReasonColumn: return QStringLiteral("Reason");
    }
    return {};
}

} // namespace tessera::views
