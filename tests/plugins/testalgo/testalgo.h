// testalgo: the test plugin of docs/plugins.md. It proves that a plugin folder
// contributes, through one registration line (tests/plugins/CMakeLists.txt):
//  - a scheduler "testalgo": one kernel per operator in a topological order;
//  - a schedule format "testalgo-order": one line per kernel, "<index> <name>";
//  - a tessera-cli subcommand "testalgo-order MODEL --out FILE" that schedules
//    MODEL with testalgo and writes that format;
//  - (gui/) a dock listing the kernels and a Schedule menu action, shown with
//    testalgo's plans.
#pragma once

#include <memory>
#include <string>

namespace tessera {

class Extensions;
class IScheduler;
struct ExecutionPlan;

void registerTestalgoPlugin(Extensions &extensions);

std::unique_ptr<IScheduler> createTestalgoScheduler();
// The "testalgo-order" text of a plan: one line per kernel.
std::string testalgoOrder(const ExecutionPlan &plan);

} // namespace tessera
