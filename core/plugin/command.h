// tessera-cli's subcommands as data, and the small, strict parser of their
// arguments. The built-in commands live in app/cli/cmd_<name>.cpp; a plugin
// adds its own through Extensions::addCommand (core/plugin/extensions.h), so
// the types sit here, below app/, where a plugin can use them.
//
// Grammar: positional arguments and options `--name value`, `--name=value` or
// boolean `--flag`. Each command declares which options it takes; anything
// else is a usage error (exit code 2) naming the offending argument.
#pragma once

#include "core/support/status.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera {
class Extensions;
}

namespace tessera::cli {

struct ArgSpec {
    std::string name;       // without dashes
    bool takesValue = true; // false: a boolean flag
    bool repeatable = false;
    std::string help;         // "--batch N   batch size (default 1)"
    std::string defaultValue; // what Args::value() returns when the option is not given; empty: none
};

class Args
{
public:
    static Expected<Args> parse(const std::vector<std::string> &argv, const std::vector<ArgSpec> &specs);

    const std::vector<std::string> &positional() const { return m_positional; }
    bool has(const std::string &name) const { return m_values.count(name) > 0; } // given on the command line
    // The last value given, else the spec's defaultValue, else nullopt.
    std::optional<std::string> value(const std::string &name) const;
    std::vector<std::string> values(const std::string &name) const;
    // Integer option within [min, max]; usage error naming the option otherwise.
    Expected<std::int64_t> intValue(const std::string &name, std::int64_t def, std::int64_t min,
                                    std::int64_t max) const;

private:
    std::vector<std::string> m_positional;
    std::map<std::string, std::vector<std::string>> m_values;
    std::map<std::string, std::string> m_defaults; // from ArgSpec::defaultValue
};

Status usageError(std::string message);

struct Command {
    std::string name;
    std::string synopsis; // "inspect MODEL [--json]"
    std::string summary;  // one line
    std::vector<ArgSpec> options;
    // Returns the process exit code. `extensions` holds every registered
    // scheduler, format and command (one registry for the whole process).
    std::function<int(const Args &args, const Extensions &extensions)> run;
};

// Prints "tessera-cli: <diagnostic>" to stderr and returns the exit code for it.
int fail(const Status &status);

} // namespace tessera::cli
