// Export and import of schedules as JSON (schema: docs/schedule-schema.json,
// versioned by "format_version"), and of run timelines as Chrome/Perfetto
// trace JSON.
//
// A schedule document holds the plan, the options and overrides that made
// it, the decisions asked, the step trace and the statistics. Nodes and
// tensors are written by NAME, not id, so a document stays meaningful across
// imports; reading it back against a graph resolves the names and refuses a
// document made for another model (model hash and node names).
#pragma once

#include "core/backend/backend.h"
#include "core/plan/plan.h"
#include "core/sched/decision.h"
#include "core/sched/scheduler.h"
#include "core/sched/trace.h"
#include "core/support/status.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

struct ScheduleDocument {
    static constexpr int kFormatVersion = 1;
    std::string model; // model path or name as the user gave it
    std::string modelHash;
    std::string algorithm;
    std::string device;
    std::map<std::string, std::string> options; // as given (text)
    Overrides overrides;
    std::vector<OverrideReport> overrideReports;
    std::vector<DecisionRecord> decisions;
    std::vector<TraceStep> trace;
    std::map<std::string, double> stats;
    double searchMs = 0;
    ExecutionPlan plan;
};

// The document of a finished run, the one way every writer fills it (tessera-cli
// schedule, project replay, the workbench's export): algorithm, device and
// model hash come from the run's plan; overrides, their reports, decisions,
// trace, statistics and search time from the run. `model` is how the document
// names the model (a path or a name); `options` are the scheduler options as
// given (text).
ScheduleDocument makeScheduleDocument(const ScheduleRun &run, std::string model,
                                      std::map<std::string, std::string> options);

// Writes a document; `graph` supplies names for ids. Deterministic output
// (sorted keys, fixed number formatting) so documents diff well.
std::string scheduleToJson(const ScheduleDocument &doc, const Graph &graph);

// Reads a document and resolves it against `graph`. Malformed JSON (with the
// byte offset), a wrong or future format_version, missing fields, unknown
// node/tensor names and a model-hash mismatch are InvalidInput errors.
Expected<ScheduleDocument> scheduleFromJson(std::string_view json, const Graph &graph,
                                            std::string_view sourceName = {});

// Overrides alone: either a full schedule document (its "overrides") or a
// plain object {"key": "option-id", ...}.
Expected<Overrides> overridesFromJson(std::string_view json, std::string_view sourceName = {});
std::string overridesToJson(const Overrides &overrides);

// Chrome/Perfetto "traceEvents" JSON of a run (one track per lane, named by
// RunResult::laneNames when given, plus a counter track per
// RunResult::counters series) or, when
// `run` is null, of the plan's estimated timeline (list-scheduled like
// ExecutionPlan::estimatedLatencyNs).
std::string perfettoTraceJson(const ExecutionPlan &plan, const Graph &graph, const RunResult *run = nullptr);

// Reads back what perfettoTraceJson wrote for a run (a project stores runs so):
// the timeline (task, lane, start and end), the lanes' names and the counter
// series. Outputs, latency and metrics are not in the trace. Tasks outside
// [0, taskCount) are refused, so the timeline fits the plan it is shown with.
Expected<RunResult> runFromPerfettoTraceJson(std::string_view json, std::size_t taskCount,
                                             std::string_view sourceName = {});

} // namespace tessera
