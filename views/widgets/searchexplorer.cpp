// SearchExplorer (see searchexplorer.h); its two drawings, the selected
// state's neighbourhood (bars) and the table (Fig. 3.4 style, or the path),
// are in searchexplorerpainters.cpp.
#include "views/widgets/searchexplorer.h"

#include "core/sched/scheduler.h"
#include "views/models/format.h"
#include "views/models/plansummary.h"
#include "views/models/searchspacemodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/searchexplorerpainters.h"
#include "views/widgets/stepperdelegate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStackedWidget>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <functional>

namespace tessera::views {

using namespace explorercolors;

SearchExplorer::SearchExplorer(QWidget *parent)
    : QWidget(parent), m_model(new SearchSpaceModel(this)), m_filter(new SearchSpaceFilterModel(this))
{
    m_filter->setSearchSpaceModel(m_model);
    buildUi();
    setSearchSpace(nullptr);
}

SearchExplorer::~SearchExplorer() = default;

void SearchExplorer::setState(WorkbenchState *state)
{
    connect(state, &WorkbenchState::scheduleFinished, this, &SearchExplorer::setSearchSpace);
    connect(this, &SearchExplorer::nodesSelected, state,
            [state](const std::vector<NodeId> &nodes) { state->setHighlighted(nodes, true); });
    connect(this, &SearchExplorer::overrideRequested, state, &WorkbenchState::requestOverride);
}

QWidget *SearchExplorer::neighbourhoodView() const
{
    return m_neighbourhood;
}

QWidget *SearchExplorer::dagView() const
{
    return m_dag;
}

void SearchExplorer::buildUi()
{
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    m_stack = new QStackedWidget(this);
    outer->addWidget(m_stack);

    m_hint = new QLabel(m_stack);
    m_hint->setAlignment(Qt::AlignCenter);
    m_hint->setWordWrap(true);
    m_hint->setMargin(24);
    m_stack->addWidget(m_hint);

    auto *split = new QSplitter(Qt::Horizontal, m_stack);
    m_stack->addWidget(split);

    // Left: pickers, filters, the tree.
    auto *left = new QWidget(split);
    auto *lv = new QVBoxLayout(left);
    lv->setContentsMargins(6, 6, 6, 6);
    auto *row1 = new QHBoxLayout;
    row1->addWidget(new QLabel(tr("Table"), left));
    m_tables = new QComboBox(left);
    m_tables->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tables->setMinimumContentsLength(18);
    row1->addWidget(m_tables, 1);
    m_filterEdit = new QLineEdit(left);
    m_filterEdit->setPlaceholderText(tr("Filter: unit or operator name"));
    m_filterEdit->setClearButtonEnabled(true);
    row1->addWidget(m_filterEdit, 1);
    lv->addLayout(row1);

    auto *row2 = new QHBoxLayout;
    m_pathOnly = new QCheckBox(tr("On path only"), left);
    row2->addWidget(m_pathOnly);
    row2->addSpacing(8);
    row2->addWidget(new QLabel(tr("Within"), left));
    m_within = new QDoubleSpinBox(left);
    m_within->setRange(-1, 1000);
    m_within->setDecimals(0);
    m_within->setSingleStep(5);
    m_within->setValue(-1);
    m_within->setSpecialValueText(tr("any"));
    m_within->setSuffix(QStringLiteral(" %"));
    m_within->setToolTip(
        tr("states whose best schedule, and transitions whose total, is within this much of the best"));
    row2->addWidget(m_within);
    row2->addWidget(new QLabel(tr("of best"), left));
    row2->addStretch(1);
    auto *expand = new QToolButton(left);
    expand->setText(tr("Expand path"));
    auto *collapse = new QToolButton(left);
    collapse->setText(tr("Collapse all"));
    row2->addWidget(expand);
    row2->addWidget(collapse);
    lv->addLayout(row2);

    m_tree = new QTreeView(left);
    m_tree->setModel(m_filter);
    m_tree->setUniformRowHeights(true);
    m_tree->setAllColumnsShowFocus(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(QHeaderView::Interactive);
    const QFontMetrics fm(font());
    const int digit = fm.horizontalAdvance(QStringLiteral("0"));
    m_tree->setColumnWidth(SearchSpaceModel::NameColumn, digit * 26);
    m_tree->setColumnWidth(SearchSpaceModel::MarkColumn, digit * 4);
    m_tree->setColumnWidth(SearchSpaceModel::KindColumn, digit * 11);
    for (int c : {SearchSpaceModel::StageColumn, SearchSpaceModel::CostColumn, SearchSpaceModel::ViaColumn})
        m_tree->setColumnWidth(c, digit * 9);
    m_tree->setColumnWidth(SearchSpaceModel::DeltaColumn, digit * 7);
    m_tree->setColumnWidth(SearchSpaceModel::SchedulesColumn, digit * 9);
    m_tree->setColumnWidth(SearchSpaceModel::OutColumn, digit * 12);
    m_tree->setItemDelegate(new StepperDelegate(
        [](QStyleOptionViewItem &o, const QModelIndex &index) {
            const auto item = static_cast<SearchSpaceModel::Item>(index.data(SearchSpaceModel::ItemRole).toInt());
            if (item == SearchSpaceModel::Item::Table || item == SearchSpaceModel::Item::Level) {
                o.palette.setColor(QPalette::Text, mutedInk());
                if (index.column() == SearchSpaceModel::NameColumn)
                    o.font.setBold(true);
                return;
            }
            const bool path = index.data(SearchSpaceModel::OnPathRole).toBool();
            const bool chosen = index.data(SearchSpaceModel::ChosenRole).toBool();
            if (path || chosen)
                o.font.setBold(true);
            if (path)
                o.palette.setColor(QPalette::Text, pathInk());
            if (index.column() == SearchSpaceModel::MarkColumn && index.data(SearchSpaceModel::BestRole).toBool() &&
                !chosen)
                o.palette.setColor(QPalette::Text, bestInk());
            if (index.column() == SearchSpaceModel::DeltaColumn || index.column() == SearchSpaceModel::OutColumn)
                o.palette.setColor(QPalette::Text, path ? pathInk() : mutedInk());
        },
        m_tree));
    lv->addWidget(m_tree, 1);
    m_status = new QLabel(left);
    m_status->setStyleSheet(QStringLiteral("color: #5f6670"));
    lv->addWidget(m_status);
    m_note = new QLabel(left);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: #9a5b00"));
    lv->addWidget(m_note);

    // Right: the neighbourhood and the drawing.
    auto *right = new QSplitter(Qt::Vertical, split);
    auto *top = new QWidget(right);
    auto *tv = new QVBoxLayout(top);
    tv->setContentsMargins(6, 6, 6, 0);
    m_neighbourhood = new SearchNeighbourhoodView(top);
    tv->addWidget(m_neighbourhood, 1);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_forceButton = new QPushButton(tr("Force this stage"), top);
    m_forceButton->setToolTip(tr("override the decision of the selected transition's state with this stage"));
    buttons->addWidget(m_forceButton);
    tv->addLayout(buttons);
    auto *bottom = new QWidget(right);
    auto *bv = new QVBoxLayout(bottom);
    bv->setContentsMargins(6, 0, 6, 6);
    m_dagCaption = new QLabel(bottom);
    m_dagCaption->setWordWrap(true);
    m_dagCaption->setStyleSheet(QStringLiteral("color: #5f6670"));
    bv->addWidget(m_dagCaption);
    auto *scroll = new QScrollArea(bottom);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::StyledPanel);
    m_dag = new SearchDagView(scroll);
    scroll->setWidget(m_dag);
    bv->addWidget(scroll, 1);
    right->setStretchFactor(0, 2);
    right->setStretchFactor(1, 3);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    split->setSizes({560, 440});
    right->setSizes({300, 500});

    // Wiring.
    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(250);
    connect(m_filterTimer, &QTimer::timeout, this, &SearchExplorer::applyFilter);
    connect(m_filterEdit, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_pathOnly, &QCheckBox::toggled, this, &SearchExplorer::applyFilter);
    connect(m_within, &QDoubleSpinBox::valueChanged, this, &SearchExplorer::applyFilter);
    connect(m_tables, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!m_syncing)
            setCurrentTable(i);
    });
    connect(expand, &QToolButton::clicked, this, &SearchExplorer::expandPath);
    connect(collapse, &QToolButton::clicked, this, &SearchExplorer::collapseAll);
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { onCurrentChanged(current); });
    connect(m_tree, &QTreeView::doubleClicked, this, &SearchExplorer::onActivated);
    connect(m_tree->verticalScrollBar(), &QScrollBar::valueChanged, this, &SearchExplorer::fetchAtBottom);
    connect(m_tree->verticalScrollBar(), &QScrollBar::rangeChanged, this, &SearchExplorer::fetchAtBottom);
    connect(m_forceButton, &QPushButton::clicked, this, [this] { forceTransition(m_transition); });
    m_neighbourhood->onSelect = [this](int i) { selectTransition(i); };
    m_neighbourhood->onForce = [this](int i) {
        selectTransition(i);
        forceTransition(i);
    };
    m_dag->onSelectState = [this](int s) { selectState(s); };
}

