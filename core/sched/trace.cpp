#include "core/sched/trace.h"

#include "core/sched/decision.h"

namespace tessera {

Trace::Trace() : m_start(std::chrono::steady_clock::now()) {}

TraceStep &Trace::add(std::string phase, std::string title, std::string conclusion, std::string why)
{
    if (m_steps.size() >= m_limit) {
        ++m_dropped;
        m_scratch = TraceStep{};
        return m_scratch;
    }
    TraceStep s;
    s.index = static_cast<std::int32_t>(m_steps.size());
    s.phase = std::move(phase);
    s.title = std::move(title);
    s.conclusion = std::move(conclusion);
    s.why = std::move(why);
    s.elapsedMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m_start).count();
    m_steps.push_back(std::move(s));
    return m_steps.back();
}

void Trace::linkLastDecision(DecisionContext &ctx)
{
    if (m_steps.empty() || ctx.records().empty() || m_dropped)
        return;
    m_steps.back().decision = static_cast<std::int32_t>(ctx.records().size() - 1);
    ctx.setStepOfLast(m_steps.back().index);
}

} // namespace tessera
