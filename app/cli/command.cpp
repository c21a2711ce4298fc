#include "app/cli/command.h"

#include <cstdio>

namespace tessera::cli {

int fail(const Status &status)
{
    std::fprintf(stderr, "tessera-cli: %s\n", status.diagnostic().str().c_str());
    return exitCodeFor(status.code());
}

} // namespace tessera::cli
