// The sub-graph instance view (graphturbo-osdi23 Fig. 3b, Fig. 6, Table 3):
// the LB occupancy of core 0 of cluster 0 at every compute task there, bars coloured by
// sub-graph (the plan's stage), over a table of the instances in schedule
// order with their output slice, the level their output lives in, their cores
// and estimated time, and a footer counting the tensors kept per level.
// Everything is read from the ExecutionPlan and the device, so any plan with
// per-core LB buffers draws.
#pragma once

#include "core/hw/device.h"
#include "core/plan/plan.h"

#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QStandardItemModel;
class QTableView;

namespace tessera::graphturbo {

// Geometry-free data of the occupancy chart.
struct OccupancyColumn {
    TaskId task = 0;
    std::int32_t stage = -1;
    std::int64_t bytes = 0; // live bytes of the level's instance 0 while the task runs
};
struct Occupancy {
    std::string level; // the device's fastest level
    std::int64_t capacity = 0;
    std::vector<OccupancyColumn> columns; // one per compute task on cluster 0, in issue order
};
Occupancy lbOccupancy(const ExecutionPlan &plan, const Device *device);

// Output buffers per level (Table 3's scope counts), fastest level first.
std::vector<std::pair<std::string, int>> scopeCounts(const ExecutionPlan &plan, const Device *device);

class OccupancyChart;

class InstanceView final : public QWidget
{
public:
    explicit InstanceView(QWidget *parent = nullptr);
    void setPlan(const ExecutionPlan &plan, const Device *device);
    void clear();
    QStandardItemModel *model() const { return m_model; }

private:
    OccupancyChart *m_chart = nullptr;
    QTableView *m_table = nullptr;
    QStandardItemModel *m_model = nullptr;
    QLabel *m_footer = nullptr;
};

} // namespace tessera::graphturbo
