// BrickDL's workbench part: the "Bricks" dock (objectName "brickdlDock") for
// brickdl plans — the bricks of a layer coloured by state at a point of the
// issue order chosen with a scrubber (brickdl-icpp24 Fig. 3/5), the padded
// region (halo) of the running task, the sub-graph's Δ and ρ, and the brick
// liveness timeline: on-chip bytes live over time against the level's
// capacity, the selected layer's resident bricks highlighted. Clicking a
// brick selects its layer in the graph view (PlanShown::selectNode).
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {

void registerBrickdlPluginViews(views::PlanExtensions &extensions);

} // namespace tessera
