// libFuzzer target: arbitrary bytes as a Tessera schedule document
// (core/io/schedulejson.h, docs/schedule-schema.json) read against
// SqueezeNet's graph (the IOS network the seed corpus was written for); an
// accepted document's plan then goes through verifyPlan() and is written back.
// Any input must end in a Status, never a crash, hang or sanitizer report.
#include "core/io/schedulejson.h"
#include "core/plan/verify.h"
#include "plugins/ios/iosimport.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace {

const tessera::Graph &graph()
{
    static const tessera::ImportResult model = [] {
        auto m = tessera::importIosNetwork("squeezenet");
        if (!m) {
            std::fprintf(stderr, "fuzz_schedulejson: %s\n", m.status().str().c_str());
            std::abort();
        }
        return std::move(*m);
    }();
    return model.graph;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const tessera::Graph &g = graph();
    auto doc = tessera::scheduleFromJson(std::string_view(reinterpret_cast<const char *>(data), size), g, "fuzz.json");
    if (doc) {
        (void)tessera::verifyPlan(doc->plan, g);
        (void)tessera::scheduleToJson(*doc, g);
    }
    return 0;
}
