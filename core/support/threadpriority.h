// Background work yields to the user interface: a worker thread that runs a
// load, a layout or a schedule lowers its own scheduling priority (Linux:
// a per-thread nice value of kBackgroundNice, setpriority(2) on its thread id),
// so the GUI thread is not starved of the CPU while it lays out and paints
// (measured by bench/bench_stalls). Never used for work whose time is the
// result (a backend's measured run). Elsewhere a no-op.
#pragma once

namespace tessera {

inline constexpr int kBackgroundNice = 5;

// Lowers the calling thread's priority to background, once; returns whether it is.
bool useBackgroundPriority();

} // namespace tessera
