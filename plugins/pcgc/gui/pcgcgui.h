// PCGC's workbench part: a dock "pcgcDock" with two tabs read from a PCGC
// run's trace — the static-fusion rule firings (which rule, which groups,
// fused or refused and why) and the re-cutting table (each group with split
// points: the choice and the predicted time and energy before and after) —
// and a third, the learned cost model (pcgc §3.5): the model the run used, or
// else the device's saved one, as predicted-vs-measured scatters of its
// held-back ops for time and power beside the analytic model (Qt Charts), its
// accuracy and how it was trained; without a model, why not and how to train one.
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {

void registerPcgcPluginViews(views::PlanExtensions &extensions);

} // namespace tessera