bool SearchExplorer::hasSearchSpace() const
{
    return m_model->tableCount() > 0;
}

void SearchExplorer::setSearchSpace(std::shared_ptr<const ScheduleRun> run)
{
    // Stay on the same table and state across replays (an override re-runs the schedule).
    std::string keepTable;
    std::vector<NodeId> keepState; // a state is its nodes; labels may be clipped
    if (const SearchSpace::Table *t = m_model->table(m_table)) {
        keepTable = t->title;
        if (m_state >= 0)
            keepState = t->states[static_cast<std::size_t>(m_state)].nodes;
    }

    const std::shared_ptr<const SearchSpace> space = run ? run->result.searchSpace : nullptr;
    m_syncing = true;
    m_model->setSearchSpace(space && !space->tables.empty() ? space : nullptr);
    m_tables->clear();
    m_table = m_state = m_transition = -1;
    if (!space || space->tables.empty()) {
        m_syncing = false;
        QString text = tr("No search space in this run.\n\nIt is recorded while this dock is open: a scheduler that "
                          "searches a state space fills it on its next run — the dynamic programming table of each "
                          "part, with states, transitions and the chosen path. Schedulers that do not search leave "
                          "it empty.");
        if (space && !space->note.empty())
            text = tr("The search space is empty: %1").arg(QString::fromStdString(space->note));
        m_hint->setText(text);
        m_stack->setCurrentIndex(0);
        m_neighbourhood->set(nullptr, -1, -1, -1);
        m_dag->setTable(nullptr, -1);
        return;
    }
    for (const auto &t : space->tables)
        m_tables->addItem(QString::fromStdString(t.title) + (t.complete ? QString() : tr(" (incomplete)")));
    m_stack->setCurrentIndex(1);
    int table = -1;
    for (std::size_t i = 0; i < space->tables.size() && table < 0; ++i)
        if (space->tables[i].title == keepTable)
            table = static_cast<int>(i);
    if (table < 0) { // first time: the biggest table that kept its states
        std::size_t most = 0;
        table = 0;
        for (std::size_t i = 0; i < space->tables.size(); ++i)
            if (space->tables[i].states.size() > most) {
                most = space->tables[i].states.size();
                table = static_cast<int>(i);
            }
    }
    m_tables->setCurrentIndex(table);
    m_syncing = false;
    setCurrentTable(table);
    if (!keepState.empty()) {
        const auto &states = space->tables[static_cast<std::size_t>(table)].states;
        for (std::size_t s = 0; s < states.size(); ++s)
            if (states[s].nodes == keepState) {
                selectState(static_cast<int>(s));
                break;
            }
    }
}

