// scheduleGraph: the whole "pick an algorithm and a device, schedule" step as
// the CLI, the workbench and project replay all run it — hierarchy, the
// device's cost model (measured kernels first when a meter is given), option resolution, overrides, verification,
// at the deployment precision the setup asks for.
#pragma once

#include "core/sched/scheduler.h"

#include <atomic>
#include <functional>
#include <map>
#include <optional>
#include <string>

namespace tessera {

class KernelMeter;

struct ScheduleSetup {
    std::map<std::string, std::string> options; // as text, resolved against the scheduler's specs
    Overrides overrides;
    const std::atomic<bool> *cancel = nullptr;
    std::function<void(double)> progress;
    std::map<std::string, std::string> modelProperties; // ImportResult::metadata.properties
    std::optional<SearchSpaceRequest> searchSpace;      // ask for the explored search space
    // A backend that measures kernels on the device: its times replace the
    // device model's (MeasuredCostModel, core/cost/measuredcost.h). Null: estimates.
    KernelMeter *meter = nullptr;
    // The deployment precision (core/ir/precision.h): the scheduler, its cost
    // model and the verifier see the model's float32 tensors as this type, so
    // buffers, working sets, traffic and unit peaks are the run's. The plan
    // keeps the model's own hash (it is a plan of this model) and records the
    // precision (ExecutionPlan::precision).
    DType precision = DType::Float32;
};

Expected<ScheduleRun> scheduleGraph(const Graph &graph, const Device &device, const IScheduler &scheduler,
                                    const ScheduleSetup &setup);

} // namespace tessera
