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
#include <set>
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

namespace {

// A backend switched off by TESSERA_DISABLE_BACKENDS: listed with its name and
// capabilities, unavailable (BackendRegistry::get answers Unavailable, exit 4).
class DisabledBackend final : public IBackend
{
public:
    explicit DisabledBackend(BackendInfo info) : m_info(std::move(info))
    {
        m_info.available = false;
        m_info.unavailableReason = "switched off by TESSERA_DISABLE_BACKENDS";
    }
    const BackendInfo &info() const override { return m_info; }
    bool supports(const Graph &, const Node &) const override { return false; }
    Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &, const ExecutionPlan &) override
    {
        return Status::error(ErrorCode::Unavailable,
                             "backend '" + m_info.name + "' is unavailable: " + m_info.unavailableReason);
    }
    Expected<RunResult> run(CompiledPlan &, const std::vector<HostTensor> &, const RunObserver &) override
    {
        return Status::error(ErrorCode::Unavailable,
                             "backend '" + m_info.name + "' is unavailable: " + m_info.unavailableReason);
    }

private:
    BackendInfo m_info;
};

std::set<std::string, std::less<>> disabledBackends()
{
    std::set<std::string, std::less<>> out;
    const char *list = std::getenv("TESSERA_DISABLE_BACKENDS");
    const std::string text = list ? list : "";
    for (std::size_t start = 0; start <= text.size();) {
        const std::size_t end = std::min(text.find(',', start), text.size());
        if (end > start)
            out.insert(text.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

} // namespace

void registerBuiltinBackends(BackendRegistry &registry)
{
    const auto disabled = disabledBackends();
    for (void (*add)(BackendRegistry &) : {&registerReferenceBackend, // the default: first in every list
                                           &registerNullBackend,
                                           &registerSimBackend, // after reference: its functional mode uses it
                                           &registerCpuBackend}) {
        if (disabled.empty()) {
            add(registry);
            continue;
        }
        BackendRegistry probe; // learns the names this function registers
        add(probe);
        bool off = false;
        for (IBackend *b : probe.all())
            off = off || disabled.count(b->info().name) > 0;
        if (!off) {
            add(registry);
            continue;
        }
        for (IBackend *b : probe.all())
            registry.add(std::make_unique<DisabledBackend>(b->info()));
    }
}

} // namespace tessera
