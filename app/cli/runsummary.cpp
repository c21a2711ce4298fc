#include "app/cli/runsummary.h"

#include <QJsonArray>

namespace tessera::cli {

QJsonObject runSummaryJson(const ScheduleRun &run, const std::string &algorithm, const std::string &device,
                           const std::string &model)
{
    auto qs = [](const std::string &s) { return QString::fromStdString(s); };
    const ExecutionPlan &plan = run.result.plan;
    const TaskCost total = plan.totalCost();
    QJsonObject traffic;
    for (const auto &[level, bytes] : total.bytesByLevel)
        traffic[qs(level)] = static_cast<qint64>(bytes);
    QJsonObject stats;
    for (const auto &[k, v] : run.result.stats)
        stats[qs(k)] = v;
    QJsonArray overrides;
    for (const OverrideReport &r : run.overrideReports)
        overrides.append(QJsonObject{{"key", qs(r.key)},
                                     {"option", qs(r.optionId)},
                                     {"outcome", QString::fromUtf8(outcomeName(r.outcome).data())},
                                     {"reason", qs(r.reason)}});
    return {{"algorithm", qs(algorithm)},
            {"device", qs(device)},
            {"model", qs(model)},
            {"model_hash", qs(plan.modelHash)},
            {"kernels", static_cast<qint64>(plan.kernels.size())},
            {"tasks", static_cast<qint64>(plan.tasks.size())},
            {"steps", static_cast<qint64>(run.trace.size())},
            {"decisions", static_cast<qint64>(run.decisions.records().size())},
            {"search_ms", run.searchMs},
            {"verify_ms", run.verifyMs},
            {"est_latency_ms", plan.estimatedLatencyNs() / 1e6},
            {"cost_kind", QString::fromStdString(std::string(costKindName(total.kind)))},
            {"cost_parts_ms", QJsonObject{{"compute", total.computeNs / 1e6},
                                          {"memory", total.memoryNs / 1e6},
                                          {"launch", total.launchNs / 1e6},
                                          {"contention", total.contentionNs / 1e6},
                                          {"sync", total.syncNs / 1e6}}},
            {"energy_j", total.energyJ},
            {"traffic_bytes", traffic},
            {"stats", stats},
            {"overrides", overrides}};
}

} // namespace tessera::cli
