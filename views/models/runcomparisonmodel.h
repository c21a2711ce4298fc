// RunComparisonModel: two scheduling runs side by side — one row per metric of
// their PlanSummary (views/models/plansummary.h), matched by key; the union of
// both runs' rows, so a memory level or statistic only one run has still gets
// a row (the other side shows "—"). The better value of each comparable row is
// flagged with BetterRole for the view to highlight; the last column is the
// second run's change relative to the first. Either side may be empty.
// Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include "views/models/plansummary.h"

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <vector>

namespace tessera::views {

class RunComparisonModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { MetricColumn, FirstColumn, SecondColumn, ChangeColumn, ColumnCount };
    static constexpr int BetterRole = Qt::UserRole + 1;  // bool, value columns: this side wins the row
    static constexpr int ValueRole = Qt::UserRole + 2;   // double (NaN if none), value columns
    static constexpr int SectionRole = Qt::UserRole + 3; // int(SummaryRow::Section)
    static constexpr int KeyRole = Qt::UserRole + 4;     // QString row key, e.g. "kernels"

    explicit RunComparisonModel(QObject *parent = nullptr);

    // side 0 = first column, 1 = second. A null run empties that side;
    // `measured`, a backend's run of its plan, adds the Measured rows.
    void setRun(int side, std::shared_ptr<const ScheduleRun> run, QString title, Measurement measured = {});
    void setRuns(std::shared_ptr<const ScheduleRun> first, QString firstTitle,
                 std::shared_ptr<const ScheduleRun> second, QString secondTitle, Measurement firstMeasured = {},
                 Measurement secondMeasured = {});
    std::shared_ptr<const ScheduleRun> run(int side) const { return m_sides[side].run; }

    int rowOfKey(const QString &key) const; // -1 if absent
    // Value of a row on one side, NaN when that side has none.
    double value(int row, int side) const;
    // Which side wins a row: 0, 1, or -1 for a tie / not comparable.
    int winner(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Side {
        std::shared_ptr<const ScheduleRun> run;
        QString title;
        std::optional<PlanSummary> summary;
    };
    struct Row {
        const SummaryRow *meta; // from whichever side has it (first preferred)
        int index[2];           // into that side's summary rows, -1 if absent
    };
    void rebuild();
    const SummaryRow *cell(int row, int side) const;

    Side m_sides[2];
    std::vector<Row> m_rows;
};

} // namespace tessera::views
