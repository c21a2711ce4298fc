// StepperWidget (see stepperwidget.h).
#include "views/widgets/stepperwidget.h"

#include "core/sched/scheduler.h"
#include "views/models/decisionoptionsmodel.h"
#include "views/models/decisionoverridesmodel.h"
#include "views/models/plansummary.h"
#include "views/models/steplistmodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/stepperdelegate.h"

#include <QAction>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>

namespace tessera::views {

namespace {

enum class Glyph { First, PrevDecision, Back, Play, Pause, Forward, NextDecision, Last };

// Transport icons drawn on a 16-unit grid in the palette's text colour, with
// decisions as an accent-coloured diamond, so they match every style.
QIcon transportIcon(Glyph glyph, const QColor &ink)
{
    QIcon icon;
    for (int size : {16, 32}) {
        QPixmap pm(size, size);
        pm.fill(Qt::transparent);
        QPainter p(&pm);
        p.setRenderHint(QPainter::Antialiasing);
        p.scale(size / 16.0, size / 16.0);
        p.setPen(Qt::NoPen);
        p.setBrush(ink);
        const auto tri = [&](double x0, double x1, bool right, double top = 3, double bottom = 13) {
            const double mid = (top + bottom) / 2;
            p.drawPolygon(right ? QPolygonF{QPointF(x0, top), QPointF(x1, mid), QPointF(x0, bottom)}
                                : QPolygonF{QPointF(x1, top), QPointF(x0, mid), QPointF(x1, bottom)});
        };
        const auto bar = [&](double x) { p.drawRect(QRectF(x, 3, 2, 10)); };
        const auto diamond = [&](double cx) {
            p.setBrush(stepcolors::accent());
            p.drawPolygon(QPolygonF{QPointF(cx, 4), QPointF(cx + 4, 8), QPointF(cx, 12), QPointF(cx - 4, 8)});
            p.setBrush(ink);
        };
        switch (glyph) {
        case Glyph::First:
            bar(1.5);
            tri(3.5, 9, false);
            tri(9, 14.5, false);
            break;
        case Glyph::Back:
            tri(3, 11, false);
            bar(12);
            break;
        case Glyph::Play: tri(4, 13, true, 2.5, 13.5); break;
        case Glyph::Pause:
            p.drawRect(QRectF(4, 3, 3, 10));
            p.drawRect(QRectF(9, 3, 3, 10));
            break;
        case Glyph::Forward:
            bar(2);
            tri(5, 13, true);
            break;
        case Glyph::Last:
            tri(1.5, 7, true);
            tri(7, 12.5, true);
            bar(12.5);
            break;
        case Glyph::PrevDecision:
            tri(1, 6.5, false, 4, 12);
            diamond(11);
            break;
        case Glyph::NextDecision:
            diamond(5);
            tri(9.5, 15, true, 4, 12);
            break;
        }
        p.end();
        icon.addPixmap(pm);
    }
    return icon;
}

QLabel *wrappingLabel(QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    return l;
}

void setupTable(QTableView *view)
{
    view->verticalHeader()->hide();
    view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view->setWordWrap(false);
    view->setShowGrid(false);
    view->setAlternatingRowColors(true);
    view->horizontalHeader()->setHighlightSections(false);
    view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
}

} // namespace

StepperWidget::StepperWidget(WorkbenchState *state, QUndoStack *undo, QWidget *parent)
    : QWidget(parent), m_state(state), m_undo(undo), m_steps(new StepListModel(this)),
      m_options(new DecisionOptionsModel(this)), m_overrides(new DecisionOverridesModel(this))
{
    Q_ASSERT(state);
    createActions();
    buildUi();
    connect(m_state, &WorkbenchState::scheduleStarted, this, &StepperWidget::onStarted);
    connect(m_state, &WorkbenchState::scheduleProgress, this, &StepperWidget::onProgress);
    connect(m_state, &WorkbenchState::scheduleFinished, this, &StepperWidget::onFinished);
    connect(m_state, &WorkbenchState::scheduleFailed, this, &StepperWidget::onFailed);
    connect(m_state, &WorkbenchState::overridesChanged, this, &StepperWidget::updateOverrideControls);
    // The touched nodes of the step on show are what the graph outlines.
    connect(this, &StepperWidget::stepActivated, m_state,
            [this](const std::vector<NodeId> &nodes) { m_state->setHighlighted(nodes, true); });
    if (auto run = m_state->lastRun())
        onFinished(std::move(run));
    else
        showStep(-1);
}

StepperWidget::~StepperWidget() = default;

void StepperWidget::createActions()
{
    const QColor ink = palette().color(QPalette::ButtonText);
    const auto make = [&](Glyph glyph, const QString &text, const QKeySequence &key, void (StepperWidget::*slot)()) {
        auto *a = new QAction(transportIcon(glyph, ink), text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(text, key.toString(QKeySequence::NativeText)));
        connect(a, &QAction::triggered, this, slot);
        addAction(a);
        return a;
    };
    m_firstAction = make(Glyph::First, tr("First step"), QKeySequence(Qt::CTRL | Qt::Key_Home), &StepperWidget::first);
    m_prevDecisionAction = make(Glyph::PrevDecision, tr("Previous decision"), QKeySequence(Qt::SHIFT | Qt::Key_F11),
                                &StepperWidget::previousDecision);
    m_backAction = make(Glyph::Back, tr("Step back"), QKeySequence(Qt::SHIFT | Qt::Key_F10), &StepperWidget::stepBack);
    m_playAction = new QAction(transportIcon(Glyph::Play, ink), tr("Play"), this);
    m_playAction->setShortcut(QKeySequence(Qt::Key_F5));
    m_playAction->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_playAction->setToolTip(tr("Play / pause (F5)"));
    connect(m_playAction, &QAction::triggered, this, [this] { isPlaying() ? pause() : play(); });
    addAction(m_playAction);
    m_forwardAction = make(Glyph::Forward, tr("Step forward"), QKeySequence(Qt::Key_F10), &StepperWidget::stepForward);
    m_nextDecisionAction =
        make(Glyph::NextDecision, tr("Next decision"), QKeySequence(Qt::Key_F11), &StepperWidget::nextDecision);
    m_lastAction = make(Glyph::Last, tr("Last step"), QKeySequence(Qt::CTRL | Qt::Key_End), &StepperWidget::last);

    m_playTimer = new QTimer(this);
    m_playTimer->setInterval(600);
    connect(m_playTimer, &QTimer::timeout, this, [this] {
        if (m_position + 1 >= m_steps->rowCount())
            pause();
        else
            stepForward();
    });
}

void StepperWidget::buildUi()
{
    // Transport row: buttons, slider, position; undo/redo; run status.
    m_toolBar = new QToolBar(this);
    m_toolBar->setIconSize(QSize(16, 16));
    m_toolBar->addActions({m_firstAction, m_prevDecisionAction, m_backAction, m_playAction, m_forwardAction,
                           m_nextDecisionAction, m_lastAction});
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setMinimumWidth(120);
    m_slider->setToolTip(tr("Position in the trace"));
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (!m_updatingSelection)
            setCurrentStep(v);
    });
    m_positionLabel = new QLabel(this);
    m_positionLabel->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("step 00000 / 00000")));

    QUndoStack *undo = m_undo;
    const auto undoButton = [&](const QString &text, bool isUndo) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setAutoRaise(true);
        b->setToolTip(text);
        b->setEnabled(undo && (isUndo ? undo->canUndo() : undo->canRedo()));
        if (!undo)
            return b;
        connect(b, &QToolButton::clicked, undo, isUndo ? &QUndoStack::undo : &QUndoStack::redo);
        connect(undo, isUndo ? &QUndoStack::canUndoChanged : &QUndoStack::canRedoChanged, b, &QWidget::setEnabled);
        connect(undo, isUndo ? &QUndoStack::undoTextChanged : &QUndoStack::redoTextChanged, b,
                [b, text](const QString &what) {
                    b->setToolTip(what.isEmpty() ? text : text + QStringLiteral(": ") + what);
                });
        return b;
    };
    auto *undoButtonW = undoButton(tr("↶ Undo"), true);
    auto *redoButtonW = undoButton(tr("↷ Redo"), false);
    undoButtonW->setObjectName(QStringLiteral("undoButton"));
    redoButtonW->setObjectName(QStringLiteral("redoButton"));

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 100);
    m_progress->setMaximumWidth(110);
    m_progress->setTextVisible(false);
    m_progress->hide();
    m_statusLabel = new QLabel(this);
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_toolBar);
    top->addWidget(m_slider, 1);
    top->addWidget(m_positionLabel);
    top->addSpacing(8);
    top->addWidget(undoButtonW);
    top->addWidget(redoButtonW);
    top->addSpacing(8);
    top->addWidget(m_progress);
    top->addWidget(m_statusLabel, 1);

    // Step list.
    m_stepView = new QTreeView(this);
    m_stepView->setModel(m_steps);
    m_stepView->setRootIsDecorated(false);
    m_stepView->setUniformRowHeights(true);
    m_stepView->setAlternatingRowColors(true);
    m_stepView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_stepView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_stepView->setAllColumnsShowFocus(true);
    m_stepView->setTextElideMode(Qt::ElideMiddle); // node names differ at their ends
    QHeaderView *h = m_stepView->header();
    h->setStretchLastSection(false);
    h->setHighlightSections(false);
    h->setSectionResizeMode(QHeaderView::ResizeToContents);
    h->setResizeContentsPrecision(64); // the rows on screen and 64 more: a trace may hold 10^5 steps
    h->setSectionResizeMode(StepListModel::TitleColumn, QHeaderView::Stretch);
    h->setSectionResizeMode(StepListModel::ConclusionColumn, QHeaderView::Stretch);
    const int em = fontMetrics().horizontalAdvance(QLatin1Char('M'));
    m_stepView->setItemDelegate(new StepperDelegate(
        [](QStyleOptionViewItem &o, const QModelIndex &index) {
            if (index.data(StepListModel::DecisionIndexRole).toInt() < 0)
                return;
            const bool forced = index.data(StepListModel::OverriddenRole).toBool();
            if (forced)
                o.backgroundBrush = stepcolors::tint(stepcolors::warn(), 36);
            if (index.column() == StepListModel::DecisionColumn)
                o.palette.setColor(QPalette::Text, forced ? stepcolors::warn().darker(130) : stepcolors::accent());
        },
        m_stepView));
    connect(m_stepView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex &current) { onCurrentIndexChanged(current); });

    // Details of the selected step.
    auto *details = new QWidget(this);
    m_titleLabel = wrappingLabel(details);
    QFont bold = m_titleLabel->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.1);
    m_titleLabel->setFont(bold);
    m_conclusionLabel = wrappingLabel(details);
    m_whyLabel = wrappingLabel(details);
    m_nodesLabel = wrappingLabel(details);
    auto *form = new QFormLayout;
    form->setContentsMargins(0, 0, 0, 0);
    form->setRowWrapPolicy(QFormLayout::DontWrapRows);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignLeft | Qt::AlignTop);
    form->addRow(tr("Concluded:"), m_conclusionLabel);
    form->addRow(tr("Why:"), m_whyLabel);
    form->addRow(tr("Nodes:"), m_nodesLabel);

    // Decision tab: a placeholder, or the options of the step's decision.
    m_decisionStack = new QStackedWidget(details);
    auto *noDecision = new QLabel(tr("This step asks no decision. Use ◆ to jump to the next one."), m_decisionStack);
    noDecision->setAlignment(Qt::AlignCenter);
    noDecision->setEnabled(false);
    m_decisionStack->addWidget(noDecision);
    auto *decisionPage = new QWidget(m_decisionStack);
    m_decisionHeader = wrappingLabel(decisionPage);
    m_optionsView = new QTableView(decisionPage);
    m_optionsView->setModel(m_options);
    setupTable(m_optionsView);
    QHeaderView *oh = m_optionsView->horizontalHeader();
    oh->setSectionResizeMode(QHeaderView::ResizeToContents);
    oh->setSectionResizeMode(DecisionOptionsModel::DetailColumn, QHeaderView::Stretch);
    oh->setStretchLastSection(false);
    m_optionsView->setItemDelegate(new StepperDelegate(
        [](QStyleOptionViewItem &o, const QModelIndex &index) {
            if (!index.data(DecisionOptionsModel::LegalRole).toBool()) {
                o.font.setItalic(true);
                if (index.column() == DecisionOptionsModel::StatusColumn)
                    o.palette.setColor(QPalette::Disabled, QPalette::Text, stepcolors::bad());
                return;
            }
            if (index.data(DecisionOptionsModel::ChosenRole).toBool())
                o.backgroundBrush =
                    stepcolors::tint(index.data(DecisionOptionsModel::OverriddenRole).toBool() ? stepcolors::warn()
                                                                                               : stepcolors::good());
            if (index.column() == DecisionOptionsModel::MarkColumn)
                o.displayAlignment = Qt::AlignCenter;
        },
        m_optionsView));
    connect(m_optionsView, &QAbstractItemView::doubleClicked, this,
            [this](const QModelIndex &index) { useOption(index.row()); });
    connect(m_optionsView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &StepperWidget::updateOverrideControls);
    m_useButton = new QPushButton(tr("Use this option"), decisionPage);
    m_useButton->setToolTip(tr("Force the selected option and replay the schedule (or double-click it)"));
    connect(m_useButton, &QPushButton::clicked, this, [this] { useOption(m_optionsView->currentIndex().row()); });
    m_resetButton = new QPushButton(tr("Use scheduler's choice"), decisionPage);
    m_resetButton->setToolTip(tr("Remove the override of this decision and replay"));
    connect(m_resetButton, &QPushButton::clicked, this, &StepperWidget::useSchedulerChoice);
    auto *legend = new QLabel(tr("★ preferred  ✓ used  ✎ forced"), decisionPage);
    legend->setEnabled(false);
    auto *decisionButtons = new QHBoxLayout;
    decisionButtons->addWidget(m_useButton);
    decisionButtons->addWidget(m_resetButton);
    decisionButtons->addStretch(1);
    decisionButtons->addWidget(legend);
    auto *decisionLayout = new QVBoxLayout(decisionPage);
    decisionLayout->setContentsMargins(6, 6, 6, 6);
    decisionLayout->addWidget(m_decisionHeader);
    decisionLayout->addWidget(m_optionsView, 1);
    decisionLayout->addLayout(decisionButtons);
    m_decisionStack->addWidget(decisionPage);

    m_numbers = new QTableWidget(0, 2, details);
    m_numbers->setHorizontalHeaderLabels({tr("Name"), tr("Value")});
    setupTable(m_numbers);
    m_numbers->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_numbers->horizontalHeader()->setStretchLastSection(true);
    m_delta = new QListWidget(details);
    m_delta->setAlternatingRowColors(true);

    auto *overridesPage = new QWidget(details);
    m_overridesView = new QTableView(overridesPage);
    m_overridesView->setModel(m_overrides);
    setupTable(m_overridesView);
    QHeaderView *vh = m_overridesView->horizontalHeader();
    vh->setSectionResizeMode(QHeaderView::ResizeToContents);
    vh->setSectionResizeMode(DecisionOverridesModel::KeyColumn, QHeaderView::Interactive);
    vh->resizeSection(DecisionOverridesModel::KeyColumn, 16 * em);
    vh->setStretchLastSection(true);
    m_overridesView->setItemDelegate(new StepperDelegate(
        [](QStyleOptionViewItem &o, const QModelIndex &index) {
            if (index.column() == DecisionOverridesModel::KeyColumn)
                o.textElideMode = Qt::ElideLeft; // keys share their role prefix; the scope tells them apart
            if (index.column() != DecisionOverridesModel::OutcomeColumn)
                return;
            switch (static_cast<OverrideReport::Outcome>(index.data(DecisionOverridesModel::OutcomeRole).toInt())) {
            case OverrideReport::Outcome::Applied: o.palette.setColor(QPalette::Text, stepcolors::good()); break;
            case OverrideReport::Outcome::Rejected: o.palette.setColor(QPalette::Text, stepcolors::bad()); break;
            case OverrideReport::Outcome::Stale: o.palette.setColor(QPalette::Text, stepcolors::warn()); break;
            }
            o.font.setBold(true);
        },
        m_overridesView));
    connect(m_overridesView->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &StepperWidget::updateOverrideControls);
    m_removeOverrideButton = new QPushButton(tr("Remove override"), overridesPage);
    connect(m_removeOverrideButton, &QPushButton::clicked, this, [this] {
        const QModelIndex i = m_overridesView->currentIndex();
        if (i.isValid())
            m_state->requestClearOverride(i.data(DecisionOverridesModel::KeyRole).toString().toStdString());
    });
    m_clearOverridesButton = new QPushButton(tr("Clear all"), overridesPage);
    connect(m_clearOverridesButton, &QPushButton::clicked, m_state, &WorkbenchState::requestClearOverrides);
    auto *overrideButtons = new QHBoxLayout;
    overrideButtons->addWidget(m_removeOverrideButton);
    overrideButtons->addWidget(m_clearOverridesButton);
    overrideButtons->addStretch(1);
    auto *overridesLayout = new QVBoxLayout(overridesPage);
    overridesLayout->setContentsMargins(6, 6, 6, 6);
    overridesLayout->addWidget(m_overridesView, 1);
    overridesLayout->addLayout(overrideButtons);

    m_tabs = new QTabWidget(details);
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_decisionStack, tr("Decision"));
    m_tabs->addTab(m_numbers, tr("Numbers"));
    m_tabs->addTab(m_delta, tr("Changes"));
    m_tabs->addTab(overridesPage, tr("Overrides"));

    auto *detailLayout = new QVBoxLayout(details);
    detailLayout->setContentsMargins(8, 0, 0, 0);
    detailLayout->addWidget(m_titleLabel);
    detailLayout->addLayout(form);
    detailLayout->addWidget(m_tabs, 1);

    auto *split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_stepView);
    split->addWidget(details);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);
}

