#include "core/sched/scheduler.h"

#include "core/plan/verify.h"
#include "core/support/assert.h"
#include "core/support/names.h"

#include <chrono>

namespace tessera {

void SchedulerRegistry::add(std::unique_ptr<IScheduler> scheduler)
{
    TS_ASSERT(scheduler);
    TS_ASSERT_MSG(!find(scheduler->info().name), "duplicate scheduler name");
    m_schedulers.push_back(std::move(scheduler));
}

const IScheduler *SchedulerRegistry::find(std::string_view name) const
{
    for (const auto &s : m_schedulers)
        if (sameName(s->info().name, name))
            return s.get();
    return nullptr;
}

Expected<const IScheduler *> SchedulerRegistry::get(std::string_view name) const
{
    if (const IScheduler *s = find(name))
        return s;
    std::string known;
    for (const auto &s : m_schedulers)
        known += (known.empty() ? "" : ", ") + s->info().name;
    return Status::error(ErrorCode::Usage, "unknown algorithm '" + std::string(name) + "'; known: " + known);
}

std::vector<const IScheduler *> SchedulerRegistry::all() const
{
    std::vector<const IScheduler *> out;
    for (const auto &s : m_schedulers)
        out.push_back(s.get());
    return out;
}

Expected<ScheduleRun> runSchedule(const IScheduler &scheduler, const ScheduleRequest &request,
                                  const Overrides &overrides)
{
    TS_ASSERT(request.graph && request.device && request.cost);
    if (request.options.all().empty() && !scheduler.info().options.empty()) {
        // A request built without options runs with the scheduler's defaults.
        ScheduleRequest withDefaults = request;
        withDefaults.options = OptionValues::defaults(scheduler.info().options);
        return runSchedule(scheduler, withDefaults, overrides);
    }
    ScheduleRun run;
    run.decisions = DecisionContext(overrides);
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    auto result = scheduler.run(request, run.decisions, run.trace);
    const auto t1 = Clock::now();
    if (!result)
        return result.status();
    if (request.cancelled())
        return Status::error(ErrorCode::Cancelled, "scheduling was cancelled");
    run.result = std::move(*result);
    run.result.plan.algorithm = scheduler.info().name;
    if (run.result.plan.modelHash.empty())
        run.result.plan.modelHash = request.modelHash;
    if (Status s = verifyPlan(run.result.plan, *request.graph, request.device, request.cancel); !s.isOk())
        return s.code() == ErrorCode::Cancelled ? Status::error(ErrorCode::Cancelled, "scheduling was cancelled")
                                                : s.prefix(scheduler.info().name + " produced an invalid plan");
    run.searchMs = std::chrono::duration<double, std::milli>(t1 - t0).count();
    run.verifyMs = std::chrono::duration<double, std::milli>(Clock::now() - t1).count();
    run.overrideReports = run.decisions.overrideReports();
    return run;
}

} // namespace tessera
