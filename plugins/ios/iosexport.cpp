// The IOS schedule format (see iosexport.h).
#include "plugins/ios/iosexport.h"

#include "core/support/fileio.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosnetworks.h"

#include <algorithm>
#include <filesystem>

namespace tessera {

Expected<std::string> iosConfigFor(const std::string &modelPath)
{
    const std::filesystem::path model(modelPath);
    const std::string base = model.stem().string();
    // A model written from one of the IOS samples (tessera-cli sample, the workbench's sample cache).
    const std::string network = iosNetworkOfSample(base);
    if (!network.empty())
        return iosNetworkConfig(network);

    std::string tried;
    for (const char *suffix : {".ios.json", ".json"}) {
        const std::filesystem::path candidate = model.parent_path() / (base + suffix);
        tried += (tried.empty() ? "" : " or ") + candidate.filename().string();
        std::error_code ec;
        if (std::filesystem::exists(candidate, ec))
            return readFile(candidate.string(), std::int64_t(256) << 20);
    }
    return Status::error(ErrorCode::Unsupported,
                         "no ios graph config for this model (not an ios benchmark sample, and no " + tried +
                             " beside it)",
                         {.file = modelPath});
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

ScheduleFormat iosScheduleFormat()
{
    ScheduleFormat f;
    f.name = "ios";
    f.title = "IOS Schedule";
    f.summary = "The last IOS schedule in the IOS artifact's format";
    f.suffix = ".ios.json";
    f.filter = "IOS schedule (*.json)";
    f.algorithms = {"ios"};
    f.companion =
        ScheduleFormat::Companion{"IOS graph config", "IOS graph configs (*.json)",
                                  [](const std::string &modelPath) { return iosConfigFor(modelPath).isOk(); }};
    f.write = [](const ScheduleExportRequest &r) -> Expected<std::string> {
        auto config = r.companion.empty() ? iosConfigFor(r.modelPath) : readFile(r.companion, std::int64_t(256) << 20);
        if (!config)
            return config.status();
        const std::string name = std::filesystem::path(r.modelPath).stem().string() + "_ios";
        static const std::map<std::string, std::string> kNone;
        return iosScheduleJson(*r.run, *r.graph, r.modelProperties ? *r.modelProperties : kNone, *config, name);
    };
    return f;
}

} // namespace tessera
