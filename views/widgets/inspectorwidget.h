// InspectorWidget: the Inspector dock — the selected node's or group's title
// above a PropertyView of its NodeInspectorModel, or a hint when nothing is
// selected. setState() makes it follow a WorkbenchState's model and selection.
#pragma once

#include "views/models/modeldata.h"

#include <QWidget>

#include <memory>

class QLabel;
class QStackedWidget;

namespace tessera::views {

class NodeInspectorModel;
class PropertyView;
class WorkbenchState;

class InspectorWidget final : public QWidget
{
    Q_OBJECT
public:
    explicit InspectorWidget(QWidget *parent = nullptr);

    // Shows the state's selected node or group; a new model clears it. The
    // state must outlive the widget.
    void setState(WorkbenchState *state);

    void showNode(std::shared_ptr<const ModelData> data, NodeId node);
    void showGroup(std::shared_ptr<const ModelData> data, GroupId group);
    void clearSelection();

    NodeInspectorModel *model() const { return m_model; }
    QString title() const;

private:
    void updateTitle();

    NodeInspectorModel *m_model;
    QLabel *m_title;
    QStackedWidget *m_stack;
    PropertyView *m_view;
};

} // namespace tessera::views
