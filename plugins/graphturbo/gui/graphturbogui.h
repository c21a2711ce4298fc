// GraphTurbo's workbench part: the "Sub-graph Instances" dock (instanceview.h)
// for graphturbo plans.
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {

void registerGraphturboPluginViews(views::PlanExtensions &extensions);

} // namespace tessera
