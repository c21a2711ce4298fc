// A backend that lives under tests/ and joins a registry through one line,
// registerTestBackend(registry): the proof that adding a backend touches no
// file outside its folder (docs/architecture.md, "extension points").
//
// It models a "dsa" device: compile() keeps each task's modelled time
// (Task::cost.timeNs); run() lays the tasks out one after another on lane 0,
// reports their sum as the latency and computes no outputs. Capabilities: timing only,
// device kind "dsa". Plans compiled by any other backend are refused.
#pragma once

#include "core/backend/backend.h"

namespace tessera::testing {

inline constexpr const char *kTestBackendName = "test-dsa";

void registerTestBackend(BackendRegistry &registry);

} // namespace tessera::testing
