// DecisionOverridesModel: what became of each override in a run — one row per
// OverrideReport (outcome, decision key, forced option, reason): applied as
// asked, rejected (the option is illegal or gone; the scheduler's choice was
// used) or stale (no decision with that key was asked). Qt Core only; checked
// with QAbstractItemModelTester.
#pragma once

#include "core/sched/decision.h"

#include <QAbstractTableModel>

#include <vector>

namespace tessera::views {

class DecisionOverridesModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { OutcomeColumn, KeyColumn, OptionColumn, ReasonColumn, ColumnCount };
    static constexpr int OutcomeRole = Qt::UserRole + 1; // int(OverrideReport::Outcome)
    static constexpr int KeyRole = Qt::UserRole + 2;     // QString decision key

    explicit DecisionOverridesModel(QObject *parent = nullptr);

    void setReports(std::vector<OverrideReport> reports);
    const std::vector<OverrideReport> &reports() const { return m_reports; }
    int count(OverrideReport::Outcome outcome) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<OverrideReport> m_reports;
};

} // namespace tessera::views
