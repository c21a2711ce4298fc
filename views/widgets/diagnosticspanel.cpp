// DiagnosticsPanel (see diagnosticspanel.h).
#include "views/widgets/diagnosticspanel.h"

#include "views/models/diagnosticsmodel.h"

#include <QHeaderView>
#include <QLabel>
#include <QStackedWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace tessera::views {

DiagnosticsPanel::DiagnosticsPanel(QWidget *parent)
    : QWidget(parent), m_model(new DiagnosticsModel(this)), m_stack(new QStackedWidget(this)),
      m_table(new QTableView(this))
{
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::SeverityColumn, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(DiagnosticsModel::LocationColumn, QHeaderView::Interactive);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(DiagnosticsModel::LocationColumn,
                            m_table->fontMetrics().horizontalAdvance(QLatin1Char('m')) * 12);

    auto *empty = new QLabel(tr("No import warnings."), this);
    empty->setAlignment(Qt::AlignCenter);
    empty->setEnabled(false);
    m_stack->addWidget(empty);
    m_stack->addWidget(m_table);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_stack);

    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex &index) {
        const QString node = index.data(DiagnosticsModel::NodeNameRole).toString();
        if (!node.isEmpty())
            emit nodeRequested(node);
    });
}

void DiagnosticsPanel::setDiagnostics(std::vector<Diagnostic> diagnostics)
{
    m_model->setDiagnostics(std::move(diagnostics));
    m_stack->setCurrentIndex(m_model->rowCount() > 0 ? 1 : 0);
}

int DiagnosticsPanel::count() const
{
    return m_model->rowCount();
}

} // namespace tessera::views
