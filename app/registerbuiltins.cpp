#include "app/registerbuiltins.h"

#include "backends/reference/reference.h"
#include "core/backend/backend.h"
#include "core/sched/scheduler.h"
#include "plugins/greedy/greedy.h"
#include "plugins/ios/ios.h"
#include "plugins/layerfusion/layerfusion.h"
#include "plugins/sequential/sequential.h"

namespace tessera {

void registerBuiltinSchedulers(SchedulerRegistry &registry)
{
    registry.add(createSequentialScheduler());
    registry.add(createGreedyScheduler());
    registry.add(createLayerFusionScheduler());
    registry.add(createIosScheduler());
}

void registerBuiltinBackends(BackendRegistry &registry)
{
    registry.add(createReferenceBackend());
}

} // namespace tessera
