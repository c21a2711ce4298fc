// Event counters of a CPU run through perf_event_open(2) (issue 13 item 2:
// "hardware counters where perf_event_open is allowed, cache misses per
// level"), internal to backends/cpu.
//
// What it counts, for every thread of the process (each thread in
// /proc/self/task opened on its own, with `inherit` so the threads they start
// count too): L1 data-cache read misses, last-level-cache read misses and
// retired instructions (hardware events, user space only), and page faults (a
// software event, which needs no PMU). Each event that cannot be opened — no
// PMU (virtual machines often expose none: ENOENT), perf_event_paranoid above
// 2, a seccomp filter — is left out, and the run says why once in its metrics:
//   counters/l1d_read_misses, counters/llc_read_misses, counters/instructions,
//   counters/page_faults                        the counts of the run;
//   counters/unavailable: <events>: <reason>    = 1 per reason.
// Other threads of the process (a GUI thread) count too: the run's workers do
// nearly all the work while it goes. Counts are totals over the run, not per
// kernel.
//
// Opened once, used by many runs. Opening costs a perf_event_open and a close
// per event and thread (bench/bench_perfcounters: 86-284 µs, a third of a
// 0.24 ms NeRF-MLP run, when every run opened its own), so a PerfCounters
// opens on its first start() and keeps the events, disabled between runs. Per
// run: start() enables each thread's events with one ioctl (the hardware
// events are one group per thread, the page faults another), stop() disables
// them and reads each group once; a run's counts are the differences from the
// values read at the previous stop() (a reset would not clear what exited
// inherited threads handed back to their parent event).
//
// Threads started after opening: a thread inherits the events of the thread
// that starts it (`inherit`), and the kernel enables, disables and sums those
// copies with the opened event, so the worker pool's and the OpenMP teams'
// threads, born during the first run, count from their first instruction
// without opening anything for them. start() lists /proc/self/task (a
// directory read, a few µs) and opens everything again, for the threads alive
// then, only when a thread it opened for has ended (its events would cost an
// ioctl and a read per run for nothing). Not covered, as before: a thread
// started, while the events are being opened, by a thread not yet opened for.
//
// One run at a time per PerfCounters: the backend keeps one (CounterSlot) for
// all its plans — the events count the process's threads whatever plan runs,
// and a set per compiled plan would hold an fd per event and thread for every
// plan kept (the workbench's pins, a measured cost source's one-kernel plans)
// and open again for each. A run takes it with RunCounting, which opens a set
// of its own for the run instead when another run holds the backend's (two
// runs at once, of one plan or two: the old per-run cost, counts still right).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace tessera::cpu {

class PerfCounters
{
public:
    PerfCounters() = default; // opens nothing until start()
    ~PerfCounters();
    PerfCounters(const PerfCounters &) = delete;
    PerfCounters &operator=(const PerfCounters &) = delete;

    // Opens the events for the process's current threads if they are not
    // those it has open, then enables them: the run's counting starts.
    void start();
    // Disables the events and takes the counts since start(). Once per
    // start(); a stop() without a running count does nothing.
    void stop();
    // The counts the last stop() took (none before one), and the reasons for
    // events left out, added to `metrics` under the names above.
    void report(std::map<std::string, double> &metrics) const;

    // Sets of events opened so far (a test of the reuse; bench_perfcounters).
    int opens() const { return m_opens; }

private:
    // One thread's events of one kind (hardware, software), opened as a group.
    struct Group {
        int kind = 0;
        std::vector<int> fds;            // the leader first
        std::vector<int> events;         // per member: its index among the events
        std::vector<std::uint64_t> last; // per member, at the last read
        std::uint64_t lastEnabled = 0, lastRunning = 0;
    };
    void open(const std::vector<pid_t> &tids);
    void close();

    std::vector<pid_t> m_tids; // the threads the groups were opened for, sorted
    std::vector<Group> m_groups;
    std::vector<bool> m_left;                         // per event: left out
    std::map<std::string, std::string> m_unavailable; // reason -> events
    std::map<std::string, double> m_counts;           // the last stop()'s, by metric name
    bool m_counting = false;
    int m_opens = 0;
};

// The backend's counters and the lock a run holds while it uses them.
struct CounterSlot {
    PerfCounters counters;
    std::mutex inUse;
};

// One run's counting, from construction to report() (or destruction): the
// slot's counters when no other run holds them, else a set opened for this run
// alone.
class RunCounting
{
public:
    explicit RunCounting(CounterSlot &slot);
    ~RunCounting();
    RunCounting(const RunCounting &) = delete;
    RunCounting &operator=(const RunCounting &) = delete;

    // Stops counting and adds the run's counts to `metrics`.
    void report(std::map<std::string, double> &metrics);

private:
    std::unique_lock<std::mutex> m_lock;
    std::optional<PerfCounters> m_own;
    PerfCounters *m_counters = nullptr;
};

} // namespace tessera::cpu
