// The one place where Tessera's schedulers, formats, commands and backends are
// registered. Both the workbench and tessera-cli call it. The plugins are those
// of plugins/CMakeLists.txt (one tessera_add_plugin line each), registered by
// the generated registerAllPlugins(); adding an algorithm is one line there.
#pragma once

#include "core/plugin/extensions.h"

#include <string>
#include <vector>

#include "registerallplugins.h" // generated: registerAllPlugins()

namespace tessera {

class SchedulerRegistry;
struct Diagnostic;
class BackendRegistry;

// The built-in sample networks (samples/catalog.h), the plugins of
// `registerPlugins` (by default every plugin of plugins/), then the scheduler plugins (core/sched/pluginloader.h) of
// every folder of schedulerPluginFolders(); a refused plugin is one warning line on stderr. With `pluginProblems`,
// refused plugins are collected there instead (the workbench shows them).
void registerBuiltins(Extensions &extensions, std::vector<Diagnostic> *pluginProblems = nullptr,
                      RegisterPlugins registerPlugins = &registerAllPlugins);
// registerBuiltins() for the schedulers alone.
void registerBuiltinSchedulers(SchedulerRegistry &registry, std::vector<Diagnostic> *pluginProblems = nullptr);
// $TESSERA_PLUGIN_PATH (':'-separated), then $XDG_DATA_HOME/tessera/plugins
// (default ~/.local/share/tessera/plugins).
std::vector<std::string> schedulerPluginFolders();
// Each backend folder's register<Name>Backend(), reference first. A backend
// named in $TESSERA_DISABLE_BACKENDS (','-separated, e.g. "cpu,sim") is listed
// as unavailable instead: to check how both programs behave on a machine
// without it (a run on it fails with exit code 4).
void registerBuiltinBackends(BackendRegistry &registry);

} // namespace tessera
