// The sample-network catalog: names, provenance and one builder entry point.
//
// Every sample is built in memory with ModelBuilder (builder.h) from synthetic,
// seeded weights, so Tessera ships no model files. `tessera-cli sample NAME`
// and the workbench's "Open sample" both go through buildSample().
#pragma once

#include "core/support/status.h"
#include "samples/builder.h" // saveModel

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace tessera::samples {

struct SampleOptions {
    std::int64_t batch = 1;
    std::int64_t seqLen = 128; // bert, conformer (frames after subsampling input)
    std::uint64_t seed = 0x7e55e7a;
    int imageSize = 0; // 0 = network default
};

struct SampleInfo {
    std::string name;        // catalog key, e.g. "resnet50"
    std::string title;       // "ResNet-50 (torchvision v1.5)"
    std::string paper;       // citation of the architecture
    std::string description; // one or two sentences: what is built and which options apply
};

const std::vector<SampleInfo> &sampleCatalog();

// Builds the named sample; unknown names and invalid options are Status errors.
Expected<std::unique_ptr<onnx::ModelProto>> buildSample(std::string_view name, const SampleOptions &options);

} // namespace tessera::samples
