// Activity: what a thread is doing, named, so that a stall can be blamed on
// the work that caused it (the workbench's stall watchdog,
// app/gui/stallwatchdog.h; Hotspot's and Chromium's "long task" attribution).
//
//   ActivityScope scope("graph view: apply layout");
//
// names the work until `scope` ends. Each thread keeps its own log: the spans
// running now and the last kRecentActivities finished ones, with times on the
// monotonic clock of activityClockMs(). A scope costs two clock reads and a
// push; nothing is shared between threads, so nothing is locked.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace tessera {

inline constexpr std::size_t kRecentActivities = 64;

struct ActivitySpan {
    std::string label;
    double startMs = 0;
    double endMs = -1; // < 0 while running
    bool running() const { return endMs < 0; }
};

// Milliseconds on the steady clock (an arbitrary epoch, the same for every thread).
double activityClockMs();

class ActivityScope
{
public:
    explicit ActivityScope(std::string label);
    ~ActivityScope();
    ActivityScope(const ActivityScope &) = delete;
    ActivityScope &operator=(const ActivityScope &) = delete;

private:
    std::size_t m_depth;
};

// Records a finished span with known times on this thread's log (for work timed elsewhere, and tests).
void recordActivity(std::string label, double startMs, double endMs);
// This thread's spans that overlap [fromMs, toMs]: the running ones and the recent finished ones, by start time.
std::vector<ActivitySpan> activitiesDuring(double fromMs, double toMs);
// Forgets this thread's finished spans.
void clearRecentActivities();

} // namespace tessera
