// HierarchyModel (see hierarchymodel.h).
#include "views/models/hierarchymodel.h"

#include "views/models/format.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace tessera::views {

namespace {
QString kindName(Group::Kind kind)
{
    switch (kind) {
    case Group::Kind::Root: return QStringLiteral("model");
    case Group::Kind::Stage: return QStringLiteral("stage");
    case Group::Kind::Block: return QStringLiteral("block");
    case Group::Kind::Layer: return QStringLiteral("layer");
    }
    return {};
}
// A node's name without its group's path: "layer1/layer1.0/conv1" in group
// "layer1/layer1.0" reads "conv1" (the tooltip keeps the full name).
QString shortName(const std::string &name, const std::string &groupPath)
{
    std::string_view n = name;
    if (!n.empty() && n.front() == '/')
        n.remove_prefix(1);
    const std::size_t p = groupPath.size();
    if (p > 0 && n.size() > p + 1 && n.compare(0, p, groupPath) == 0 && (n[p] == '/' || n[p] == '.' || n[p] == '_'))
        n.remove_prefix(p + 1);
    else
        n = name;
    return QString::fromUtf8(n.data(), static_cast<qsizetype>(n.size()));
}
} // namespace

HierarchyModel::HierarchyModel(QObject *parent) : QAbstractItemModel(parent) {}

void HierarchyModel::setModelData(std::shared_ptr<const ModelData> data)
{
    beginResetModel();
    m_data = std::move(data);
    m_rows.clear();
    m_groupRow.clear();
    m_nodeRow.clear();
    m_groupFlops.clear();
    if (m_data) {
        const Hierarchy &h = m_data->hierarchy;
        const std::size_t groups = h.groups().size();
        m_rows.assign(groups, {});
        m_groupRow.assign(groups, 0);
        m_nodeRow.assign(m_data->graph->nodeCount(), 0);
        m_groupFlops.assign(groups, 0.0);
        // Children have larger ids than their parents (addGroup appends), so a
        // reverse sweep accumulates bottom-up: FLOPs and each group's first node.
        std::vector<NodeId> firstNode(groups, std::numeric_limits<NodeId>::max());
        for (GroupId g = static_cast<GroupId>(groups) - 1; g >= 0; --g) {
            const auto gi = static_cast<std::size_t>(g);
            const Group &grp = h.group(g);
            for (NodeId n : grp.nodes) {
                m_groupFlops[gi] += m_data->metrics.nodes[static_cast<std::size_t>(n)].flops;
                firstNode[gi] = std::min(firstNode[gi], n);
            }
            if (grp.parent >= 0) {
                m_groupFlops[static_cast<std::size_t>(grp.parent)] += m_groupFlops[gi];
                firstNode[static_cast<std::size_t>(grp.parent)] =
                    std::min(firstNode[static_cast<std::size_t>(grp.parent)], firstNode[gi]);
            }
        }
        const auto orderOf = [&firstNode](quintptr key) {
            return key & 1 ? static_cast<NodeId>(key / 2) : firstNode[key / 2];
        };
        for (std::size_t gi = 0; gi < groups; ++gi) {
            const Group &grp = h.group(static_cast<GroupId>(gi));
            std::vector<quintptr> &rows = m_rows[gi];
            rows.reserve(grp.children.size() + grp.nodes.size());
            for (GroupId c : grp.children)
                rows.push_back(groupKey(c));
            for (NodeId n : grp.nodes)
                rows.push_back(nodeKey(n));
            std::stable_sort(rows.begin(), rows.end(),
                             [&orderOf](quintptr a, quintptr b) { return orderOf(a) < orderOf(b); });
            for (std::size_t r = 0; r < rows.size(); ++r)
                (rows[r] & 1 ? m_nodeRow[rows[r] / 2] : m_groupRow[rows[r] / 2]) = static_cast<int>(r);
        }
    }
    endResetModel();
}

GroupId HierarchyModel::containerOf(const QModelIndex &parent) const
{
    if (!parent.isValid())
        return 0;
    const quintptr key = parent.internalId();
    return key & 1 ? -1 : static_cast<GroupId>(key / 2);
}

