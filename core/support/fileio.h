// Reading and writing whole files with Status errors. Writes are atomic: the
// data goes to a temporary file in the same folder, is flushed to disk and
// renamed over the target, so a crash never leaves a half-written file and
// the previous version survives a failed write.
#pragma once

#include "core/support/status.h"

#include <string>
#include <string_view>

namespace tessera {

// Reads at most maxBytes (a larger file is an InvalidInput error naming its size).
Expected<std::string> readFile(const std::string &path, std::int64_t maxBytes = std::int64_t(1) << 30);
Status writeFileAtomic(const std::string &path, std::string_view data);

} // namespace tessera
