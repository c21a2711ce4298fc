#include "core/store/schema.h"

#include "core/support/assert.h"

#include <string>

namespace tessera::store {

namespace {

// Released steps are frozen: files in the wild were built by exactly this text.
constexpr Migration kMigrations[] = {
    {1, "project, options, override history, plans, runs", R"sql(
CREATE TABLE schema_history(
  version INTEGER PRIMARY KEY,
  summary TEXT NOT NULL,
  applied TEXT NOT NULL);
CREATE TABLE project(
  id INTEGER PRIMARY KEY CHECK (id = 1),
  model_relative TEXT NOT NULL,      -- relative to the project file's folder
  model_absolute TEXT NOT NULL,
  model_hash TEXT NOT NULL,          -- modelStructureHash()
  model_bytes INTEGER NOT NULL,
  model_mtime_ns INTEGER NOT NULL,
  algorithm TEXT NOT NULL,
  device TEXT NOT NULL,
  override_cursor INTEGER NOT NULL DEFAULT 0, -- override_steps.step of the current overrides
  created TEXT NOT NULL);
CREATE TABLE import_options(key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE scheduler_options(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE override_steps(
  step INTEGER PRIMARY KEY,
  label TEXT NOT NULL,
  created TEXT NOT NULL);
CREATE TABLE override_items(
  step INTEGER NOT NULL REFERENCES override_steps(step) ON DELETE CASCADE,
  key TEXT NOT NULL,
  option TEXT NOT NULL,
  PRIMARY KEY (step, key)) WITHOUT ROWID;
CREATE TABLE plans(
  id INTEGER PRIMARY KEY,
  created TEXT NOT NULL,
  algorithm TEXT NOT NULL,
  device TEXT NOT NULL,
  model_hash TEXT NOT NULL,
  est_latency_ms REAL NOT NULL,
  kernels INTEGER NOT NULL,
  label TEXT NOT NULL,
  schedule_json TEXT NOT NULL);
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  plan_id INTEGER NOT NULL REFERENCES plans(id) ON DELETE CASCADE,
  created TEXT NOT NULL,
  backend TEXT NOT NULL,
  latency_ms REAL NOT NULL,
  metrics_json TEXT NOT NULL DEFAULT '{}',
  timeline_json TEXT NOT NULL);
CREATE INDEX runs_by_plan ON runs(plan_id);
)sql"},
    // v1 kept run metrics as a JSON object per run; numeric members move to
    // rows so they can be compared across runs in SQL (non-numbers were never
    // written by v1 and are dropped).
    {2, "session state; run metrics as rows", R"sql(
CREATE TABLE session_state(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE run_metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run_id, name)) WITHOUT ROWID;
INSERT INTO run_metrics(run_id, name, value)
  SELECT runs.id, m.key, m.value FROM runs, json_each(runs.metrics_json) AS m
  WHERE json_valid(runs.metrics_json) AND json_type(runs.metrics_json) = 'object'
    AND m.type IN ('integer', 'real');
ALTER TABLE runs DROP COLUMN metrics_json;
)sql"},
    // v3: a bundled sample is referenced by name and version (rebuilt on
    // demand), any other model also by a hash of its bytes; a model may be
    // embedded. Files of v2 keep their path reference (an empty sample name);
    // the workbench turns a path into its sample cache into a sample reference.
    {3, "model by sample name and version, content hash, embedded model files", R"sql(
ALTER TABLE project ADD COLUMN model_sample TEXT NOT NULL DEFAULT '';
ALTER TABLE project ADD COLUMN model_sample_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE project ADD COLUMN model_content_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE project ADD COLUMN model_data_files TEXT NOT NULL DEFAULT ''; -- one name a line
CREATE TABLE model_files(
  name TEXT PRIMARY KEY,             -- file name; the model's is model_files.is_model = 1
  is_model INTEGER NOT NULL,
  content BLOB NOT NULL) WITHOUT ROWID;
)sql"},
    // v4: the deployment precision the project schedules at (ScheduleSetup::precision,
    // precisionName()); files of v3 scheduled at float32.
    {4, "scheduling precision", R"sql(
ALTER TABLE project ADD COLUMN precision TEXT NOT NULL DEFAULT 'fp32';
)sql"},
    // v5: the cost source the project schedules with (ProjectSetup::cost and
    // ::meter: `--cost estimated|measured [--meter NAME]`, the workbench's
    // cost box); files of v4 scheduled with estimated costs.
    {5, "cost source", R"sql(
ALTER TABLE project ADD COLUMN cost TEXT NOT NULL DEFAULT 'estimated';
ALTER TABLE project ADD COLUMN cost_meter TEXT NOT NULL DEFAULT '';
)sql"},
};
static_assert(std::size(kMigrations) == kSchemaVersion, "one migration step per schema version");

Status applySteps(Db &db, int from, int to)
{
    for (const Migration &m : migrations()) {
        if (m.version <= from || m.version > to)
            continue;
        if (Status s = db.exec(m.sql); !s.isOk())
            return s.prefix("migrating to schema v" + std::to_string(m.version));
        auto log = Stmt::prepare(db, "INSERT INTO schema_history(version, summary, applied) "
                                     "VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))");
        if (!log)
            return log.status();
        TS_TRY(log->bind(1, std::int64_t(m.version)).bind(2, m.summary).run());
    }
    if (from == 0)
        TS_TRY(db.exec("PRAGMA application_id = " + std::to_string(kApplicationId)));
    return db.exec("PRAGMA user_version = " + std::to_string(to));
}

} // namespace

std::span<const Migration> migrations()
{
    return kMigrations;
}

Status migrate(Db &db, int from, int to)
{
    TS_ASSERT(0 <= from && from < to && to <= kSchemaVersion);
    TS_TRY(db.exec("BEGIN IMMEDIATE", "upgrading the schema"));
    Status s = applySteps(db, from, to);
    if (s.isOk())
        s = db.exec("COMMIT", "upgrading the schema");
    if (!s.isOk())
        (void)db.exec("ROLLBACK");
    return s;
}

} // namespace tessera::store
