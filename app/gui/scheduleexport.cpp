// Schedule export and override import (see scheduleexport.h).
#include "app/gui/scheduleexport.h"

#include "core/io/schedulejson.h"

#include <algorithm>

namespace tessera::gui {

std::string scheduleDocumentJson(const ScheduleRun &run, const Graph &graph, const std::string &model,
                                 const std::map<std::string, std::string> &options)
{
    return scheduleToJson(makeScheduleDocument(run, model, options), graph);
}

std::string timelineJson(const ScheduleRun &run, const Graph &graph)
{
    return perfettoTraceJson(run.result.plan, graph);
}

PlanSummary planSummaryOf(const ScheduleRun &run, std::string label)
{
    const ExecutionPlan &plan = run.result.plan;
    PlanSummary s;
    s.algorithm = plan.algorithm;
    s.device = plan.device;
    s.modelHash = plan.modelHash;
    s.estLatencyMs = plan.estimatedLatencyNs() / 1e6;
    s.kernels = static_cast<std::int64_t>(plan.kernels.size());
    s.label = std::move(label);
    return s;
}

// --- overrides -----------------------------------------------------------------

Expected<OverrideImport> importOverrides(std::string_view json, const std::string &sourceName, const ScheduleRun &run)
{
    auto overrides = overridesFromJson(json, sourceName);
    if (!overrides)
        return overrides.status();
    OverrideImport out;
    const Location where{.file = sourceName};
    const auto reject = [&](std::string message) {
        out.rejected.push_back({Severity::Warning, ErrorCode::InvalidInput, std::move(message), where});
    };
    for (const auto &[key, optionId] : *overrides) {
        const DecisionRecord *decision = run.decisions.find(key);
        if (!decision) {
            reject("override '" + key + "' rejected: the current schedule asks no such decision");
            continue;
        }
        const auto option = std::find_if(decision->options.begin(), decision->options.end(),
                                         [&](const DecisionOption &o) { return o.id == optionId; });
        if (option == decision->options.end()) {
            std::string valid;
            for (const DecisionOption &o : decision->options)
                if (o.legal())
                    valid += (valid.empty() ? "" : ", ") + o.id;
            reject("override '" + key + "' rejected: no option '" + optionId + "' (valid: " + valid + ")");
            continue;
        }
        if (!option->legal()) {
            reject("override '" + key + "' rejected: option '" + optionId + "' is illegal (" + option->illegalReason +
                   ")");
            continue;
        }
        out.accepted.emplace(key, optionId);
    }
    return out;
}

} // namespace tessera::gui
