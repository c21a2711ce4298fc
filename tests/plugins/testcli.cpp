// tessera-cli with the test plugin set (registerAllTestPlugins: every plugin of
// plugins/ and the test plugins of this folder), for the test plugins' CLI tests.
#include "app/cli/command.h"

#include "registeralltestplugins.h"

int main(int argc, char **argv)
{
    return tessera::cli::runCli(argc, argv, &tessera::registerAllTestPlugins);
}
