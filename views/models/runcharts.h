// What the Metrics dock charts of one backend run (core/backend/backend.h
// RunResult, finished or the part streamed so far), as Qt-Core-only data:
//   - throughput so far: at each task end t, batch × (work finished by t ÷
//     the plan's work) ÷ t items per second. Work is the plan's estimated
//     task time (TaskCost::timeNs), or one per task when the plan has no
//     estimates; at the run's end this is batch ÷ latency, the backend's
//     throughput metric. The issue leaves "throughput so far" open; this is
//     the rate the run would reach if the rest went as fast, so it settles
//     while the run streams instead of falling like batch ÷ elapsed time;
//   - occupancy per memory level over time: the "occupancy/<level>" counters
//     (bytes), binned to a bounded number of columns, each column the largest
//     value in it (peaks stay visible, graphturbo-osdi23 Fig. 17);
//   - utilisation per compute-unit kind over time: the "utilisation/<unit>"
//     counters (fraction busy), each column the time-weighted mean
//     (graphturbo-osdi23 Fig. 16).
// Binned series are step functions drawn as polylines: two points per column
// edge, at most 2 × columns + 2 points however long the run.
//
// UpdateThrottle bounds how often a live view redraws (≤ one update per
// interval; the last offered data is drawn when the interval ends).
#pragma once

#include "core/backend/backend.h"

#include <QPointF>
#include <QString>

#include <cstdint>
#include <vector>

namespace tessera::views {

struct RunChartSeries {
    QString name;                // the level or unit kind ("LLB", "MME"), or "throughput"
    std::vector<QPointF> points; // x: simulated ms; y: bytes, fraction 0..1 or items/s
    double peak = 0;             // largest y of the raw series (not of the bins)
};

struct RunCharts {
    double spanMs = 0; // x range: [0, spanMs]
    RunChartSeries throughput;
    double batch = 1;                        // items per run (the "batch" metric, else 1)
    double finalThroughput = 0;              // the "throughput" metric, or batch ÷ latency; 0 while running
    std::vector<RunChartSeries> occupancy;   // per level, in the counters' order
    std::vector<std::int64_t> capacityBytes; // per occupancy series, 0 when unknown
    std::vector<RunChartSeries> utilisation; // per unit kind, in the counters' order
    bool finished = false;
};

// `plan` (may be null) gives the work per task and the task count; without
// it the timeline's own tasks are all the work. `device` (may be null) gives
// level capacities. `finished`: the result is the whole run, not a part.
// `columns` ≥ 1 bounds the binned series.
RunCharts buildRunCharts(const RunResult &result, const ExecutionPlan *plan, const Device *device, bool finished,
                         int columns = 240);

// A step function (each value holds until the next point) over [0, spanNs],
// reduced to `columns` bins by their maximum or time-weighted mean, as
// polyline points in ms.
enum class BinReduce { Max, Mean };
std::vector<QPointF> binStepSeries(const std::vector<std::pair<double, double>> &points, double spanNs, int columns,
                                   BinReduce reduce);

// At most one update per `intervalMs`: offer() says whether to draw now; when
// it says no, pendingDelay() is how long until the held-back data is due.
class UpdateThrottle
{
public:
    explicit UpdateThrottle(qint64 intervalMs = 100) : m_intervalMs(intervalMs) {}
    // New data at `nowMs`: true when it may be drawn at once.
    bool offer(qint64 nowMs);
    // Called when the held-back data is drawn (a timer fired at pendingDelay()).
    void flushed(qint64 nowMs);
    bool hasPending() const { return m_pending; }
    qint64 pendingDelay(qint64 nowMs) const; // ms until the held-back data is due, ≥ 0
    void reset();
    qint64 intervalMs() const { return m_intervalMs; }

private:
    qint64 m_intervalMs;
    qint64 m_lastMs = -1;
    bool m_pending = false;
};

} // namespace tessera::views
