// The Welder plugin's workbench part: the tile-graph dock (tilegraphview.h).
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {
void registerWelderPluginViews(views::PlanExtensions &extensions);
}
