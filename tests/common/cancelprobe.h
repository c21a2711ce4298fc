// Measures how long a task takes to honour its cancel token (issue 19,
// item 4): the task runs on a thread of its own, the token is set while it
// runs, and the time until the task returns is split into what the machine
// took (the thread waiting for a core; tests/common/schedstat.h) and what the
// task did (its thread's CPU time after the cancel). Used by
// tst_cancellatency and tst_graphlayout.
#pragma once

#include "core/support/status.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <pthread.h>
#include <string>
#include <thread>
#include <time.h>

#include "tests/common/schedstat.h"

namespace tessera::test {

using CancelClock = std::chrono::steady_clock;

struct Latency {
    bool cancelled = false;     // the task was still running at the cancel and returned Cancelled
    bool finishedEarly = false; // it ended before the cancel: nothing was measured
    std::string status;         // how the task ended
    double wallMs = 0;          // cancel → return
    double queuedMs = 0;        // of which the task's thread waited for a core
    double cpuMs = 0;           // CPU time the task's thread used in it
    double ownMs() const { return std::max(0.0, wallMs - queuedMs); }
};

using CancellableTask = std::function<Status(const std::atomic<bool> &cancel)>;

// Runs `task` (which must poll `cancel`) on a thread, sets `cancel` after
// `afterMs` (counted from when `armed` is set, if given), and measures until
// `task` returns.
inline Latency measureCancel(const CancellableTask &task, double afterMs, bool allThreads = false,
                             const std::atomic<bool> *armed = nullptr)
{
    std::atomic<bool> cancel{false}, done{false};
    std::atomic<long> tid{0};
    Latency l;
    CancelClock::time_point end;
    double queuedAtEnd = 0;
    timespec cpuAtEnd{};
    Status result;
    std::thread worker([&] {
        tid = currentTid();
        result = task(cancel);
        end = CancelClock::now();
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpuAtEnd);
        queuedAtEnd = allThreads ? queuedNsAllThreads() : queuedNs(tid);
        done = true;
    });
    while (armed && !*armed && !done)
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    const auto deadline = CancelClock::now() + std::chrono::duration_cast<CancelClock::duration>(
                                                   std::chrono::duration<double, std::milli>(afterMs));
    while (!done) {
        const auto now = CancelClock::now();
        if (now >= deadline)
            break;
        std::this_thread::sleep_for(std::min<CancelClock::duration>(deadline - now, std::chrono::milliseconds(1)));
    }
    while (tid == 0)
        std::this_thread::yield();
    const double queuedAtCancel = allThreads ? queuedNsAllThreads() : queuedNs(tid);
    clockid_t cpuClock{};
    timespec cpuAtCancel{};
    const bool haveCpu =
        ::pthread_getcpuclockid(worker.native_handle(), &cpuClock) == 0 && ::clock_gettime(cpuClock, &cpuAtCancel) == 0;
    const auto start = CancelClock::now();
    const bool earlyEnd = done;
    cancel = true;
    worker.join();
    l.status = result.isOk() ? "ok" : result.str();
    l.finishedEarly = earlyEnd;
    l.cancelled = !earlyEnd && result.code() == ErrorCode::Cancelled;
    l.wallMs = std::chrono::duration<double, std::milli>(end - start).count();
    l.queuedMs = std::max(0.0, (queuedAtEnd - queuedAtCancel) / 1e6);
    const auto ms = [](const timespec &t) {
        return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    };
    l.cpuMs = haveCpu ? std::max(0.0, ms(cpuAtEnd) - ms(cpuAtCancel)) : l.wallMs;
    return l;
}

// The task's uncancelled twin, then the cancel measured: a fixed delay
// lands after the end of a task on a fast machine and before its work on a
// slow one, so the cancel comes at `fraction` of the time the twin took. The
// twin runs twice and the faster run counts: the first may fill caches the
// cancelled run then finds warm (oneDNN's primitives, the page cache).
struct MidwayCancel {
    Status whole;       // how the uncancelled twin ended (it must complete)
    double wholeMs = 0; // and how long its faster run took
    double afterMs = 0; // when the cancel came
    Latency latency;
};

inline MidwayCancel measureCancelMidway(const CancellableTask &task, double fraction, bool allThreads = false)
{
    MidwayCancel m;
    const std::atomic<bool> never{false};
    for (int run = 0; run < 2 && m.whole.isOk(); ++run) {
        const auto t0 = CancelClock::now();
        m.whole = task(never);
        const double ms = std::chrono::duration<double, std::milli>(CancelClock::now() - t0).count();
        m.wholeMs = run == 0 ? ms : std::min(m.wholeMs, ms);
    }
    m.afterMs = m.wholeMs * fraction;
    m.latency = measureCancel(task, m.afterMs, allThreads);
    return m;
}

} // namespace tessera::test
