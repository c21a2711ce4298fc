// DecisionOptionsModel: the options of one decision of a scheduling run — one
// row per DecisionOption with its marks (★ the scheduler's preferred option,
// ✓ the one used, ✎ when an override forced it), label, cost, detail and
// legality. Illegal options are listed with their reason but are not enabled,
// so a view cannot pick them. Qt Core only; checked with QAbstractItemModelTester.
#pragma once

#include <QAbstractTableModel>

#include <memory>

namespace tessera {
struct ScheduleRun;
struct DecisionRecord;
struct DecisionOption;
} // namespace tessera

namespace tessera::views {

class DecisionOptionsModel final : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { MarkColumn, LabelColumn, CostColumn, DetailColumn, StatusColumn, ColumnCount };
    static constexpr int OptionIdRole = Qt::UserRole + 1;   // QString
    static constexpr int LegalRole = Qt::UserRole + 2;      // bool
    static constexpr int PreferredRole = Qt::UserRole + 3;  // bool
    static constexpr int ChosenRole = Qt::UserRole + 4;     // bool
    static constexpr int OverriddenRole = Qt::UserRole + 5; // bool: chosen, and by an override

    explicit DecisionOptionsModel(QObject *parent = nullptr);

    // Shows decision `index` of `run`; a null run or index -1 clears.
    void setDecision(std::shared_ptr<const ScheduleRun> run, int index);
    const DecisionRecord *record() const; // nullptr when cleared
    int decisionIndex() const { return m_index; }
    const DecisionOption *option(int row) const; // nullptr out of range
    int rowOfOption(const QString &id) const;    // -1 if absent

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;

private:
    std::shared_ptr<const ScheduleRun> m_run;
    int m_index = -1;
};

} // namespace tessera::views
