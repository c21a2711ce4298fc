#include "backends/cpu/perfcounters.h"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tessera::cpu {

namespace {

enum Kind { kHardware, kSoftware, kKinds };

struct EventSpec {
    const char *name;
    std::uint32_t type;
    std::uint64_t config;
    Kind kind; // the group it is opened in, per thread
};

constexpr std::uint64_t cacheEvent(std::uint64_t cache, std::uint64_t op, std::uint64_t result)
{
    return cache | (op << 8) | (result << 16);
}

// The hardware events share a group (scheduled on the PMU together); the page
// faults have their own, so that a PMU that cannot fit the group leaves them counted.
const EventSpec kEvents[] = {
    {"l1d_read_misses", PERF_TYPE_HW_CACHE,
     cacheEvent(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), kHardware},
    {"llc_read_misses", PERF_TYPE_HW_CACHE,
     cacheEvent(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS), kHardware},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, kHardware},
    {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, kSoftware},
};
constexpr std::size_t kEventCount = std::size(kEvents);

// What read() of a group leader returns (PERF_FORMAT_GROUP with both times).
struct GroupRead {
    std::uint64_t nr, timeEnabled, timeRunning;
    std::uint64_t values[kEventCount];
};

std::vector<pid_t> threadsOfThisProcess()
{
    std::vector<pid_t> tids;
    if (DIR *d = ::opendir("/proc/self/task")) {
        while (const dirent *e = ::readdir(d))
            if (e->d_name[0] != '.')
                tids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
        ::closedir(d);
    }
    if (tids.empty())
        tids.push_back(0); // the calling thread
    std::sort(tids.begin(), tids.end());
    return tids;
}

// Opened disabled (the leader; members follow it), counting the threads `tid` starts too.
int openEvent(const EventSpec &spec, pid_t tid, int leader)
{
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = spec.type;
    attr.config = spec.config;
    attr.disabled = leader < 0 ? 1 : 0;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.inherit = 1;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return static_cast<int>(::syscall(SYS_perf_event_open, &attr, tid, -1, leader, PERF_FLAG_FD_CLOEXEC));
}

std::string reasonOf(int error)
{
    switch (error) {
    case ENOENT:
    case EOPNOTSUPP: return std::string("not supported here (") + std::strerror(error) + "; no PMU exposed?)";
    case EACCES:
    case EPERM: return std::string("not allowed (") + std::strerror(error) + "; kernel.perf_event_paranoid or seccomp)";
    default: return std::strerror(error);
    }
}

} // namespace

PerfCounters::~PerfCounters()
{
    close();
}

void PerfCounters::close()
{
    for (const Group &g : m_groups)
        for (auto it = g.fds.rbegin(); it != g.fds.rend(); ++it) // members before their leader
            ::close(*it);
    m_groups.clear();
    m_tids.clear();
}

void PerfCounters::open(const std::vector<pid_t> &tids)
{
    close();
    m_left.assign(kEventCount, false);
    std::vector<int> error(kEventCount, 0);
    // An event a thread refuses (not ESRCH: that thread ended) is left out
    // for every thread, and the groups are opened again without it.
    for (bool again = true; again;) {
        again = false;
        close();
        for (pid_t tid : tids) {
            for (int kind = 0; kind < kKinds && !again; ++kind) {
                Group g;
                g.kind = kind;
                bool ended = false;
                for (std::size_t e = 0; e < kEventCount && !ended && !again; ++e) {
                    if (kEvents[e].kind != kind || m_left[e])
                        continue;
                    const int fd = openEvent(kEvents[e], tid, g.fds.empty() ? -1 : g.fds.front());
                    if (fd >= 0) {
                        g.fds.push_back(fd);
                        g.events.push_back(static_cast<int>(e));
                    } else if (errno == ESRCH) {
                        ended = true;
                    } else {
                        m_left[e] = true;
                        error[e] = errno;
                        again = true;
                    }
                }
                if (ended || again) {
                    for (auto it = g.fds.rbegin(); it != g.fds.rend(); ++it)
                        ::close(*it);
                    continue;
                }
                if (!g.fds.empty()) {
                    g.last.assign(g.fds.size(), 0);
                    m_groups.push_back(std::move(g));
                }
            }
            if (again)
                break;
        }
    }
    // Every thread ended while being opened: the event counts nothing.
    for (std::size_t e = 0; e < kEventCount; ++e)
        if (!m_left[e] && std::none_of(m_groups.begin(), m_groups.end(), [&](const Group &g) {
                return std::find(g.events.begin(), g.events.end(), static_cast<int>(e)) != g.events.end();
            })) {
            m_left[e] = true;
            error[e] = ESRCH;
        }
    m_unavailable.clear();
    for (std::size_t e = 0; e < kEventCount; ++e)
        if (m_left[e]) {
            std::string &names = m_unavailable[reasonOf(error[e])];
            names += (names.empty() ? "" : ", ") + std::string(kEvents[e].name);
        }
    m_tids = tids;
    ++m_opens;
}

