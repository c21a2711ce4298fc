// tessera-cli subcommands. Each lives in its own cmd_<name>.cpp and returns its
// description; main.cpp lists them explicitly (no static registration).
#pragma once

#include "app/cli/args.h"

#include <string>
#include <vector>

namespace tessera::cli {

struct Command {
    std::string name;
    std::string synopsis; // "inspect MODEL [--json]"
    std::string summary;  // one line
    std::vector<ArgSpec> options;
    int (*run)(const Args &args) = nullptr; // returns the process exit code
};

Command inspectCommand();
Command devicesCommand();
Command sampleCommand();
Command scheduleCommand();
Command runCommand();
Command backendsCommand();
Command algorithmsCommand();
Command importIosCommand();
Command exportIosCommand();
Command replayCommand();
Command projectCommand();

// Prints "tessera-cli: <diagnostic>" to stderr and returns the exit code for it.
int fail(const Status &status);

} // namespace tessera::cli
