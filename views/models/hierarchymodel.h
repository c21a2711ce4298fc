// HierarchyModel: the group tree of a model (stages ⊃ blocks ⊃ layers ⊃ nodes)
// for the Outline dock. The root group is invisible: its child groups and
// direct nodes are the top-level rows. Within a group, child groups and the
// group's own nodes are interleaved in graph order (a group sits where its
// first node is), so the stem's nodes come before layer1, not after layer4.
//
// Columns: name, kind (group kind or op type), node count, FLOPs.
// Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include "views/models/modeldata.h"

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace tessera::views {

class HierarchyModel final : public QAbstractItemModel
{
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, NodesColumn, FlopsColumn, ColumnCount };
    enum Role {
        NodeIdRole = Qt::UserRole + 1, // NodeId of a node row, -1 for a group
        GroupIdRole,                   // GroupId of a group row, -1 for a node
        SortRole,                      // numeric value for the count and FLOPs columns
    };

    explicit HierarchyModel(QObject *parent = nullptr);

    void setModelData(std::shared_ptr<const ModelData> data); // nullptr clears
    const ModelData *modelData() const { return m_data.get(); }

    QModelIndex indexForNode(NodeId n, int column = 0) const;
    QModelIndex indexForGroup(GroupId g, int column = 0) const; // invalid for the root
    NodeId nodeAt(const QModelIndex &index) const;              // kInvalidId if not a node row
    GroupId groupAt(const QModelIndex &index) const;            // -1 if not a group row

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    // internalId: group g → 2g, node n → 2n+1. Group 0 (the root) has no index.
    static quintptr groupKey(GroupId g) { return static_cast<quintptr>(g) * 2; }
    static quintptr nodeKey(NodeId n) { return static_cast<quintptr>(n) * 2 + 1; }
    GroupId containerOf(const QModelIndex &parent) const; // group whose children the rows are

    std::shared_ptr<const ModelData> m_data;
    std::vector<std::vector<quintptr>> m_rows; // per group: the keys of its rows, in order
    std::vector<int> m_groupRow;               // row of each group within its parent
    std::vector<int> m_nodeRow;                // row of each node within its group
    std::vector<double> m_groupFlops;          // FLOPs under each group
};

} // namespace tessera::views