void PerfCounters::start()
{
    if (m_counting)
        return;
    const std::vector<pid_t> tids = threadsOfThisProcess();
    // Threads started since opening count through the events they inherited;
    // a thread opened for that has ended is opened again with the rest.
    if (m_opens == 0 || !std::includes(tids.begin(), tids.end(), m_tids.begin(), m_tids.end()))
        open(tids);
    for (const Group &g : m_groups)
        ::ioctl(g.fds.front(), PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    m_counting = true;
}

void PerfCounters::stop()
{
    if (!m_counting)
        return;
    m_counting = false;
    double total[kEventCount] = {};
    bool unread[kEventCount] = {};
    std::uint64_t enabled[kKinds] = {}, running[kKinds] = {};
    for (Group &g : m_groups) {
        ::ioctl(g.fds.front(), PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
        GroupRead r{};
        const auto want = static_cast<ssize_t>(3 * sizeof(std::uint64_t) + g.fds.size() * sizeof(std::uint64_t));
        const bool ok = ::read(g.fds.front(), &r, sizeof r) == want && r.nr == g.fds.size();
        for (std::size_t i = 0; i < g.fds.size(); ++i) {
            const auto e = static_cast<std::size_t>(g.events[i]);
            unread[e] = unread[e] || !ok;
            if (ok) {
                total[e] += static_cast<double>(r.values[i] - g.last[i]);
                g.last[i] = r.values[i];
            }
        }
        if (ok) {
            enabled[g.kind] += r.timeEnabled - g.lastEnabled;
            running[g.kind] += r.timeRunning - g.lastRunning;
            g.lastEnabled = r.timeEnabled;
            g.lastRunning = r.timeRunning;
        }
    }
    m_counts.clear();
    for (std::size_t e = 0; e < kEventCount; ++e) {
        if (m_left[e])
            continue;
        const Kind kind = kEvents[e].kind;
        if (unread[e])
            m_counts["counters/unavailable: " + std::string(kEvents[e].name) + ": reading the counter failed"] = 1;
        else if (enabled[kind] > 0 && running[kind] == 0) // the PMU never had room for the group
            m_counts["counters/unavailable: " + std::string(kEvents[e].name) + ": never scheduled on the PMU"] = 1;
        else
            m_counts["counters/" + std::string(kEvents[e].name)] = total[e];
    }
}

void PerfCounters::report(std::map<std::string, double> &metrics) const
{
    for (const auto &[name, value] : m_counts)
        metrics[name] = value;
    for (const auto &[reason, names] : m_unavailable)
        metrics["counters/unavailable: " + names + ": " + reason] = 1;
}

RunCounting::RunCounting(CounterSlot &slot) : m_lock(slot.inUse, std::try_to_lock)
{
    m_counters = m_lock.owns_lock() ? &slot.counters : &m_own.emplace();
    m_counters->start();
}

RunCounting::~RunCounting()
{
    m_counters->stop();
}

void RunCounting::report(std::map<std::string, double> &metrics)
{
    m_counters->stop();
    m_counters->report(metrics);
}

} // namespace tessera::cpu
