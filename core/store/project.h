// Project: a "*.tessera" file — an SQLite database (schema.h) holding one
// workbench session: the model reference, the device, the scheduler and its
// options, the overrides with their undo/redo history, plans (schedule JSON
// documents with summary columns), runs with their metrics and timelines, and
// UI session state as key/value pairs, so reopening restores the session.
//
// Durability. The file runs in WAL journal mode with synchronous=FULL: every
// write method is one short IMMEDIATE transaction that is on disk when the
// method returns, so a crash, a SIGKILL or a power cut never corrupts the file
// and never loses a write that returned ok (NORMAL would be safe against
// crashes but may lose the last commits on power loss; FULL costs one fsync of
// the WAL per save, measured by bench/bench_store.cpp). Closing checkpoints
// the WAL into the file, so a closed project is one self-contained file.
// Several calls form one atomic save through transaction().
//
// Opening is careful. The file must carry SQLite's header, Tessera's
// application id, a schema version this build knows and pass PRAGMA
// quick_check; anything else is an InvalidInput error naming the file and the
// file is left untouched (nothing is written before all checks pass). An older
// schema is migrated in one transaction. A file that cannot be written opens
// read-only with a note in notes(); writes then fail with a clear Status and
// nothing is lost. A write waits up to OpenOptions::busyTimeoutMs for another
// process's write lock, then fails with "project is locked by another Tessera".
//
// Model references: see ModelRef (a sample by name and version, a file by
// relative path and content hash, optionally embedded).
//
// Threads: every method locks the project, so an Autosaver's worker thread and
// the GUI thread may share one Project. Qt-free (plain SQLite).
#pragma once

#include "core/ir/types.h"
#include "core/sched/decision.h"
#include "core/support/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

enum class OpenMode : std::uint8_t { ReadWrite, ReadOnly };

struct OpenOptions {
    int busyTimeoutMs = 2000; // how long a write waits for another writer's lock
};

// How to find and re-import the model, in one of three ways:
//  - a registered sample (core/plugin/samples.h) by name and version: no path
//    is stored; the model is rebuilt on demand (the sample's version says
//    whether this build's builder makes the same network);
//  - a file by a path relative to the project file (the absolute one as a
//    fallback) and the FNV-1a 64 hash of its bytes and its data files', so a
//    changed file is recognised (modelContentChanged);
//  - either file reference with the model embedded: its bytes and data files
//    kept in the project (model_files), written out by extractModel() when the
//    file is missing or changed.
// setModel() takes `path` (the file imported now; for a sample its build) and
// the fields marked "in", and fills in the rest; model() returns all fields,
// with `path` the file to import on this machine (see modelPath()).
struct ModelRef {
    std::string path;
    std::string relativePath; // relative to the project file's folder; empty for a sample
    std::string absolutePath;
    std::string structureHash;      // in: modelStructureHash() of the import
    std::string contentHash;        // of the file and its data files, 16 hex digits; empty for a sample
    std::string sample;             // in: the sample's registered name; empty for a file
    std::int64_t sampleVersion = 0; // in: SampleInfo::version
    // in: data files (external weights) beside the model that belong to it,
    // as names relative to its folder; hashed with it, embedded with it.
    std::vector<std::string> dataFiles;
    bool embed = false; // in: keep the files in the project; out: they are kept
    std::int64_t fileBytes = 0;
    std::int64_t mtimeNs = 0;
    // The import settings that shaped the graph (ImportOptions).
    std::int64_t batch = 1;
    std::int64_t seqLen = 128;
    std::map<std::string, std::int64_t> dims;
};

inline constexpr std::string_view kCostEstimated = "estimated";
inline constexpr std::string_view kCostMeasured = "measured";

struct ProjectSetup {
    std::string algorithm;                      // scheduler registry name
    std::string device;                         // device registry id
    std::map<std::string, std::string> options; // scheduler options as text
    DType precision = DType::Float32;           // ScheduleSetup::precision
    // Where the scheduler's kernel costs come from (`--cost`, the workbench's
    // cost box): kCostEstimated (the device's cost model) or kCostMeasured
    // (kernels timed on the backend `meter`; empty: the device's default,
    // defaultMeterBackend). An estimated setup has no meter.
    std::string cost = std::string(kCostEstimated);
    std::string meter;
};

struct ProjectInfo {
    ModelRef model;
    ProjectSetup setup;
    Overrides overrides; // the first entry of the override history
};

struct PlanSummary {
    std::int64_t id = 0; // assigned by addPlan
    std::string created; // ISO 8601 UTC, assigned by addPlan
    std::string algorithm;
    std::string device;
    std::string modelHash;
    double estLatencyMs = 0;
    std::int64_t kernels = 0;
    std::string label; // free text, e.g. "replay"
};

struct RunRecord {
    std::int64_t id = 0; // assigned by addRun
    std::int64_t planId = 0;
    std::string created; // assigned by addRun
    std::string backend;
    double latencyMs = 0;
    std::map<std::string, double> metrics;
};

