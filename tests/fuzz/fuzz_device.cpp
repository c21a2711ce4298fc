// libFuzzer target: arbitrary bytes as a device description file
// (core/hw/devicejson.h; schema in resources/devices/README.md). An accepted
// device must write back and parse again to an equal device (the header's
// parseDevice(toJson(d)) == d). Any input must end in a Status, never a
// crash, hang or sanitizer report.
#include "core/hw/devicejson.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    auto device = tessera::parseDevice(bytes, QStringLiteral("fuzz.json"));
    if (device) {
        auto again = tessera::parseDevice(tessera::toJson(*device), QStringLiteral("again.json"));
        if (!again) {
            std::fprintf(stderr, "fuzz_device: a parsed device does not parse back: %s\n",
                         again.status().str().c_str());
            std::abort();
        }
        if (!(*again == *device)) {
            std::fprintf(stderr, "fuzz_device: a parsed device changes in a round trip\n");
            std::abort();
        }
    }
    return 0;
}
