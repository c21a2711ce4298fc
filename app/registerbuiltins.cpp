#include "app/registerbuiltins.h"

#include "core/backend/backend.h"
#include "core/sched/scheduler.h"
#include "plugins/greedy/greedy.h"
#include "plugins/layerfusion/layerfusion.h"
#include "plugins/sequential/sequential.h"

namespace tessera {

void registerBuiltinSchedulers(SchedulerRegistry &registry)
{
    registry.add(createSequentialScheduler());
    registry.add(createGreedyScheduler());
    registry.add(createLayerFusionScheduler());
}

void registerBuiltinBackends(BackendRegistry &registry)
{
    (void)registry; // the reference backend lands with backends/reference
}

} // namespace tessera
