// The tile-graph view (welder-osdi23 §3.1, Fig. 4(c) / Fig. 5): the scheduled graph with every
// edge coloured by the memory level it is connected at (grey dashed: not connected, through
// global memory; one colour per faster level), every node filled with its fused kernel's colour
// and labelled with its tile (the output tile a task computes, or the reuse-tile the task holds
// at its connected level). A header line gives the kernel count, edges per level, the traffic at
// the slowest level and the estimated latency.
//
// Drill-down (Fig. 5's L0 → L1 → L2 grouping): with group depth d, the sub-graphs of every level
// l ≤ d (nodes joined by edges connected above l: ExtractSubgraph(node, l)) are drawn as halos
// around their members and along their internal edges, wider for lower levels, so a level-0
// kernel holds its level-1 sub-graphs, which hold their level-2 ones. Clicking a node selects it
// (the callback given, the workbench's graph view) and outlines it; clicking elsewhere clears
// the outline and calls nothing.
//
// Everything shown is read from the run: connection levels from the "welder.connect"
// decisions (key = role + the edge's two node names), tiles from the first task of each kernel
// (its NodeTiles, and for the nodes inside the regions that task computes, core/plan/tiles.h). Layout: columns by
// longest path from the inputs, rows in topological order within a column.
#pragma once

#include "core/ir/graph.h"
#include "core/sched/scheduler.h"

#include <QColor>
#include <QRectF>
#include <QString>
#include <QWidget>

#include <functional>
#include <map>
#include <vector>

namespace tessera::welder {

class TileGraphView : public QWidget
{
public:
    explicit TileGraphView(QWidget *parent = nullptr);
    void setRun(const Graph &graph, const ScheduleRun &run);

    // What the view draws (for tests): the level name of each edge (producer, consumer) and each node's label.
    const std::map<std::pair<NodeId, NodeId>, QString> &edgeLevels() const { return m_edgeLevel; }
    QString nodeLabel(NodeId n) const;
    static QColor levelColor(const QString &level);
    QSize sizeHint() const override;

    // Level names slowest first, as the connect decisions offer them.
    const QStringList &levelNames() const { return m_levelOrder; }
    // Sub-graphs at `level` (index into levelNames()): groups of nodes joined by edges connected above it.
    std::vector<std::vector<NodeId>> groups(int level) const;
    void setGroupDepth(int depth); // -1: no halos
    int groupDepth() const { return m_depth; }

    void setSelectNode(std::function<void(NodeId)> select) { m_select = std::move(select); }
    NodeId selectedNode() const { return m_selected; }
    NodeId nodeAt(const QPointF &pos) const; // kInvalidId off the nodes
    QRectF nodeRect(NodeId n) const;

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    struct Box {
        NodeId node = kInvalidId;
        QRectF rect;
        QString title, tile;
        int kernel = -1;
    };
    std::vector<Box> m_boxes;
    std::map<NodeId, std::size_t> m_boxOf;
    std::map<std::pair<NodeId, NodeId>, QString> m_edgeLevel;
    QStringList m_levels;     // in the order first seen
    QStringList m_levelOrder; // slowest first
    int m_depth = 0;
    NodeId m_selected = kInvalidId;
    std::function<void(NodeId)> m_select;
    QString m_header;
    QSize m_size{400, 200};
};

} // namespace tessera::welder
