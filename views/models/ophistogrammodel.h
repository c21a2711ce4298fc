// OpHistogramModel: one row per op type — count, FLOPs and share of the
// model's FLOPs — sorted by count (descending, then by name), for the Model
// summary dock. Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include "views/models/modeldata.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace tessera::views {

struct OpStat {
    QString opType;
    int count = 0;
    double flops = 0;
};

// The histogram itself, sorted by count descending then op type.
std::vector<OpStat> opHistogram(const Graph &g, const GraphMetrics &m);

class OpHistogramModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { OpColumn, CountColumn, FlopsColumn, ShareColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1; // numeric value of a cell

    explicit OpHistogramModel(QObject *parent = nullptr);

    void setModelData(const ModelData *data); // nullptr clears; keeps no pointer
    const std::vector<OpStat> &stats() const { return m_stats; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<OpStat> m_stats;
    double m_totalFlops = 0;
};

} // namespace tessera::views
