// Persistent worker threads for the CPU backend's runs (internal to
// backends/cpu). A run used to start its pool's threads afresh; each new
// thread then built its own OpenMP team on its first oneDNN primitive and
// page-faulted its per-thread scratch in again (BENCHMARKS.md, 2026-11-26:
// two threads born per run). The pool keeps its threads (and so their
// OpenMP teams and scratch) across runs; idle threads sleep on a condition
// variable. One run uses the pool at a time; a run that finds it busy (two
// runs of the backend at once) starts threads of its own, as before.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tessera::cpu {

class WorkerPool
{
public:
    WorkerPool() = default;
    ~WorkerPool();
    WorkerPool(const WorkerPool &) = delete;
    WorkerPool &operator=(const WorkerPool &) = delete;

    // Calls body(0) on the calling thread and body(1..lanes-1) on pool threads
    // (fresh threads when the pool is in use), returning when every call has
    // returned. An exception thrown by a call on a pool thread is rethrown here.
    void run(int lanes, const std::function<void(int lane)> &body);
    int threadsStarted() const; // pool threads created so far

private:
    void loop(int lane);

    std::mutex m_use; // held by the run using the pool
    mutable std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::vector<std::thread> m_threads; // lane i + 1
    const std::function<void(int)> *m_body = nullptr;
    int m_lanes = 0, m_running = 0;
    std::uint64_t m_generation = 0;
    std::exception_ptr m_error;
    bool m_stop = false;
};

} // namespace tessera::cpu
