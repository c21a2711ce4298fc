// Event counters of a CPU run through perf_event_open(2) (issue 13 item 2:
// "hardware counters where perf_event_open is allowed, cache misses per
// level"), internal to backends/cpu.
//
// What it counts, for every thread of the process (each thread in
// /proc/self/task opened on its own, with `inherit` so the threads they start
// during the run count too): L1 data-cache read misses, last-level-cache read
// misses and retired instructions (hardware events, user space only), and
// page faults (a software event, which needs no PMU). Each event that cannot
// be opened — no PMU (virtual machines often expose none: ENOENT),
// perf_event_paranoid above 2, a seccomp filter — is left out, and the run
// says why once in its metrics:
//   counters/l1d_read_misses, counters/llc_read_misses, counters/instructions,
//   counters/page_faults                        the counts of the run;
//   counters/unavailable: <events>: <reason>    = 1 per reason.
// Other threads of the process (a GUI thread) count too: the run's workers do
// nearly all the work while it goes. Counts are totals over the run, not per
// kernel (one read per run keeps the overhead to a few system calls).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tessera::cpu {

class PerfCounters
{
public:
    // Opens the events for the process's current threads; enabled at once.
    PerfCounters();
    ~PerfCounters();
    PerfCounters(const PerfCounters &) = delete;
    PerfCounters &operator=(const PerfCounters &) = delete;

    // The counts since construction, and the reasons for events left out,
    // added to `metrics` under the names above.
    void report(std::map<std::string, double> &metrics) const;

private:
    struct Event {
        std::string name;
        std::vector<int> fds; // one per thread
    };
    std::vector<Event> m_events;
    std::map<std::string, std::string> m_unavailable; // reason -> events
};

} // namespace tessera::cpu
