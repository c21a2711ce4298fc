// Any sample a tessera binary knows — the built-in catalog's and the plugins'
// (e.g. the IOS benchmark networks) — built by name, as `tessera-cli sample` does.
#pragma once

#include "core/ir/graph.h"
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
class IScheduler;
} // namespace tessera

namespace tessera::test {

// What tessera and tessera-cli register (app/registerbuiltins.h), built once.
const Extensions &registeredExtensions();

Expected<std::unique_ptr<onnx::ModelProto>> buildRegisteredSample(std::string_view name,
                                                                  const SampleOptions &options = {});
// The scheduler registered as `name` ("layer-fusion", "welder", ...); a name
// nothing registers is the test's own error: it aborts, listing the known ones.
const IScheduler &registeredScheduler(std::string_view name);

// Their names, in registration order.
std::vector<std::string> registeredSampleNames();

// Sample `name` built, saved as ONNX at `path` (its weights in a file beside
// it when `externalData`) and imported again: the graph a user gets from
// `tessera-cli sample` then `import`.
Expected<Graph> importRegisteredSample(std::string_view name, const SampleOptions &options, const std::string &path,
                                       bool externalData = false);

} // namespace tessera::test
