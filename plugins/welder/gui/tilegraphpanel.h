// The Welder tile-graph dock's contents: a "Group by" level selector (the drill-down of Fig. 5:
// kernels at L0, the sub-graphs connected above L1 inside them, ...), the tile-graph view
// (tilegraphview.h) in a scroll area, and the traffic per level before and after connecting.
//
// TrafficByLevelView reads the run's stats "traffic_before_<level>" / "traffic_after_<level>"
// (welder.cpp: before = every operator its own kernel with its best tile; after = the plan's
// kernels), one row per level, slowest first, with the change after/before.
#pragma once

#include "core/sched/scheduler.h"

#include <QTableWidget>
#include <QWidget>

#include <functional>

class QComboBox;
class QScrollArea;

namespace tessera::welder {

class TileGraphView;

class TrafficByLevelView : public QTableWidget
{
public:
    explicit TrafficByLevelView(QWidget *parent = nullptr);
    void setRun(const ScheduleRun &run);
};

class TileGraphPanel : public QWidget
{
public:
    explicit TileGraphPanel(QWidget *parent = nullptr);
    void setRun(const Graph &graph, const ScheduleRun &run, std::function<void(NodeId)> selectNode = {});

    TileGraphView *view() const { return m_view; }
    QComboBox *groupBox() const { return m_group; }
    TrafficByLevelView *traffic() const { return m_traffic; }

private:
    QComboBox *m_group;
    QScrollArea *m_scroll;
    TileGraphView *m_view;
    TrafficByLevelView *m_traffic;
};

} // namespace tessera::welder
