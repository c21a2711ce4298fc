// Schedule export and override import (see scheduleexport.h).
#include "app/gui/scheduleexport.h"

#include "core/io/iosformat.h"
#include "core/io/iosmetadata.h"
#include "core/io/schedulejson.h"
#include "core/support/fileio.h"
#include "samples/ios_networks.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace tessera::gui {

std::string scheduleDocumentJson(const ScheduleRun &run, const Graph &graph, const std::string &model,
                                 const std::map<std::string, std::string> &options)
{
    return scheduleToJson(makeScheduleDocument(run, model, options), graph);
}

std::string timelineJson(const ScheduleRun &run, const Graph &graph)
{
    return perfettoTraceJson(run.result.plan, graph);
}

PlanSummary planSummaryOf(const ScheduleRun &run, std::string label)
{
    const ExecutionPlan &plan = run.result.plan;
    PlanSummary s;
    s.algorithm = plan.algorithm;
    s.device = plan.device;
    s.modelHash = plan.modelHash;
    s.estLatencyMs = plan.estimatedLatencyNs() / 1e6;
    s.kernels = static_cast<std::int64_t>(plan.kernels.size());
    s.label = std::move(label);
    return s;
}

// --- IOS ---------------------------------------------------------------------

bool isIosAlgorithm(std::string_view algorithm)
{
    return algorithm == "ios";
}

Expected<std::string> iosConfigFor(const QString &modelPath)
{
    const QFileInfo model(modelPath);
    const QString base = model.completeBaseName();
    // Catalog sample names of the IOS benchmarks (samples/catalog.cpp), then the networks' own names.
    static const std::map<QString, std::string> kSamples = {
        {QStringLiteral("inception-v3"), "inception_v3"},
        {QStringLiteral("nasnet-a"), "nasnet"},
    };
    std::string network;
    if (auto it = kSamples.find(base); it != kSamples.end())
        network = it->second;
    else if (const auto &names = samples::iosNetworkNames();
             std::find(names.begin(), names.end(), base.toStdString()) != names.end())
        network = base.toStdString();
    if (!network.empty())
        return samples::iosNetworkConfig(network);

    QStringList tried;
    for (const QString &suffix : {QStringLiteral(".ios.json"), QStringLiteral(".json")}) {
        const QString candidate = model.dir().filePath(base + suffix);
        tried << QFileInfo(candidate).fileName();
        if (QFileInfo::exists(candidate))
            return readFile(candidate.toStdString(), std::int64_t(256) << 20);
    }
    return Status::error(ErrorCode::Unsupported,
                         "no ios graph config for this model (not an ios benchmark sample, and no " +
                             tried.join(QStringLiteral(" or ")).toStdString() + " beside it)",
                         {.file = modelPath.toStdString()});
}

Expected<std::string> iosScheduleJson(const ScheduleRun &run, const Graph &graph,
                                      const std::map<std::string, std::string> &properties, std::string_view configJson,
                                      std::string_view scheduleName)
{
    auto units =
        properties.count(kIosUnitsKey) ? iosUnitsFromMetadata(graph, properties) : iosUnitsFromNodeNames(graph);
    if (!units)
        return units.status();
    auto schedule = iosScheduleFromPlan(run.result.plan, graph, *units);
    if (!schedule)
        return schedule.status().prefix("the " + run.result.plan.algorithm + " plan is not an ios schedule");
    return writeIosSchedule(*schedule, *units, configJson, scheduleName);
}

// --- overrides -----------------------------------------------------------------

Expected<OverrideImport> importOverrides(std::string_view json, const std::string &sourceName, const ScheduleRun &run)
{
    auto overrides = overridesFromJson(json, sourceName);
    if (!overrides)
        return overrides.status();
    OverrideImport out;
    const Location where{.file = sourceName};
    const auto reject = [&](std::string message) {
        out.rejected.push_back({Severity::Warning, ErrorCode::InvalidInput, std::move(message), where});
    };
    for (const auto &[key, optionId] : *overrides) {
        const DecisionRecord *decision = run.decisions.find(key);
        if (!decision) {
            reject("override '" + key + "' rejected: the current schedule asks no such decision");
            continue;
        }
        const auto option = std::find_if(decision->options.begin(), decision->options.end(),
                                         [&](const DecisionOption &o) { return o.id == optionId; });
        if (option == decision->options.end()) {
            std::string valid;
            for (const DecisionOption &o : decision->options)
                if (o.legal())
                    valid += (valid.empty() ? "" : ", ") + o.id;
            reject("override '" + key + "' rejected: no option '" + optionId + "' (valid: " + valid + ")");
            continue;
        }
        if (!option->legal()) {
            reject("override '" + key + "' rejected: option '" + optionId + "' is illegal (" + option->illegalReason +
                   ")");
            continue;
        }
        out.accepted.emplace(key, optionId);
    }
    return out;
}

} // namespace tessera::gui
