// libFuzzer target: arbitrary bytes through the whole ONNX import pipeline
// (parse, validation, onnx checker and shape inference, folding, shape
// checks). Any input must end in a Status, never a crash, hang, sanitizer
// report or unbounded allocation. External data is refused (no folder), and
// limits are tightened so a hostile size claim is cheap to reject.
#include "core/onnx/importer.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    tessera::ImportOptions options;
    options.maxTensorBytes = std::int64_t(64) << 20;
    options.fold.maxElements = 1 << 16;
    options.onnxTimeoutSeconds = 5;
    auto result = tessera::importModelFromBytes(std::string_view(reinterpret_cast<const char *>(data), size),
                                                std::string(), options);
    if (result)
        (void)result->graph.verify();
    return 0;
}
