// The one place where Tessera's built-in schedulers and backends are listed.
// Both the workbench and tessera-cli call it; adding an algorithm is one line here.
#pragma once

#include <string>
#include <vector>

namespace tessera {

class SchedulerRegistry;
struct Diagnostic;
class BackendRegistry;

// The built-in schedulers, then the plugins (core/sched/pluginloader.h) of every
// folder of schedulerPluginFolders(); a refused plugin is one warning line on stderr.
// With `pluginProblems`, refused plugins are collected there instead (the workbench shows them).
void registerBuiltinSchedulers(SchedulerRegistry &registry, std::vector<Diagnostic> *pluginProblems = nullptr);
// $TESSERA_PLUGIN_PATH (':'-separated), then $XDG_DATA_HOME/tessera/plugins
// (default ~/.local/share/tessera/plugins).
std::vector<std::string> schedulerPluginFolders();
// Each backend folder's register<Name>Backend(), reference first.
void registerBuiltinBackends(BackendRegistry &registry);

} // namespace tessera
