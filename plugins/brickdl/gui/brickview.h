// The Bricks dock's widget (brickdlgui.h): a layer chooser, a time scrubber
// over the plan's issue order, the brick map of the layer and the brick
// liveness chart. Data: plugins/brickdl/bricktimeline.h. Clicking a brick
// selects its layer's node in the workbench.
#pragma once

#include "core/sched/scheduler.h"
#include "plugins/brickdl/bricktimeline.h"

#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QLabel;
class QSlider;

namespace tessera::brickdl {

class BrickView final : public QWidget
{
    Q_OBJECT
public:
    explicit BrickView(QWidget *parent = nullptr);

    void setPlan(std::shared_ptr<const Graph> graph, std::shared_ptr<const ScheduleRun> run, const Device *device);
    // Called with the layer's node when a brick is clicked (the workbench selects it).
    void setSelectNode(std::function<void(NodeId)> select) { m_selectNode = std::move(select); }
    void brickClicked() const;
    void setTime(TaskId task);
    void setLayer(int index);

    const BrickTimeline &timeline() const { return m_timeline; }
    TaskId time() const { return m_time; }
    const BrickTimeline::Layer *layer() const;
    const Graph *graph() const { return m_graph.get(); }

private:
    void updateInfo();

    std::shared_ptr<const Graph> m_graph;
    std::shared_ptr<const ScheduleRun> m_run;
    BrickTimeline m_timeline;
    TaskId m_time = 0;
    int m_layer = -1;
    QComboBox *m_layers = nullptr;
    QSlider *m_slider = nullptr;
    QLabel *m_info = nullptr;
    QWidget *m_map = nullptr;
    QWidget *m_live = nullptr;
    std::function<void(NodeId)> m_selectNode;
};

} // namespace tessera::brickdl
