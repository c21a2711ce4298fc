// Event-loop waits shared by bench/bench_stalls and tests/views/tst_responsiveness:
// both drive the workbench while a StallWatchdog watches its GUI thread, so
// they wait by running the event loop, never by sleeping.
#pragma once

#include <QEventLoop>
#include <QObject>
#include <QTimer>

#include <functional>

namespace tessera::test {

// Long enough for a NasNet-A reference run on a loaded machine.
constexpr int kEventWaitTimeoutMs = 600000;

// Runs the event loop until `done` (checked every 5 ms) or the timeout; returns
// done(). Not QTest::qWaitFor: it sleeps between rounds of events, which a
// watchdog would count as the application's stall.
inline bool waitUntil(const std::function<bool()> &done, int timeoutMs = kEventWaitTimeoutMs)
{
    if (done())
        return true;
    QEventLoop loop;
    QTimer poll;
    poll.setTimerType(Qt::PreciseTimer);
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (done())
            loop.quit();
    });
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    poll.start(5);
    loop.exec();
    return done();
}

// Runs the event loop for `ms` (paints, queued signals).
inline void spin(int ms)
{
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
}

} // namespace tessera::test
