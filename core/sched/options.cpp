#include "core/sched/options.h"

#include "core/support/assert.h"

#include <charconv>
#include <cstdlib>
#include <sstream>

namespace tessera {

std::string optionValueStr(const OptionValue &v)
{
    if (auto *i = std::get_if<std::int64_t>(&v))
        return std::to_string(*i);
    if (auto *d = std::get_if<double>(&v)) {
        std::ostringstream os;
        os << *d;
        return os.str();
    }
    if (auto *b = std::get_if<bool>(&v))
        return *b ? "true" : "false";
    return std::get<std::string>(v);
}

OptionValues OptionValues::defaults(const std::vector<OptionSpec> &specs)
{
    OptionValues out;
    for (const OptionSpec &s : specs)
        out.m_values[s.key] = s.defaultValue;
    return out;
}

namespace {

Status bad(const std::string &key, const std::string &what)
{
    return Status::error(ErrorCode::Usage, "option '" + key + "' " + what);
}

Expected<OptionValue> parseValue(const OptionSpec &s, const std::string &text)
{
    switch (s.kind) {
    case OptionSpec::Kind::Int: {
        std::int64_t v = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc() || p != text.data() + text.size())
            return bad(s.key, "expects an integer, got '" + text + "'");
        if (static_cast<double>(v) < s.min || static_cast<double>(v) > s.max)
            return bad(s.key, "must be in [" + optionValueStr(static_cast<std::int64_t>(s.min)) + ", " +
                                  optionValueStr(static_cast<std::int64_t>(s.max)) + "], got " + text);
        return OptionValue{v};
    }
    case OptionSpec::Kind::Double: {
        char *end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size() || v != v)
            return bad(s.key, "expects a number, got '" + text + "'");
        if (v < s.min || v > s.max)
            return bad(s.key, "must be in [" + optionValueStr(s.min) + ", " + optionValueStr(s.max) + "], got " + text);
        return OptionValue{v};
    }
    case OptionSpec::Kind::Bool:
        if (text == "true" || text == "1" || text == "yes" || text == "on")
            return OptionValue{true};
        if (text == "false" || text == "0" || text == "no" || text == "off")
            return OptionValue{false};
        return bad(s.key, "expects true or false, got '" + text + "'");
    case OptionSpec::Kind::Enum: {
        std::string valid;
        for (const auto &c : s.choices) {
            if (c == text)
                return OptionValue{text};
            valid += (valid.empty() ? "" : ", ") + c;
        }
        return bad(s.key, "has no choice '" + text + "'; valid: " + valid);
    }
    case OptionSpec::Kind::String: return OptionValue{text};
    }
    TS_UNREACHABLE("option kind");
}

} // namespace

Expected<OptionValues> OptionValues::resolve(const std::vector<OptionSpec> &specs,
                                             const std::map<std::string, std::string> &user)
{
    OptionValues out = defaults(specs);
    for (const auto &[key, text] : user) {
        const OptionSpec *spec = nullptr;
        for (const OptionSpec &s : specs)
            if (s.key == key)
                spec = &s;
        if (!spec) {
            std::string valid;
            for (const OptionSpec &s : specs)
                valid += (valid.empty() ? "" : ", ") + s.key;
            return Status::error(ErrorCode::Usage,
                                 "unknown option '" + key + "'" +
                                     (valid.empty() ? "; this algorithm has none" : "; valid: " + valid));
        }
        auto v = parseValue(*spec, text);
        if (!v)
            return v.status();
        out.m_values[key] = std::move(*v);
    }
    return out;
}

std::int64_t OptionValues::getInt(const std::string &key) const
{
    auto it = m_values.find(key);
    TS_ASSERT_MSG(it != m_values.end() && std::holds_alternative<std::int64_t>(it->second), key.c_str());
    return std::get<std::int64_t>(it->second);
}

double OptionValues::getDouble(const std::string &key) const
{
    auto it = m_values.find(key);
    TS_ASSERT_MSG(it != m_values.end(), key.c_str());
    if (auto *i = std::get_if<std::int64_t>(&it->second))
        return static_cast<double>(*i);
    TS_ASSERT_MSG(std::holds_alternative<double>(it->second), key.c_str());
    return std::get<double>(it->second);
}

bool OptionValues::getBool(const std::string &key) const
{
    auto it = m_values.find(key);
    TS_ASSERT_MSG(it != m_values.end() && std::holds_alternative<bool>(it->second), key.c_str());
    return std::get<bool>(it->second);
}

const std::string &OptionValues::getString(const std::string &key) const
{
    auto it = m_values.find(key);
    TS_ASSERT_MSG(it != m_values.end() && std::holds_alternative<std::string>(it->second), key.c_str());
    return std::get<std::string>(it->second);
}

Expected<std::pair<std::string, std::string>> parseOptionAssignment(const std::string &text)
{
    auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        return Status::error(ErrorCode::Usage, "expected key=value, got '" + text + "'");
    return std::pair{text.substr(0, eq), text.substr(eq + 1)};
}

} // namespace tessera
