// StallWatchdog: records every stall of the GUI thread's event loop longer
// than a threshold (50 ms by default) and what was running during it.
//
// A precise timer beats every `interval` on the watched thread; when the gap
// between two beats exceeds interval + threshold, the loop was blocked for
// gap − interval, and the work named by ActivityScopes (core/support/activity.h)
// that overlapped the gap is blamed, together with the first events the loop
// delivered in the gap, longest-held first (an application-wide event filter
// keeps the recent deliveries: event type, receiver class and object name), which names
// unnamed work such as a slow paint. The beat also runs after work that a
// nested event loop (a modal dialog) ran, so nested loops are not stalls.
//
// Used three ways: `tessera --watch-stalls` prints each stall on stderr (a
// debug option); tests and bench/bench_stalls start one around the work they
// drive and read stalls(); beat() takes explicit times so the attribution
// can be tested without a clock.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <string>
#include <vector>

namespace tessera::gui {

struct Stall {
    double startMs = 0;    // on activityClockMs()
    double durationMs = 0; // the loop was blocked this long
    // Of durationMs, how long the GUI thread was runnable but waited for a core
    // (Linux schedstat; 0 where unknown): the machine's load, not the program's work.
    double queuedMs = 0;
    // Of durationMs, how long the GUI thread was on a core (schedstat; the
    // rest of the gap when unknown): its own computing, without the time it
    // was blocked waiting for another thread.
    double cpuMs = 0;
    std::vector<std::string> activities; // what ran during it, outermost first; empty: unnamed work
    std::vector<std::string> events; // events delivered in it, longest-held first, e.g. "Paint → tessera::GraphView"
};

// "132 ms in graph view: apply layout (events: Timer → QTimer, Paint → tessera::GraphView 'graph')",
// "132 ms in unnamed work" when nothing is known; ", 90 ms of it waiting for a
// core" is added when the thread waited on a run queue for 1 ms or more.
QString describeStall(const Stall &stall);

// A thread's scheduler totals (Linux schedstat), in ms.
struct ThreadTimes {
    double cpuMs = -1;   // time on a core; negative: unknown
    double queuedMs = 0; // time runnable, waiting for a core
};

class StallWatchdog : public QObject
{
    Q_OBJECT
public:
    explicit StallWatchdog(QObject *parent = nullptr, double thresholdMs = 50, int intervalMs = 10);

    void start(); // beats from now on, on the thread this object lives in
    void stop();
    bool isRunning() const { return m_timer.isActive(); }

    // One beat at `nowMs` (activityClockMs()); the timer calls it. A gap since
    // the previous beat longer than interval + threshold is a stall.
    // `times` are the watched thread's totals so far (the timer passes
    // threadTimes()); a stall's queuedMs and cpuMs are their growth over the gap.
    void beat(double nowMs, ThreadTimes times = {});
    // Notes an event delivered at `nowMs` (the event filter calls it).
    void noteEvent(double nowMs, std::string what);

    const std::vector<Stall> &stalls() const { return m_stalls; }
    double longestStallMs() const;
    // The longest stall less the time the thread waited for a core in it: the
    // part the program is responsible for (equal to longestStallMs() on an idle machine).
    double longestOwnStallMs() const;
    // The longest time the thread computed within one stall (Stall::cpuMs).
    double longestCpuStallMs() const;
    // The calling thread's totals (/proc/thread-self/schedstat); {-1, 0} where unknown.
    static ThreadTimes threadTimes();
    void clear();
    double thresholdMs() const { return m_thresholdMs; }

signals:
    void stalled(const tessera::gui::Stall &stall);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Delivery {
        double atMs;
        std::string what;
    };
    QTimer m_timer;
    double m_thresholdMs;
    int m_intervalMs;
    double m_lastBeatMs = -1;
    ThreadTimes m_lastTimes;
    std::vector<Stall> m_stalls;
    std::vector<Delivery> m_deliveries; // a ring of the last kDeliveries
    std::size_t m_nextDelivery = 0;
};

} // namespace tessera::gui
