// InspectorWidget (see inspectorwidget.h).
#include "views/widgets/inspectorwidget.h"

#include "views/models/nodeinspectormodel.h"
#include "views/models/workbenchstate.h"
#include "views/widgets/propertyview.h"

#include <QLabel>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace tessera::views {

InspectorWidget::InspectorWidget(QWidget *parent)
    : QWidget(parent), m_model(new NodeInspectorModel(this)), m_title(new QLabel(this)),
      m_stack(new QStackedWidget(this)), m_view(new PropertyView(this))
{
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setContentsMargins(4, 2, 4, 2);
    m_title->setWordWrap(true); // long scoped names must not widen the dock
    m_title->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);

    auto *hint = new QLabel(tr("Select a node or group in the graph or the outline."), this);
    hint->setAlignment(Qt::AlignCenter);
    hint->setWordWrap(true);
    hint->setEnabled(false);
    m_stack->addWidget(hint);
    m_view->setPropertyModel(m_model);
    m_stack->addWidget(m_view);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_stack, 1);
    updateTitle();
}

void InspectorWidget::setState(WorkbenchState *state)
{
    connect(state, &WorkbenchState::modelChanged, this, &InspectorWidget::clearSelection);
    connect(state, &WorkbenchState::selectionChanged, this, [this, state] {
        const auto model = state->model();
        if (!model)
            return;
        if (const NodeId node = state->selectedNode(); node != kInvalidId) {
            if (m_model->currentNode() != node)
                showNode(model, node);
        } else if (state->selectedGroup() >= 0) {
            showGroup(model, state->selectedGroup());
        } else {
            clearSelection();
        }
    });
}

void InspectorWidget::showNode(std::shared_ptr<const ModelData> data, NodeId node)
{
    m_model->showNode(std::move(data), node);
    updateTitle();
}

void InspectorWidget::showGroup(std::shared_ptr<const ModelData> data, GroupId group)
{
    m_model->showGroup(std::move(data), group);
    updateTitle();
}

void InspectorWidget::clearSelection()
{
    m_model->clearSelection();
    updateTitle();
}

QString InspectorWidget::title() const
{
    return m_title->text();
}

void InspectorWidget::updateTitle()
{
    const bool empty = m_model->title().isEmpty();
    m_title->setText(empty ? tr("Nothing selected") : m_model->title());
    m_title->setToolTip(m_model->title());
    m_stack->setCurrentIndex(empty ? 0 : 1);
}

} // namespace tessera::views
