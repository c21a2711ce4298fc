// SearchPanel (see searchpanel.h).
#include "views/widgets/searchpanel.h"

#include "views/models/searchmodel.h"
#include "views/models/workbenchstate.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QShortcut>
#include <QStackedWidget>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace tessera::views {

SearchPanel::SearchPanel(QWidget *parent)
    : QWidget(parent), m_model(new SearchModel(this)), m_edit(new QLineEdit(this)), m_prev(new QToolButton(this)),
      m_next(new QToolButton(this)), m_counter(new QLabel(this)), m_results(new QTreeView(this)),
      m_stack(new QStackedWidget(this)), m_debounce(new QTimer(this))
{
    m_edit->setPlaceholderText(tr("Name, op type or op:Conv"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setToolTip(tr("Terms must all match: a plain term matches a node name substring or an op type;\n"
                          "op:NAME matches the op type only. Enter steps to the next match."));
    m_prev->setIcon(style()->standardIcon(QStyle::SP_ArrowUp));
    m_prev->setToolTip(tr("Previous match (Shift+F3)"));
    m_next->setIcon(style()->standardIcon(QStyle::SP_ArrowDown));
    m_next->setToolTip(tr("Next match (F3)"));
    m_counter->setMinimumWidth(m_counter->fontMetrics().horizontalAdvance(QStringLiteral("0000 of 0000")));
    m_counter->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

    m_results->setModel(m_model);
    m_results->setRootIsDecorated(false);
    m_results->setUniformRowHeights(true);
    m_results->setAlternatingRowColors(true);
    m_results->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_results->setTextElideMode(Qt::ElideMiddle);
    m_results->header()->setStretchLastSection(false);
    m_results->header()->setSectionResizeMode(SearchModel::NameColumn, QHeaderView::Stretch);
    m_results->header()->setSectionResizeMode(SearchModel::OpColumn, QHeaderView::ResizeToContents);

    auto *row = new QHBoxLayout;
    row->setSpacing(2);
    row->addWidget(m_edit, 1);
    row->addWidget(m_counter);
    row->addWidget(m_prev);
    row->addWidget(m_next);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->setSpacing(2);
    layout->addLayout(row);
    auto *hint = new QLabel(tr("Type part of a node name (layer3), an op type (Conv) or op:Conv. "
                               "All terms must match; Enter or F3 steps through the matches."),
                            this);
    hint->setWordWrap(true);
    hint->setAlignment(Qt::AlignCenter);
    hint->setEnabled(false);
    hint->setMargin(12);
    m_stack->addWidget(hint);
    m_stack->addWidget(m_results);
    layout->addWidget(m_stack, 1);

    m_debounce->setSingleShot(true);
    m_debounce->setInterval(150);
    connect(m_debounce, &QTimer::timeout, this, &SearchPanel::runQuery);
    connect(m_edit, &QLineEdit::textEdited, m_debounce, qOverload<>(&QTimer::start));
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (m_debounce->isActive() || m_edit->text() != m_model->query())
            runQuery();
        next();
    });
    connect(m_prev, &QToolButton::clicked, this, &SearchPanel::previous);
    connect(m_next, &QToolButton::clicked, this, &SearchPanel::next);
    new QShortcut(QKeySequence(Qt::Key_F3), this, this, &SearchPanel::next, Qt::WindowShortcut);
    new QShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3), this, this, &SearchPanel::previous, Qt::WindowShortcut);
    connect(m_results, &QTreeView::clicked, this, [this](const QModelIndex &index) { setCurrentRow(index.row()); });
    connect(m_results, &QTreeView::activated, this, [this](const QModelIndex &index) { setCurrentRow(index.row()); });
    updateCounter();
}

void SearchPanel::setState(WorkbenchState *state)
{
    connect(state, &WorkbenchState::modelChanged, this, [this, state] { setModelData(state->model()); });
    connect(this, &SearchPanel::matchesChanged, state,
            [state](const std::vector<NodeId> &matches) { state->setHighlighted(matches); });
    connect(this, &SearchPanel::currentMatchChanged, state, [state](NodeId node) { state->selectNode(node, true); });
}

void SearchPanel::setModelData(std::shared_ptr<const ModelData> data)
{
    m_current = kInvalidId;
    m_model->setModelData(std::move(data));
    updateCounter();
    emit matchesChanged(m_model->matches());
}

void SearchPanel::setQuery(const QString &query)
{
    m_edit->setText(query);
    runQuery();
}

QString SearchPanel::query() const
{
    return m_model->query();
}

const std::vector<NodeId> &SearchPanel::matches() const
{
    return m_model->matches();
}

void SearchPanel::runQuery()
{
    m_debounce->stop();
    if (m_edit->text() == m_model->query())
        return;
    m_current = kInvalidId;
    m_model->setQuery(m_edit->text());
    updateCounter();
    emit matchesChanged(m_model->matches());
}

void SearchPanel::next()
{
    step(+1);
}

void SearchPanel::previous()
{
    step(-1);
}

void SearchPanel::focusQuery()
{
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

void SearchPanel::step(int delta)
{
    const int n = m_model->rowCount();
    if (n == 0)
        return;
    const int row = m_model->rowOf(m_current);
    setCurrentRow(row < 0 ? (delta > 0 ? 0 : n - 1) : (row + delta + n) % n);
}

void SearchPanel::setCurrentRow(int row)
{
    const NodeId node = m_model->nodeAt(row);
    if (node == kInvalidId)
        return;
    m_current = node;
    const QModelIndex index = m_model->index(row, 0);
    m_results->setCurrentIndex(index);
    m_results->scrollTo(index);
    updateCounter();
    emit currentMatchChanged(node);
}

void SearchPanel::updateCounter()
{
    const int n = m_model->rowCount();
    const int row = m_model->rowOf(m_current);
    if (m_model->query().trimmed().isEmpty())
        m_counter->clear();
    else if (n == 0)
        m_counter->setText(tr("no match"));
    else if (row < 0)
        m_counter->setText(n == 1 ? tr("1 match") : tr("%1 matches").arg(n));
    else
        m_counter->setText(tr("%1 of %2").arg(row + 1).arg(n));
    m_stack->setCurrentIndex(m_model->query().trimmed().isEmpty() ? 0 : 1);
    m_prev->setEnabled(n > 0);
    m_next->setEnabled(n > 0);
}

} // namespace tessera::views
