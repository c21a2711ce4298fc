// libFuzzer target: arbitrary bytes as an IOS graph config (the artifact's
// Graph.export_config() JSON; plugins/ios/iosimport.h). The config is
// converted to ONNX (plugins/ios/iosnetworks.h), imported, and its units and
// blocks are read back and checked (iosformat.h). Any input must end in a
// Status, never a crash, hang, sanitizer report or unbounded allocation.
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    auto model = tessera::importIosConfig(std::string_view(reinterpret_cast<const char *>(data), size), "fuzz.json");
    if (model) {
        (void)model->graph.verify();
        (void)tessera::iosUnitsOf(*model);
    }
    return 0;
}
