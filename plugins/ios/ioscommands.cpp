// tessera-cli import-ios / export-ios: the IOS artifact's formats (iosformat.h),
// contributed as plugin commands (core/plugin/extensions.h).
//
//   import-ios CONFIG --out MODEL.onnx [--schedule SCHEDULE.json [--plan PLAN.json]] [--device D] [--batch N]
//     CONFIG is an IOS graph config (.json) or a built-in IOS network name
//     (inception_v3, squeezenet, randwire, nasnet). Writes the model with its
//     ios.units/ios.blocks metadata. With --schedule, an IOS schedule file (the
//     artifact's saved_schedules_json format) is checked against the model,
//     lowered to a plan and summarised; --plan writes it as a schedule document.
//   export-ios MODEL --algo NAME [--option K=V]... [--device D] --out SCHEDULE.json [--config CONFIG.json]
//     Schedules MODEL (an IOS config, a network name, or an .onnx made by
//     import-ios) and writes the schedule in IOS's format; the graph part comes
//     from the IOS config (--config for an .onnx model).
#include "plugins/ios/ioscommands.h"

#include "core/cost/devicecost.h"
#include "core/hw/deviceregistry.h"
#include "core/io/schedulejson.h"
#include "core/ir/graphhash.h"
#include "core/onnx/modelbuilder.h"
#include "core/plan/verify.h"
#include "core/plugin/extensions.h"
#include "core/plugin/modelinput.h"
#include "core/plugin/samples.h"
#include "core/sched/session.h"
#include "core/support/fileio.h"
#include "plugins/ios/iosformat.h"
#include "plugins/ios/iosimport.h"
#include "plugins/ios/iosnetworks.h"

#include <algorithm>
#include <cstdio>
#include <onnx/onnx_pb.h>

