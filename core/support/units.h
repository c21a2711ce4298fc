// Numbers people can read: one formatter for counts, FLOPs, bytes, times,
// energy and power, used by every view (through views/models/format.h) and by
// the command line's text output.
//
// Rules, the same everywhere:
// - SI prefixes by powers of 1000 (k … Y), binary prefixes for bytes (KiB …
//   EiB); a value that would need four digits before the point moves to the
//   next prefix ("1000 k" is never printed, "1.00 M" is).
// - Counts, FLOPs and bytes keep three significant figures ("1.23 k",
//   "8.21 GFLOP", "784 KiB"); times, energy and power keep four ("4.812 ms",
//   "12.34 µs", "3.250 J"), so the effect of one override on a total is visible.
// - Plain integers below 1000 are printed as integers ("950", "512 B",
//   "950 ns"); beyond the largest prefix the mantissa is printed in scientific
//   notation with the unit ("3.10e+27 FLOP"), never as a ten-digit number.
// - Locale-independent ('.' as the decimal point), so tests and screenshots read
//   the same on every machine.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::units {

std::string count(double value);                      // "950", "1.23 k", "25.6 M", "2.19 Y"
std::string flops(double flops);                      // "0 FLOP", "8.21 GFLOP"
std::string bytes(double bytes);                      // "512 B", "784 KiB", "97.7 MiB"
std::string durationNs(double ns);                    // "950 ns", "12.34 µs", "4.812 ms", "1.200 s"
std::string durationMs(double ms);                    // durationNs(ms * 1e6)
std::string energyJ(double joules);                   // "0 J", "4.560 mJ", "3.250 J"
std::string powerW(double watts);                     // "250.0 W", "12.50 mW"
std::string rate(double perSecond, const char *unit); // "950 images/s", "1.064 k images/s"

} // namespace tessera::units
