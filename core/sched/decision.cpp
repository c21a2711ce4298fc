#include "core/sched/decision.h"

#include "core/support/assert.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace tessera {

std::string_view outcomeName(OverrideReport::Outcome o)
{
    switch (o) {
    case OverrideReport::Outcome::Applied: return "applied";
    case OverrideReport::Outcome::Rejected: return "rejected";
    case OverrideReport::Outcome::Stale: return "stale";
    }
    return "?";
}

std::int32_t DecisionContext::decide(std::string key, std::string role, std::vector<DecisionOption> options,
                                     std::int32_t preferred)
{
    TS_ASSERT_MSG(!options.empty(), "a decision needs at least one option");
    TS_ASSERT(preferred >= 0 && static_cast<std::size_t>(preferred) < options.size());
    TS_ASSERT_MSG(options[static_cast<std::size_t>(preferred)].legal(), "preferred option must be legal");
    TS_ASSERT_MSG(!m_index.count(key), "decision keys must be unique within a run");

    DecisionRecord rec;
    rec.preferred = preferred;
    rec.chosen = preferred;
    if (auto it = m_overrides.find(key); it != m_overrides.end()) {
        OverrideReport report{key, it->second, OverrideReport::Outcome::Applied, {}};
        auto opt =
            std::find_if(options.begin(), options.end(), [&](const DecisionOption &o) { return o.id == it->second; });
        if (opt == options.end()) {
            report.outcome = OverrideReport::Outcome::Rejected;
            std::string valid;
            for (const auto &o : options)
                if (o.legal())
                    valid += (valid.empty() ? "" : ", ") + o.id;
            report.reason = "option '" + it->second + "' no longer exists; valid: " + valid;
        } else if (!opt->legal()) {
            report.outcome = OverrideReport::Outcome::Rejected;
            report.reason = "option '" + it->second + "' is illegal: " + opt->illegalReason;
        } else {
            rec.chosen = static_cast<std::int32_t>(opt - options.begin());
            rec.overridden = true;
        }
        m_reports.push_back(std::move(report));
    }
    rec.key = std::move(key);
    rec.role = std::move(role);
    rec.options = std::move(options);
    m_index.emplace(rec.key, static_cast<std::int32_t>(m_records.size()));
    m_records.push_back(std::move(rec));
    return m_records.back().chosen;
}

void DecisionContext::setStepOfLast(std::int32_t step)
{
    if (!m_records.empty())
        m_records.back().step = step;
}

std::vector<OverrideReport> DecisionContext::overrideReports() const
{
    std::vector<OverrideReport> out = m_reports;
    for (const auto &[key, option] : m_overrides)
        if (!m_index.count(key))
            out.push_back({key, option, OverrideReport::Outcome::Stale,
                           "no decision with this key was made (the model or the options changed)"});
    return out;
}

const DecisionRecord *DecisionContext::find(std::string_view key) const
{
    auto it = m_index.find(key);
    return it == m_index.end() ? nullptr : &m_records[static_cast<std::size_t>(it->second)];
}

std::string decisionKey(std::string_view role, std::vector<std::string> nodeNames)
{
    std::sort(nodeNames.begin(), nodeNames.end());
    std::string scope;
    for (const auto &n : nodeNames)
        scope += (scope.empty() ? "" : "|") + n;
    constexpr std::size_t kMaxScope = 160;
    if (scope.size() > kMaxScope) {
        std::uint64_t h = 0xcbf29ce484222325ULL; // FNV-1a
        for (unsigned char c : scope) {
            h ^= c;
            h *= 0x100000001b3ULL;
        }
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
        scope =
            nodeNames.front() + "|…" + std::to_string(nodeNames.size() - 2) + " more…|" + nodeNames.back() + "#" + hex;
    }
    return std::string(role) + ":" + scope;
}

} // namespace tessera
