// The reference backend: runs any ExecutionPlan on the CPU with straightforward
// float32 kernels (plus int64 and byte-moving paths for shape tensors), so
// every test runs without an accelerator and a plan can be checked to compute
// the same function as its graph.
//
// compile() verifies the plan against the graph (verifyPlan), prepares one
// kernel per node (an opaque or unsupported node fails, naming it), loads
// external weights (checking their size) and works out, per compute task,
// which region of which tensor every node computes (taskRegions): internal
// nodes the region the task needs, kernel outputs their tiles. run() keeps
// one full-size host buffer per tensor, allocated at its first write and
// freed after its last use; tiles write disjoint parts of it and recompute
// tasks rewrite identical values. Data-movement tasks and barriers move no
// values here but are timed. Tasks run single-threaded in issue order, so a
// run is deterministic and a tiled plan's outputs equal the untiled plan's
// bit for bit.
//
// Metrics: "total_ms", "peak_host_bytes" (tensor buffers live at once, plus
// inputs and weights), "weight_bytes", "tasks", and "op_ms/<OpType>" per op
// type. Nothing throws out of the backend: std::bad_alloc (and any other
// exception, e.g. from an observer callback) becomes a Status. Compiled plans
// carry the name "reference"; run() refuses a plan compiled elsewhere with an
// InvalidInput error (checkCompiledBy).
//
// Capabilities: functional and measured (wall-clock timeline), not timing;
// it runs the plan of any device kind on the host CPU.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace tessera {

std::unique_ptr<IBackend> createReferenceBackend();
// Adds createReferenceBackend() to `registry` (app/registerbuiltins.cpp) and
// installs its kernels as the importer's constant evaluator
// (evaluateConstantNode, evaluate.h): registered programs fold with them.
void registerReferenceBackend(BackendRegistry &registry);

} // namespace tessera
