// The IOS artifact's graph configs as Tessera models: a config (or one of the
// four embedded networks) is converted by buildFromIosConfig (plugins/ios/iosnetworks.h)
// and imported like any ONNX model. The result's metadata carries
// "ios.units"/"ios.blocks" (iosformat.h), checked here: units must be
// consistent with the graph and connected (every unit but the last is read by
// another one), so a config with a stray node is an error, not a silent extra block.
#pragma once

#include "core/onnx/importer.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tessera {

Expected<ImportResult> importIosConfig(std::string_view json, std::string sourceName, std::int64_t batch = 1);
// One of iosNetworkNames(), with its explicit parts (NasNet).
Expected<ImportResult> importIosNetwork(std::string_view name, std::int64_t batch = 1);

} // namespace tessera
