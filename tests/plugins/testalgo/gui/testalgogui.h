// The test plugin's workbench part (see ../testalgo.h): a dock "testalgoDock"
// listing a testalgo plan's kernels, and a Schedule menu action
// "testalgoCountAction" that reports their number in the window's status tip.
#pragma once

namespace tessera::views {
class PlanExtensions;
}

namespace tessera {

void registerTestalgoPluginViews(views::PlanExtensions &extensions);

} // namespace tessera
