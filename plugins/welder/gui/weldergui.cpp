// The Welder dock: the tile-graph view in a scroll area (see tilegraphview.h).
#include "plugins/welder/gui/weldergui.h"

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
}

} // namespace tessera
