#include "tests/common/testsamples.h"

#include "app/registerbuiltins.h"
#include "core/onnx/importer.h"
#include "core/onnx/modelbuilder.h"
#include "core/sched/scheduler.h"

#include <cstdio>
#include <cstdlib>
#include <onnx/onnx_pb.h>
#include <vector>

namespace tessera::test {

const Extensions &registeredExtensions()
{
    static SchedulerRegistry schedulers;
    static const Extensions extensions = [] {
        Extensions e(schedulers);
        std::vector<Diagnostic> ignored; // loadable plugins cannot add samples
        registerBuiltins(e, &ignored);
        return e;
    }();
    return extensions;
}

Expected<std::unique_ptr<onnx::ModelProto>> buildRegisteredSample(std::string_view name, const SampleOptions &options)
{
    return registeredExtensions().buildSample(name, options);
}

const IScheduler &registeredScheduler(std::string_view name)
{
    auto scheduler = registeredExtensions().schedulers().get(name);
    if (!scheduler) {
        std::fprintf(stderr, "%s\n", scheduler.status().str().c_str());
        std::abort();
    }
    return **scheduler;
}

std::vector<std::string> registeredSampleNames()
{
    std::vector<std::string> names;
    for (const SampleNetwork &s : registeredExtensions().samples())
        names.push_back(s.info.name);
    return names;
}

Expected<Graph> importRegisteredSample(std::string_view name, const SampleOptions &options, const std::string &path,
                                       bool externalData)
{
    auto model = buildRegisteredSample(name, options);
    if (!model)
        return model.status();
    if (Status saved = saveModel(**model, path, externalData); !saved)
        return saved;
    auto imported = importModel(path);
    if (!imported)
        return imported.status();
    return std::move(imported->graph);
}

} // namespace tessera::test
