// SummaryWidget (see summarywidget.h).
#include "views/widgets/summarywidget.h"

#include "core/ir/analysis.h"
#include "core/support/threadpriority.h"
#include "views/models/modelsummary.h"
#include "views/models/ophistogrammodel.h"
#include "views/models/propertymodel.h"
#include "views/models/workbenchstate.h"
#include "views/models/workerpool.h"
#include "views/widgets/propertyview.h"

#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace tessera::views {

SummaryWidget::SummaryWidget(QWidget *parent)
    : QWidget(parent), m_summary(new PropertyModel(this)), m_histogram(new OpHistogramModel(this)),
      m_summaryView(new PropertyView(this)), m_histogramView(new QTableView(this))
{
    m_summaryView->setPropertyModel(m_summary);

    auto *sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(m_histogram);
    sorted->setSortRole(OpHistogramModel::SortRole);
    m_histogramView->setModel(sorted);
    m_histogramView->setSortingEnabled(true);
    m_histogramView->sortByColumn(OpHistogramModel::CountColumn, Qt::DescendingOrder);
    m_histogramView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_histogramView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_histogramView->setAlternatingRowColors(true);
    m_histogramView->setShowGrid(false);
    m_histogramView->verticalHeader()->hide();
    m_histogramView->verticalHeader()->setDefaultSectionSize(m_histogramView->fontMetrics().height() + 6);
    auto *header = m_histogramView->horizontalHeader();
    header->setSectionResizeMode(QHeaderView::ResizeToContents);
    header->setSectionResizeMode(OpHistogramModel::OpColumn, QHeaderView::Stretch);

    auto *splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_summaryView);
    splitter->addWidget(m_histogramView);
    splitter->setStretchFactor(0, 2); // the summary has ~25 rows, the histogram usually ~10
    splitter->setStretchFactor(1, 1);
    splitter->setSizes({400, 200});
    splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);
}

SummaryWidget::~SummaryWidget() = default; // a running width job holds its own graph and is left to finish

void SummaryWidget::setState(WorkbenchState *state)
{
    connect(state, &WorkbenchState::modelChanged, this, [this, state] { setModelData(state->model()); });
}

void SummaryWidget::setModelData(std::shared_ptr<const ModelData> data)
{
    if (m_watcher) { // drop the previous model's width: its result is stale
        m_watcher->disconnect(this);
        m_watcher->deleteLater();
        m_watcher = nullptr;
    }
    m_data = std::move(data);
    m_dagWidth = -1;
    m_histogram->setModelData(m_data.get());
    refresh();
    if (!m_data || m_data->graph->nodeCount() > kDagWidthNodeLimit)
        return;

    m_watcher = new QFutureWatcher<std::int64_t>(this);
    connect(m_watcher, &QFutureWatcher<std::int64_t>::finished, this, [this, watcher = m_watcher] {
        m_dagWidth = watcher->result();
        watcher->deleteLater();
        m_watcher = nullptr;
        refresh();
        emit dagWidthReady(m_dagWidth);
    });
    m_watcher->setFuture(QtConcurrent::run(workerPool(), [graph = m_data->graph] {
        useBackgroundPriority();
        return tessera::dagWidth(*graph).width;
    }));
}

void SummaryWidget::refresh()
{
    if (!m_data) {
        m_summary->clear();
        return;
    }
    auto sections = summarySections(*m_data, m_dagWidth);
    if (m_data->graph->nodeCount() > kDagWidthNodeLimit)
        for (auto &s : sections)
            for (auto &r : s.rows)
                if (r.key == QLatin1String("DAG width"))
                    r.value = tr("skipped (over %1 nodes)").arg(kDagWidthNodeLimit);
    m_summary->setSections(std::move(sections));
}

} // namespace tessera::views
