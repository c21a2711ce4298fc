// PlanSummary: the numbers that characterise one scheduling run, as a flat
// list of rows the comparison table lines up side by side — plan shape
// (kernels, tasks), what a backend measured running the plan (when it ran:
// latency, time per engine, energy; keyed by the
// backend, so only runs on the same backend line up), the cost model's
// estimates (latency, task time, energy, bytes per memory level), the search
// itself (time, decisions, overrides) and the scheduler's own statistics. Each row knows whether lower or higher is
// better so a view can mark the winner. Pure data; no Qt model here.
#pragma once

#include <QString>

#include <cmath>
#include <memory>
#include <vector>

namespace tessera {
struct RunResult;
struct ScheduleRun;
} // namespace tessera

namespace tessera::views {

enum class Better { None, Lower, Higher };

struct SummaryRow {
    // Rows of two runs are matched by key; sections keep related rows together.
    enum class Section { Plan, Measured, Cost, Traffic, Search, Stats };
    QString key;   // "kernels", "bytes:DDR", "stat:fused_ops"
    QString label; // "Kernels", "Traffic at DDR", "Stat: fused_ops"
    Section section = Section::Plan;
    double value = std::nan("");
    QString text; // value as shown
    Better better = Better::None;
};

struct PlanSummary {
    QString algorithm;
    QString device;
    std::vector<SummaryRow> rows;
    const SummaryRow *find(const QString &key) const; // nullptr if absent
};

// A backend's finished run of a schedule's plan.
struct Measurement {
    QString backend; // the backend's name: "cpu", "sim", "reference"
    std::shared_ptr<const RunResult> result;
};

// `measured` (when it holds a result) adds the Measured rows.
PlanSummary summarizeRun(const ScheduleRun &run, const Measurement &measured = {});

// Equal within a relative 1e-6: sums of the same estimates in another order.
bool nearlyEqual(double a, double b);
// Which of two values wins under `better`: -1 a, +1 b, 0 tie / not comparable.
int compareValues(double a, double b, Better better);

// core/support/units' times and energy (four significant figures).
QString formatDurationNs(double ns); // "950 ns", "12.34 µs", "4.812 ms", "1.200 s"
QString formatMs(double ms);         // formatDurationNs(ms * 1e6): "42.10 µs", "12.34 ms"
QString formatEnergy(double joules); // "0 J", "12.30 µJ", "4.560 mJ"

} // namespace tessera::views
