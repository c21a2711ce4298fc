#include "core/sched/pluginloader.h"

#include <algorithm>
#include <dlfcn.h>
#include <filesystem>
#include <memory>

namespace tessera {

namespace {

using AbiFn = std::uint32_t (*)();
using CreateFn = void (*)(std::vector<std::unique_ptr<IScheduler>> *);

Diagnostic problem(const std::string &file, std::string message)
{
    return Status::invalid(std::move(message), Location{.file = file}).diagnostic();
}

// One library: open, check, create, register. Returns false (with a problem)
// when nothing of it was kept.
void loadOne(SchedulerRegistry &registry, const std::string &file, PluginLoadReport &report)
{
    ::dlerror();
    void *handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = ::dlerror();
        report.problems.push_back(problem(file, std::string("cannot load plugin: ") + (why ? why : "unknown error")));
        return;
    }
    std::shared_ptr<void> library(handle, [](void *h) { ::dlclose(h); });
    const auto abi = reinterpret_cast<AbiFn>(::dlsym(handle, "tessera_scheduler_plugin_abi"));
    const auto create = reinterpret_cast<CreateFn>(::dlsym(handle, "tessera_create_schedulers"));
    if (!abi || !create) {
        report.problems.push_back(
            problem(file, "not a tessera scheduler plugin: it must export tessera_scheduler_plugin_abi and "
                          "tessera_create_schedulers"));
        return;
    }
    if (const std::uint32_t theirs = abi(); theirs != kSchedulerPluginAbi) {
        report.problems.push_back(problem(file, "plugin built against another Tessera (abi " + std::to_string(theirs) +
                                                    ", this build is " + std::to_string(kSchedulerPluginAbi) +
                                                    "); rebuild it against these headers"));
        return;
    }
    std::vector<std::unique_ptr<IScheduler>> created;
    create(&created);
    std::size_t kept = 0;
    for (auto &s : created) {
        if (!s)
            continue;
        const std::string name = s->info().name;
        if (name.empty() || registry.find(name)) {
            report.problems.push_back(problem(
                file, name.empty() ? std::string("a scheduler has an empty name")
                                   : "scheduler '" + name + "' is already registered; the plugin's is ignored"));
            continue;
        }
        registry.add(std::move(s));
        report.loaded.push_back(name + " (" + file + ")");
        ++kept;
    }
    if (created.empty())
        report.problems.push_back(problem(file, "the plugin created no scheduler"));
    // Refused schedulers still hold code of the library: destroy them first.
    created.clear();
    if (kept)
        registry.keepLoaded(std::move(library));
}

} // namespace

PluginLoadReport loadSchedulerPlugins(SchedulerRegistry &registry, const std::string &folder)
{
    namespace fs = std::filesystem;
    PluginLoadReport report;
    std::error_code ec;
    if (folder.empty() || !fs::is_directory(folder, ec))
        return report;
    std::vector<std::string> files;
    for (const auto &entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".so" && entry.is_regular_file(ec))
            files.push_back(entry.path().string());
    if (ec)
        report.problems.push_back(problem(folder, "cannot list the plugin folder: " + ec.message()));
    std::sort(files.begin(), files.end());
    for (const std::string &file : files)
        loadOne(registry, file, report);
    return report;
}

} // namespace tessera
