#include "plugins/brickdl/gui/brickdlgui.h"

#include "plugins/brickdl/gui/brickview.h"
#include "views/widgets/planextensions.h"

namespace tessera {

void registerBrickdlPluginViews(views::PlanExtensions &extensions)
{
    extensions.addDock({QStringLiteral("brickdlDock"),
                        QStringLiteral("Bricks"),
                        {"brickdl"},
                        [](QWidget *parent) -> QWidget * { return new brickdl::BrickView(parent); },
                        [](QWidget *view, const views::PlanShown &plan) {
                            auto *bricks = static_cast<brickdl::BrickView *>(view);
                            bricks->setSelectNode(plan.selectNode);
                            bricks->setPlan(plan.graph, plan.run, plan.device);
                        }});
}

} // namespace tessera
