// libFuzzer target: arbitrary bytes as a Tessera schedule document
// (core/io/schedulejson.h, docs/schedule-schema.json) read against
// the graph of fig31.h (the model the seed corpus was written for); an
// accepted document's plan then goes through verifyPlan() and is written back.
// Any input must end in a Status, never a crash, hang or sanitizer report.
#include "core/io/schedulejson.h"
#include "core/plan/verify.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/fig31.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const tessera::Graph &g = tessera::fuzz::fig31().model.graph;
    auto doc = tessera::scheduleFromJson(std::string_view(reinterpret_cast<const char *>(data), size), g, "fuzz.json");
    if (doc) {
        (void)tessera::verifyPlan(doc->plan, g);
        (void)tessera::scheduleToJson(*doc, g);
    }
    return 0;
}
