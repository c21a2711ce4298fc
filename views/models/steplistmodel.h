// StepListModel: a scheduling run's trace for the stepper, one row per
// TraceStep (index, phase, title, conclusion, decision, elapsed time). A step
// that asked a decision shows the id of the option used after a ◆, or a ✎ when
// an override forced it (the tooltip has the labels). Roles give the nodes a step touched (for highlighting in the
// graph) and its decision index; helpers find the next/previous decision step. The model shares the run
// (shared_ptr<const ScheduleRun>); it never copies the trace, so traces of 10^5 steps stay cheap. Qt Core only; checked
// with QAbstractItemModelTester.
#pragma once

#include "core/ir/graph.h"

#include <QAbstractTableModel>

#include <memory>
#include <vector>

namespace tessera {
struct ScheduleRun;
struct TraceStep;
struct DecisionRecord;
} // namespace tessera

namespace tessera::views {

class StepListModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { IndexColumn, PhaseColumn, TitleColumn, ConclusionColumn, DecisionColumn, ElapsedColumn, ColumnCount };
    static constexpr int TouchedNodesRole = Qt::UserRole + 1;  // QList<int>: the step's touched node ids
    static constexpr int DecisionIndexRole = Qt::UserRole + 2; // int, -1 if the step asked nothing
    static constexpr int OverriddenRole = Qt::UserRole + 3;    // bool: the step's decision was forced

    explicit StepListModel(QObject *parent = nullptr);

    void setRun(std::shared_ptr<const ScheduleRun> run); // nullptr clears
    const std::shared_ptr<const ScheduleRun> &run() const { return m_run; }

    const TraceStep *step(int row) const;          // nullptr when out of range
    const DecisionRecord *decision(int row) const; // the step's decision, or nullptr
    std::vector<NodeId> touched(int row) const;
    // Row of the nearest decision step strictly after/before `row`, or -1.
    int nextDecision(int row) const;
    int previousDecision(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const ScheduleRun> m_run;
    std::vector<int> m_decisionRows; // rows with a decision, ascending
};

} // namespace tessera::views
