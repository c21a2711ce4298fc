// libFuzzer target: arbitrary bytes as an IOS optimised-graph schedule file
// (the artifact's saved_schedules_json format; plugins/ios/iosformat.h
// parseIosSchedule) read against SqueezeNet's IOS units, then lowered to a
// plan when accepted. Any input must end in a Status, never a crash, hang or
// sanitizer report. The model is imported once, before the first input.
#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

struct Fixture {
    tessera::ImportResult model;
    tessera::IosUnitSet units;
    tessera::Device device;
};

const Fixture &fixture()
{
    static const Fixture f = [] {
        Fixture out;
        auto model = tessera::importIosNetwork("squeezenet");
        if (!model) {
            std::fprintf(stderr, "fuzz_iosschedule: %s\n", model.status().str().c_str());
            std::abort();
        }
        out.model = std::move(*model);
        auto units = tessera::iosUnitsOf(out.model);
        if (!units) {
            std::fprintf(stderr, "fuzz_iosschedule: %s\n", units.status().str().c_str());
            std::abort();
        }
        out.units = std::move(*units);
        tessera::DeviceRegistry registry;
        registry.loadBuiltins();
        const tessera::Device *v100 = registry.find("nvidia-v100");
        if (!v100)
            std::abort();
        out.device = *v100;
        return out;
    }();
    return f;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const Fixture &f = fixture();
    auto schedule = tessera::parseIosSchedule(std::string_view(reinterpret_cast<const char *>(data), size),
                                              f.model.graph, f.units, "fuzz.json");
    if (schedule) {
        tessera::DeviceCostModel cost(f.device);
        (void)tessera::lowerIosSchedule(f.model.graph, f.units, *schedule, cost);
    }
    return 0;
}
