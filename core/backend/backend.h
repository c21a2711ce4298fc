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

struct BackendInfo {
    std::string name;     // "reference", "dsa-sim", "cpu", "cuda"
    std::string title;
    std::string summary;
    bool available = true;
    std::string unavailableReason; // why not, e.g. "no CUDA device: cudaGetDeviceCount returned 0"
};

struct RunResult {
    std::vector<HostTensor> outputs; // graph outputs, in graph order
    double latencyMs = 0;
    std::vector<TaskTiming> timeline;
    std::map<std::string, double> metrics;
};

// Streaming progress while a plan runs (may be called from worker threads).
struct RunObserver {
    std::function<void(TaskId task, double fractionDone)> taskFinished;
    const std::atomic<bool> *cancel = nullptr;
};

// Which backend compiled a plan. A backend's run() checks the tag before it
// touches a CompiledPlan (STYLE.md §8: dispatch on a kind, not RTTI) and
// refuses a foreign one with an InvalidInput error. Unknown is what a plan
// built without a kind reports; no backend accepts it.
enum class BackendKind : std::uint8_t {
    Unknown,
    Reference,
    Cpu,
    Cuda,
    DsaSim,
    External, // out-of-tree or test backends
};
std::string_view backendKindName(BackendKind kind); // "reference", "cpu", ...

class CompiledPlan
{
public:
    CompiledPlan() = default;
    explicit CompiledPlan(BackendKind kind) : m_kind(kind) {}
    virtual ~CompiledPlan() = default;
    BackendKind kind() const { return m_kind; }

private:
    BackendKind m_kind = BackendKind::Unknown;
};

class IBackend
{
public:
    virtual ~IBackend() = default;
    virtual const BackendInfo &info() const = 0;
    // Whether this backend can run node n (opaque nodes typically not).
    virtual bool supports(const Graph &g, const Node &n) const = 0;
    virtual Expected<std::unique_ptr<CompiledPlan>> compile(const Graph &g, const ExecutionPlan &plan) = 0;
    // Inputs by graph-input name; missing inputs are an InvalidInput error.
    virtual Expected<RunResult> run(CompiledPlan &compiled, const std::vector<HostTensor> &inputs,
                                    const RunObserver &observer = {}) = 0;
};

class BackendRegistry
{
public:
    void add(std::unique_ptr<IBackend> backend);
    IBackend *find(std::string_view name) const;
    // Usage error for unknown names, Unavailable (exit code 4) for known but unavailable ones.
    Expected<IBackend *> get(std::string_view name) const;
    std::vector<IBackend *> all() const;

private:
    std::vector<std::unique_ptr<IBackend>> m_backends;
};

} // namespace tessera
