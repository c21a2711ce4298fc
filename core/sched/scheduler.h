// The scheduler interface and its registry.
//
// A scheduler reads a graph and a device and produces an ExecutionPlan. It
// describes itself (name, summary, paper section, typed options, statistics),
// asks a DecisionContext for every choice and records its steps in a Trace.
// Algorithms live in plugins/<name>/ and are registered explicitly by the
// app (app/registerbuiltins); nothing registers itself from a static constructor.
// run() never throws; problems with the input are returned as Status.
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"
#include "core/sched/decision.h"
#include "core/sched/options.h"
#include "core/sched/searchspace.h"
#include "core/sched/trace.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tessera {

class Hierarchy;
class CostModel;
struct Device;

struct StatSpec {
    std::string key;  // e.g. "states"
    std::string help; // "DP states visited"
};

struct SchedulerInfo {
    std::string name;    // registry key and CLI --algo value, e.g. "layer-fusion"
    std::string title;   // "Layer fusion"
    std::string summary; // one line
    std::string paper;   // the paper section it implements, e.g. "§3.2, Algorithm 1"
    std::vector<OptionSpec> options;
    std::vector<StatSpec> stats;
};

struct ScheduleRequest {
    const Graph *graph = nullptr;
    const Hierarchy *hierarchy = nullptr; // may be null
    const Device *device = nullptr;
    const CostModel *cost = nullptr;
    OptionValues options;
    std::string modelHash;
    // The model's metadata_props (ImportResult::metadata.properties), e.g. the
    // units and blocks a model converter recorded; schedulers may read hints here.
    std::map<std::string, std::string> modelProperties;
    // When set, a searching scheduler fills ScheduleResult::searchSpace.
    const SearchSpaceRequest *searchSpace = nullptr;
    const std::atomic<bool> *cancel = nullptr;     // checked between steps
    std::function<void(double fraction)> progress; // may be empty

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
};

struct ScheduleResult {
    ExecutionPlan plan;
    std::map<std::string, double> stats;
    std::shared_ptr<const SearchSpace> searchSpace; // when requested and the scheduler searches
};

class IScheduler
{
public:
    virtual ~IScheduler() = default;
    virtual const SchedulerInfo &info() const = 0;
    virtual Expected<ScheduleResult> run(const ScheduleRequest &request, DecisionContext &decisions,
                                         Trace &trace) const = 0;
};

class SchedulerRegistry
{
public:
    void add(std::unique_ptr<IScheduler> scheduler); // duplicate names are asserted
    const IScheduler *find(std::string_view name) const;
    // As find(), or a Usage error "unknown algorithm 'x'; known: a, b, c".
    Expected<const IScheduler *> get(std::string_view name) const;
    std::vector<const IScheduler *> all() const; // registration order
    // Keeps a plugin library loaded while its schedulers live (pluginloader.h).
    void keepLoaded(std::shared_ptr<void> library) { m_libraries.push_back(std::move(library)); }

private:
    // Declared first so it is destroyed last: plugin schedulers run code of these libraries.
    std::vector<std::shared_ptr<void>> m_libraries;
    std::vector<std::unique_ptr<IScheduler>> m_schedulers;
};

// One complete scheduling run: schedule with overrides, lower, verify, time it.
struct ScheduleRun {
    ScheduleResult result;
    Trace trace;
    DecisionContext decisions;
    std::vector<OverrideReport> overrideReports;
    double searchMs = 0; // wall time of IScheduler::run
    double verifyMs = 0;
};

// Runs `scheduler` with `overrides`, then verifyPlan(). Deterministic for a
// given request and overrides. A request without option values gets the
// scheduler's defaults.
Expected<ScheduleRun> runSchedule(const IScheduler &scheduler, const ScheduleRequest &request,
                                  const Overrides &overrides = {});

} // namespace tessera