void SearchExplorer::setCurrentTable(int table)
{
    if (!m_model->table(table))
        return;
    m_table = table;
    m_state = m_transition = -1;
    if (m_tables->currentIndex() != table) {
        m_syncing = true;
        m_tables->setCurrentIndex(table);
        m_syncing = false;
    }
    showTable();
}

void SearchExplorer::showTable()
{
    const SearchSpace::Table &t = *m_model->table(m_table);
    const QModelIndex root = m_filter->mapFromSource(m_model->tableIndexOf(m_table));
    if (m_filter->canFetchMore(root))
        m_filter->fetchMore(root);
    m_tree->setRootIndex(root);
    m_dag->setTable(m_model, m_table);
    if (static_cast<int>(t.states.size()) <= kWholeDagStates) {
        for (int l = 0; l < m_filter->rowCount(root); ++l) {
            const QModelIndex level = m_filter->index(l, 0, root);
            while (m_filter->canFetchMore(level))
                m_filter->fetchMore(level);
            m_tree->expand(level);
        }
    } else {
        expandPath();
    }
    const bool whole = m_dag->layout().whole;
    m_dagCaption->setText(
        t.states.empty() ? tr("No states kept for this part.")
        : whole          ? tr("The table as in Fig. 3.4 (2): states by level, transitions labelled with their stage; "
                                       "the path in orange. Click a state to select it.")
                         : tr("The path only: %1 states are too many to draw (at most %2); the tree has them all.")
                      .arg(formatCount(static_cast<double>(t.states.size())))
                      .arg(kWholeDagStates));
    if (!t.path.empty())
        selectState(t.path.front());
    else
        updateDetails();
    updateStatus();
}

