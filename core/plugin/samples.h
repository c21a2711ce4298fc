// Sample networks: models the workbench and tessera-cli can build by name.
//
// The built-in catalog (samples/catalog.h) and plugins both contribute them
// through Extensions::addSample (a plugin adds the networks of its paper's
// evaluation that it builds from the artifact's own descriptions, e.g. the IOS
// benchmark networks). `tessera-cli sample`, the workbench's File ▸ Open Sample
// and `tessera --sample` list and build them from one Extensions.
#pragma once

#include "core/support/status.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace onnx {
class ModelProto;
}

namespace tessera {

struct SampleOptions {
    std::int64_t batch = 1;
    std::int64_t seqLen = 128; // sequence models: tokens or frames
    std::uint64_t seed = 0x7e55e7a;
    int imageSize = 0; // 0 = the network's default
    // Set: the builder stops with ErrorCode::Cancelled soon after it turns
    // true (ModelBuilder::setCancel: checked per node and weight, i.e. per layer).
    const std::atomic<bool> *cancel = nullptr;
};

struct SampleInfo {
    std::string name;        // catalog key, e.g. "resnet50" (matched without regard to case)
    std::string title;       // "ResNet-50 (torchvision v1.5)"
    std::string paper;       // citation of the architecture
    std::string description; // one or two sentences: what is built and which options apply
    // Bumped whenever the builder makes a different network from the same
    // options (structure or weights). A project references a sample by name
    // and version and rebuilds it on demand; another version is reported.
    std::int64_t version = 1;
};

struct SampleNetwork {
    SampleInfo info;
    // Checks the options it reads and builds the model; never throws.
    std::function<Expected<std::unique_ptr<onnx::ModelProto>>(const SampleOptions &options)> build;
};

} // namespace tessera
