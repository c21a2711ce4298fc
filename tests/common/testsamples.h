// Any sample a tessera binary knows — the built-in catalog's and the plugins'
// (e.g. the IOS benchmark networks) — built by name, as `tessera-cli sample` does.
#pragma once

#include "core/plugin/samples.h"
#include "core/support/status.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace onnx {
class ModelProto;
}

namespace tessera {
class Extensions;
}

namespace tessera::test {

// What tessera and tessera-cli register (app/registerbuiltins.h), built once.
const Extensions &registeredExtensions();

Expected<std::unique_ptr<onnx::ModelProto>> buildRegisteredSample(std::string_view name,
                                                                  const SampleOptions &options = {});
// Their names, in registration order.
std::vector<std::string> registeredSampleNames();

} // namespace tessera::test
