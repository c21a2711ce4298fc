#include "core/plugin/command.h"

#include <charconv>
#include <cstdio>

namespace tessera::cli {

Status usageError(std::string message)
{
    return Status::error(ErrorCode::Usage, std::move(message));
}

int fail(const Status &status)
{
    std::fprintf(stderr, "tessera-cli: %s\n", status.diagnostic().str().c_str());
    return exitCodeFor(status.code());
}

Expected<Args> Args::parse(const std::vector<std::string> &argv, const std::vector<ArgSpec> &specs)
{
    Args args;
    for (const ArgSpec &s : specs)
        if (s.takesValue && !s.defaultValue.empty())
            args.m_defaults[s.name] = s.defaultValue;
    auto findSpec = [&](const std::string &name) -> const ArgSpec * {
        for (const ArgSpec &s : specs)
            if (s.name == name)
                return &s;
        return nullptr;
    };
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string &a = argv[i];
        if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
            args.m_positional.push_back(a);
            continue;
        }
        std::string name = a.substr(2);
        std::optional<std::string> inlineValue;
        if (auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name.resize(eq);
        }
        const ArgSpec *spec = findSpec(name);
        if (!spec) {
            std::string known;
            for (const ArgSpec &s : specs)
                known += (known.empty() ? "--" : ", --") + s.name;
            return usageError("unknown option '--" + name + "'" + (known.empty() ? "" : "; known: " + known));
        }
        std::string value;
        if (spec->takesValue) {
            if (inlineValue)
                value = *inlineValue;
            else if (i + 1 < argv.size())
                value = argv[++i];
            else
                return usageError("option '--" + name + "' needs a value");
        } else if (inlineValue) {
            return usageError("option '--" + name + "' takes no value");
        }
        auto &slot = args.m_values[name];
        if (!slot.empty() && !spec->repeatable)
            return usageError("option '--" + name + "' given more than once");
        slot.push_back(std::move(value));
    }
    return args;
}

std::optional<std::string> Args::value(const std::string &name) const
{
    auto it = m_values.find(name);
    if (it == m_values.end() || it->second.empty()) {
        if (auto d = m_defaults.find(name); d != m_defaults.end())
            return d->second;
        return std::nullopt;
    }
    return it->second.back();
}

std::vector<std::string> Args::values(const std::string &name) const
{
    auto it = m_values.find(name);
    return it == m_values.end() ? std::vector<std::string>{} : it->second;
}

Expected<std::int64_t> Args::intValue(const std::string &name, std::int64_t def, std::int64_t min,
                                      std::int64_t max) const
{
    auto v = value(name);
    if (!v)
        return def;
    std::int64_t out = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
    if (ec != std::errc() || ptr != v->data() + v->size())
        return usageError("option '--" + name + "' expects an integer, got '" + *v + "'");
    if (out < min || out > max)
        return usageError("option '--" + name + "' must be in [" + std::to_string(min) + ", " + std::to_string(max) +
                          "], got " + *v);
    return out;
}

} // namespace tessera::cli
