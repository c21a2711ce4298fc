#include "core/support/threadpriority.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace tessera {

bool useBackgroundPriority()
{
#if defined(__linux__)
    thread_local const bool lowered = [] {
        const auto tid = static_cast<id_t>(::syscall(SYS_gettid));
        const int current = ::getpriority(PRIO_PROCESS, tid);
        return current >= kBackgroundNice || ::setpriority(PRIO_PROCESS, tid, kBackgroundNice) == 0;
    }();
    return lowered;
#else
    return false;
#endif
}

} // namespace tessera