namespace tessera {

using cli::Args;
using cli::fail;
using cli::usageError;

namespace {

bool isNetworkName(const std::string &s)
{
    const auto &names = iosNetworkNames();
    return std::find(names.begin(), names.end(), s) != names.end();
}

// The IOS config text of CONFIG (a file or a built-in network name).
Expected<std::string> configText(const std::string &config)
{
    if (isNetworkName(config))
        return iosNetworkConfig(config);
    return readFile(config, std::int64_t(256) << 20);
}

Expected<ImportResult> loadIosModel(const std::string &model, const Args &args, const Extensions &extensions)
{
    if (!isNetworkName(model))
        return cli::loadModel(model, args, extensions);
    auto batch = args.intValue("batch", 1, 1, 1 << 20);
    if (!batch)
        return batch.status();
    return importIosNetwork(model, *batch);
}

Expected<Device> device(const Args &args)
{
    return DeviceRegistry::standard().lookup(args.value("device").value_or("nvidia-v100"));
}

void printSchedule(const IosSchedule &s, const IosUnitSet &units, const ExecutionPlan &plan)
{
    std::size_t merged = 0, groups = 0;
    for (const IosStage &st : s.stages) {
        merged += st.strategy == IosStrategy::Merge && st.groups[0].size() > 1;
        groups += st.groups.size();
    }
    std::printf("units          %zu in %zu blocks\n", units.units.size(), units.blocks.size());
    std::printf("stages         %zu (%zu groups, %zu merged convolutions)\n", s.stages.size(), groups, merged);
    std::printf("est. latency   %.4f ms\n", plan.estimatedLatencyNs() / 1e6);
}

int runImport(const Args &args, const Extensions &extensions)
{
    if (args.positional().size() != 1)
        return fail(usageError("import-ios needs exactly one CONFIG (an ios graph config .json or a network name)"));
    const std::string config = args.positional().front();
    auto out = args.value("out");
    if (!out)
        return fail(usageError("import-ios needs --out MODEL.onnx"));
    auto batch = args.intValue("batch", 1, 1, 1 << 20);
    if (!batch)
        return fail(batch.status());
    SampleOptions opts;
    opts.batch = *batch;
    auto proto = [&]() -> Expected<std::unique_ptr<onnx::ModelProto>> {
        if (isNetworkName(config))
            return buildIosNetwork(config, opts);
        auto text = readFile(config, std::int64_t(256) << 20);
        if (!text)
            return text.status();
        return buildFromIosConfig(*text, opts, config);
    }();
    if (!proto)
        return fail(proto.status());
    auto model = loadIosModel(config, args, extensions); // the checks of importIosConfig (connectivity, units)
    if (!model)
        return fail(model.status());
    auto units = iosUnitsOf(*model);
    if (!units)
        return fail(units.status());
    if (Status s = saveModel(**proto, *out, false); !s.isOk())
        return fail(s);
    std::fprintf(stderr, "tessera-cli: wrote %s (%zu ios units in %zu blocks)\n", out->c_str(), units->units.size(),
                 units->blocks.size());

    auto scheduleFile = args.value("schedule");
    if (!scheduleFile)
        return 0;
    auto text = readFile(*scheduleFile, std::int64_t(256) << 20);
    if (!text)
        return fail(text.status());
    auto schedule = parseIosSchedule(*text, model->graph, *units, *scheduleFile);
    if (!schedule)
        return fail(schedule.status());
    auto dev = device(args);
    if (!dev)
        return fail(dev.status());
    const DeviceCostModel cost(*dev);
    auto plan = lowerIosSchedule(model->graph, *units, *schedule, cost);
    if (!plan)
        return fail(plan.status());
    plan->algorithm = "ios-import";
    plan->device = dev->id;
    plan->modelHash = modelStructureHash(model->graph);
    if (Status s = verifyPlan(*plan, model->graph, &*dev); !s.isOk())
        return fail(s.prefix("the imported ios schedule"));
    printSchedule(*schedule, *units, *plan);
    if (auto planOut = args.value("plan")) {
        ScheduleDocument doc;
        doc.model = *out;
        doc.modelHash = plan->modelHash;
        doc.algorithm = plan->algorithm;
        doc.device = dev->id;
        doc.plan = *plan;
        if (Status s = writeFileAtomic(*planOut, scheduleToJson(doc, model->graph)); !s.isOk())
            return fail(s);
    }
    return 0;
}

int runExport(const Args &args, const Extensions &extensions)
{
    if (args.positional().size() != 1)
        return fail(usageError("export-ios needs exactly one MODEL"));
    const std::string modelArg = args.positional().front();
    auto out = args.value("out");
    if (!out)
        return fail(usageError("export-ios needs --out SCHEDULE.json"));
    const bool isConfig =
        isNetworkName(modelArg) || (modelArg.size() > 5 && modelArg.compare(modelArg.size() - 5, 5, ".json") == 0);
    const std::string config = args.value("config").value_or(isConfig ? modelArg : std::string());
    if (config.empty())
        return fail(
            usageError("export-ios needs --config CONFIG.json for an onnx model (the ios graph config it came from)"));
    auto configJson = configText(config);
    if (!configJson)
        return fail(configJson.status());

    auto scheduler = extensions.schedulers().get(args.value("algo").value_or("ios"));
    if (!scheduler)
        return fail(scheduler.status());
    auto dev = device(args);
    if (!dev)
        return fail(dev.status());
    ScheduleSetup setup;
    auto userOptions = cli::algorithmOptions(args);
    if (!userOptions)
        return fail(userOptions.status());
    setup.options = std::move(*userOptions);
    auto model = loadIosModel(modelArg, args, extensions);
    if (!model)
        return fail(model.status());
    auto units = iosUnitsOf(*model);
    if (!units)
        return fail(units.status());
    setup.modelProperties = model->metadata.properties;
    auto run = scheduleGraph(model->graph, *dev, **scheduler, setup);
    if (!run)
        return fail(run.status());
    auto schedule = iosScheduleFromPlan(run->result.plan, model->graph, *units);
    if (!schedule)
        return fail(schedule.status().prefix("the " + (*scheduler)->info().name + " plan is not an ios schedule"));
    std::string name = modelArg;
    name = name.substr(name.find_last_of('/') + 1);
    name = name.substr(0, name.find('.')) + "_" + (*scheduler)->info().name;
    auto json = writeIosSchedule(*schedule, *units, *configJson, name);
    if (!json)
        return fail(json.status());
    if (Status s = writeFileAtomic(*out, *json); !s.isOk())
        return fail(s);
    printSchedule(*schedule, *units, run->result.plan);
    std::printf("search         %.2f ms\n", run->searchMs);
    std::fprintf(stderr, "tessera-cli: wrote %s\n", out->c_str());
    return 0;
}

} // namespace

cli::Command importIosCommand()
{
    return {"import-ios",
            "import-ios CONFIG --out MODEL.onnx [--schedule S.json]",
            "convert an IOS graph config to ONNX; check and lower an IOS schedule file",
            {
                {"out", true, false, "--out MODEL.onnx  where to write the model (with its ios units)"},
                {"schedule", true, false, "--schedule S.json an IOS schedule file to check and lower"},
                {"plan", true, false, "--plan PLAN.json  write the lowered schedule as a schedule document"},
                {"device", true, false, "--device PRESET   device for the plan's estimates (default nvidia-v100)"},
                {"batch", true, false, "--batch N         batch size (default 1)"},
            },
            runImport};
}

cli::Command exportIosCommand()
{
    auto options = cli::schedulingOptions("ios", "nvidia-v100");
    options.insert(options.end(), {{"config", true, false, "--config C.json   the IOS graph config of an .onnx MODEL"},
                                   {"out", true, false, "--out S.json      where to write the IOS schedule"}});
    return {"export-ios", "export-ios MODEL --algo NAME --out S.json [...]",
            "schedule a model and write the schedule in the IOS artifact's format", options, runExport};
}

} // namespace tessera
