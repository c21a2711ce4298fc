// NodeInspectorModel: the Inspector dock's content for one node or one group.
//
// A node shows sections "Node" (name, op type, domain, group), "Attributes",
// "Inputs" and "Outputs" (each tensor: name → dtype, shape, bytes) and "Cost"
// (FLOPs, bytes read/written, arithmetic intensity, params, output size).
// A group shows "Group", "Totals" (the same cost rows summed over its nodes)
// and "Operators" (op counts in the group).
#pragma once

#include "views/models/modeldata.h"
#include "views/models/propertymodel.h"

#include <memory>

namespace tessera::views {

class NodeInspectorModel final : public PropertyModel
{
    Q_OBJECT
public:
    explicit NodeInspectorModel(QObject *parent = nullptr);

    void showNode(std::shared_ptr<const ModelData> data, NodeId node);
    void showGroup(std::shared_ptr<const ModelData> data, GroupId group);
    void clearSelection(); // empty model, no title

    QString title() const { return m_title; }        // "conv1 (Conv)", "layer1 — 33 nodes"
    NodeId currentNode() const { return m_node; }    // kInvalidId unless a node is shown
    GroupId currentGroup() const { return m_group; } // -1 unless a group is shown

private:
    std::shared_ptr<const ModelData> m_data; // keeps the shown graph alive
    QString m_title;
    NodeId m_node = kInvalidId;
    GroupId m_group = -1;
};

// The "Cost"/"Totals" rows for a metrics sum (shared with the summary).
std::vector<PropertyModel::Row> costRows(const NodeMetrics &m);

} // namespace tessera::views