void StepperWidget::onStarted()
{
    m_error.clear();
    m_progress->setValue(0);
    m_progress->show();
    updateStatus();
}

void StepperWidget::onProgress(double fraction)
{
    m_progress->setValue(static_cast<int>(fraction * 100));
}

void StepperWidget::onFailed(const QString &message)
{
    m_progress->hide();
    m_error = message;
    updateStatus();
}

void StepperWidget::onFinished(std::shared_ptr<const ScheduleRun> run)
{
    m_progress->hide();
    m_error.clear();
    // A replay of the same model keeps the position; a new model starts over.
    const auto &previous = m_steps->run();
    const bool sameModel = previous && previous->result.plan.modelHash == run->result.plan.modelHash;
    const int keep = sameModel ? m_position : 0;
    m_steps->setRun(run);
    m_overrides->setReports(run->overrideReports);
    m_position = -1;
    m_slider->setRange(0, std::max(0, m_steps->rowCount() - 1));
    const int bad = m_overrides->rowCount() - m_overrides->count(OverrideReport::Outcome::Applied);
    m_tabs->setTabText(3, m_overrides->rowCount() == 0 ? tr("Overrides")
                          : bad ? tr("Overrides (%1, %2 ⚠)").arg(m_overrides->rowCount()).arg(bad)
                                : tr("Overrides (%1)").arg(m_overrides->rowCount()));
    if (m_steps->rowCount() == 0)
        showStep(-1);
    else
        setCurrentStep(std::clamp(keep, 0, m_steps->rowCount() - 1));
    updateStatus();
}

