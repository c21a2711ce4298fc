// RunComparisonWidget (see runcomparisonwidget.h).
#include "views/widgets/runcomparisonwidget.h"

#include "core/sched/scheduler.h"
#include "views/models/runcomparisonmodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/stepperdelegate.h"

#include <QAction>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace tessera::views {

RunComparisonWidget::RunComparisonWidget(WorkbenchState *state, QWidget *parent)
    : QWidget(parent), m_state(state), m_model(new RunComparisonModel(this)),
      m_pinAction(new QAction(tr("Pin for Comparison"), this)), m_first(new QComboBox(this)),
      m_second(new QComboBox(this)), m_clearButton(new QToolButton(this)), m_view(new QTableView(this))
{
    Q_ASSERT(state);
    m_pinAction->setToolTip(tr("Keep the current schedule to compare later runs against it"));
    m_pinAction->setEnabled(false);
    connect(m_pinAction, &QAction::triggered, this, &RunComparisonWidget::pinCurrent);
    auto *pinButton = new QToolButton(this);
    pinButton->setDefaultAction(m_pinAction);
    m_clearButton->setText(tr("Clear pins"));
    m_clearButton->setEnabled(false);
    connect(m_clearButton, &QToolButton::clicked, this, &RunComparisonWidget::clearPinned);
    for (QComboBox *c : {m_first, m_second}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        connect(c, &QComboBox::currentIndexChanged, this, &RunComparisonWidget::refresh);
    }

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(pinButton);
    top->addWidget(m_clearButton);
    top->addSpacing(12);
    top->addWidget(m_first);
    top->addWidget(new QLabel(tr("vs"), this));
    top->addWidget(m_second);
    top->addStretch(1);

    m_view->setModel(m_model);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->setShowGrid(false);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    QHeaderView *h = m_view->horizontalHeader();
    h->setHighlightSections(false);
    h->setSectionResizeMode(QHeaderView::Stretch);
    h->setSectionResizeMode(RunComparisonModel::MetricColumn, QHeaderView::ResizeToContents);
    m_view->setItemDelegate(new StepperDelegate(
        [](QStyleOptionViewItem &o, const QModelIndex &index) {
            if (index.data(RunComparisonModel::BetterRole).toBool()) {
                o.backgroundBrush = stepcolors::tint(stepcolors::good());
                o.font.setBold(true);
            }
        },
        m_view));

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);

    connect(m_state, &WorkbenchState::scheduleFinished, this, [this] {
        m_pinAction->setEnabled(true);
        refresh();
    });
    // A backend run of either side's plan adds its measured rows.
    connect(m_state, &WorkbenchState::backendRunFinished, this, &RunComparisonWidget::refresh);
    connect(m_state, &WorkbenchState::backendRunRestored, this, &RunComparisonWidget::refresh);
    m_pinAction->setEnabled(m_state->lastRun() != nullptr);
    rebuildChoices();
    setSides(1, 0);
}

std::shared_ptr<const ScheduleRun> RunComparisonWidget::runOf(int choice, QString *title) const
{
    if (choice == 1) {
        *title = tr("Current");
        return m_state->lastRun();
    }
    if (choice >= 2 && choice - 2 < pinnedCount()) {
        const Pinned &p = m_pinned[static_cast<std::size_t>(choice - 2)];
        *title = p.title;
        return p.run;
    }
    *title = QString();
    return nullptr;
}

void RunComparisonWidget::refresh()
{
    QString titles[2];
    auto first = runOf(m_first->currentIndex(), &titles[0]);
    auto second = runOf(m_second->currentIndex(), &titles[1]);
    Measurement measured[2] = {m_state->measurementOf(first), m_state->measurementOf(second)};
    m_model->setRuns(std::move(first), titles[0], std::move(second), titles[1], std::move(measured[0]),
                     std::move(measured[1]));
}

void RunComparisonWidget::rebuildChoices()
{
    for (QComboBox *c : {m_first, m_second}) {
        const QSignalBlocker block(c);
        const int keep = c->currentIndex();
        c->clear();
        c->addItem(tr("(none)"));
        c->addItem(tr("Current run"));
        for (const Pinned &p : m_pinned)
            c->addItem(p.title);
        c->setCurrentIndex(std::clamp(keep, 0, c->count() - 1));
    }
    m_clearButton->setEnabled(!m_pinned.empty());
}

bool RunComparisonWidget::pinCurrent()
{
    auto run = m_state->lastRun();
    if (!run)
        return false;
    if (pinnedCount() == kMaxPinned)
        m_pinned.erase(m_pinned.begin());
    const auto forced = std::count_if(run->overrideReports.begin(), run->overrideReports.end(),
                                      [](const auto &r) { return r.outcome == OverrideReport::Outcome::Applied; });
    QString title = tr("Pin %1 · %2").arg(++m_pinSerial).arg(QString::fromStdString(run->result.plan.algorithm));
    if (forced)
        title += tr(" · %n override(s)", nullptr, static_cast<int>(forced));
    m_pinned.push_back({std::move(run), title});
    rebuildChoices();
    setSides(1 + pinnedCount(), 1); // the new pin against whatever runs next
    emit pinnedChanged();
    return true;
}

void RunComparisonWidget::clearPinned()
{
    const bool had = !m_pinned.empty();
    m_pinned.clear();
    rebuildChoices();
    setSides(1, 0);
    if (had)
        emit pinnedChanged();
}

void RunComparisonWidget::setPinned(std::vector<PinnedRun> pins, int serial)
{
    if (pins.size() > static_cast<std::size_t>(kMaxPinned))
        pins.erase(pins.begin(), pins.end() - kMaxPinned);
    m_pinned = std::move(pins);
    m_pinSerial = std::max(serial, pinnedCount());
    rebuildChoices();
    setSides(m_pinned.empty() ? 1 : 1 + pinnedCount(), m_pinned.empty() ? 0 : 1);
}

void RunComparisonWidget::setSides(int first, int second)
{
    {
        const QSignalBlocker b1(m_first), b2(m_second);
        m_first->setCurrentIndex(std::clamp(first, 0, m_first->count() - 1));
        m_second->setCurrentIndex(std::clamp(second, 0, m_second->count() - 1));
    }
    refresh();
}

} // namespace tessera::views
