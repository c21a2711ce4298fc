// What the workbench writes and reads besides models: the schedule document
// of a run (docs/schedule-schema.json, the document `tessera-cli schedule`
// writes and a project's plans hold), the run's estimated timeline as
// Chrome/Perfetto trace JSON, and decision overrides read from a file and
// checked against the decisions the last run asked. Plugins add their own
// schedule formats (ScheduleFormat, core/plugin/extensions.h).
//
// Pure functions over a finished ScheduleRun and the graph it was made for:
// the window picks the files, writes them with writeFileAtomic and reports.
#pragma once

#include "core/ir/graph.h"
#include "core/sched/scheduler.h"
#include "core/store/project.h"
#include "core/support/status.h"

#include <QString>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::gui {

// The schedule document of `run`. `model` is how the document names the model
// (a path or a name); `options` are the scheduler options it ran with. The
// algorithm, device and model hash come from the run's plan, the overrides
// from the run's decisions.
std::string scheduleDocumentJson(const ScheduleRun &run, const Graph &graph, const std::string &model,
                                 const std::map<std::string, std::string> &options);

// The plan's estimated timeline (perfettoTraceJson without a backend run).
std::string timelineJson(const ScheduleRun &run, const Graph &graph);

// A project plan's summary columns (id and created are left for addPlan).
PlanSummary planSummaryOf(const ScheduleRun &run, std::string label);

// --- overrides -----------------------------------------------------------------

struct OverrideImport {
    Overrides accepted;
    std::vector<Diagnostic> rejected; // one warning per rejected key, located in the file
};

// Reads overrides (overridesFromJson: a schedule document or a plain object)
// and checks each against `run`'s decisions: a key the run never asked, an
// option the decision does not have (the valid ones are listed) and an illegal
// option are rejected; the rest are accepted. Malformed JSON is an error.
Expected<OverrideImport> importOverrides(std::string_view json, const std::string &sourceName, const ScheduleRun &run);

} // namespace tessera::gui
