// OpHistogramModel (see ophistogrammodel.h).
#include "views/models/ophistogrammodel.h"

#include "views/models/format.h"

#include <algorithm>
#include <map>

namespace tessera::views {

std::vector<OpStat> opHistogram(const Graph &g, const GraphMetrics &m)
{
    std::map<std::string, OpStat, std::less<>> byOp;
    for (NodeId n = 0; n < static_cast<NodeId>(g.nodeCount()); ++n) {
        OpStat &s = byOp[g.node(n).opType];
        ++s.count;
        s.flops += m.nodes[static_cast<std::size_t>(n)].flops;
    }
    std::vector<OpStat> stats;
    stats.reserve(byOp.size());
    for (auto &[op, s] : byOp) {
        s.opType = QString::fromStdString(op);
        stats.push_back(std::move(s));
    }
    // byOp is name-ordered, so a stable sort by count keeps names ascending within a count.
    std::stable_sort(stats.begin(), stats.end(), [](const OpStat &a, const OpStat &b) { return a.count > b.count; });
    return stats;
}

OpHistogramModel::OpHistogramModel(QObject *parent) : QAbstractTableModel(parent) {}

void OpHistogramModel::setModelData(const ModelData *data)
{
    beginResetModel();
    m_stats = data ? opHistogram(*data->graph, data->metrics) : std::vector<OpStat>{};
    m_totalFlops = data ? data->metrics.total.flops : 0;
    endResetModel();
}

int OpHistogramModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_stats.size());
}

int OpHistogramModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpHistogramModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const OpStat &s = m_stats[static_cast<std::size_t>(index.row())];
    const double share = m_totalFlops > 0 ? 100.0 * s.flops / m_totalFlops : 0.0;
    if (role == SortRole) {
        switch (index.column()) {
        case OpColumn: return s.opType;
        case CountColumn: return s.count;
        case FlopsColumn: return s.flops;
        case ShareColumn: return share;
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case OpColumn: return s.opType;
        case CountColumn: return s.count;
        case FlopsColumn: return s.flops > 0 ? formatFlops(s.flops) : QStringLiteral("–");
        case ShareColumn: return QString::number(share, 'f', 1) + QLatin1Char('%');
        }
    }
    if (role == Qt::TextAlignmentRole && index.column() != OpColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant OpHistogramModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case OpColumn: return QStringLiteral("Op type");
    case CountColumn: return QStringLiteral("Count");
    case FlopsColumn: return QStringLiteral("FLOPs");
    case ShareColumn: return QStringLiteral("% FLOPs");
    }
    return {};
}

} // namespace tessera::views
