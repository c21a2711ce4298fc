// GraphTurbo's workbench part for graphturbo plans: the "Sub-graph Instances"
// dock (instanceview.h, Fig. 3b/6, Table 3), and the "Tensor Liveness" (Fig. 12)
// and "Instruction Overlap" (Fig. 13) timelines (timelineviews.h).
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {

void registerGraphturboPluginViews(views::PlanExtensions &extensions);

} // namespace tessera
