// Typed scheduler options: declared with defaults by each scheduler, shown and
// edited in the UI, given as `--option key=value` on the CLI.
#pragma once

#include "core/support/status.h"

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace tessera {

using OptionValue = std::variant<std::int64_t, double, bool, std::string>;
std::string optionValueStr(const OptionValue &v);

struct OptionSpec {
    enum class Kind : std::uint8_t { Int, Double, Bool, Enum, String };
    std::string key;
    Kind kind = Kind::Int;
    OptionValue defaultValue;
    std::string help;                 // one line
    double min = -1e300, max = 1e300; // Int/Double bounds, inclusive
    std::vector<std::string> choices; // Enum
};

// Resolved option values: every declared key has a value of its declared type.
class OptionValues
{
public:
    // Defaults overridden by user text ("r" -> "3"). Unknown keys, unparsable
    // values, out-of-range numbers and unknown enum choices are Usage errors
    // that name the key and list what is valid.
    static Expected<OptionValues> resolve(const std::vector<OptionSpec> &specs,
                                          const std::map<std::string, std::string> &user);
    static OptionValues defaults(const std::vector<OptionSpec> &specs);

    std::int64_t getInt(const std::string &key) const; // asserts the key and type
    double getDouble(const std::string &key) const;
    bool getBool(const std::string &key) const;
    const std::string &getString(const std::string &key) const; // String and Enum
    const std::map<std::string, OptionValue> &all() const { return m_values; }

private:
    std::map<std::string, OptionValue> m_values;
};

// Parses "key=value" (the CLI's --option argument).
Expected<std::pair<std::string, std::string>> parseOptionAssignment(const std::string &text);

} // namespace tessera
