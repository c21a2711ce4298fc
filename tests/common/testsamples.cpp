#include "tests/common/testsamples.h"

#include "app/registerbuiltins.h"
#include "core/sched/scheduler.h"

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

std::vector<std::string> registeredSampleNames()
{
    std::vector<std::string> names;
    for (const SampleNetwork &s : registeredExtensions().samples())
        names.push_back(s.info.name);
    return names;
}

} // namespace tessera::test