void SearchExplorer::setFilterText(const QString &text)
{
    m_filterTimer->stop();
    if (m_filterEdit->text() != text) {
        const QSignalBlocker block(m_filterEdit);
        m_filterEdit->setText(text);
    }
    applyFilter();
}

void SearchExplorer::setPathOnly(bool on)
{
    m_pathOnly->setChecked(on); // applies through toggled
    applyFilter();
}

void SearchExplorer::setWithinPercent(double percent)
{
    m_within->setValue(percent < 0 ? -1 : percent);
    applyFilter();
}

void SearchExplorer::applyFilter()
{
    m_filterTimer->stop();
    SearchSpaceFilter f;
    f.text = m_filterEdit->text();
    f.pathOnly = m_pathOnly->isChecked();
    f.withinPercent = m_within->value() < 0 ? -1 : m_within->value();
    const SearchSpaceFilter &old = m_filter->filter();
    if (f.text.trimmed() == old.text && f.pathOnly == old.pathOnly && f.withinPercent == old.withinPercent)
        return;
    m_filter->setFilter(f);
    if (m_table < 0)
        return;
    // Rows fetched before may all be filtered out now: fetch on where the tree is open.
    const QModelIndex root = m_filter->mapFromSource(m_model->tableIndexOf(m_table));
    m_tree->setRootIndex(root);
    for (int l = 0; l < m_filter->rowCount(root); ++l) {
        const QModelIndex level = m_filter->index(l, 0, root);
        if (m_tree->isExpanded(level) && m_filter->rowCount(level) == 0 && m_filter->canFetchMore(level))
            m_filter->fetchMore(level);
    }
    if (f.active())
        expandPath();
    updateStatus();
}

void SearchExplorer::expandPath()
{
    if (m_table < 0)
        return;
    const SearchSpace::Table &t = *m_model->table(m_table);
    const auto &ix = m_model->tableIndex(m_table);
    std::vector<char> pathLevel(ix.levels.size(), 0);
    for (std::int32_t s : t.path)
        if (m_filter->acceptsState(m_table, s))
            pathLevel[static_cast<std::size_t>(ix.levelOf[static_cast<std::size_t>(s)])] = 1;
    const QModelIndex root = m_filter->mapFromSource(m_model->tableIndexOf(m_table));
    m_tree->setUpdatesEnabled(false);
    for (int l = 0; l < m_filter->rowCount(root); ++l) {
        const QModelIndex level = m_filter->index(l, 0, root);
        if (!pathLevel[static_cast<std::size_t>(m_filter->mapToSource(level).row())] && !m_filter->filter().active())
            continue;
        m_tree->expand(level); // the tree fetches a chunk when it lays the level out
    }
    for (std::int32_t s : t.path) // the path state comes first in its level: already fetched
        if (m_filter->acceptsState(m_table, s))
            m_tree->expand(m_filter->mapFromSource(m_model->stateIndex(m_table, s)));
    m_tree->setUpdatesEnabled(true);
}

void SearchExplorer::collapseAll()
{
    m_tree->collapseAll();
}

void SearchExplorer::selectState(int state)
{
    const SearchSpace::Table *t = m_model->table(m_table);
    if (!t || state < 0 || state >= static_cast<int>(t->states.size()))
        return;
    m_state = state;
    m_transition = -1;
    const QModelIndex px = m_filter->mapFromSource(m_model->stateIndex(m_table, state));
    if (px.isValid()) {
        m_syncing = true;
        m_tree->expand(px.parent());
        m_tree->setCurrentIndex(px);
        m_tree->scrollTo(px);
        m_syncing = false;
    }
    updateDetails();
    emitNodes();
}

void SearchExplorer::selectTransition(int transition)
{
    const SearchSpace::Table *t = m_model->table(m_table);
    if (!t || transition < 0 || transition >= static_cast<int>(t->transitions.size()))
        return;
    m_transition = transition;
    m_state = t->transitions[static_cast<std::size_t>(transition)].from;
    const QModelIndex px = m_filter->mapFromSource(m_model->transitionIndex(m_table, transition));
    if (px.isValid()) {
        m_syncing = true;
        m_tree->expand(px.parent().parent());
        m_tree->expand(px.parent());
        m_tree->setCurrentIndex(px);
        m_tree->scrollTo(px);
        m_syncing = false;
    }
    updateDetails();
    emitNodes();
}

