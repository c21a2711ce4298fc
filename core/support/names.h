// Names users type: algorithm, backend, device and sample names match without
// regard to ASCII case ("IOS", "ios"); the registered spelling is the one that
// is stored and printed.
#pragma once

#include <string_view>

namespace tessera {

constexpr bool sameName(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    for (std::size_t i = 0; i < a.size(); ++i)
        if (lower(a[i]) != lower(b[i]))
            return false;
    return true;
}

} // namespace tessera
