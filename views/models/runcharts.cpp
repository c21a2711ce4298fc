// RunCharts and UpdateThrottle (see runcharts.h).
#include "views/models/runcharts.h"

#include "core/hw/device.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace tessera::views {

namespace {

constexpr std::string_view kOccupancy = "occupancy/";
constexpr std::string_view kUtilisation = "utilisation/";

double metricOr(const RunResult &r, const char *key, double fallback)
{
    auto it = r.metrics.find(key);
    return it == r.metrics.end() ? fallback : it->second;
}

} // namespace

std::vector<QPointF> binStepSeries(const std::vector<std::pair<double, double>> &points, double spanNs, int columns,
                                   BinReduce reduce)
{
    std::vector<QPointF> out;
    if (points.empty() || !(spanNs > 0) || columns < 1)
        return out;
    const double width = spanNs / columns;
    std::size_t k = 0;  // the point in force at the column's start is points[k - 1] (0 before the first)
    double value = 0.0; // value in force
    out.reserve(static_cast<std::size_t>(2 * columns + 2));
    for (int c = 0; c < columns; ++c) {
        const double t0 = c * width, t1 = (c + 1) * width;
        while (k < points.size() && points[k].first <= t0)
            value = points[k++].second;
        double reduced = value, area = 0, at = t0;
        while (k < points.size() && points[k].first < t1) {
            area += value * (points[k].first - at);
            at = points[k].first;
            value = points[k++].second;
            reduced = std::max(reduced, value);
        }
        area += value * (t1 - at);
        if (reduce == BinReduce::Mean)
            reduced = area / width;
        const double x0 = t0 / 1e6, x1 = t1 / 1e6;
        if (!out.empty() && out.back().y() == reduced) {
            out.back().setX(x1); // extend a flat run
            continue;
        }
        out.emplace_back(x0, reduced);
        out.emplace_back(x1, reduced);
    }
    return out;
}

RunCharts buildRunCharts(const RunResult &result, const ExecutionPlan *plan, const Device *device, bool finished,
                         int columns)
{
    RunCharts c;
    c.finished = finished;
    columns = std::max(1, columns);
    // The x range: everything the run reported so far.
    double spanNs = finished ? result.latencyMs * 1e6 : 0;
    for (const TaskTiming &t : result.timeline)
        spanNs = std::max(spanNs, t.endNs);
    for (const CounterSeries &s : result.counters)
        if (!s.points.empty())
            spanNs = std::max(spanNs, s.points.back().first);
    c.spanMs = spanNs / 1e6;
    c.batch = std::max(1.0, metricOr(result, "batch", 1.0));

    // Throughput so far: work finished by each task end.
    const auto workOf = [&](TaskId id) {
        if (plan && id >= 0 && static_cast<std::size_t>(id) < plan->tasks.size()) {
            const double w = plan->tasks[static_cast<std::size_t>(id)].cost.timeNs;
            return w > 0 ? w : 0.0;
        }
        return 0.0;
    };
    double totalWork = 0;
    if (plan)
        for (const Task &t : plan->tasks)
            totalWork += t.cost.timeNs > 0 ? t.cost.timeNs : 0.0;
    const bool weighted = totalWork > 0;
    if (!weighted)
        totalWork = plan && !plan->tasks.empty() ? static_cast<double>(plan->tasks.size())
                                                 : static_cast<double>(result.timeline.size());
    std::vector<std::pair<double, double>> ends; // (end ns, work)
    ends.reserve(result.timeline.size());
    for (const TaskTiming &t : result.timeline)
        ends.emplace_back(t.endNs, weighted ? workOf(t.task) : 1.0);
    std::sort(ends.begin(), ends.end());
    c.throughput.name = QStringLiteral("throughput");
    if (totalWork > 0 && spanNs > 0) {
        // One point per column at most: the last task end in it.
        const double width = spanNs / columns;
        double done = 0;
        int lastColumn = -1;
        for (const auto &[end, work] : ends) {
            done += work;
            if (!(end > 0))
                continue;
            const double rate = c.batch * std::min(1.0, done / totalWork) / (end * 1e-9);
            c.throughput.peak = std::max(c.throughput.peak, rate);
            const int column = std::min(columns - 1, static_cast<int>(end / width));
            if (column == lastColumn)
                c.throughput.points.back() = QPointF(end / 1e6, rate);
            else
                c.throughput.points.emplace_back(end / 1e6, rate);
            lastColumn = column;
        }
    }
    if (finished)
        c.finalThroughput =
            metricOr(result, "throughput", result.latencyMs > 0 ? c.batch / (result.latencyMs * 1e-3) : 0.0);

    for (const CounterSeries &s : result.counters) {
        const std::string_view name = s.name;
        const bool occupancy = name.starts_with(kOccupancy);
        if (!occupancy && !name.starts_with(kUtilisation))
            continue;
        RunChartSeries series;
        const std::string_view shortName = name.substr(occupancy ? kOccupancy.size() : kUtilisation.size());
        series.name = QString::fromUtf8(shortName.data(), static_cast<qsizetype>(shortName.size()));
        for (const auto &p : s.points)
            series.peak = std::max(series.peak, p.second);
        series.points = binStepSeries(s.points, spanNs, columns, occupancy ? BinReduce::Max : BinReduce::Mean);
        if (occupancy) {
            std::int64_t capacity = 0;
            if (device)
                for (const MemoryLevel &l : device->levels)
                    if (l.name == shortName)
                        capacity = device->totalCapacity(l);
            c.capacityBytes.push_back(capacity);
            c.occupancy.push_back(std::move(series));
        } else {
            c.utilisation.push_back(std::move(series));
        }
    }
    return c;
}

bool UpdateThrottle::offer(qint64 nowMs)
{
    if (m_lastMs < 0 || nowMs - m_lastMs >= m_intervalMs) {
        m_lastMs = nowMs;
        m_pending = false;
        return true;
    }
    m_pending = true;
    return false;
}

void UpdateThrottle::flushed(qint64 nowMs)
{
    m_lastMs = nowMs;
    m_pending = false;
}

qint64 UpdateThrottle::pendingDelay(qint64 nowMs) const
{
    return m_lastMs < 0 ? 0 : std::max<qint64>(0, m_intervalMs - (nowMs - m_lastMs));
}

void UpdateThrottle::reset()
{
    m_lastMs = -1;
    m_pending = false;
}

} // namespace tessera::views
