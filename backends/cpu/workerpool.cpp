// The CPU backend's persistent worker threads (see workerpool.h).
#include "backends/cpu/workerpool.h"

namespace tessera::cpu {

WorkerPool::~WorkerPool()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    for (std::thread &t : m_threads)
        t.join();
}

int WorkerPool::threadsStarted() const
{
    std::lock_guard lock(m_mutex);
    return static_cast<int>(m_threads.size());
}

void WorkerPool::loop(int lane)
{
    std::uint64_t seen = 0;
    for (;;) {
        const std::function<void(int)> *body = nullptr;
        {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stop || m_generation != seen; });
            if (m_stop)
                return;
            seen = m_generation;
            if (lane >= m_lanes)
                continue;
            body = m_body;
        }
        std::exception_ptr error;
        try {
            (*body)(lane);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(m_mutex);
        if (error && !m_error)
            m_error = error;
        if (--m_running == 0)
            m_done.notify_all();
    }
}

void WorkerPool::run(int lanes, const std::function<void(int lane)> &body)
{
    if (lanes <= 1) {
        body(0);
        return;
    }
    std::unique_lock use(m_use, std::try_to_lock);
    if (!use.owns_lock()) { // another run holds the pool: threads of this run's own
        std::vector<std::thread> own;
        std::exception_ptr error;
        std::mutex errorMutex;
        for (int lane = 1; lane < lanes; ++lane)
            own.emplace_back([&, lane] {
                try {
                    body(lane);
                } catch (...) {
                    std::lock_guard lock(errorMutex);
                    error = std::current_exception();
                }
            });
        body(0);
        for (std::thread &t : own)
            t.join();
        if (error)
            std::rethrow_exception(error);
        return;
    }
    {
        std::lock_guard lock(m_mutex);
        while (static_cast<int>(m_threads.size()) < lanes - 1) {
            const int lane = static_cast<int>(m_threads.size()) + 1;
            m_threads.emplace_back([this, lane] { loop(lane); });
        }
        m_body = &body;
        m_lanes = lanes;
        m_running = lanes - 1;
        m_error = nullptr;
        ++m_generation;
    }
    m_wake.notify_all();
    std::exception_ptr callerError;
    try {
        body(0);
    } catch (...) {
        callerError = std::current_exception();
    }
    std::unique_lock lock(m_mutex);
    m_done.wait(lock, [&] { return m_running == 0; });
    m_body = nullptr;
    if (callerError)
        std::rethrow_exception(callerError);
    if (m_error)
        std::rethrow_exception(m_error);
}

} // namespace tessera::cpu
