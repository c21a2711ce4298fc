// StepperWidget: the scheduling stepper dock. Plays back the trace of the
// controller's latest run step by step — transport (first, previous decision,
// back, play/pause, forward, next decision, last), a position slider, the step
// list, and the selected step's details: title, conclusion, why, the nodes it
// touched, its numbers and its state changes. For a step that asked a
// decision the options table shows every option (★ preferred, ✓ used,
// ✎ forced); double-clicking a legal option or "Use this option" asks the
// WorkbenchState for an override (the app's scheduler replays the schedule),
// and the stepper stays at the same step index. The Overrides tab lists what
// became of each override (applied, rejected with the reason, stale);
// undo/redo buttons drive the override history it is given.
//
// The widget follows the state's schedule runs and never schedules by itself
// or touches the graph view: it emits stepActivated(touched nodes) and sets
// them as the state's highlight.
#pragma once

#include "core/ir/graph.h"

#include <QWidget>

#include <memory>
#include <vector>

class QAction;
class QLabel;
class QListWidget;
class QModelIndex;
class QProgressBar;
class QPushButton;
class QSlider;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTableWidget;
class QTimer;
class QToolBar;
class QTreeView;
class QUndoStack;

namespace tessera {
struct ScheduleRun;
}

namespace tessera::views {

class DecisionOptionsModel;
class DecisionOverridesModel;
class StepListModel;
class WorkbenchState;

class StepperWidget final : public QWidget
{
    Q_OBJECT
public:
    // `undo`: the override history the undo/redo buttons drive (null: none).
    // Both must outlive the widget.
    explicit StepperWidget(WorkbenchState *state, QUndoStack *undo = nullptr, QWidget *parent = nullptr);
    ~StepperWidget() override;

    WorkbenchState *state() const { return m_state; }
    StepListModel *stepModel() const { return m_steps; }
    DecisionOptionsModel *optionsModel() const { return m_options; }
    DecisionOverridesModel *overridesModel() const { return m_overrides; }
    QTreeView *stepView() const { return m_stepView; }
    QTableView *optionsView() const { return m_optionsView; }
    QTabWidget *detailTabs() const { return m_tabs; }

    int currentStep() const { return m_position; } // -1 when there is no trace
    void setCurrentStep(int row);                  // clamped to the trace
    void first();
    void last();
    void stepBack();
    void stepForward();
    void previousDecision();
    void nextDecision();
    void play(); // from the start when at the last step
    void pause();
    bool isPlaying() const;
    void setPlayInterval(int ms);

    // Forces option `row` of the current step's decision (the preferred
    // option clears the override instead). False when the step asks no
    // decision or the option is illegal.
    bool useOption(int row);
    void useSchedulerChoice(); // clears the current decision's override

signals:
    void stepActivated(std::vector<tessera::NodeId> touched);
    void currentStepChanged(int row);

private:
    void buildUi();
    void createActions();
    void onStarted();
    void onFinished(std::shared_ptr<const tessera::ScheduleRun> run);
    void onFailed(const QString &message);
    void onProgress(double fraction);
    void onCurrentIndexChanged(const QModelIndex &current);
    void showStep(int row);
    void updateTransport();
    void updateOverrideControls();
    void updateStatus();
    QString nodeNames(const std::vector<NodeId> &nodes) const;

    WorkbenchState *m_state;
    QUndoStack *m_undo;
    StepListModel *m_steps;
    DecisionOptionsModel *m_options;
    DecisionOverridesModel *m_overrides;
    int m_position = -1;
    bool m_updatingSelection = false;
    QString m_error;

    QToolBar *m_toolBar = nullptr;
    QAction *m_firstAction = nullptr;
    QAction *m_prevDecisionAction = nullptr;
    QAction *m_backAction = nullptr;
    QAction *m_playAction = nullptr;
    QAction *m_forwardAction = nullptr;
    QAction *m_nextDecisionAction = nullptr;
    QAction *m_lastAction = nullptr;
    QTimer *m_playTimer = nullptr;
    QSlider *m_slider = nullptr;
    QLabel *m_positionLabel = nullptr;
    QLabel *m_statusLabel = nullptr;
    QProgressBar *m_progress = nullptr;

    QTreeView *m_stepView = nullptr;
    QLabel *m_titleLabel = nullptr;
    QLabel *m_conclusionLabel = nullptr;
    QLabel *m_whyLabel = nullptr;
    QLabel *m_nodesLabel = nullptr;
    QTabWidget *m_tabs = nullptr;
    QStackedWidget *m_decisionStack = nullptr;
    QLabel *m_decisionHeader = nullptr;
    QTableView *m_optionsView = nullptr;
    QPushButton *m_useButton = nullptr;
    QPushButton *m_resetButton = nullptr;
    QTableWidget *m_numbers = nullptr;
    QListWidget *m_delta = nullptr;
    QTableView *m_overridesView = nullptr;
    QPushButton *m_removeOverrideButton = nullptr;
    QPushButton *m_clearOverridesButton = nullptr;
};

} // namespace tessera::views
