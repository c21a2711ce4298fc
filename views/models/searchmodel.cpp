// Node search (see searchmodel.h).
#include "views/models/searchmodel.h"

#include <algorithm>

namespace tessera::views {

namespace {
struct Term {
    QString text; // lower-cased
    bool opOnly = false;
};

std::vector<Term> parseQuery(const QString &query)
{
    std::vector<Term> terms;
    const QStringList words = query.toLower().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    for (const QString &w : words) {
        if (w.startsWith(QLatin1String("op:"))) {
            if (w.size() > 3)
                terms.push_back({w.mid(3), true});
        } else {
            terms.push_back({w, false});
        }
    }
    return terms;
}

bool matches(const QString &name, const QString &op, const std::vector<Term> &terms)
{
    return std::all_of(terms.begin(), terms.end(),
                       [&](const Term &t) { return op == t.text || (!t.opOnly && name.contains(t.text)); });
}

std::vector<NodeId> run(const QStringList &names, const QStringList &ops, const QString &query)
{
    std::vector<NodeId> out;
    const std::vector<Term> terms = parseQuery(query.simplified());
    if (terms.empty())
        return out;
    for (qsizetype i = 0; i < names.size(); ++i)
        if (matches(names[i], ops[i], terms))
            out.push_back(static_cast<NodeId>(i));
    return out;
}

void lowerNames(const Graph &g, QStringList &names, QStringList &ops)
{
    names.clear();
    ops.clear();
    names.reserve(static_cast<qsizetype>(g.nodeCount()));
    ops.reserve(static_cast<qsizetype>(g.nodeCount()));
    for (const Node &n : g.nodes()) {
        names.push_back(QString::fromStdString(n.name).toLower());
        ops.push_back(QString::fromStdString(n.opType).toLower());
    }
}
} // namespace

std::vector<NodeId> searchNodes(const Graph &g, const QString &query)
{
    QStringList names, ops;
    lowerNames(g, names, ops);
    return run(names, ops, query);
}

SearchModel::SearchModel(QObject *parent) : QAbstractTableModel(parent) {}

void SearchModel::setModelData(std::shared_ptr<const ModelData> data)
{
    m_data = std::move(data);
    m_names.clear();
    m_ops.clear();
    if (m_data)
        lowerNames(*m_data->graph, m_names, m_ops);
    rerun();
}

void SearchModel::setQuery(const QString &query)
{
    if (query == m_query)
        return;
    m_query = query;
    rerun();
}

void SearchModel::rerun()
{
    beginResetModel();
    m_matches = run(m_names, m_ops, m_query);
    endResetModel();
    emit matchesChanged();
}

NodeId SearchModel::nodeAt(int row) const
{
    return row >= 0 && static_cast<std::size_t>(row) < m_matches.size() ? m_matches[static_cast<std::size_t>(row)]
                                                                        : kInvalidId;
}

int SearchModel::rowOf(NodeId n) const
{
    const auto it = std::lower_bound(m_matches.begin(), m_matches.end(), n);
    return it != m_matches.end() && *it == n ? static_cast<int>(it - m_matches.begin()) : -1;
}

int SearchModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_matches.size());
}

int SearchModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant SearchModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const NodeId id = m_matches[static_cast<std::size_t>(index.row())];
    if (role == NodeIdRole)
        return id;
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        const Node &n = m_data->graph->node(id);
        return QString::fromStdString(index.column() == NameColumn ? n.name : n.opType);
    }
    return {};
}

QVariant SearchModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    return section == NameColumn ? QStringLiteral("Node") : QStringLiteral("Op type");
}

} // namespace tessera::views
