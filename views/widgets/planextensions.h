// PlanExtensions: the workbench part of a plugin (docs/plugins.md) — dock
// views and actions that appear when a plan of its algorithm is shown.
//
// A plugin's optional gui/ library registers them in
//   void register<Name>PluginViews(views::PlanExtensions &)
// (listed by tessera_add_plugin(<name> GUI) in plugins/CMakeLists.txt). The
// workbench creates a dock the first time a plan it shows applies, passes it
// every later such plan, and hides it while another algorithm's plan is shown;
// an action is enabled only while its plan is. Neither names an algorithm in
// the workbench: it loops over these lists.
#pragma once

#include "core/ir/graph.h"
#include "core/sched/scheduler.h"

#include <QString>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

class QWidget;

namespace tessera {
struct Device;
class BackendRegistry;
class Project;
} // namespace tessera

namespace tessera::views {

// What the workbench shows: a finished run, the graph it scheduled and the device.
struct PlanShown {
    std::shared_ptr<const Graph> graph;
    std::shared_ptr<const ScheduleRun> run;
    const Device *device = nullptr;                                      // may be null
    const std::map<std::string, std::string> *modelProperties = nullptr; // the model's metadata_props; may be null
    std::string modelPath;
    // The workbench's backends (a view may measure on one, off the GUI thread); may be null.
    const BackendRegistry *backends = nullptr;
    // The open project file (a view may keep plugin data in it: Project::setPluginData); may be null.
    Project *project = nullptr;
    // Selects a node in the workbench (graph view, inspector); empty outside it.
    std::function<void(NodeId)> selectNode;
    // Outlines nodes in the graph view (a kernel's, a stage's, a task's) and
    // centres on the first; empty outside the workbench.
    std::function<void(std::vector<NodeId>)> highlightNodes;
};

// A dock view. `create` makes the widget (owned by the dock); `show` hands it each plan it applies to.
struct PlanDock {
    QString objectName; // "<plugin>Dock": unique, saved with the window layout
    QString title;
    std::vector<std::string> algorithms; // the plans it shows; empty: every plan
    std::function<QWidget *(QWidget *parent)> create;
    std::function<void(QWidget *view, const PlanShown &plan)> show;
};

// A Schedule menu action, enabled while a plan it applies to is shown.
struct PlanAction {
    QString objectName;
    QString text;
    QString statusTip;
    std::vector<std::string> algorithms; // empty: every plan
    std::function<void(const PlanShown &plan, QWidget *window)> trigger;
};

class PlanExtensions
{
public:
    void addDock(PlanDock dock); // object names are unique (asserted)
    void addAction(PlanAction action);

    const std::vector<PlanDock> &docks() const { return m_docks; }
    const std::vector<PlanAction> &actions() const { return m_actions; }

    static bool applies(const std::vector<std::string> &algorithms, std::string_view algorithm);

private:
    std::vector<PlanDock> m_docks;
    std::vector<PlanAction> m_actions;
};

} // namespace tessera::views