bool SearchExplorer::forceTransition(int transition)
{
    const SearchSpace::Table *t = m_model->table(m_table);
    if (!t || transition < 0 || transition >= static_cast<int>(t->transitions.size()))
        return false;
    const auto &tr = t->transitions[static_cast<std::size_t>(transition)];
    if (tr.decisionKey.empty() || t->states[static_cast<std::size_t>(tr.from)].choice == transition)
        return false;
    emit overrideRequested(tr.decisionKey, tr.optionId);
    for (const auto &[key, option] : tr.extraDecisions)
        emit overrideRequested(key, option);
    return true;
}

void SearchExplorer::onCurrentChanged(const QModelIndex &current)
{
    if (m_syncing || !current.isValid())
        return;
    const QModelIndex src = m_filter->mapToSource(current);
    switch (m_model->item(src)) {
    case SearchSpaceModel::Item::State:
        m_state = m_model->stateOf(src);
        m_transition = -1;
        break;
    case SearchSpaceModel::Item::Transition:
        m_transition = m_model->transitionOf(src);
        m_state = m_model->stateOf(src);
        break;
    default: return;
    }
    updateDetails();
    emitNodes();
}

void SearchExplorer::onActivated(const QModelIndex &index)
{
    const QModelIndex src = m_filter->mapToSource(index);
    if (m_model->item(src) == SearchSpaceModel::Item::Transition)
        forceTransition(m_model->transitionOf(src));
}

void SearchExplorer::fetchAtBottom()
{
    // QTreeView fetches only for its root when scrolled to the end: any open parent whose
    // last fetched row is in view gets its next chunk (a few dozen rows are visible).
    const int bottom = m_tree->viewport()->height();
    for (QModelIndex idx = m_tree->indexAt(QPoint(4, 2)); idx.isValid(); idx = m_tree->indexBelow(idx)) {
        if (m_tree->visualRect(idx).top() > bottom)
            break;
        const QModelIndex parent = idx.parent();
        if (idx.row() == m_filter->rowCount(parent) - 1 && m_filter->canFetchMore(parent)) {
            m_filter->fetchMore(parent);
            return; // the range changes and brings us back here
        }
    }
}

void SearchExplorer::updateDetails()
{
    m_neighbourhood->set(m_model, m_table, m_state, m_transition);
    m_dag->setSelection(m_state, m_transition);
    const SearchSpace::Table *t = m_model->table(m_table);
    bool can = false;
    if (t && m_transition >= 0) {
        const auto &x = t->transitions[static_cast<std::size_t>(m_transition)];
        can = !x.decisionKey.empty() && t->states[static_cast<std::size_t>(x.from)].choice != m_transition;
        m_forceButton->setToolTip(
            can ? tr("force %1 = %2").arg(QString::fromStdString(x.decisionKey), QString::fromStdString(x.optionId))
            : x.decisionKey.empty() ? tr("only a state on the path asks a decision; force one of its stages")
                                    : tr("this is already the stage taken"));
    }
    m_forceButton->setEnabled(can);
}

void SearchExplorer::updateStatus()
{
    const SearchSpace::Table *t = m_model->table(m_table);
    if (!t) {
        m_status->clear();
        m_note->clear();
        return;
    }
    const std::size_t stages = t->path.empty() ? 0 : t->path.size() - 1;
    QString text = tr("%1 states · %2 transitions · a path of %3 %4")
                       .arg(formatCount(static_cast<double>(t->states.size())),
                            formatCount(static_cast<double>(t->transitions.size())))
                       .arg(stages)
                       .arg(stages == 1 ? tr("stage") : tr("stages"));
    // The walked path's cost, which after a force is not the optimum (the optimum stays as the reference).
    const SearchSpaceModel::TableIndex &ix = m_model->tableIndex(m_table);
    if (ix.forced())
        text += tr(" · path %1, forced: %2 over the optimum %3")
                    .arg(formatDurationNs(ix.pathCost), searchDeltaText(ix.pathCost / ix.optimum - 1),
                         formatDurationNs(ix.optimum));
    else if (!t->states.empty())
        text += tr(" · path %1, the optimum").arg(formatDurationNs(ix.pathCost));
    if (m_filter->filter().active())
        text += tr(" · the filter keeps %1 states").arg(formatCount(m_filter->acceptedStates(m_table)));
    m_status->setText(text);
    m_note->setText(QString::fromStdString(t->note));
    m_note->setVisible(!t->note.empty());
}

void SearchExplorer::emitNodes()
{
    const SearchSpace::Table *t = m_model->table(m_table);
    if (!t)
        return;
    if (m_transition >= 0)
        emit nodesSelected(t->transitions[static_cast<std::size_t>(m_transition)].nodes);
    else if (m_state >= 0)
        emit nodesSelected(t->states[static_cast<std::size_t>(m_state)].nodes);
}

} // namespace tessera::views
