// SummaryWidget: the Model summary dock — a PropertyView of summarySections
// (counts, totals, inputs and outputs) above the op histogram table. The DAG
// width (analysis.h dagWidth) is computed on the thread pool; the row says
// "computing…" until it lands, and results for a model no longer shown are
// dropped.
#pragma once

#include "views/models/modeldata.h"

#include <QFutureWatcher>
#include <QWidget>

#include <cstdint>
#include <memory>

class QTableView;

namespace tessera::views {

class OpHistogramModel;
class PropertyModel;
class PropertyView;
class WorkbenchState;

class SummaryWidget final : public QWidget
{
    Q_OBJECT
public:
    // Graphs above this many nodes skip the DAG width (its closure is O(n²) bits).
    static constexpr std::size_t kDagWidthNodeLimit = 40000;

    explicit SummaryWidget(QWidget *parent = nullptr);
    ~SummaryWidget() override;

    void setModelData(std::shared_ptr<const ModelData> data); // nullptr clears
    void setState(WorkbenchState *state);                     // shows its model; it must outlive the widget
    PropertyModel *summaryModel() const { return m_summary; }
    OpHistogramModel *histogramModel() const { return m_histogram; }
    std::int64_t dagWidth() const { return m_dagWidth; } // -1 until computed

signals:
    void dagWidthReady(qint64 width);

private:
    void refresh();

    std::shared_ptr<const ModelData> m_data;
    PropertyModel *m_summary;
    OpHistogramModel *m_histogram;
    PropertyView *m_summaryView;
    QTableView *m_histogramView;
    QFutureWatcher<std::int64_t> *m_watcher = nullptr;
    std::int64_t m_dagWidth = -1;
};

} // namespace tessera::views
