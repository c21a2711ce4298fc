// DiagnosticsModel: the import's warnings and notes for the Diagnostics dock,
// one row per Diagnostic (severity, location, message), in report order.
// Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include "core/support/status.h"

#include <QAbstractTableModel>

#include <vector>

namespace tessera::views {

class DiagnosticsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { SeverityColumn, LocationColumn, MessageColumn, ColumnCount };
    static constexpr int SeverityRole = Qt::UserRole + 1; // int(Severity)
    static constexpr int NodeNameRole = Qt::UserRole + 2; // location.node, for "go to node"

    explicit DiagnosticsModel(QObject *parent = nullptr);

    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    const std::vector<Diagnostic> &diagnostics() const { return m_items; }
    int count(Severity severity) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<Diagnostic> m_items;
};

} // namespace tessera::views
