#include "core/store/autosaver.h"

namespace tessera {

Autosaver::Autosaver(Project &project, std::chrono::milliseconds delay)
    : m_project(project), m_delay(delay), m_thread([this] { loop(); })
{}

Autosaver::~Autosaver()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    (void)flush();
}

void Autosaver::setState(std::string key, std::string value)
{
    std::lock_guard lock(m_mutex);
    m_pending[std::move(key)] = std::move(value);
    touch();
}

void Autosaver::removeState(std::string key)
{
    std::lock_guard lock(m_mutex);
    m_pending[std::move(key)] = std::nullopt;
    touch();
}

Expected<std::optional<std::string>> Autosaver::state(const std::string &key) const
{
    {
        std::lock_guard lock(m_mutex);
        if (auto it = m_pending.find(key); it != m_pending.end())
            return it->second;
    }
    return m_project.state(key);
}

void Autosaver::touch()
{
    if (!m_deadline) {
        m_deadline = std::chrono::steady_clock::now() + m_delay;
        m_wake.notify_all();
    }
}

Status Autosaver::flush()
{
    std::lock_guard order(m_writeMutex);
    std::map<std::string, std::optional<std::string>> batch;
    {
        std::lock_guard lock(m_mutex);
        batch.swap(m_pending);
        m_deadline.reset();
    }
    if (batch.empty())
        return Status::ok();
    Status s = m_project.transaction([&]() -> Status {
        for (const auto &[key, value] : batch)
            TS_TRY(value ? m_project.setState(key, *value) : m_project.removeState(key));
        return Status::ok();
    });
    std::lock_guard lock(m_mutex);
    m_lastStatus = s;
    if (s.isOk())
        ++m_saves;
    else
        m_pending.merge(batch); // keeps the newer pending values
    return s;
}

Status Autosaver::lastStatus() const
{
    std::lock_guard lock(m_mutex);
    return m_lastStatus;
}

std::int64_t Autosaver::saves() const
{
    std::lock_guard lock(m_mutex);
    return m_saves;
}

bool Autosaver::pending() const
{
    std::lock_guard lock(m_mutex);
    return !m_pending.empty();
}

void Autosaver::loop()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stop || m_deadline; });
        if (m_stop)
            return;
        const auto deadline = *m_deadline; // flush() on another thread may reset it meanwhile
        if (m_wake.wait_until(lock, deadline, [this] { return m_stop; }))
            return; // the destructor flushes
        lock.unlock();
        (void)flush();
        lock.lock();
    }
}

} // namespace tessera