void StepperWidget::updateStatus()
{
    QString text;
    QString colour;
    if (m_state->isScheduling()) {
        text = tr("scheduling with %1…").arg(m_state->schedulerName());
    } else if (!m_error.isEmpty()) {
        text = tr("scheduling failed: %1").arg(m_error);
        colour = stepcolors::bad().name();
    } else if (const auto &run = m_steps->run()) {
        text = tr("%1 · %2 steps · %3 decisions · search %4")
                   .arg(QString::fromStdString(run->result.plan.algorithm))
                   .arg(run->trace.size())
                   .arg(run->decisions.records().size())
                   .arg(formatMs(run->searchMs));
        if (run->trace.dropped())
            text += tr(" · %1 steps not recorded").arg(run->trace.dropped());
    } else {
        text = tr("no schedule yet");
    }
    m_statusLabel->setText(text);
    m_statusLabel->setStyleSheet(colour.isEmpty() ? QString() : QStringLiteral("color: %1").arg(colour));
}

void StepperWidget::onCurrentIndexChanged(const QModelIndex &current)
{
    if (m_updatingSelection || !current.isValid() || current.row() == m_position)
        return;
    m_position = current.row();
    showStep(m_position);
}

void StepperWidget::setCurrentStep(int row)
{
    const int rows = m_steps->rowCount();
    if (rows == 0)
        return;
    row = std::clamp(row, 0, rows - 1);
    m_updatingSelection = true;
    const QModelIndex index = m_steps->index(row, 0);
    m_stepView->selectionModel()->setCurrentIndex(index,
                                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_stepView->scrollTo(index);
    m_updatingSelection = false;
    m_position = row;
    showStep(row);
}

void StepperWidget::first()
{
    setCurrentStep(0);
}

void StepperWidget::last()
{
    setCurrentStep(m_steps->rowCount() - 1);
}

void StepperWidget::stepBack()
{
    if (m_position > 0)
        setCurrentStep(m_position - 1);
}

void StepperWidget::stepForward()
{
    if (m_position + 1 < m_steps->rowCount())
        setCurrentStep(m_position + 1);
}

void StepperWidget::previousDecision()
{
    if (const int row = m_steps->previousDecision(m_position); row >= 0)
        setCurrentStep(row);
}

void StepperWidget::nextDecision()
{
    if (const int row = m_steps->nextDecision(m_position); row >= 0)
        setCurrentStep(row);
}

void StepperWidget::play()
{
    if (m_steps->rowCount() == 0)
        return;
    if (m_position + 1 >= m_steps->rowCount())
        first();
    m_playTimer->start();
    m_playAction->setIcon(transportIcon(Glyph::Pause, palette().color(QPalette::ButtonText)));
    m_playAction->setText(tr("Pause"));
}

void StepperWidget::pause()
{
    m_playTimer->stop();
    m_playAction->setIcon(transportIcon(Glyph::Play, palette().color(QPalette::ButtonText)));
    m_playAction->setText(tr("Play"));
}

bool StepperWidget::isPlaying() const
{
    return m_playTimer->isActive();
}

void StepperWidget::setPlayInterval(int ms)
{
    m_playTimer->setInterval(ms);
}

bool StepperWidget::useOption(int row)
{
    const DecisionRecord *rec = m_options->record();
    const DecisionOption *opt = m_options->option(row);
    if (!rec || !opt || !opt->legal())
        return false;
    if (row == rec->preferred)
        m_state->requestClearOverride(rec->key);
    else
        m_state->requestOverride(rec->key, opt->id);
    return true;
}

void StepperWidget::useSchedulerChoice()
{
    if (const DecisionRecord *rec = m_options->record())
        m_state->requestClearOverride(rec->key);
}

QString StepperWidget::nodeNames(const std::vector<NodeId> &nodes) const
{
    const auto graph = m_state->graph();
    if (nodes.empty())
        return tr("—");
    QStringList names;
    constexpr std::size_t kShown = 12;
    for (std::size_t i = 0; i < std::min(nodes.size(), kShown); ++i)
        names << (graph && nodes[i] >= 0 && static_cast<std::size_t>(nodes[i]) < graph->nodeCount()
                      ? QString::fromStdString(graph->node(nodes[i]).name)
                      : QStringLiteral("#%1").arg(nodes[i]));
    QString text = names.join(QStringLiteral(", "));
    if (nodes.size() > kShown)
        text += tr(" and %1 more").arg(nodes.size() - kShown);
    return text;
}

void StepperWidget::showStep(int row)
{
    const TraceStep *s = m_steps->step(row);
    m_numbers->setRowCount(0);
    m_delta->clear();
    if (!s) {
        m_titleLabel->setText(m_steps->run() ? tr("The run recorded no steps") : tr("No schedule yet"));
        m_conclusionLabel->clear();
        m_whyLabel->clear();
        m_nodesLabel->clear();
        m_options->setDecision(nullptr, -1);
        m_decisionStack->setCurrentIndex(0);
        m_tabs->setTabText(1, tr("Numbers"));
        m_tabs->setTabText(2, tr("Changes"));
        updateTransport();
        updateOverrideControls();
        return;
    }
    m_titleLabel->setText(QStringLiteral("%1 · %2").arg(s->index).arg(QString::fromStdString(s->title)));
    m_conclusionLabel->setText(s->conclusion.empty() ? tr("—") : QString::fromStdString(s->conclusion));
    m_whyLabel->setText(s->why.empty() ? tr("—") : QString::fromStdString(s->why));
    m_nodesLabel->setText(nodeNames(s->touched));

    m_numbers->setRowCount(static_cast<int>(s->numbers.size()));
    for (int i = 0; i < static_cast<int>(s->numbers.size()); ++i) {
        const auto &[name, value] = s->numbers[static_cast<std::size_t>(i)];
        m_numbers->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(name)));
        auto *v = new QTableWidgetItem(QString::number(value, 'g', 6));
        v->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_numbers->setItem(i, 1, v);
    }
    for (const std::string &d : s->delta)
        m_delta->addItem(QString::fromStdString(d));
    m_tabs->setTabText(1, s->numbers.empty() ? tr("Numbers") : tr("Numbers (%1)").arg(s->numbers.size()));
    m_tabs->setTabText(2, s->delta.empty() ? tr("Changes") : tr("Changes (%1)").arg(s->delta.size()));

    m_options->setDecision(m_steps->run(), s->decision);
    if (const DecisionRecord *rec = m_options->record()) {
        m_decisionStack->setCurrentIndex(1);
        m_decisionHeader->setText(tr("<b>%1</b> &nbsp;<span style='color:gray'>%2</span>")
                                      .arg(QString::fromStdString(rec->role).toHtmlEscaped(),
                                           QString::fromStdString(rec->key).toHtmlEscaped()));
        // Current but not selected: the used option's tint stays visible.
        m_optionsView->selectionModel()->setCurrentIndex(
            m_options->index(rec->chosen, DecisionOptionsModel::LabelColumn), QItemSelectionModel::NoUpdate);
    } else {
        m_decisionStack->setCurrentIndex(0);
    }
    updateTransport();
    updateOverrideControls();
    emit stepActivated(s->touched);
    emit currentStepChanged(row);
}

