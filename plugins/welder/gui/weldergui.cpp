// The Welder docks: the tile-graph panel (tilegraphpanel.h: grouping level, tile-graph view,
// traffic per level) and the fusion-pattern list (fusionpatterns.h).
#include "plugins/welder/gui/weldergui.h"

#include "plugins/welder/gui/fusionpatterns.h"
#include "plugins/welder/gui/tilegraphpanel.h"
#include "views/widgets/planextensions.h"

namespace tessera {

void registerWelderPluginViews(views::PlanExtensions &extensions)
{
    extensions.addDock({QStringLiteral("welderTileGraphDock"),
                        QStringLiteral("Tile-graph"),
                        {"welder"},
                        [](QWidget *parent) -> QWidget * { return new welder::TileGraphPanel(parent); },
                        [](QWidget *view, const views::PlanShown &plan) {
                            if (plan.graph && plan.run)
                                static_cast<welder::TileGraphPanel *>(view)->setRun(*plan.graph, *plan.run,
                                                                                    plan.selectNode);
                        }});
    extensions.addDock({QStringLiteral("welderFusionPatternDock"),
                        QStringLiteral("Fusion patterns"),
                        {"welder"},
                        [](QWidget *parent) -> QWidget * { return new welder::FusionPatternView(parent); },
                        [](QWidget *view, const views::PlanShown &plan) {
                            if (plan.graph && plan.run)
                                static_cast<welder::FusionPatternView *>(view)->setPlan(*plan.graph,
                                                                                        plan.run->result.plan);
                        }});
}

} // namespace tessera
