// The Welder docks: the tile-graph view in a scroll area (tilegraphview.h) and the fusion-pattern
// list (fusionpatterns.h).
#include "plugins/welder/gui/weldergui.h"

#include "plugins/welder/gui/fusionpatterns.h"
#include "plugins/welder/gui/tilegraphview.h"
#include "views/widgets/planextensions.h"

#include <QScrollArea>

namespace tessera {

void registerWelderPluginViews(views::PlanExtensions &extensions)
{
    extensions.addDock({QStringLiteral("welderTileGraphDock"),
                        QStringLiteral("Tile-graph"),
                        {"welder"},
                        [](QWidget *parent) -> QWidget * {
                            auto *scroll = new QScrollArea(parent);
                            scroll->setWidget(new welder::TileGraphView(scroll));
                            scroll->setWidgetResizable(false);
                            return scroll;
                        },
                        [](QWidget *view, const views::PlanShown &plan) {
                            auto *scroll = static_cast<QScrollArea *>(view);
                            auto *graph = static_cast<welder::TileGraphView *>(scroll->widget());
                            if (plan.graph && plan.run)
                                graph->setRun(*plan.graph, *plan.run);
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
