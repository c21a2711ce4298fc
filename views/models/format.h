// Number formatting shared by the workbench's models: counts with SI prefixes
// ("25.6 M"), FLOPs ("8.21 GFLOP"), bytes with binary prefixes ("784 KiB") and
// shapes ("1×3×224×224"). The numbers are core/support/units (the rules are
// there, shared with the CLI); these are its QString faces. Pure functions,
// locale-independent so tests and screenshots read the same everywhere.
#pragma once

#include "core/ir/types.h"

#include <QString>

#include <cstdint>

namespace tessera::views {

QString formatCount(double value);       // "950", "1.23 k", "25.6 M"
QString formatFlops(double flops);       // "0 FLOP", "8.21 GFLOP"
QString formatBytes(std::int64_t bytes); // "512 B", "784 KiB", "97.5 MiB"
QString formatShape(const Shape &shape); // "1×3×224×224", "scalar"
QString formatRatio(double value);       // "12.4" (3 significant digits)

} // namespace tessera::views
