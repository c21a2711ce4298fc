// The null backend: accepts any plan, computes nothing and reports zero time.
// It proves the backend interface (core/backend/backend.h) without kernels and
// lets tests and tools exercise the compile-and-run path cheaply.
//
// compile() checks nothing (no verifyPlan) and keeps only the graph outputs'
// names, dtypes and shapes and the plan's task ids. run() checks that every
// graph input is given by name (the interface's contract) and returns every
// graph output zero-filled, in graph order, with its dtype and shape; a
// timeline of every task at time 0 (lane 0); latency 0; and the metrics
// "total_ms" = 0 and "tasks". Capabilities: not functional, neither timing nor
// measured, any device kind. Plans compiled elsewhere are refused.
#pragma once

#include "core/backend/backend.h"

#include <memory>

namespace tessera {

std::unique_ptr<IBackend> createNullBackend();
// Adds createNullBackend() to `registry` (app/registerbuiltins.cpp).
void registerNullBackend(BackendRegistry &registry);

} // namespace tessera
