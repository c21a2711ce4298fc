// libFuzzer target: arbitrary bytes as an IOS optimised-graph schedule file
// (the artifact's saved_schedules_json format; plugins/ios/iosformat.h
// parseIosSchedule) read against the IOS units of Fig. 3.1 (fig31.h), then lowered to a
// plan when accepted. Any input must end in a Status, never a crash, hang or
// sanitizer report. The model is imported once.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/fig31.h"

namespace {

const tessera::Device &device()
{
    static const tessera::Device d = [] {
        tessera::DeviceRegistry registry;
        if (!registry.loadBuiltins().isOk() || !registry.find("nvidia-v100"))
            std::abort();
        return *registry.find("nvidia-v100");
    }();
    return d;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const tessera::fuzz::Fig31 &f = tessera::fuzz::fig31();
    auto schedule = tessera::parseIosSchedule(std::string_view(reinterpret_cast<const char *>(data), size),
                                              f.model.graph, f.units, "fuzz.json");
    if (schedule) {
        tessera::DeviceCostModel cost(device());
        (void)tessera::lowerIosSchedule(f.model.graph, f.units, *schedule, cost);
    }
    return 0;
}
