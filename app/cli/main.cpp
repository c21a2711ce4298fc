// tessera-cli: the command-line face of Tessera (cli.cpp), with every plugin of plugins/.
#include "app/cli/command.h"
#include "app/registerbuiltins.h"

int main(int argc, char **argv)
{
    return tessera::cli::runCli(argc, argv, &tessera::registerAllPlugins);
}
