// SearchExplorer: the DP explorer — a scheduler's explored search space
// (ScheduleResult::searchSpace; inter-operator scheduling thesis §3.2, Fig. 3.4, Algorithm 1) as a
// browsable tree and a drawing.
//
// Left: a table picker (one table per solved part), a filter line (unit or
// operator name), "on path only", "within x % of best", expand/collapse, and the
// SearchSpaceModel tree behind a SearchSpaceFilterModel (levels → states →
// transitions, fetched lazily; rows further down are fetched as the tree
// scrolls). Right, for the selected state: its outgoing transitions cheapest
// first as bars ∝ total cost (stage cost solid, the rest after it lighter; ✓ the
// one taken, ★ the cheapest), and below it the table drawn in the style of
// Fig. 3.4 (2) when it has at most kWholeDagStates states — states as boxes by
// level, transitions as curves labelled with their stage, the path in the
// highlight colour — else its path alone.
//
// Choosing a transition of a path state — double-click in the tree or on its
// bar, or "Force this stage" — emits overrideRequested(key, option) for the
// decision it answers (and for any extra decision the same choice needs).
// Selecting a state or transition emits nodesSelected(its nodes) for the
// graph view. setState() makes the explorer follow a WorkbenchState: every
// finished schedule's search space is shown, and both signals become the
// state's highlight and override requests. The widget never schedules and
// never holds the graph.
#pragma once

#include "core/ir/graph.h"

#include <QWidget>

#include <memory>
#include <string>
#include <vector>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QModelIndex;
class QPushButton;
class QStackedWidget;
class QTimer;
class QTreeView;

namespace tessera {
struct ScheduleRun;
struct SearchSpace;
} // namespace tessera

namespace tessera::views {

class SearchSpaceModel;
class SearchSpaceFilterModel;
class SearchNeighbourhoodView;
class SearchDagView;
class WorkbenchState;

class SearchExplorer final : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kWholeDagStates = 40;

    explicit SearchExplorer(QWidget *parent = nullptr);
    ~SearchExplorer() override;

    // Follows `state` (see the header comment); it must outlive the explorer.
    void setState(WorkbenchState *state);
    // Reads run->result.searchSpace; without one the explorer shows how to get it.
    void setSearchSpace(std::shared_ptr<const ScheduleRun> run);
    bool hasSearchSpace() const;

    SearchSpaceModel *model() const { return m_model; }
    SearchSpaceFilterModel *filterModel() const { return m_filter; }
    QTreeView *treeView() const { return m_tree; }
    QComboBox *tablePicker() const { return m_tables; }
    QLineEdit *filterEdit() const { return m_filterEdit; }
    QWidget *neighbourhoodView() const;
    QWidget *dagView() const;
    QLabel *hintLabel() const { return m_hint; }

    int currentTable() const { return m_table; }
    void setCurrentTable(int table);
    // Filters (the line edit applies after a short pause; these at once).
    void setFilterText(const QString &text);
    void setPathOnly(bool on);
    void setWithinPercent(double percent); // < 0: off
    void expandPath();                     // the levels and states of the path
    void collapseAll();

    // Selection within the current table (-1: none); both select in the tree too.
    void selectState(int state);
    void selectTransition(int transition);
    int selectedState() const { return m_state; }
    int selectedTransition() const { return m_transition; }
    // Emits overrideRequested for the transition when it answers a decision
    // (a transition of a path state) and is not already the one taken.
    bool forceTransition(int transition);

signals:
    void overrideRequested(std::string key, std::string optionId);
    void nodesSelected(std::vector<tessera::NodeId> nodes);

private:
    void buildUi();
    void applyFilter();
    void onCurrentChanged(const QModelIndex &current);
    void onActivated(const QModelIndex &index);
    void fetchAtBottom();
    void showTable();
    void updateDetails();
    void updateStatus();
    void emitNodes();

    SearchSpaceModel *m_model;
    SearchSpaceFilterModel *m_filter;
    int m_table = -1;
    int m_state = -1;
    int m_transition = -1;
    bool m_syncing = false;

    QStackedWidget *m_stack = nullptr;
    QLabel *m_hint = nullptr;
    QComboBox *m_tables = nullptr;
    QLineEdit *m_filterEdit = nullptr;
    QCheckBox *m_pathOnly = nullptr;
    QDoubleSpinBox *m_within = nullptr;
    QTimer *m_filterTimer = nullptr;
    QTreeView *m_tree = nullptr;
    QLabel *m_status = nullptr;
    QLabel *m_note = nullptr;
    SearchNeighbourhoodView *m_neighbourhood = nullptr;
    SearchDagView *m_dag = nullptr;
    QLabel *m_dagCaption = nullptr;
    QPushButton *m_forceButton = nullptr;
};

} // namespace tessera::views
