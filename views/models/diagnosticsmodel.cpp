// DiagnosticsModel (see diagnosticsmodel.h).
#include "views/models/diagnosticsmodel.h"

#include <algorithm>

namespace tessera::views {

DiagnosticsModel::DiagnosticsModel(QObject *parent) : QAbstractTableModel(parent) {}

void DiagnosticsModel::setDiagnostics(std::vector<Diagnostic> diagnostics)
{
    beginResetModel();
    m_items = std::move(diagnostics);
    endResetModel();
}

int DiagnosticsModel::count(Severity severity) const
{
    return static_cast<int>(std::count_if(m_items.begin(), m_items.end(),
                                          [severity](const Diagnostic &d) { return d.severity == severity; }));
}

int DiagnosticsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_items.size());
}

int DiagnosticsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiagnosticsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Diagnostic &d = m_items[static_cast<std::size_t>(index.row())];
    switch (role) {
    case SeverityRole: return static_cast<int>(d.severity);
    case NodeNameRole: return QString::fromStdString(d.location.node);
    case Qt::ToolTipRole: return QString::fromStdString(d.str());
    case Qt::DisplayRole:
        switch (index.column()) {
        case SeverityColumn:
            return d.severity == Severity::Error     ? QStringLiteral("error")
                   : d.severity == Severity::Warning ? QStringLiteral("warning")
                                                     : QStringLiteral("note");
        case LocationColumn: {
            // The file is the open model: show only node and tensor.
            Location where = d.location;
            where.file.clear();
            return QString::fromStdString(where.str());
        }
        case MessageColumn: return QString::fromStdString(d.message);
        }
    }
    return {};
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case SeverityColumn: return QStringLiteral("Severity");
    case LocationColumn: return QStringLiteral("Location");
    case MessageColumn: return QStringLiteral("Message");
    }
    return {};
}

} // namespace tessera::views
