// The one place where Tessera's built-in schedulers and backends are listed.
// Both the workbench and tessera-cli call it; adding an algorithm is one line here.
#pragma once

namespace tessera {

class SchedulerRegistry;
class BackendRegistry;

void registerBuiltinSchedulers(SchedulerRegistry &registry);
void registerBuiltinBackends(BackendRegistry &registry);

} // namespace tessera
