// Autosaver: write-behind for UI session state.
//
// Session state changes often and matters little per change (the selected
// step while the user scrubs the stepper, expanded groups, zoom). The
// Autosaver keeps the latest value per key in memory and writes every pending
// change in ONE transaction at most `delay` after the first unsaved change
// (the window does not slide, so steady scrubbing still saves every `delay`),
// on its own thread: the GUI never waits for the disk. flush() writes now;
// the destructor flushes.
//
// The choice, documented: overrides, plans and runs are NOT routed through
// here. They are user decisions and results, and undo steps; Project saves
// each immediately in one short transaction (well under the 50 ms budget, see
// bench/bench_store.cpp), so a crash loses none and no two edits merge into
// one undo step. Route all state writes through one Autosaver per Project,
// which must outlive it. Qt-free.
#pragma once

#include "core/store/project.h"

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace tessera {

class Autosaver
{
public:
    explicit Autosaver(Project &project, std::chrono::milliseconds delay = std::chrono::milliseconds(300));
    Autosaver(const Autosaver &) = delete;
    Autosaver &operator=(const Autosaver &) = delete;
    ~Autosaver(); // flushes, then stops the thread

    void setState(std::string key, std::string value);
    void removeState(std::string key);
    // The value as the project will have it: pending change first, then the file.
    Expected<std::optional<std::string>> state(const std::string &key) const;

    // Writes all pending changes now (one transaction). A failed save keeps its
    // changes pending (newer values win) and is retried by the next save.
    Status flush();
    Status lastStatus() const;  // of the most recent save
    std::int64_t saves() const; // transactions written so far
    bool pending() const;

private:
    void touch(); // starts the delay window if none is open
    void loop();

    Project &m_project;
    const std::chrono::milliseconds m_delay;
    mutable std::mutex m_mutex; // guards everything below
    std::mutex m_writeMutex;    // orders saves: a batch is never overtaken by an older one
    std::condition_variable m_wake;
    std::map<std::string, std::optional<std::string>> m_pending; // nullopt: remove
    std::optional<std::chrono::steady_clock::time_point> m_deadline;
    Status m_lastStatus;
    std::int64_t m_saves = 0;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace tessera
