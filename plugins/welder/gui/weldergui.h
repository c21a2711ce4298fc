// The Welder plugin's workbench part: the tile-graph dock (tilegraphview.h) and the fusion-pattern
// dock (fusionpatterns.h).
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {
void registerWelderPluginViews(views::PlanExtensions &extensions);
}
