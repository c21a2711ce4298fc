#include "core/support/activity.h"

#include "core/support/assert.h"

#include <algorithm>
#include <chrono>
#include <deque>

namespace tessera {

namespace {

struct ActivityLog {
    std::vector<ActivitySpan> running; // a stack: scopes nest
    std::deque<ActivitySpan> recent;   // finished, oldest first, at most kRecentActivities

    void finish(ActivitySpan span)
    {
        recent.push_back(std::move(span));
        if (recent.size() > kRecentActivities)
            recent.pop_front();
    }
};

ActivityLog &threadLog()
{
    thread_local ActivityLog log;
    return log;
}

bool overlaps(const ActivitySpan &s, double fromMs, double toMs)
{
    return s.startMs <= toMs && (s.running() || s.endMs >= fromMs);
}

} // namespace

double activityClockMs()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

ActivityScope::ActivityScope(std::string label)
{
    ActivityLog &log = threadLog();
    m_depth = log.running.size();
    log.running.push_back({std::move(label), activityClockMs(), -1});
}

ActivityScope::~ActivityScope()
{
    ActivityLog &log = threadLog();
    TS_ASSERT_MSG(log.running.size() == m_depth + 1, "ActivityScope: scopes must end in reverse order");
    ActivitySpan span = std::move(log.running.back());
    log.running.pop_back();
    span.endMs = activityClockMs();
    log.finish(std::move(span));
}

void recordActivity(std::string label, double startMs, double endMs)
{
    TS_ASSERT(endMs >= startMs);
    threadLog().finish({std::move(label), startMs, endMs});
}

std::vector<ActivitySpan> activitiesDuring(double fromMs, double toMs)
{
    const ActivityLog &log = threadLog();
    std::vector<ActivitySpan> out;
    for (const ActivitySpan &s : log.recent)
        if (overlaps(s, fromMs, toMs))
            out.push_back(s);
    for (const ActivitySpan &s : log.running)
        if (overlaps(s, fromMs, toMs))
            out.push_back(s);
    std::stable_sort(out.begin(), out.end(),
                     [](const ActivitySpan &a, const ActivitySpan &b) { return a.startMs < b.startMs; });
    return out;
}

void clearRecentActivities()
{
    threadLog().recent.clear();
}

} // namespace tessera
