// tessera-cli's built-in subcommands. Each lives in its own cmd_<name>.cpp and
// returns its description; main.cpp lists them explicitly (no static
// registration), then the commands plugins add (core/plugin/extensions.h).
#pragma once

#include "core/plugin/command.h"

#include <vector>

namespace tessera::cli {

Command inspectCommand();
Command devicesCommand();
Command sampleCommand();
Command scheduleCommand();
Command runCommand();
Command benchCommand();
Command backendsCommand();
Command algorithmsCommand();
Command formatsCommand();
Command replayCommand();
Command projectCommand();

// The command line of tessera-cli with the plugins `registerPlugins` adds
// (registerAllPlugins for tessera-cli; tests pass their own set).
int runCli(int argc, char **argv, void (*registerPlugins)(Extensions &));

} // namespace tessera::cli
