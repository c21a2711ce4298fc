// Whether this test binary is instrumented by AddressSanitizer (the asan
// preset: Debug, ASan and UBSan), and how much slower that makes computing.
// For the few tests that bound a task's own CPU time — a cancel that takes
// effect within 100 ms of the task's work, a GUI thread that never computes
// for more than 100 ms at once — the bound is of the program's work, and the
// instrumented program does the same work 3–30× slower (docs/fuzzing.md:
// GraphTurbo's NasNet-A cancel 2.5 s of its thread's CPU under ASan,
// within 100 ms without), so their bounds scale by kInstrumentationSlowdown;
// everywhere else it is 1. A sanitizer run checks memory and undefined
// behaviour, not speed.
#pragma once

namespace tessera::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

inline constexpr double kInstrumentationSlowdown = kUnderAddressSanitizer ? 30.0 : 1.0;

} // namespace tessera::test
