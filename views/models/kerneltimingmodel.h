// KernelTimingModel: the plan's kernels with the cost model's prediction
// beside what a backend measured (or simulated), one row per compute task,
// filled while a run streams (RunObserver::timelinesRecorded: a row appears
// when its task finishes) — the measured timeline beside the estimate
// (issue 13, item 2).
//
// Columns: kernel (the task's label, else its kernel's name), predicted (the
// plan's TaskCost::timeNs: its duration in the plan's timeline, with the cost
// kind — estimated, or measured when the schedule timed kernels), measured
// (the median of the task's span over the runs of this plan so far,
// including the run under way), runs (how many spans the median is over) and
// ratio (measured / predicted). Rows are in the order their tasks first
// finished; a later run updates them in place (dataChanged), so a selection
// and the scroll position survive the stream.
//
// setPlan with another plan forgets the rows and every sample; setRun shows
// the run under way (its timeline so far, or the finished run); commitRun
// keeps its spans as samples for the median; dropRun (cancelled, failed or
// superseded) forgets them (nothing when no run is under way). Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include "core/backend/backend.h"
#include "core/plan/plan.h"

#include <QAbstractTableModel>

#include <map>
#include <memory>
#include <vector>

namespace tessera::views {

class KernelTimingModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { KernelColumn, PredictedColumn, MeasuredColumn, RunsColumn, RatioColumn, ColumnCount };
    static constexpr int ValueRole = Qt::UserRole + 1; // double: ns for the times, the ratio, the runs; NaN: none
    static constexpr int TaskRole = Qt::UserRole + 2;  // int, the plan's task id

    explicit KernelTimingModel(QObject *parent = nullptr);

    void setPlan(std::shared_ptr<const ExecutionPlan> plan);
    const std::shared_ptr<const ExecutionPlan> &plan() const { return m_plan; }
    void setRun(const RunResult &soFar);
    void commitRun();
    void dropRun();
    int committedRuns() const { return m_runs; }
    int rowOfTask(TaskId task) const; // -1 if absent

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Row {
        TaskId task = -1;
        std::vector<double> samples; // committed runs' spans, ns
        double current = -1;         // the run under way, ns; < 0: none yet
    };
    double measuredNs(const Row &row) const; // NaN when none
    double predictedNs(const Row &row) const;

    std::shared_ptr<const ExecutionPlan> m_plan;
    std::vector<Row> m_rows;
    std::map<TaskId, int> m_rowOf;
    int m_runs = 0;
};

} // namespace tessera::views
