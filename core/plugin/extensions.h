// Extensions: everything a plugin contributes besides its schedulers — model
// import formats, schedule export formats, tessera-cli subcommands and sample
// networks — and
// the SchedulerRegistry its schedulers go to (docs/plugins.md).
//
// A plugin is a folder (plugins/<name>/) with one registration function,
//   void register<Name>Plugin(Extensions &extensions);
// that adds its contributions here. plugins/CMakeLists.txt lists the folders,
// one tessera_add_plugin(<name>) line each, and generates registerAllPlugins(),
// which calls every registration function in that order (MLIR's
// registerAllDialects style; nothing registers itself from a static
// constructor). Workbench views and actions are the optional gui/ part of a
// plugin and register into views' PlanExtensions (views/widgets/planextensions.h).
//
// The app builds one Extensions at start-up and passes it by reference; the
// workbench and tessera-cli list the formats and commands generically, so
// neither names an algorithm. Contributions never throw: failures are Status.
#pragma once

#include "core/onnx/importer.h"
#include "core/plugin/command.h"
#include "core/plugin/samples.h"
#include "core/sched/scheduler.h"
#include "core/support/status.h"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

class BackendRegistry;

// A file kind a plugin turns into a model (e.g. a paper artifact's graph configs).
struct ModelFormat {
    std::string name;                  // "<plugin>-config"
    std::string title;                 // "Graph config": file dialogs and `tessera-cli formats`
    std::vector<std::string> suffixes; // ".json": a path ending in one (case-insensitive) is this format
    std::function<Expected<ImportResult>(const std::string &path, const ImportOptions &options)> import;
};

// What a schedule format writes from: one finished run and the model it was made for.
struct ScheduleExportRequest {
    const ScheduleRun *run = nullptr;
    const Graph *graph = nullptr;
    const std::map<std::string, std::string> *modelProperties = nullptr; // the model's metadata_props
    std::string modelPath; // the model file (or sample name) the run scheduled
    std::string companion; // the file the format asked for (ScheduleFormat::companion); empty: look it up
};

// A schedule file format a plugin writes (e.g. a paper artifact's schedule JSON).
struct ScheduleFormat {
    std::string name;    // "<plugin>": key for the workbench and `tessera-cli formats`
    std::string title;   // "<Paper> Schedule": the File ▸ Export entry
    std::string summary; // one line: the entry's status tip
    std::string suffix;  // ".<plugin>.json": appended to suggested file names
    std::string filter;  // "<Paper> schedule (*.json)": the save dialog's filter
    // The algorithms whose plans the format can express; empty: every plan.
    std::vector<std::string> algorithms;
    // A second input some formats need (e.g. the graph config the model was
    // converted from). `find` says whether it can be found without asking;
    // when not, the workbench asks for a file with `title` and `filter`.
    struct Companion {
        std::string title;  // "graph config"
        std::string filter; // "graph configs (*.json)"
        std::function<bool(const std::string &modelPath)> find;
    };
    std::optional<Companion> companion;
    std::function<Expected<std::string>(const ScheduleExportRequest &request)> write;

    bool accepts(std::string_view algorithm) const;
    // "the last schedule was made by 'x', not a or b: ..." when !accepts(algorithm).
    Status checkAlgorithm(std::string_view algorithm) const;
};

class Extensions
{
public:
    explicit Extensions(SchedulerRegistry &schedulers) : m_schedulers(&schedulers) {}

    SchedulerRegistry &schedulers() { return *m_schedulers; }
    const SchedulerRegistry &schedulers() const { return *m_schedulers; }

    // Names are unique per kind (asserted), like scheduler names.
    void addModelFormat(ModelFormat format);
    void addScheduleFormat(ScheduleFormat format);
    void addCommand(cli::Command command);
    // Sample names are unique without regard to case (asserted).
    void addSample(SampleNetwork sample);

    const std::vector<ModelFormat> &modelFormats() const { return m_modelFormats; }
    const std::vector<ScheduleFormat> &scheduleFormats() const { return m_scheduleFormats; }
    const std::vector<cli::Command> &commands() const { return m_commands; }
    const std::vector<SampleNetwork> &samples() const { return m_samples; }

    // The model format of a path by its suffix; null: an ONNX model.
    const ModelFormat *modelFormatFor(std::string_view path) const;
    const ScheduleFormat *findScheduleFormat(std::string_view name) const;
    // As findScheduleFormat, or a Usage error listing the known formats.
    Expected<const ScheduleFormat *> scheduleFormat(std::string_view name) const;

    // The sample of that name (case-insensitive, core/support/names.h), or null.
    const SampleNetwork *findSample(std::string_view name) const;
    // Builds the named sample, or a Usage error listing the known samples.
    Expected<std::unique_ptr<onnx::ModelProto>> buildSample(std::string_view name,
                                                            const SampleOptions &options = {}) const;

    // A model file of any registered format, else ONNX (importModel).
    Expected<ImportResult> importModel(const std::string &path, const ImportOptions &options = {}) const;

    // The process's backends (core/backend/backend.h), for plugin commands that
    // run plans (e.g. a cost model trained by measuring); set by the app before
    // a command runs, null when the app registered none. Not owned.
    void setBackends(const BackendRegistry *backends) { m_backends = backends; }
    const BackendRegistry *backends() const { return m_backends; }

private:
    SchedulerRegistry *m_schedulers;
    const BackendRegistry *m_backends = nullptr;
    std::vector<ModelFormat> m_modelFormats;
    std::vector<ScheduleFormat> m_scheduleFormats;
    std::vector<cli::Command> m_commands;
    std::vector<SampleNetwork> m_samples;
};

// A plugin's registration function; a set of plugins registers through one
// generated function of this type (registerAllPlugins, app/registerbuiltins.h).
using RegisterPlugins = void (*)(Extensions &extensions);

} // namespace tessera
