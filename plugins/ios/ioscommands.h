// The IOS plugin's tessera-cli subcommands (ioscommands.cpp): import-ios
// converts an IOS graph config to ONNX and checks an IOS schedule file against
// it; export-ios schedules a model and writes the IOS artifact's schedule format.
#pragma once

#include "core/plugin/command.h"

namespace tessera {

cli::Command importIosCommand();
cli::Command exportIosCommand();

} // namespace tessera
