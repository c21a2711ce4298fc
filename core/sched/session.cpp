#include "core/sched/session.h"

#include "core/cost/devicecost.h"
#include "core/cost/measuredcost.h"
#include "core/ir/graphhash.h"
#include "core/ir/hierarchy.h"

namespace tessera {

Expected<ScheduleRun> scheduleGraph(const Graph &graph, const Device &device, const IScheduler &scheduler,
                                    const ScheduleSetup &setup)
{
    auto options = OptionValues::resolve(scheduler.info().options, setup.options);
    if (!options)
        return options.status();
    const Hierarchy hierarchy = inferHierarchy(graph);
    const DeviceCostModel model(device);
    std::optional<MeasuredCostModel> measured;
    if (setup.meter)
        measured.emplace(model, *setup.meter);
    const CostModel &cost = measured ? static_cast<const CostModel &>(*measured) : model;
    ScheduleRequest request;
    request.graph = &graph;
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
    if (run)
        run->result.plan.device = device.id;
    return run;
}

} // namespace tessera
