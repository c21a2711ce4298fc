// PCGC's workbench part: a dock "pcgcDock" with two tabs read from a PCGC
// run's trace — the static-fusion rule firings (which rule, which groups,
// fused or refused and why) and the re-cutting table (each group with split
// points: the choice and the predicted time and energy before and after).
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {

void registerPcgcPluginViews(views::PlanExtensions &extensions);

} // namespace tessera
