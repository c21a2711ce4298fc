// The workbench's pool for long background work (loading a model, scheduling,
// running a plan, the DAG width): not QThreadPool::globalInstance(), because Qt
// itself uses the global pool inside the GUI thread — the raster paint engine
// splits large fills across it and waits for them — so a paint would wait behind
// a schedule that holds every global thread (bench/bench_stalls found 130 ms
// waits in QRasterPaintEngine::fillRect). As many threads as cores; jobs lower
// their own priority (core/support/threadpriority.h).
#pragma once

class QThreadPool;

namespace tessera::views {

QThreadPool *workerPool(); // created on first use, lives until the program exits

} // namespace tessera::views
