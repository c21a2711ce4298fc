// RunComparisonWidget: two scheduling runs side by side (RunComparisonModel).
// "Pin for comparison" keeps the WorkbenchState's current run; each side picks
// the current run or a pinned one, and the table marks the better value of
// every comparable row. After a pin the pinned run is on the left and the
// current run (which follows every replay) on the right, so forcing a
// decision in the stepper shows its effect at once. A project keeps the pins
// (ProjectSession), so a reopened session compares as it did. When a backend
// has run a side's plan (WorkbenchState::measurementOf), its measured latency,
// time per engine and energy line up too: two plans run on the CPU backend
// show their measured difference, not only the estimate's.
#pragma once

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QComboBox;
class QTableView;
class QToolButton;

namespace tessera {
struct ScheduleRun;
}

namespace tessera::views {

class RunComparisonModel;
class WorkbenchState;

class RunComparisonWidget final : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kMaxPinned = 8; // the oldest pin goes first

    explicit RunComparisonWidget(WorkbenchState *state, QWidget *parent = nullptr); // the state must outlive it

    struct PinnedRun {
        std::shared_ptr<const ScheduleRun> run;
        QString title;
    };

    RunComparisonModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QAction *pinAction() const { return m_pinAction; } // also for the main window's menus

    // Pins the state's latest run; false when there is none.
    bool pinCurrent();
    int pinnedCount() const { return static_cast<int>(m_pinned.size()); }
    void clearPinned();
    // The pins, oldest first, and their numbering, for a project to keep
    // (pinnedChanged says when they change) and give back on reopening.
    std::vector<PinnedRun> pinned() const { return m_pinned; }
    int pinSerial() const { return m_pinSerial; }
    // Replaces the pins (at most kMaxPinned, the newest kept); the newest is
    // shown against the current run. Does not emit pinnedChanged.
    void setPinned(std::vector<PinnedRun> pins, int serial);

signals:
    void pinnedChanged();

public:
    // Choice per side: 0 = none, 1 = the current run, 2 + i = pinned run i.
    void setSides(int first, int second);

private:
    using Pinned = PinnedRun;
    void rebuildChoices();
    void refresh();
    std::shared_ptr<const ScheduleRun> runOf(int choice, QString *title) const;

    WorkbenchState *m_state;
    RunComparisonModel *m_model;
    std::vector<Pinned> m_pinned;
    int m_pinSerial = 0;
    QAction *m_pinAction;
    QComboBox *m_first;
    QComboBox *m_second;
    QToolButton *m_clearButton;
    QTableView *m_view;
};

} // namespace tessera::views
