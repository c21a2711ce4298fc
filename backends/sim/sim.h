// The simulator backend ("sim", also "dsa"): runs any ExecutionPlan on any
// device model in simulated time (graphturbo-osdi23 Fig. 1, §4.4, §5) — the
// "run" for users without the hardware. The timing model is simulator.h;
// docs/simulator.md explains it and how the presets are calibrated.
//
// compile() / compileFor() take the device from the CompileContext or, when
// none is given, the standard DeviceRegistry entry for plan.device. A plan
// made for another device or another model (its model hash), bound to
// clusters, cores or units the device lacks, or naming missing tasks,
// kernels, nodes, tensors, buffers or levels is refused with one InvalidInput
// line. Options (CompileContext::options):
//   functional=1  also compute the graph's outputs (see below);
//   batch=N       items per run for the throughput metric (default: the first
//                 dimension of the first graph input, else 1);
//   dtype=f16     time float32 tensors as this precision (f16, bf16, i8:
//                 units, peaks and bytes of the deployment precision;
//                 simulator.h LowerOptions) — for a plan sized at f32.
// A plan sized at a deployment precision (ExecutionPlan::precision, from
// `--precision`) is timed at it without options: the graph's float32 tensors
// are retyped (core/ir/precision.h) before lowering.
// Timing-only runs (the default) return no outputs.
//
// Functional mode delegates the values to the functional backend given at
// registration (the registry's "reference" backend, looked up by name, so
// this folder includes no other backend): it compiles the same plan there
// and runs it task by task and tile by tile with the reference kernels, so
// outputs equal the reference backend's bit for bit. Without one, functional
// runs are Unavailable.
//
// Metrics (RunResult::metrics): sim_time_ms, throughput (batch items per
// simulated second), bytes_by_level/<level>, peak_occupancy_by_level/<level>
// (bytes held at once over all instances), peak_occupancy_fraction/<level>
// (fullest instance over its capacity), utilisation_by_unit/<unit> (busy time
// over instances × time), energy_j, avg_power_w, flops, tasks, events, batch.
// RunResult::counters: occupancy/<level> (bytes) and utilisation/<unit>
// (fraction of instances busy) over simulated time; the timeline's lanes are
// compute units and DMA engines (RunResult::laneNames). Metrics are streamed
// through RunObserver::metricsUpdated while the simulation runs, the timeline,
// lanes and counters through RunObserver::timelinesRecorded.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace tessera {

// `functional` computes values in functional mode (may be null).
std::unique_ptr<IBackend> createSimBackend(IBackend *functional);
// Adds the simulator as "sim" with the alias "dsa"; functional mode uses the
// registry's "reference" backend if it is registered already.
void registerSimBackend(BackendRegistry &registry);

} // namespace tessera
