#include "app/gui/stallwatchdog.h"

#include "core/support/activity.h"

#include <QCoreApplication>
#include <QEvent>
#include <QMetaEnum>
#include <QThread>

#include <algorithm>
#include <cstdio>

namespace tessera::gui {

namespace {

constexpr std::size_t kDeliveries = 64;
constexpr std::size_t kEventsPerStall = 4;

QString joined(const std::vector<std::string> &parts)
{
    QStringList out;
    for (const std::string &p : parts)
        out << QString::fromStdString(p);
    return out.join(QStringLiteral(", "));
}

} // namespace

QString describeStall(const Stall &stall)
{
    QString text = QStringLiteral("%1 ms in %2")
                       .arg(qRound(stall.durationMs))
                       .arg(stall.activities.empty() ? QStringLiteral("unnamed work") : joined(stall.activities));
    if (stall.queuedMs >= 1)
        text += QStringLiteral(", %1 ms of it waiting for a core").arg(qRound(stall.queuedMs));
    if (!stall.events.empty())
        text += QStringLiteral(" (events: %1)").arg(joined(stall.events));
    return text;
}

StallWatchdog::StallWatchdog(QObject *parent, double thresholdMs, int intervalMs)
    : QObject(parent), m_thresholdMs(thresholdMs), m_intervalMs(intervalMs)
{
    m_timer.setTimerType(Qt::PreciseTimer);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { beat(activityClockMs(), threadTimes()); });
}

ThreadTimes StallWatchdog::threadTimes()
{
    // schedstat: time on a core, time waiting on a run queue (both ns), timeslices.
    ThreadTimes t;
    double run = 0, wait = 0;
    if (FILE *f = std::fopen("/proc/thread-self/schedstat", "r")) {
        if (std::fscanf(f, "%lf %lf", &run, &wait) == 2)
            t = {run / 1e6, wait / 1e6};
        std::fclose(f);
    }
    return t;
}

void StallWatchdog::start()
{
    m_lastBeatMs = activityClockMs();
    m_lastTimes = threadTimes();
    m_timer.start();
    if (QCoreApplication::instance())
        QCoreApplication::instance()->installEventFilter(this);
}

void StallWatchdog::stop()
{
    m_timer.stop();
    m_lastBeatMs = -1;
    if (QCoreApplication::instance())
        QCoreApplication::instance()->removeEventFilter(this);
}

bool StallWatchdog::eventFilter(QObject *watched, QEvent *event)
{
    // Deliveries on this object's thread, except the watchdog's own beats.
    if (watched == &m_timer || QThread::currentThread() != thread())
        return false;
    const QMetaEnum types = QMetaEnum::fromType<QEvent::Type>();
    const char *type = types.valueToKey(event->type());
    std::string what = type ? type : "Event " + std::to_string(static_cast<int>(event->type()));
    what += " → ";
    what += watched->metaObject()->className();
    if (!watched->objectName().isEmpty())
        what += " '" + watched->objectName().toStdString() + "'";
    // Qt's anonymous parts (a scroll bar, "qt_scrollarea_viewport") by the nearest named owner.
    if (watched->objectName().isEmpty() || watched->objectName().startsWith(QLatin1String("qt_")))
        for (const QObject *p = watched->parent(); p; p = p->parent())
            if (!p->objectName().isEmpty() && !p->objectName().startsWith(QLatin1String("qt_"))) {
                what += " in '" + p->objectName().toStdString() + "'";
                break;
            }
    noteEvent(activityClockMs(), std::move(what));
    return false;
}

void StallWatchdog::noteEvent(double nowMs, std::string what)
{
    if (m_deliveries.size() < kDeliveries)
        m_deliveries.push_back({nowMs, std::move(what)});
    else
        m_deliveries[m_nextDelivery] = {nowMs, std::move(what)};
    m_nextDelivery = (m_nextDelivery + 1) % kDeliveries;
}

void StallWatchdog::beat(double nowMs, ThreadTimes times)
{
    const double previous = m_lastBeatMs;
    const ThreadTimes before = m_lastTimes;
    m_lastBeatMs = nowMs;
    m_lastTimes = times;
    if (previous < 0)
        return;
    const double blocked = nowMs - previous - m_intervalMs;
    if (blocked <= m_thresholdMs)
        return;
    Stall stall;
    stall.startMs = previous;
    stall.durationMs = blocked;
    stall.queuedMs = std::clamp(times.queuedMs - before.queuedMs, 0.0, blocked);
    stall.cpuMs = times.cpuMs >= 0 && before.cpuMs >= 0 ? std::clamp(times.cpuMs - before.cpuMs, 0.0, blocked)
                                                        : blocked - stall.queuedMs;
    for (const ActivitySpan &span : activitiesDuring(previous, nowMs))
        if (std::find(stall.activities.begin(), stall.activities.end(), span.label) == stall.activities.end())
            stall.activities.push_back(span.label);
    // The deliveries in the gap, longest first: the time from one delivery to the
    // next (or to this beat) is an upper bound of how long its handling took.
    const std::size_t n = m_deliveries.size();
    const std::size_t first = n < kDeliveries ? 0 : m_nextDelivery;
    std::vector<std::pair<double, const std::string *>> held;
    for (std::size_t i = 0; i < n; ++i) {
        const Delivery &d = m_deliveries[(first + i) % n];
        const double next = i + 1 < n ? m_deliveries[(first + i + 1) % n].atMs : nowMs;
        if (d.atMs >= previous && d.atMs <= nowMs)
            held.emplace_back(next - d.atMs, &d.what);
    }
    std::stable_sort(held.begin(), held.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    for (const auto &[ms, what] : held)
        if (stall.events.size() < kEventsPerStall &&
            std::find(stall.events.begin(), stall.events.end(), *what) == stall.events.end())
            stall.events.push_back(*what);
    m_stalls.push_back(stall);
    emit stalled(m_stalls.back());
}

double StallWatchdog::longestStallMs() const
{
    double longest = 0;
    for (const Stall &s : m_stalls)
        longest = std::max(longest, s.durationMs);
    return longest;
}

double StallWatchdog::longestOwnStallMs() const
{
    double longest = 0;
    for (const Stall &s : m_stalls)
        longest = std::max(longest, s.durationMs - s.queuedMs);
    return longest;
}

double StallWatchdog::longestCpuStallMs() const
{
    double longest = 0;
    for (const Stall &s : m_stalls)
        longest = std::max(longest, s.cpuMs);
    return longest;
}

void StallWatchdog::clear()
{
    m_stalls.clear();
}

} // namespace tessera::gui