void StepperWidget::updateTransport()
{
    const int rows = m_steps->rowCount();
    const int pos = m_position;
    m_firstAction->setEnabled(pos > 0);
    m_backAction->setEnabled(pos > 0);
    m_forwardAction->setEnabled(pos >= 0 && pos + 1 < rows);
    m_lastAction->setEnabled(pos >= 0 && pos + 1 < rows);
    m_prevDecisionAction->setEnabled(m_steps->previousDecision(pos) >= 0);
    m_nextDecisionAction->setEnabled(m_steps->nextDecision(pos) >= 0);
    m_playAction->setEnabled(rows > 1);
    m_updatingSelection = true;
    m_slider->setEnabled(rows > 1);
    m_slider->setValue(std::max(pos, 0));
    m_updatingSelection = false;
    m_positionLabel->setText(rows ? tr("step %1 / %2").arg(pos + 1).arg(rows) : tr("no steps"));
}

void StepperWidget::updateOverrideControls()
{
    const DecisionRecord *rec = m_options->record();
    const QModelIndex current = m_optionsView->currentIndex();
    const DecisionOption *opt = current.isValid() ? m_options->option(current.row()) : nullptr;
    const Overrides &overrides = m_state->overrides();
    m_useButton->setEnabled(rec && opt && opt->legal() && current.row() != rec->chosen);
    m_resetButton->setEnabled(rec && overrides.count(rec->key));
    const QModelIndex report = m_overridesView->currentIndex();
    m_removeOverrideButton->setEnabled(
        report.isValid() && overrides.count(report.data(DecisionOverridesModel::KeyRole).toString().toStdString()));
    m_clearOverridesButton->setEnabled(!overrides.empty());
}

} // namespace tessera::views
