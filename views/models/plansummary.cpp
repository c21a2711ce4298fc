// PlanSummary (see plansummary.h).
#include "views/models/plansummary.h"

#include "core/backend/backend.h"
#include "core/ir/precision.h"
#include "core/sched/scheduler.h"
#include "core/support/units.h"
#include "views/models/format.h"

#include <algorithm>

namespace tessera::views {

namespace {

void add(PlanSummary &s, SummaryRow::Section section, QString key, QString label, double value, QString text,
         Better better)
{
    s.rows.push_back({std::move(key), std::move(label), section, value, std::move(text), better});
}

} // namespace

const SummaryRow *PlanSummary::find(const QString &key) const
{
    auto it = std::find_if(rows.begin(), rows.end(), [&](const SummaryRow &r) { return r.key == key; });
    return it == rows.end() ? nullptr : &*it;
}

QString formatDurationNs(double ns)
{
    return QString::fromStdString(units::durationNs(ns));
}

QString formatMs(double ms)
{
    return QString::fromStdString(units::durationMs(ms));
}

QString formatEnergy(double joules)
{
    return QString::fromStdString(units::energyJ(joules));
}

bool nearlyEqual(double a, double b)
{
    return std::fabs(a - b) <= 1e-6 * std::max(std::fabs(a), std::fabs(b));
}

int compareValues(double a, double b, Better better)
{
    if (better == Better::None || std::isnan(a) || std::isnan(b) || nearlyEqual(a, b))
        return 0;
    return (a < b) == (better == Better::Lower) ? -1 : 1;
}

namespace {

// Rows of what `m.backend` measured (keys "measured:<backend>:…", so a cpu
// run never lines up against a simulated one). No ratio to the estimate:
// the plan's device need not be the machine the backend ran on (a plan for
// STCP920 run on the CPU), the run panel sets the two side by side.
void addMeasured(PlanSummary &s, const Measurement &m)
{
    using S = SummaryRow::Section;
    const RunResult &r = *m.result;
    const QString key = QStringLiteral("measured:") + m.backend + QLatin1Char(':');
    const QString on = QStringLiteral(" (") + m.backend + QLatin1Char(')');
    add(s, S::Measured, key + QStringLiteral("latency"), QStringLiteral("Measured latency") + on, r.latencyMs * 1e6,
        formatMs(r.latencyMs), Better::Lower);
    for (const auto &[name, value] : r.metrics) {
        if (name.rfind("op_ms/", 0) == 0) {
            const QString engine = QString::fromStdString(name.substr(6));
            add(s, S::Measured, key + QString::fromStdString(name),
                QStringLiteral("Measured time, ") + engine + QStringLiteral(" ops") + on, value * 1e6, formatMs(value),
                Better::Lower);
        } else if (name == "energy_j") {
            add(s, S::Measured, key + QStringLiteral("energy"), QStringLiteral("Measured energy") + on, value,
                formatEnergy(value), Better::Lower);
        }
    }
}

} // namespace

PlanSummary summarizeRun(const ScheduleRun &run, const Measurement &measured)
{
    using S = SummaryRow::Section;
    const ExecutionPlan &plan = run.result.plan;
    const TaskCost total = plan.totalCost();
    PlanSummary s;
    s.algorithm = QString::fromStdString(plan.algorithm);
    s.device = QString::fromStdString(plan.device);

    add(s, S::Plan, QStringLiteral("algorithm"), QStringLiteral("Algorithm"), std::nan(""), s.algorithm, Better::None);
    add(s, S::Plan, QStringLiteral("device"), QStringLiteral("Device"), std::nan(""), s.device, Better::None);
    add(s, S::Plan, QStringLiteral("precision"), QStringLiteral("Precision"), std::nan(""),
        QString::fromUtf8(precisionName(plan.precision).data()), Better::None);
    const auto count = [](std::size_t n) { return static_cast<double>(n); };
    const auto movement = static_cast<std::size_t>(
        std::count_if(plan.tasks.begin(), plan.tasks.end(), [](const Task &t) { return t.kind != TaskKind::Compute; }));
    add(s, S::Plan, QStringLiteral("kernels"), QStringLiteral("Kernels"), count(plan.kernels.size()),
        QString::number(plan.kernels.size()), Better::Lower);
    add(s, S::Plan, QStringLiteral("tasks"), QStringLiteral("Tasks"), count(plan.tasks.size()),
        QString::number(plan.tasks.size()), Better::Lower);
    add(s, S::Plan, QStringLiteral("movement"), QStringLiteral("Data-movement tasks"), count(movement),
        QString::number(movement), Better::Lower);
    add(s, S::Plan, QStringLiteral("buffers"), QStringLiteral("Buffers"), count(plan.buffers.size()),
        QString::number(plan.buffers.size()), Better::None);

    const double latency = plan.estimatedLatencyNs();
    if (measured.result)
        addMeasured(s, measured);
    add(s, S::Cost, QStringLiteral("latency"), QStringLiteral("Estimated latency"), latency, formatDurationNs(latency),
        Better::Lower);
    // Energy beside time: the two targets a scheduler may optimise (e.g. PCGC's target=time|power).
    add(s, S::Cost, QStringLiteral("energy"), QStringLiteral("Energy"), total.energyJ, formatEnergy(total.energyJ),
        Better::Lower);
    add(s, S::Cost, QStringLiteral("time"), QStringLiteral("Task time (sum)"), total.timeNs,
        formatDurationNs(total.timeNs), Better::Lower);
    add(s, S::Cost, QStringLiteral("kind"), QStringLiteral("Cost kind"), std::nan(""),
        QString::fromUtf8(costKindName(total.kind)), Better::None);
    // Kernels timed on a backend (ScheduleSetup::meter) rather than estimated.
    const auto timed = static_cast<std::size_t>(std::count_if(plan.tasks.begin(), plan.tasks.end(), [](const Task &t) {
        return t.cost.kind == CostKind::Measured || t.cost.kind == CostKind::Simulated;
    }));
    if (timed > 0)
        add(s, S::Cost, QStringLiteral("timedTasks"), QStringLiteral("Tasks with timed kernels"), count(timed),
            QStringLiteral("%1 of %2").arg(timed).arg(plan.tasks.size()), Better::None);
    // The estimate's parts, summed over tasks (concurrent tasks overlap, so they can exceed the latency).
    const std::pair<const char *, double> parts[] = {{"compute", total.computeNs},
                                                     {"memory", total.memoryNs},
                                                     {"launch", total.launchNs},
                                                     {"contention", total.contentionNs},
                                                     {"sync", total.syncNs}};
    const char *titles[] = {"Compute time (sum)", "Memory time (sum)", "Launch wait (sum)", "Contention (sum)",
                            "Synchronisation (sum)"};
    for (std::size_t i = 0; i < std::size(parts); ++i) {
        const double ns = parts[i].second < 0.5 ? 0.0 : parts[i].second;
        add(s, S::Cost, QString::fromUtf8(parts[i].first), QString::fromUtf8(titles[i]), ns, formatDurationNs(ns),
            Better::Lower);
    }
    for (const auto &[level, bytes] : total.bytesByLevel) {
        const QString name = level.empty() ? QStringLiteral("main memory") : QString::fromStdString(level);
        add(s, S::Traffic, QStringLiteral("bytes:") + name, QStringLiteral("Traffic at ") + name,
            static_cast<double>(bytes), formatBytes(bytes), Better::Lower);
    }

    add(s, S::Search, QStringLiteral("search"), QStringLiteral("Search time"), run.searchMs, formatMs(run.searchMs),
        Better::Lower);
    add(s, S::Search, QStringLiteral("verify"), QStringLiteral("Verify time"), run.verifyMs, formatMs(run.verifyMs),
        Better::Lower);
    add(s, S::Search, QStringLiteral("steps"), QStringLiteral("Trace steps"), count(run.trace.size()),
        QString::number(run.trace.size()), Better::None);
    add(s, S::Search, QStringLiteral("decisions"), QStringLiteral("Decisions"), count(run.decisions.records().size()),
        QString::number(run.decisions.records().size()), Better::None);
    const auto applied = static_cast<std::size_t>(
        std::count_if(run.overrideReports.begin(), run.overrideReports.end(),
                      [](const OverrideReport &r) { return r.outcome == OverrideReport::Outcome::Applied; }));
    add(s, S::Search, QStringLiteral("overrides"), QStringLiteral("Overrides applied"), count(applied),
        run.overrideReports.empty() ? QStringLiteral("none")
                                    : QStringLiteral("%1 of %2").arg(applied).arg(run.overrideReports.size()),
        Better::None);

    for (const auto &[key, value] : run.result.stats)
        add(s, S::Stats, QStringLiteral("stat:") + QString::fromStdString(key),
            QStringLiteral("Stat: ") + QString::fromStdString(key), value,
            value == std::trunc(value) && std::fabs(value) < 1e6 ? QString::number(static_cast<qint64>(value))
                                                                 : formatRatio(value),
            Better::None);
    return s;
}

} // namespace tessera::views
