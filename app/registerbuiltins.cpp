#include "app/registerbuiltins.h"

#include "backends/cpu/cpu.h"
#include "backends/null/null.h"
#include "backends/reference/reference.h"
#include "backends/sim/sim.h"
#include "core/backend/backend.h"
#include "core/sched/pluginloader.h"
#include "core/sched/scheduler.h"
#include "samples/catalog.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera {

std::vector<std::string> schedulerPluginFolders()
{
    std::vector<std::string> folders;
    if (const char *path = std::getenv("TESSERA_PLUGIN_PATH")) {
        std::string list = path;
        for (std::size_t start = 0; start <= list.size();) {
            const std::size_t end = std::min(list.find(':', start), list.size());
            if (end > start)
                folders.push_back(list.substr(start, end - start));
            start = end + 1;
        }
    }
    if (const char *data = std::getenv("XDG_DATA_HOME"); data && *data)
        folders.push_back(std::string(data) + "/tessera/plugins");
    else if (const char *home = std::getenv("HOME"); home && *home)
        folders.push_back(std::string(home) + "/.local/share/tessera/plugins");
    return folders;
}

void registerBuiltins(Extensions &extensions, std::vector<Diagnostic> *pluginProblems, RegisterPlugins registerPlugins)
{
    for (SampleNetwork &sample : samples::sampleNetworks())
        extensions.addSample(std::move(sample));
    registerPlugins(extensions);
    for (const std::string &folder : schedulerPluginFolders())
        for (Diagnostic &d : loadSchedulerPlugins(extensions.schedulers(), folder).problems) {
            if (pluginProblems)
                pluginProblems->push_back(std::move(d));
            else
                std::fprintf(stderr, "tessera: warning: %s\n", d.str().c_str());
        }
}

void registerBuiltinSchedulers(SchedulerRegistry &registry, std::vector<Diagnostic> *pluginProblems)
{
    Extensions extensions(registry);
    registerBuiltins(extensions, pluginProblems);
}

void registerBuiltinBackends(BackendRegistry &registry)
{
    registerReferenceBackend(registry); // the default: first in every list
    registerNullBackend(registry);
    registerSimBackend(registry); // after reference: its functional mode uses it
    registerCpuBackend(registry);
}

} // namespace tessera
