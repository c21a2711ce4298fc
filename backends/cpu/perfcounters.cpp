#include "backends/cpu/perfcounters.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <dirent.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace tessera::cpu {

namespace {

struct EventSpec {
    const char *name;
    std::uint32_t type;
    std::uint64_t config;
};

constexpr std::uint64_t cacheEvent(std::uint64_t cache, std::uint64_t op, std::uint64_t result)
{
    return cache | (op << 8) | (result << 16);
}

const EventSpec kEvents[] = {
    {"l1d_read_misses", PERF_TYPE_HW_CACHE,
     cacheEvent(PERF_COUNT_HW_CACHE_L1D, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"llc_read_misses", PERF_TYPE_HW_CACHE,
     cacheEvent(PERF_COUNT_HW_CACHE_LL, PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS)},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
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
    return tids;
}

int openEvent(const EventSpec &spec, pid_t tid)
{
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = spec.type;
    attr.config = spec.config;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.inherit = 1;
    return static_cast<int>(::syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
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

PerfCounters::PerfCounters()
{
    const std::vector<pid_t> tids = threadsOfThisProcess();
    for (const EventSpec &spec : kEvents) {
        Event event{spec.name, {}};
        int error = 0;
        for (pid_t tid : tids) {
            const int fd = openEvent(spec, tid);
            if (fd >= 0) {
                event.fds.push_back(fd);
            } else if (errno != ESRCH) { // a thread that ended meanwhile is no reason
                error = errno;
                break;
            }
        }
        if (error != 0 || event.fds.empty()) {
            for (int fd : event.fds)
                ::close(fd);
            std::string &names = m_unavailable[reasonOf(error != 0 ? error : ESRCH)];
            names += (names.empty() ? "" : ", ") + event.name;
            continue;
        }
        m_events.push_back(std::move(event));
    }
}

PerfCounters::~PerfCounters()
{
    for (const Event &e : m_events)
        for (int fd : e.fds)
            ::close(fd);
}

void PerfCounters::report(std::map<std::string, double> &metrics) const
{
    for (const Event &e : m_events) {
        double total = 0;
        bool ok = true;
        for (int fd : e.fds) {
            std::uint64_t value = 0;
            ok = ok && ::read(fd, &value, sizeof value) == static_cast<ssize_t>(sizeof value);
            total += static_cast<double>(value);
        }
        if (ok)
            metrics["counters/" + e.name] = total;
        else
            metrics["counters/unavailable: " + e.name + ": reading the counter failed"] = 1;
    }
    for (const auto &[reason, names] : m_unavailable)
        metrics["counters/unavailable: " + names + ": " + reason] = 1;
}

} // namespace tessera::cpu
