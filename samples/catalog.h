// The sample-network catalog: names, provenance and one builder entry point.
//
// Every sample is built in memory with ModelBuilder (builder.h) from synthetic,
// seeded weights, so Tessera ships no model files. The app registers the
// catalog (sampleNetworks()) into its Extensions beside the networks plugins
// contribute; `tessera-cli sample NAME` and the workbench's "Open sample" build
// from there.
#pragma once

#include "core/plugin/samples.h"
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

using tessera::SampleInfo;
using tessera::SampleOptions;

const std::vector<SampleInfo> &sampleCatalog();

// Builds the named sample; unknown names and invalid options are Status errors.
Expected<std::unique_ptr<onnx::ModelProto>> buildSample(std::string_view name, const SampleOptions &options);

// The catalog as contributions (core/plugin/samples.h): what the app registers
// before the plugins add their own networks.
std::vector<SampleNetwork> sampleNetworks();

} // namespace tessera::samples
