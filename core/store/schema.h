// The project file's schema and its migrations.
//
// A project is an SQLite database marked with PRAGMA application_id =
// kApplicationId ("TESS") and versioned by PRAGMA user_version. The schema is
// the result of applying migrations()[0..v-1] in order: step i builds version
// i+1 from version i. Steps are append-only — a released step never changes;
// a new schema is a new step. Each step is recorded in the schema_history
// table.
//   v1  project row (model reference, device, algorithm), scheduler and import
//       options, override history (steps + items + cursor), plans, runs with
//       their metrics as a JSON text column.
//   v2  session_state key/value table (UI state restored on reopen), and run
//       metrics moved out of runs.metrics_json into a run_metrics table.
//   v3  model reference by sample name and version or by path plus content
//       hash; model_files holds an embedded model and its external data.
//   v4  project.precision, the deployment precision the project schedules at.
//   v5  project.cost and project.cost_meter, where the scheduler's kernel
//       costs come from (estimated, or measured on a backend).
// A file whose user_version is newer than kSchemaVersion is refused, never
// "migrated"; one without the application id is not ours.
#pragma once

#include "core/store/sqlite.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace tessera::store {

inline constexpr std::int32_t kApplicationId = 0x54455353; // "TESS"
inline constexpr int kSchemaVersion = 5;

struct Migration {
    int version;              // the version this step produces
    std::string_view summary; // one line, for schema_history
    std::string_view sql;
};

std::span<const Migration> migrations();

// Applies the steps from version `from` (0: an empty database) up to `to` in
// one IMMEDIATE transaction, setting application_id and user_version: either
// the whole migration lands or nothing does.
Status migrate(Db &db, int from, int to);

} // namespace tessera::store
