// libFuzzer target: arbitrary bytes as an override file (core/io/schedulejson.h
// overridesFromJson: a plain {"key": "option"} object or a whole schedule
// document), as `tessera-cli schedule --overrides` and the workbench read
// them. An accepted file must write back and read again to the same overrides.
// Any input must end in a Status, never a crash, hang or sanitizer report.
#include "core/io/schedulejson.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    auto overrides =
        tessera::overridesFromJson(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.json");
    if (overrides) {
        auto again = tessera::overridesFromJson(tessera::overridesToJson(*overrides));
        if (!again || *again != *overrides) {
            std::fprintf(stderr, "fuzz_overrides: overrides do not survive a round trip\n");
            std::abort();
        }
    }
    return 0;
}
