// The backend interface: capabilities, compile, run with streaming metrics.
// Backends live in backends/<name>/; core never includes their headers and
// third-party headers (LLVM, CUDA, oneDNN) stay behind one wrapper each.
// Nothing throws across this boundary.
#pragma once

#include "core/ir/graph.h"
#include "core/plan/plan.h"
#include "core/support/status.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera {

struct Device;

// A tensor in host memory, packed little-endian.
struct HostTensor {
    std::string name;
    DType dtype = DType::Float32;
    Shape shape;
    std::vector<std::uint8_t> bytes;

    const float *f32() const { return reinterpret_cast<const float *>(bytes.data()); }
    float *f32() { return reinterpret_cast<float *>(bytes.data()); }
    std::int64_t elements() const { return numElements(shape).value_or(0); }
};

// What a backend can do, so callers pick one by capability instead of by name.
struct BackendCapabilities {
    bool functional = false; // computes the graph's outputs
    bool timing = false;     // reports modelled time (a simulator's clock)
    bool measured = false;   // reports measured time (wall clock of its run)
    // Device kinds whose plans it runs: deviceKindName()s ("cpu", "gpu", "dsa")
    // or "any".
    std::vector<std::string> deviceKinds{"any"};
    // How a functional backend sums the products of Conv, ConvTranspose,
    // MatMul and Gemm: in float64 (the reference backend) or in float32
    // (oneDNN, as PyTorch and ONNX Runtime do). Outputs are float32 either
    // way; a float32 sum over thousands of terms and a hundred layers can be
    // several 1e-4 (relative L2) from the float64 truth on a deep network, so
    // a caller comparing with float64 outputs picks its tolerance by this.
    enum class Accumulation { Float64, Float32 };
    Accumulation accumulation = Accumulation::Float64;

    bool supportsDeviceKind(std::string_view kind) const;
};

struct BackendInfo {
    std::string name; // "reference", "null", "dsa-sim", "cpu", "cuda": the registry key
    std::string title;
    std::string summary;
    bool available = true;
    std::string unavailableReason; // why not, e.g. "no CUDA device: cudaGetDeviceCount returned 0"
    BackendCapabilities capabilities;
};

// A value over (simulated or measured) time: (time ns, value) points, each
// value holding until the next point (a step function).
struct CounterSeries {
    std::string name; // "occupancy/LLB" (bytes), "utilisation/matrix" (0..1)
    std::string unit; // "bytes", "fraction"
    std::vector<std::pair<double, double>> points;
};

struct RunResult {
    std::vector<HostTensor> outputs; // graph outputs, in graph order
    double latencyMs = 0;
    std::vector<TaskTiming> timeline;
    // Names of timeline lanes by TaskTiming::lane ("MME c0.3", "DMA DDR"); may
    // be empty (lanes are then just numbers).
    std::vector<std::string> laneNames;
    std::map<std::string, double> metrics;
    std::vector<CounterSeries> counters; // timelines of occupancy, utilisation...
};

// What a run's timelines gained since the previous report, so a caller can
// draw the run while it goes (a live Gantt, occupancy and utilisation charts).
// Everything in it is final: a later increment or the finished RunResult
// never revises it.
struct RunIncrement {
    std::vector<TaskTiming> timeline;    // tasks finished since the previous increment
    std::vector<std::string> laneNames;  // every lane name known so far (RunResult::laneNames)
    std::vector<CounterSeries> counters; // per series: the points recorded since the previous increment
};

// Appends `increment` to `result`: its timeline entries, its counter points to
// the series of the same name (a new series when there is none), and its lane
// names in place of result's. Appending every increment of a run in order
// gives the finished RunResult's timeline (as a set), lane names and counters.
void appendIncrement(RunResult &result, const RunIncrement &increment);

// Streaming progress while a plan runs (may be called from worker threads).
struct RunObserver {
    std::function<void(TaskId task, double fractionDone)> taskFinished;
    // Metrics so far (the keys of RunResult::metrics), at a bounded rate.
    std::function<void(const std::map<std::string, double> &metrics)> metricsUpdated;
    // Timelines so far, as increments (RunIncrement), called just before each
    // metricsUpdated. Backends that report no timelines never call it.
    std::function<void(const RunIncrement &increment)> timelinesRecorded;
    const std::atomic<bool> *cancel = nullptr;
};

// What a caller knows beyond the graph and the plan: the device the plan was
// made for (the caller's DeviceRegistry entry for plan.device, which may be a
// user file) and backend options by name ("functional" = "1"). Backends that
// need neither ignore it.
struct CompileContext {
    const Device *device = nullptr;
    std::map<std::string, std::string> options;
    // Set: a backend whose compile takes long (verifying, loading weights,
    // preparing kernels) stops with ErrorCode::Cancelled soon after it turns true.
    const std::atomic<bool> *cancel = nullptr;
};

// Which backend compiled a plan: the compiling backend's registered name. A
// backend's run() checks the tag with checkCompiledBy() before it touches a
// CompiledPlan and refuses a foreign one with an InvalidInput error. A plan
// built without a tag reports the backend "unknown"; no backend accepts it.
class CompiledPlan
{
public:
    CompiledPlan() = default;
    explicit CompiledPlan(std::string backend) : m_backend(std::move(backend)) {}
    virtual ~CompiledPlan() = default;
    const std::string &backend() const { return m_backend; } // empty when untagged

private:
    std::string m_backend;
};

// Ok when `compiled` carries `backend`'s name; otherwise InvalidInput: "the plan
// was compiled by the 'x' backend, not by the <name> backend; compile it here first".
Status checkCompiledBy(const CompiledPlan &compiled, const BackendInfo &backend);

class IBackend
{
public:
    virtual ~IBackend() = default;
    virtual const BackendInfo &info() const = 0;
    // Whether this backend can run node n (opaque nodes typically not).
    virtual bool supports(const Graph &g, const Node &n) const = 0;
    // The result is tagged with info().name (CompiledPlan's constructor).
    virtual Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) = 0;
    // compile() with the caller's device and options; the default ignores them.
    virtual Expected<std::unique_ptr<CompiledPlan>> compileFor(const Graph &g, const ExecutionPlan &plan,
                                                               const CompileContext &context)
    {
        (void)context;
        return compile(g, plan);
    }
    // Inputs by graph-input name; missing inputs are an InvalidInput error, and
    // so is a plan another backend compiled (checkCompiledBy).
    virtual Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                                    const RunObserver &observer = {}) = 0;
};

// The open set of backends, keyed by BackendInfo::name. Each backend folder
// offers a register<Name>Backend(BackendRegistry &) function; the app calls
// them explicitly (app/registerbuiltins.cpp), there is no static registration.
class BackendRegistry
{
public:
    // A second backend of the same name is a programming error (asserted).
    void add(std::unique_ptr<IBackend> backend);
    // A second name for a registered backend ("dsa" for "sim"); find() and
    // get() accept it, names() and all() list the backend once.
    void addAlias(std::string alias, std::string_view name);
    IBackend *find(std::string_view name) const; // by name or alias
    // Usage error for unknown names (listing the known ones), Unavailable
    // (exit code 4) for known but unavailable ones.
    Expected<IBackend *> get(std::string_view name) const;
    std::vector<IBackend *> all() const; // in registration order
    std::vector<std::string> names() const;
    // Backends whose capabilities list `deviceKind` (or "any"), in registration order.
    std::vector<IBackend *> forDeviceKind(std::string_view deviceKind) const;

private:
    std::vector<std::unique_ptr<IBackend>> m_backends;
    std::map<std::string, std::string, std::less<>> m_aliases;
};

} // namespace tessera
