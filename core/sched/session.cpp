#include "core/sched/session.h"

#include "core/cost/devicecost.h"
#include "core/cost/measuredcost.h"
#include "core/ir/graphhash.h"
#include "core/ir/hierarchy.h"
#include "core/ir/precision.h"

namespace tessera {

Expected<ScheduleRun> scheduleGraph(const Graph &graph, const Device &device, const IScheduler &scheduler,
                                    const ScheduleSetup &setup)
{
    auto options = OptionValues::resolve(scheduler.info().options, setup.options);
    if (!options)
        return options.status();
    if (!isDeploymentPrecision(setup.precision))
        return Status::error(ErrorCode::Usage, "precision " + std::string(dtypeName(setup.precision)) +
                                                   " is not one a device runs (" + std::string(precisionNames()) + ")");
    std::optional<Graph> retyped;
    if (setup.precision != DType::Float32)
        retyped.emplace(atPrecision(graph, setup.precision));
    const Graph &scheduled = retyped ? *retyped : graph;
    const Hierarchy hierarchy = inferHierarchy(scheduled);
    const DeviceCostModel model(device);
    std::optional<MeasuredCostModel> measured;
    if (setup.meter)
        measured.emplace(model, *setup.meter);
    const CostModel &cost = measured ? static_cast<const CostModel &>(*measured) : model;
    ScheduleRequest request;
    request.graph = &scheduled;
    request.hierarchy = &hierarchy;
    request.device = &device;
    request.cost = &cost;
    request.options = std::move(*options);
    request.modelHash = modelStructureHash(graph);
    request.modelProperties = setup.modelProperties;
    request.searchSpace = setup.searchSpace ? &*setup.searchSpace : nullptr;
    request.cancel = setup.cancel;
    request.progress = setup.progress;
    auto run = runSchedule(scheduler, request, setup.overrides);
    if (run) {
        run->result.plan.device = device.id;
        run->result.plan.precision = setup.precision;
    }
    return run;
}

} // namespace tessera