struct OverrideStep {
    std::int64_t step = 0;
    std::string label;
    std::string created;
    std::int64_t count = 0; // overrides in this state
};

// The override history, oldest first; `current` is the step whose overrides
// are in effect. Undo moves to the step before it, redo to the one after; a new
// setOverrides() after an undo drops the redo tail, as editors do.
struct OverrideHistory {
    std::vector<OverrideStep> steps;
    std::int64_t current = 0;
    bool canUndo() const { return !steps.empty() && steps.front().step < current; }
    bool canRedo() const { return !steps.empty() && steps.back().step > current; }
};

class Project
{
public:
    static constexpr std::int64_t kMaxHistory = 500; // older override steps are dropped

    // Creates a new project file at `path` (refused if it exists, unless
    // `overwrite`). The file appears complete or not at all: it is built under
    // a temporary name in the same folder and renamed into place.
    static Expected<Project> create(const std::string &path, const ProjectInfo &info, bool overwrite = false,
                                    const OpenOptions &options = {});
    static Expected<Project> open(const std::string &path, OpenMode mode = OpenMode::ReadWrite,
                                  const OpenOptions &options = {});

    Project(Project &&) noexcept;
    Project &operator=(Project &&) noexcept;
    ~Project(); // closes; use close() to see a failure

    const std::string &path() const;
    bool readOnly() const;
    int schemaVersion() const; // after any migration
    static int currentSchemaVersion();
    // What open() wants the user to know: read-only fallback, schema upgrade.
    const std::vector<Diagnostic> &notes() const;

    // Reads size, mtime and content of model.path (not for a sample); with
    // `embed`, stores the file and its data files in the project.
    Status setModel(const ModelRef &model);
    Expected<ModelRef> model() const;
    // The model file to import here: the relative path if that file exists
    // (project and model moved together), else the absolute one; an error
    // naming both when neither exists (when the model is embedded, use
    // extractModel() then). A sample has no file: a Usage error naming it.
    Expected<std::string> modelPath() const;
    // The content hash of `path` and its data files now differs from the
    // stored one: an InvalidInput error saying so (both hashes), else ok. A
    // reference without a content hash (a sample, a v2 file) is ok.
    Status checkModelContent(const std::string &path) const;
    // Writes the embedded model and its data files into `folder` (created if
    // needed) and returns the model file's path; the written bytes are checked
    // against the content hash. A Usage error when nothing is embedded.
    Expected<std::string> extractModel(const std::string &folder) const;

    Status setSetup(const ProjectSetup &setup);
    Expected<ProjectSetup> setup() const;

    // Records a new history step (no step when nothing changed).
    Status setOverrides(const Overrides &overrides, std::string_view label = {});
    Expected<Overrides> overrides() const;
    Expected<Overrides> undoOverrides(); // Usage error when there is nothing to undo
    Expected<Overrides> redoOverrides();
    Expected<OverrideHistory> overrideHistory() const;

    Expected<std::int64_t> addPlan(std::string_view scheduleJson, const PlanSummary &summary);
    Expected<std::vector<PlanSummary>> plans() const; // oldest first
    Expected<std::string> planJson(std::int64_t planId) const;

    Expected<std::int64_t> addRun(std::int64_t planId, const RunRecord &run, std::string_view timelineJson);
    Expected<std::vector<RunRecord>> runs(std::int64_t planId) const; // oldest first
    Expected<std::string> runTimeline(std::int64_t runId) const;

    // UI session state ("selected_step", "expanded_groups", ...).
    Status setState(std::string_view key, std::string_view value);
    Status removeState(std::string_view key);
    Expected<std::optional<std::string>> state(std::string_view key) const;
    Expected<std::map<std::string, std::string>> allState() const;

    // Plugin data: values (any bytes: a trained model, a cache) a plugin keeps
    // in the project under its registry name, so reopening the project brings
    // them back. Stored in the session_state table under the reserved key
    // prefix "plugin/<plugin>/" (no schema change); setState() refuses that
    // prefix and allState() leaves it out. `plugin` is non-empty without '/'.
    Status setPluginData(std::string_view plugin, std::string_view key, std::string_view bytes);
    Status removePluginData(std::string_view plugin, std::string_view key);
    Expected<std::optional<std::string>> pluginData(std::string_view plugin, std::string_view key) const;
    // Every (plugin, key) -> bytes of the project (Save As copies them).
    Expected<std::map<std::pair<std::string, std::string>, std::string>> allPluginData() const;

    // Runs `body` as one atomic save: the write methods it calls join this
    // transaction; an error from `body` rolls all of them back.
    Status transaction(const std::function<Status()> &body);

    // Checkpoints and closes. Every later call fails with "project is closed".
    Status close();

private:
    struct Impl;
    explicit Project(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_d;
};

} // namespace tessera