QModelIndex HierarchyModel::indexForNode(NodeId n, int column) const
{
    if (!m_data || n < 0 || static_cast<std::size_t>(n) >= m_nodeRow.size())
        return {};
    return createIndex(m_nodeRow[static_cast<std::size_t>(n)], column, nodeKey(n));
}

QModelIndex HierarchyModel::indexForGroup(GroupId g, int column) const
{
    if (!m_data || g <= 0 || static_cast<std::size_t>(g) >= m_groupRow.size())
        return {};
    return createIndex(m_groupRow[static_cast<std::size_t>(g)], column, groupKey(g));
}

NodeId HierarchyModel::nodeAt(const QModelIndex &index) const
{
    if (!index.isValid() || !(index.internalId() & 1))
        return kInvalidId;
    return static_cast<NodeId>(index.internalId() / 2);
}

GroupId HierarchyModel::groupAt(const QModelIndex &index) const
{
    if (!index.isValid() || (index.internalId() & 1))
        return -1;
    return static_cast<GroupId>(index.internalId() / 2);
}

QModelIndex HierarchyModel::index(int row, int column, const QModelIndex &parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    return createIndex(row, column,
                       m_rows[static_cast<std::size_t>(containerOf(parent))][static_cast<std::size_t>(row)]);
}

QModelIndex HierarchyModel::parent(const QModelIndex &child) const
{
    if (!child.isValid() || !m_data)
        return {};
    const NodeId n = nodeAt(child);
    const GroupId p = n != kInvalidId ? m_data->hierarchy.groupOf(n) : m_data->hierarchy.group(groupAt(child)).parent;
    return indexForGroup(p);
}

int HierarchyModel::rowCount(const QModelIndex &parent) const
{
    if (!m_data || parent.column() > 0)
        return 0;
    const GroupId g = containerOf(parent);
    return g < 0 ? 0 : static_cast<int>(m_rows[static_cast<std::size_t>(g)].size());
}

int HierarchyModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

QVariant HierarchyModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || !m_data)
        return {};
    const NodeId n = nodeAt(index);
    const GroupId g = groupAt(index);
    if (role == NodeIdRole)
        return n;
    if (role == GroupIdRole)
        return g;

    const Graph &graph = *m_data->graph;
    const double flops = n != kInvalidId ? m_data->metrics.nodes[static_cast<std::size_t>(n)].flops
                                         : m_groupFlops[static_cast<std::size_t>(g)];
    if (role == SortRole) {
        switch (index.column()) {
        case NodesColumn: return n != kInvalidId ? qlonglong(1) : qlonglong(m_data->hierarchy.group(g).totalNodes);
        case FlopsColumn: return flops;
        default: return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DisplayRole) {
        switch (index.column()) {
        case NameColumn:
            return n != kInvalidId
                       ? shortName(graph.node(n).name, m_data->hierarchy.group(m_data->hierarchy.groupOf(n)).path)
                       : QString::fromStdString(m_data->hierarchy.group(g).name);
        case KindColumn:
            return n != kInvalidId ? QString::fromStdString(graph.node(n).opType)
                                   : kindName(m_data->hierarchy.group(g).kind);
        case NodesColumn:
            return n != kInvalidId ? QVariant() : QVariant(QString::number(m_data->hierarchy.group(g).totalNodes));
        case FlopsColumn: return flops > 0 ? formatFlops(flops) : QString();
        }
    }
    if (role == Qt::ToolTipRole && index.column() == NameColumn)
        return n != kInvalidId ? QString::fromStdString(graph.node(n).name)
                               : QString::fromStdString(m_data->hierarchy.group(g).path);
    if (role == Qt::TextAlignmentRole && (index.column() == NodesColumn || index.column() == FlopsColumn))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant HierarchyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn: return QStringLiteral("Name");
    case KindColumn: return QStringLiteral("Kind");
    case NodesColumn: return QStringLiteral("Nodes");
    case FlopsColumn: return QStringLiteral("FLOPs");
    }
    return {};
}

} // namespace tessera::views
