// The step trace: what a scheduler looked at, what it concluded, why (the
// numbers behind it), which nodes it touched and what changed — cheap deltas,
// not copies of the world. The stepper UI plays these records back
// (Halide's LoweringLogger, tinygrad's TrackedGraphRewrite).
#pragma once

#include "core/ir/graph.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

class DecisionContext;

struct TraceStep {
    std::int32_t index = 0;
    std::string phase;                                   // algorithm stage, e.g. "S2: group sub-graphs" or "dp"
    std::string title;                                   // what was looked at
    std::string conclusion;                              // what was concluded
    std::string why;                                     // the reasoning in one line
    std::vector<std::pair<std::string, double>> numbers; // named numbers behind it
    std::vector<NodeId> touched;                         // nodes the step concerned
    std::vector<std::string> delta;                      // state changes, e.g. "kernel k3 = {conv1, relu1}"
    std::int32_t decision = -1;                          // index into DecisionContext::records(), -1 if none
    double elapsedMs = 0;                                // since the run started
};

class Trace
{
public:
    Trace();
    // Appends a step. When `decisionCtx` is given and the step concerns the most
    // recent decision, pass linkDecision = true to cross-link them.
    TraceStep &add(std::string phase, std::string title, std::string conclusion = {}, std::string why = {});
    // Links the newest step to the newest decision of ctx.
    void linkLastDecision(DecisionContext &ctx);

    const std::vector<TraceStep> &steps() const { return m_steps; }
    std::size_t size() const { return m_steps.size(); }
    // Optional cap: steps beyond it are counted, not stored (huge searches).
    void setLimit(std::size_t maxSteps) { m_limit = maxSteps; }
    std::size_t dropped() const { return m_dropped; }

private:
    std::vector<TraceStep> m_steps;
    TraceStep m_scratch; // returned when over the limit
    std::size_t m_limit = 200000;
    std::size_t m_dropped = 0;
    std::chrono::steady_clock::time_point m_start;
};

} // namespace tessera
