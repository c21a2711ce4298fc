// TS_ASSERT: broken invariants (never user input). Active in every build type:
// a scheduler that silently corrupts a plan is worse than one that stops.
#pragma once

namespace tessera::detail {
[[noreturn]] void assertFailed(const char *expr, const char *file, int line, const char *msg);
}

#define TS_ASSERT(cond) ((cond) ? void(0) : ::tessera::detail::assertFailed(#cond, __FILE__, __LINE__, nullptr))
#define TS_ASSERT_MSG(cond, msg) ((cond) ? void(0) : ::tessera::detail::assertFailed(#cond, __FILE__, __LINE__, (msg)))
#define TS_UNREACHABLE(msg) ::tessera::detail::assertFailed("unreachable", __FILE__, __LINE__, (msg))
