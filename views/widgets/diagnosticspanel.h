// DiagnosticsPanel: the Diagnostics dock — the import's warnings and notes
// (e.g. opaque ops) in a table; double-clicking a row that names a node asks
// for that node to be shown.
#pragma once

#include "core/support/status.h"

#include <QWidget>

#include <vector>

class QStackedWidget;
class QTableView;

namespace tessera::views {

class DiagnosticsModel;

class DiagnosticsPanel final : public QWidget
{
    Q_OBJECT
public:
    explicit DiagnosticsPanel(QWidget *parent = nullptr);

    void setDiagnostics(std::vector<Diagnostic> diagnostics);
    DiagnosticsModel *model() const { return m_model; }
    int count() const;

signals:
    void nodeRequested(const QString &nodeName);

private:
    DiagnosticsModel *m_model;
    QStackedWidget *m_stack;
    QTableView *m_table;
};

} // namespace tessera::views
