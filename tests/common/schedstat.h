// Per-thread scheduler statistics (Linux /proc/<pid>/task/<tid>/schedstat),
// for tests that bound a latency on a shared machine (issue 19, item 4).
//
// The second field of schedstat is the time the thread spent runnable but
// waiting for a core. A latency minus that wait is the part the program is
// responsible for: its own computing and blocking. On an idle machine the
// wait is ~0 and the two are the same; on a loaded one the wall latency alone
// would measure the other processes. Where the file cannot be read the wait
// is 0, so the bound is applied to the wall time (stricter, never looser).
#pragma once

#include <cstdio>
#include <dirent.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace tessera::test {

inline long currentTid()
{
    return static_cast<long>(::syscall(SYS_gettid));
}

// Nanoseconds thread `tid` of this process has waited on a run queue.
inline double queuedNs(long tid)
{
    const std::string path = "/proc/self/task/" + std::to_string(tid) + "/schedstat";
    double run = 0, wait = 0;
    if (FILE *f = std::fopen(path.c_str(), "r")) {
        if (std::fscanf(f, "%lf %lf", &run, &wait) != 2)
            wait = 0;
        std::fclose(f);
    }
    return wait;
}

// The same, summed over every thread of this process.
inline double queuedNsAllThreads()
{
    double sum = 0;
    if (DIR *d = ::opendir("/proc/self/task")) {
        while (const dirent *e = ::readdir(d))
            if (e->d_name[0] != '.')
                sum += queuedNs(std::stol(e->d_name));
        ::closedir(d);
    }
    return sum;
}

} // namespace tessera::test
