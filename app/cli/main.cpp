// tessera-cli: the command-line face of Tessera.
// Exit codes: 0 ok, 2 usage, 3 invalid input, 4 backend unavailable, 1 other.
#include "app/cli/command.h"

#include <QCoreApplication>

#include <cstdio>
#include <cstring>

namespace {

std::vector<tessera::cli::Command> allCommands()
{
    using namespace tessera::cli;
    return {inspectCommand(), devicesCommand(), sampleCommand(), algorithmsCommand(), scheduleCommand(), runCommand(), backendsCommand(), projectCommand(),
            replayCommand(), importIosCommand(), exportIosCommand()};
}

void printHelp(std::FILE *out)
{
    std::fprintf(out, "usage: tessera-cli COMMAND [ARGS]\n\ncommands:\n");
    for (const auto &c : allCommands())
        std::fprintf(out, "  %-44s %s\n", c.synopsis.c_str(), c.summary.c_str());
    std::fprintf(out, "\nexit codes: 0 ok, 2 usage, 3 invalid input, 4 backend unavailable\n");
}

void printCommandHelp(const tessera::cli::Command &c)
{
    std::printf("usage: tessera-cli %s\n%s\n", c.synopsis.c_str(), c.summary.c_str());
    for (const auto &o : c.options)
        std::printf("  %s\n", o.help.c_str());
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv); // Qt Core services (resources, JSON); no event loop needed
    QCoreApplication::setApplicationName("tessera");
    if (argc < 2) {
        printHelp(stderr);
        return 2;
    }
    const std::string name = argv[1];
    if (name == "help" || name == "--help" || name == "-h") {
        printHelp(stdout);
        return 0;
    }
    if (name == "--version") {
        std::printf("tessera-cli 0.1.0\n");
        return 0;
    }
    for (const auto &c : allCommands()) {
        if (c.name != name)
            continue;
        std::vector<std::string> rest(argv + 2, argv + argc);
        for (const auto &a : rest)
            if (a == "--help" || a == "-h") {
                printCommandHelp(c);
                return 0;
            }
        auto args = tessera::cli::Args::parse(rest, c.options);
        if (!args)
            return tessera::cli::fail(args.status());
        return c.run(*args);
    }
    std::string known;
    for (const auto &c : allCommands())
        known += (known.empty() ? "" : ", ") + c.name;
    std::fprintf(stderr, "tessera-cli: error: unknown command '%s'; known: %s\n", name.c_str(), known.c_str());
    return 2;
}
