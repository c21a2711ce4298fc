#include "core/support/assert.h"

#include <cstdio>
#include <cstdlib>

namespace tessera::detail {

void assertFailed(const char *expr, const char *file, int line, const char *msg)
{
    std::fprintf(stderr, "tessera: internal error: %s:%d: assertion '%s' failed%s%s\n", file, line, expr,
                 msg ? ": " : "", msg ? msg : "");
    std::abort();
}

} // namespace tessera::detail
