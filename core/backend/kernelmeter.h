// BackendMeter: the measured cost source of issue 13 (item 3) — any backend
// that measures (the CPU backend's wall clock) or simulates (the simulator's
// clock) times kernels for the schedulers, through core's KernelMeter
// (core/cost/measuredcost.h): whatever kernel a scheduler costs — a stage, a
// candidate tile kernel, a fused group (welder-osdi23 §3.2 "measured by a
// backend", pcgc §3.5's labels). `scheduleGraph` takes it as ScheduleSetup::meter;
// `tessera-cli schedule|run --cost measured` sets one up.
//
// kernelNs(g, nodes): the nodes as a graph of their own (kernelGraph:
// inputs from outside become graph inputs, fed synthetic data — floats in
// [-1, 1), integers 0 —, constants stay), planned as one kernel in one task
// (PlanBuilder, costed by the device's model, which the backend ignores),
// compiled by the backend and run `warmup` times unmeasured, then `repeats`
// times: the median of the kernel task's span in the runs' timelines (the
// run's latency, RunResult::latencyMs, when there is no timeline). A kernel
// the backend cannot compile or run is an error, and MeasuredCostModel asks
// the device's model instead. Results, errors included, are cached by the
// kernel graph's structure hash (op types, attributes, names, shapes: not
// weight values, which do not change a kernel's time), so a scheduler asking
// again — a dynamic program visits a stage from many states, a replay after an
// override asks for the same kernels — costs a lookup.
//
// Not thread-safe: one caller at a time (a scheduler asks from one thread).
// Callers that schedule on worker threads one schedule after another (the
// workbench) may hand the same meter to each, as long as one schedule ends
// (and its end is seen by the next one's launcher) before the next begins;
// keeping it across schedules is what makes a replay's kernels cache hits.
// The backend must outlive it.
//
// setCancel: a cancel token looked at by the backend's compile and run of
// each kernel and before each measurement; a cancelled measurement is an
// error (the model answers, the scheduler then sees the token and stops) and
// is not cached.
#pragma once

#include "core/backend/backend.h"
#include "core/cost/measuredcost.h"
#include "core/hw/device.h"

#include <atomic>
#include <map>
#include <string>
#include <vector>

namespace tessera {

class BackendMeter final : public KernelMeter
{
public:
    struct Options {
        int warmup = 1;
        int repeats = 3;
    };
    // `backend` must report measured or simulated time (capabilities);
    // `device` costs the one-kernel plans the backend compiles.
    BackendMeter(IBackend &backend, Device device, Options options);
    BackendMeter(IBackend &backend, Device device) : BackendMeter(backend, std::move(device), Options{}) {}

    CostKind kind() const override;
    Expected<double> kernelNs(const Graph &g, const std::vector<NodeId> &nodes) override;

    std::string backendName() const { return m_backend.info().name; }
    const Device &device() const { return m_device; }
    // Null: never cancelled. The token must outlive the measurements it covers.
    void setCancel(const std::atomic<bool> *cancel) { m_cancel = cancel; }
    int measured() const { return m_measured; } // kernels compiled and run
    int cacheHits() const { return m_hits; }

private:
    IBackend &m_backend;
    Device m_device;
    Options m_options;
    std::map<std::string, Expected<double>> m_cache;
    const std::atomic<bool> *m_cancel = nullptr;
    int m_measured = 0;
    int m_hits = 0;
};

// The backend `--cost measured` times kernels on when none is named: the CPU
// backend for a CPU device, the simulator for any other (the CLI's costMeter
// and the workbench's cost choice).
std::string defaultMeterBackend(const Device &device);

} // namespace tessera
