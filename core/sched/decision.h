// Decisions and overrides: every choice a scheduler makes is asked, not made
// silently; docs/architecture.md, "Decisions and replay".
//
//   int i = ctx.decide(key, role, options, preferred);
//
// `key` is stable across runs of the same model: it is built from node names
// and the decision's role (decisionKey()), never from pointers or counters, so
// an override saved yesterday applies to today's import of the same model.
// An override forces an option id for a key. At decide() time it is
//   - applied when the key is asked and the option exists and is legal,
//   - rejected (with the reason) when the option is illegal or no longer exists;
//     the scheduler's preferred option is used instead,
//   - reported stale after the run when its key was never asked (the model or
//     options changed).
// Replaying with the same overrides is deterministic because schedulers are.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

struct DecisionOption {
    std::string id;             // stable within its decision, e.g. "{conv1,conv2}|concurrent"
    std::string label;          // short human text
    double cost = std::nan(""); // the number the scheduler compared (lower is better), NaN if none
    std::string detail;         // the numbers behind it, one line
    std::string illegalReason;  // non-empty: listed for the user but cannot be chosen
    bool legal() const { return illegalReason.empty(); }
};

struct DecisionRecord {
    std::string key;
    std::string role; // what is being decided, e.g. "sequential.next"
    std::vector<DecisionOption> options;
    std::int32_t preferred = 0; // the scheduler's own choice
    std::int32_t chosen = 0;    // what was used
    bool overridden = false;    // chosen came from an override
    std::int32_t step = -1;     // trace step that asked (set by the Trace)
};

struct OverrideReport {
    enum class Outcome : std::uint8_t { Applied, Rejected, Stale };
    std::string key;
    std::string optionId;
    Outcome outcome = Outcome::Applied;
    std::string reason; // for Rejected and Stale
};
std::string_view outcomeName(OverrideReport::Outcome o);

using Overrides = std::map<std::string, std::string>; // key -> option id

class DecisionContext
{
public:
    DecisionContext() = default;
    explicit DecisionContext(Overrides overrides) : m_overrides(std::move(overrides)) {}

    // Returns the index of the option to use. `preferred` must name a legal
    // option (asserted). Options must have distinct ids (asserted).
    std::int32_t decide(std::string key, std::string role, std::vector<DecisionOption> options, std::int32_t preferred);

    // Links the most recent decision to a trace step (called by Trace).
    void setStepOfLast(std::int32_t step);

    const std::vector<DecisionRecord> &records() const { return m_records; }
    const Overrides &overrides() const { return m_overrides; }
    // Outcome of every override: applied/rejected as asked, stale if never asked.
    std::vector<OverrideReport> overrideReports() const;
    // The record for a key, or nullptr (keys are unique within a run: asserted).
    const DecisionRecord *find(std::string_view key) const;

private:
    Overrides m_overrides;
    std::vector<DecisionRecord> m_records;
    std::map<std::string, std::int32_t, std::less<>> m_index; // key -> record
    std::vector<OverrideReport> m_reports;                    // applied + rejected, in ask order
};

// A stable key: "<role>:<scope>" where scope is the sorted, '|'-joined node
// names; long scopes are shortened to their first and last names plus a
// 64-bit FNV-1a hash of the whole, so keys stay readable and bounded.
std::string decisionKey(std::string_view role, std::vector<std::string> nodeNames);

} // namespace tessera
