// tessera-cli's dispatch: the built-in commands, then the plugins' commands.
// Exit codes: 0 ok, 2 usage, 3 invalid input, 4 backend unavailable, 1 other.
#include "app/cli/command.h"
#include "app/registerbuiltins.h"
#include "core/backend/backend.h"
#include "core/plugin/extensions.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstring>
#include <optional>

namespace tessera::cli {

namespace {

std::vector<Command> allCommands(const Extensions &extensions)
{
    std::vector<Command> commands = {inspectCommand(),  devicesCommand(),  sampleCommand(), algorithmsCommand(),
                                     formatsCommand(),  scheduleCommand(), runCommand(),    benchCommand(),
                                     backendsCommand(), projectCommand(),  replayCommand()};
    commands.insert(commands.end(), extensions.commands().begin(), extensions.commands().end());
    return commands;
}

void printHelp(std::FILE *out, const std::vector<Command> &commands)
{
    std::fprintf(out, "usage: tessera-cli COMMAND [ARGS]\n\ncommands:\n");
    for (const auto &c : commands)
        std::fprintf(out, "  %-44s %s\n", c.synopsis.c_str(), c.summary.c_str());
    std::fprintf(out, "\nexit codes: 0 ok, 2 usage, 3 invalid input, 4 backend unavailable\n");
}

void printCommandHelp(const Command &c)
{
    std::printf("usage: tessera-cli %s\n%s\n", c.synopsis.c_str(), c.summary.c_str());
    for (const auto &o : c.options)
        std::printf("  %s\n", o.help.c_str());
}

} // namespace

int runCli(int argc, char **argv, void (*registerPlugins)(Extensions &))
{
    std::optional<QCoreApplication> app; // Qt Core services (resources, JSON); no event loop needed
    if (!QCoreApplication::instance()) {
        app.emplace(argc, argv);
        QCoreApplication::setApplicationName("tessera");
    }
    SchedulerRegistry schedulers;
    Extensions extensions(schedulers);
    registerBuiltins(extensions, nullptr, registerPlugins);
    const std::vector<Command> commands = allCommands(extensions);
    if (argc < 2) {
        printHelp(stderr, commands);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "help" || name == "--help" || name == "-h") {
        printHelp(stdout, commands);
        return 0;
    }
    if (name == "--version") {
        std::printf("tessera-cli 0.1.0\n");
        return 0;
    }
    for (const auto &c : commands) {
        if (c.name != name)
            continue;
        std::vector<std::string> rest(argv + 2, argv + argc);
        for (const auto &a : rest)
            if (a == "--help" || a == "-h") {
                printCommandHelp(c);
                return 0;
            }
        auto args = Args::parse(rest, c.options);
        if (!args)
            return fail(args.status());
        BackendRegistry backends; // for plugin commands that run plans (Extensions::backends)
        registerBuiltinBackends(backends);
        extensions.setBackends(&backends);
        return c.run(*args, extensions);
    }
    std::string known;
    for (const auto &c : commands)
        known += (known.empty() ? "" : ", ") + c.name;
    std::fprintf(stderr, "tessera-cli: error: unknown command '%s'; known: %s\n", name.c_str(), known.c_str());
    return 2;
}

} // namespace tessera::cli
