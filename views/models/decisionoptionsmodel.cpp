// DecisionOptionsModel (see decisionoptionsmodel.h).
#include "views/models/decisionoptionsmodel.h"

#include "core/sched/scheduler.h"
#include "views/models/format.h"

#include <cmath>

namespace tessera::views {

DecisionOptionsModel::DecisionOptionsModel(QObject *parent) : QAbstractTableModel(parent) {}

void DecisionOptionsModel::setDecision(std::shared_ptr<const ScheduleRun> run, int index)
{
    beginResetModel();
    const bool valid = run && index >= 0 && static_cast<std::size_t>(index) < run->decisions.records().size();
    m_run = valid ? std::move(run) : nullptr;
    m_index = valid ? index : -1;
    endResetModel();
}

const DecisionRecord *DecisionOptionsModel::record() const
{
    return m_run ? &m_run->decisions.records()[static_cast<std::size_t>(m_index)] : nullptr;
}

const DecisionOption *DecisionOptionsModel::option(int row) const
{
    const DecisionRecord *r = record();
    if (!r || row < 0 || static_cast<std::size_t>(row) >= r->options.size())
        return nullptr;
    return &r->options[static_cast<std::size_t>(row)];
}

int DecisionOptionsModel::rowOfOption(const QString &id) const
{
    for (int row = 0; row < rowCount(); ++row)
        if (QString::fromStdString(option(row)->id) == id)
            return row;
    return -1;
}

int DecisionOptionsModel::rowCount(const QModelIndex &parent) const
{
    const DecisionRecord *r = record();
    return parent.isValid() || !r ? 0 : static_cast<int>(r->options.size());
}

int DecisionOptionsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

Qt::ItemFlags DecisionOptionsModel::flags(const QModelIndex &index) const
{
    // Views ask for the root's flags too: not a misuse, so no checkIndex warning.
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    return option(index.row())->legal() ? Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren
                                        : Qt::ItemNeverHasChildren;
}

QVariant DecisionOptionsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const DecisionRecord &r = *record();
    const DecisionOption &o = *option(index.row());
    const bool preferred = index.row() == r.preferred;
    const bool chosen = index.row() == r.chosen;
    switch (role) {
    case OptionIdRole: return QString::fromStdString(o.id);
    case LegalRole: return o.legal();
    case PreferredRole: return preferred;
    case ChosenRole: return chosen;
    case OverriddenRole: return chosen && r.overridden;
    case Qt::TextAlignmentRole:
        return index.column() == CostColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("id: %1").arg(QString::fromStdString(o.id));
        if (!o.detail.empty())
            tip += QLatin1Char('\n') + QString::fromStdString(o.detail);
        if (!o.legal())
            tip += QStringLiteral("\nillegal: ") + QString::fromStdString(o.illegalReason);
        if (preferred)
            tip += QStringLiteral("\n★ the scheduler's preferred option");
        if (chosen)
            tip += r.overridden ? QStringLiteral("\n✎ used, forced by an override") : QStringLiteral("\n✓ used");
        return tip;
    }
    case Qt::DisplayRole:
        switch (index.column()) {
        case MarkColumn:
            return QString(preferred ? QStringLiteral("★") : QString()) +
                   (chosen ? (r.overridden ? QStringLiteral("✎") : QStringLiteral("✓")) : QString());
        case LabelColumn: return QString::fromStdString(o.label);
        case CostColumn: return std::isnan(o.cost) ? QString() : formatRatio(o.cost);
        case DetailColumn: return QString::fromStdString(o.detail);
        case StatusColumn:
            return o.legal() ? QStringLiteral("legal")
                             : QStringLiteral("illegal: ") + QString::fromStdString(o.illegalReason);
        }
    }
    return {};
}

QVariant DecisionOptionsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::ToolTipRole && section == MarkColumn)
        return QStringLiteral("★ preferred by the scheduler · ✓ used · ✎ used because of an override");
    if (role != Qt::DisplayRole)
        return {};
    switch (section) {
    case MarkColumn: return QString();
    case LabelColumn: return QStringLiteral("Option");
    case CostColumn: return QStringLiteral("Cost");
    case DetailColumn: return QStringLiteral("Detail");
    case StatusColumn: return QStringLiteral("Status");
    }
    return {};
}

} // namespace tessera::views
