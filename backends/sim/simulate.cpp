// S3–S6 of the simulator (simulator.h): the event loop over a lowered plan.
// Events are part completions (from the current sharing rates), ends of fixed
// delays and host issue times; between two events every running part
// progresses at a constant rate, so time jumps from event to event.
#include "backends/sim/simulator.h"
#include "core/support/assert.h"

#include <queue>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <set>

namespace tessera::sim {

namespace {

std::string timeText(double ns)
{
    char buf[64];
    if (ns >= 1e6)
        std::snprintf(buf, sizeof buf, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3)
        std::snprintf(buf, sizeof buf, "%.3f us", ns / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.1f ns", ns);
    return buf;
}

enum class State : std::uint8_t { Waiting, Setup, Running, Done };

struct RunningPart {
    std::size_t task = 0;
    std::size_t part = 0;
    double remainingNs = 0; // work left at full rate
    double rate = 1;        // fraction of full rate (S4)
};

class Simulator
{
public:
    Simulator(const LoweredPlan &p, const Device &d, double batch, const RunObserver &o)
        : m_p(p), m_d(d), m_batch(batch), m_obs(o)
    {}

    Expected<SimOutcome> run()
    {
        const std::size_t n = m_p.tasks.size();
        m_state.assign(n, State::Waiting);
        m_depsLeft.assign(n, 0);
        m_partsLeft.assign(n, 0);
        m_issueAt.assign(n, m_p.tasks.empty() ? 0.0 : -1.0);
        m_dependents.assign(n, {});
        m_out.timeline.assign(n, {});
        m_active.assign(m_p.resources.size(), 0);
        m_queueTasks.assign(static_cast<std::size_t>(m_p.queueCount), {});
        m_queueHead.assign(static_cast<std::size_t>(m_p.queueCount), 0);
        m_occupancy.assign(m_d.levels.size(), {});
        for (std::size_t l = 0; l < m_d.levels.size(); ++l)
            m_occupancy[l].assign(static_cast<std::size_t>(m_d.instances(m_d.levels[l])), 0);
        m_levelTotal.assign(m_d.levels.size(), 0);
        m_levelPeak.assign(m_d.levels.size(), 0);
        m_levelPeakInstance.assign(m_d.levels.size(), 0);
        m_allocated.clear();
        for (const Resource &r : m_p.resources)
            if (r.unitKind >= 0)
                ++m_unitTotal[unitOf(r)];

        std::map<BufferId, std::size_t> users; // tasks still to touch each buffer
        for (std::size_t i = 0; i < n; ++i) {
            const SimTask &t = m_p.tasks[i];
            m_depsLeft[i] = static_cast<int>(t.deps.size());
            for (TaskId d : t.deps)
                m_dependents[static_cast<std::size_t>(d)].push_back(i);
            for (int q : t.queues)
                m_queueTasks[static_cast<std::size_t>(q)].push_back(i);
            for (const BufferUse &u : t.buffers)
                ++users[u.buffer];
            if (!t.hostIssued)
                m_issueAt[i] = 0;
        }
        m_bufferUsers = std::move(users);
        for (std::size_t i = 0; i < n; ++i)
            if (m_depsLeft[i] == 0)
                m_candidates.insert(i);
        for (const MemoryLevel &l : m_d.levels)
            m_series.push_back({"occupancy/" + l.name, "bytes", {{0.0, 0.0}}});
        for (const auto &[unit, total] : m_unitTotal)
            m_series.push_back({"utilisation/" + unit, "fraction", {{0.0, 0.0}}});

        advanceHost();
        const std::size_t reportEvery = std::max<std::size_t>(1, n / 100);
        for (;;) {
            if (m_obs.cancel && m_obs.cancel->load())
                return Status::error(ErrorCode::Cancelled, "the simulation was cancelled at " + timeText(m_now));
            if (Status s = startReady(); !s.isOk())
                return s;
            updateRates();
            recordSeries();
            // The next event.
            double next = std::numeric_limits<double>::infinity();
            for (const RunningPart &rp : m_running)
                next = std::min(next, m_now + rp.remainingNs / rp.rate);
            if (!m_timed.empty())
                next = std::min(next, m_timed.top().first);
            if (!std::isfinite(next)) {
                if (m_finished == n)
                    break;
                return deadlock();
            }
            advanceTo(next);
            ++m_events;
            // Part completions.
            std::vector<std::size_t> ended;
            for (std::size_t k = 0; k < m_running.size();) {
                RunningPart &rp = m_running[k];
                if (rp.remainingNs <= 1e-10 * std::max(1.0, m_now)) {
                    for (int r : m_p.tasks[rp.task].parts[rp.part].resources)
                        release(r);
                    if (--m_partsLeft[rp.task] == 0)
                        ended.push_back(rp.task);
                    rp = m_running.back();
                    m_running.pop_back();
                } else {
                    ++k;
                }
            }
            // Timed events due now: ends of fixed delays, issue times.
            while (!m_timed.empty() && m_timed.top().first <= m_now) {
                const std::size_t t = m_timed.top().second;
                m_timed.pop();
                if (t < n && m_state[t] == State::Setup) {
                    if (beginParts(t))
                        ended.push_back(t);
                }
            }
            for (std::size_t t : ended) {
                finish(t);
                if (m_obs.taskFinished)
                    m_obs.taskFinished(m_p.tasks[t].id, static_cast<double>(m_finished) / static_cast<double>(n));
                if (m_finished % reportEvery == 0)
                    report();
            }
        }
        m_out.simTimeNs = m_now;
        m_out.metrics = metrics();
        for (CounterSeries &s : m_series)
            s.points.emplace_back(m_now, s.points.back().second);
        m_final = true;
        report();
        m_out.counters = std::move(m_series);
        return std::move(m_out);
    }

private:
    // Streams what the run recorded since the last report: the timelines
    // (RunIncrement: finished tasks, lane names, counter points that are
    // final, i.e. before the current time, or all of them at the end), then
    // the metrics so far.
    void report()
    {
        if (m_obs.timelinesRecorded) {
            RunIncrement inc;
            inc.timeline.reserve(m_unreported.size());
            for (std::size_t i : m_unreported)
                inc.timeline.push_back(m_out.timeline[i]);
            m_unreported.clear();
            inc.laneNames = m_out.laneNames;
            m_pointsSent.resize(m_series.size(), 0);
            for (std::size_t k = 0; k < m_series.size(); ++k) {
                const auto &points = m_series[k].points;
                std::size_t end = points.size();
                while (!m_final && end > m_pointsSent[k] && points[end - 1].first >= m_now)
                    --end; // may still change at this time
                inc.counters.push_back({m_series[k].name,
                                        m_series[k].unit,
                                        {points.begin() + static_cast<std::ptrdiff_t>(m_pointsSent[k]),
                                         points.begin() + static_cast<std::ptrdiff_t>(end)}});
                m_pointsSent[k] = end;
            }
            m_obs.timelinesRecorded(inc);
        }
        if (m_obs.metricsUpdated)
            m_obs.metricsUpdated(m_final ? m_out.metrics : metrics());
    }

    static const std::string &unitOf(const Resource &r) { return r.unit; }

    void advanceTo(double t)
    {
        const double dt = t - m_now;
        if (dt > 0) {
            for (RunningPart &rp : m_running)
                rp.remainingNs -= dt * rp.rate;
            for (const auto &[unit, busy] : m_unitBusy)
                m_unitBusyNs[unit] += dt * busy;
        }
        m_now = t;
    }

    void acquire(int r)
    {
        if (m_active[static_cast<std::size_t>(r)]++ == 0 && m_p.resources[static_cast<std::size_t>(r)].unitKind >= 0)
            ++m_unitBusy[unitOf(m_p.resources[static_cast<std::size_t>(r)])];
    }
    void release(int r)
    {
        TS_ASSERT(m_active[static_cast<std::size_t>(r)] > 0);
        if (--m_active[static_cast<std::size_t>(r)] == 0 && m_p.resources[static_cast<std::size_t>(r)].unitKind >= 0)
            --m_unitBusy[unitOf(m_p.resources[static_cast<std::size_t>(r)])];
    }

    // S1: the host issues compute tasks in plan order, one per launch
    // overhead, and stops at a barrier until it has finished. A task that
    // continues the kernel its queues last ran (SimTask::launches false) is
    // issued with that launch.
    void advanceHost()
    {
        while (m_hostNext < m_p.tasks.size()) {
            const SimTask &t = m_p.tasks[m_hostNext];
            if (t.kind == TaskKind::Barrier) {
                if (m_state[m_hostNext] != State::Done)
                    return;
                m_hostFree = std::max(m_hostFree, m_out.timeline[m_hostNext].endNs);
                m_lastLaunch = std::max(m_lastLaunch, m_out.timeline[m_hostNext].endNs);
            } else if (t.hostIssued) {
                // A continuation of a launched kernel is issued with it, at no cost.
                if (t.launches) {
                    m_lastLaunch = m_hostFree;
                    m_hostFree += m_d.overheads.kernelLaunchNs;
                }
                m_issueAt[m_hostNext] = m_lastLaunch;
                if (m_issueAt[m_hostNext] > m_now)
                    m_timed.push({m_issueAt[m_hostNext], std::numeric_limits<std::size_t>::max()});
            }
            ++m_hostNext;
        }
    }

    enum class Ready : std::uint8_t { Yes, NotIssued, Queued };
    Ready readiness(std::size_t i) const
    {
        for (int q : m_p.tasks[i].queues) {
            const auto &list = m_queueTasks[static_cast<std::size_t>(q)];
            if (list[m_queueHead[static_cast<std::size_t>(q)]] != i)
                return Ready::Queued;
        }
        if (m_issueAt[i] < 0 || m_issueAt[i] > m_now)
            return Ready::NotIssued;
        return Ready::Yes;
    }

    Status startReady()
    {
        for (bool progress = true; progress;) {
            progress = false;
            for (auto it = m_candidates.begin(); it != m_candidates.end();) {
                const std::size_t i = *it;
                const Ready ready = readiness(i);
                if (ready == Ready::Queued) { // re-added when it reaches the head (finish)
                    it = m_candidates.erase(it);
                    continue;
                }
                if (ready == Ready::NotIssued) {
                    ++it;
                    continue;
                }
                it = m_candidates.erase(it);
                if (Status s = start(i); !s.isOk())
                    return s;
                progress = true;
            }
        }
        return Status::ok();
    }

    // S5: allocate buffers, then the fixed delay, then the parts.
    Status start(std::size_t i)
    {
        const SimTask &t = m_p.tasks[i];
        for (const BufferUse &u : t.buffers) {
            if (m_allocated.count(u.buffer))
                continue;
            const auto l = static_cast<std::size_t>(u.level);
            std::int64_t &held = m_occupancy[l][static_cast<std::size_t>(u.instance)];
            const MemoryLevel &level = m_d.levels[l];
            if (held + u.bytes > level.capacityBytes)
                return Status::invalid(
                    "task '" + t.name + "' at " + timeText(m_now) + ": buffer " + std::to_string(u.buffer) + " (" +
                        std::to_string(u.bytes) + " bytes) overflows " + level.name + " instance " +
                        std::to_string(u.instance) + " (capacity " + std::to_string(level.capacityBytes) + " bytes, " +
                        std::to_string(held) + " in use)",
                    {.node = t.name});
            held += u.bytes;
            m_allocated.insert(u.buffer);
            m_levelTotal[l] += u.bytes;
            m_levelPeak[l] = std::max(m_levelPeak[l], m_levelTotal[l]);
            m_levelPeakInstance[l] = std::max(m_levelPeakInstance[l], held);
            m_occupancyChanged = true;
        }
        m_state[i] = State::Setup;
        m_out.timeline[i].task = t.id;
        m_out.timeline[i].startNs = m_now;
        m_out.timeline[i].lane = takeLane(t.track, i);
        if (t.fixedNs > 0) {
            m_timed.push({m_now + t.fixedNs, i});
        } else if (beginParts(i)) {
            finish(i);
            if (m_obs.taskFinished)
                m_obs.taskFinished(t.id, static_cast<double>(m_finished) / static_cast<double>(m_p.tasks.size()));
        }
        return Status::ok();
    }

    // Starts the parts of task i; true when it has none (it ends now).
    bool beginParts(std::size_t i)
    {
        const SimTask &t = m_p.tasks[i];
        m_state[i] = State::Running;
        int parts = 0;
        for (std::size_t k = 0; k < t.parts.size(); ++k) {
            if (t.parts[k].workNs <= 0)
                continue;
            for (int r : t.parts[k].resources)
                acquire(r);
            m_running.push_back({i, k, t.parts[k].workNs, 1});
            ++parts;
        }
        m_partsLeft[i] = parts;
        return parts == 0;
    }

    void finish(std::size_t i)
    {
        const SimTask &t = m_p.tasks[i];
        m_state[i] = State::Done;
        ++m_finished;
        m_out.timeline[i].endNs = m_now;
        if (m_obs.timelinesRecorded)
            m_unreported.push_back(i);
        m_laneBusy[static_cast<std::size_t>(m_out.timeline[i].lane)] = false;
        m_energyPj += t.energyPj;
        m_flops += t.flops;
        for (const auto &[level, bytes] : t.bytesByLevel)
            m_bytes[level] += bytes;
        for (const BufferUse &u : t.buffers)
            if (--m_bufferUsers[u.buffer] == 0 && m_allocated.count(u.buffer)) {
                const auto l = static_cast<std::size_t>(u.level);
                m_occupancy[l][static_cast<std::size_t>(u.instance)] -= u.bytes;
                m_levelTotal[l] -= u.bytes;
                m_occupancyChanged = true;
            }
        for (std::size_t d : m_dependents[i])
            if (--m_depsLeft[d] == 0)
                m_candidates.insert(d);
        for (int q : t.queues) {
            const auto &list = m_queueTasks[static_cast<std::size_t>(q)];
            if (std::size_t &head = m_queueHead[static_cast<std::size_t>(q)]; ++head < list.size()) {
                const std::size_t next = list[head];
                if (m_depsLeft[next] == 0 && m_state[next] == State::Waiting)
                    m_candidates.insert(next);
            }
        }
        if (t.kind == TaskKind::Barrier)
            advanceHost();
    }

    // S4: each part runs at 1/n of full rate, n = the most running parts on
    // any resource it uses.
    void updateRates()
    {
        for (RunningPart &rp : m_running) {
            int n = 1;
            for (int r : m_p.tasks[rp.task].parts[rp.part].resources)
                n = std::max(n, m_active[static_cast<std::size_t>(r)]);
            rp.rate = 1.0 / n;
        }
    }

    void recordSeries()
    {
        std::size_t k = 0;
        for (std::size_t l = 0; l < m_d.levels.size(); ++l, ++k)
            if (m_occupancyChanged)
                push(m_series[k], static_cast<double>(m_levelTotal[l]));
        m_occupancyChanged = false;
        for (const auto &[unit, total] : m_unitTotal) {
            auto it = m_unitBusy.find(unit);
            push(m_series[k++], it == m_unitBusy.end() ? 0.0 : static_cast<double>(it->second) / total);
        }
    }

    void push(CounterSeries &s, double v)
    {
        if (s.points.back().second == v)
            return;
        if (s.points.back().first == m_now)
            s.points.back().second = v;
        else
            s.points.emplace_back(m_now, v);
    }

    std::int32_t takeLane(const std::string &track, std::size_t)
    {
        for (int channel = 0;; ++channel) {
            auto [it, inserted] = m_lanes.try_emplace({track, channel}, static_cast<int>(m_out.laneNames.size()));
            if (inserted) {
                m_out.laneNames.push_back(channel == 0 ? track : track + " #" + std::to_string(channel + 1));
                m_laneBusy.push_back(false);
            }
            if (!m_laneBusy[static_cast<std::size_t>(it->second)]) {
                m_laneBusy[static_cast<std::size_t>(it->second)] = true;
                return it->second;
            }
        }
    }

    std::map<std::string, double> metrics() const
    {
        std::map<std::string, double> m;
        const double seconds = m_now * 1e-9;
        m["sim_time_ms"] = m_now / 1e6;
        m["throughput"] = seconds > 0 ? m_batch / seconds : 0.0;
        m["batch"] = m_batch;
        m["tasks"] = static_cast<double>(m_finished);
        m["events"] = static_cast<double>(m_events);
        m["flops"] = m_flops;
        for (const MemoryLevel &l : m_d.levels) {
            auto it = m_bytes.find(l.name);
            m["bytes_by_level/" + l.name] = it == m_bytes.end() ? 0.0 : static_cast<double>(it->second);
        }
        for (std::size_t l = 0; l < m_d.levels.size(); ++l) {
            m["peak_occupancy_by_level/" + m_d.levels[l].name] = static_cast<double>(m_levelPeak[l]);
            m["peak_occupancy_fraction/" + m_d.levels[l].name] =
                static_cast<double>(m_levelPeakInstance[l]) / static_cast<double>(m_d.levels[l].capacityBytes);
        }
        for (const auto &[unit, total] : m_unitTotal) {
            auto it = m_unitBusyNs.find(unit);
            const double busy = it == m_unitBusyNs.end() ? 0.0 : it->second;
            m["utilisation_by_unit/" + unit] = m_now > 0 ? busy / (total * m_now) : 0.0;
        }
        const double energy = m_energyPj * 1e-12 + m_d.power.staticWatts * seconds;
        m["energy_j"] = energy;
        m["avg_power_w"] = seconds > 0 ? energy / seconds : 0.0;
        return m;
    }

    // S6: the wait-for graph of tasks not started, and a cycle in it.
    Status deadlock() const
    {
        const std::size_t n = m_p.tasks.size();
        auto waitsFor = [&](std::size_t i) {
            std::vector<std::pair<std::size_t, std::string>> out;
            for (TaskId d : m_p.tasks[i].deps)
                if (m_state[static_cast<std::size_t>(d)] != State::Done)
                    out.push_back({static_cast<std::size_t>(d), "depends on"});
            for (int q : m_p.tasks[i].queues) {
                const auto &list = m_queueTasks[static_cast<std::size_t>(q)];
                const std::size_t head = list[m_queueHead[static_cast<std::size_t>(q)]];
                if (head != i)
                    out.push_back({head, "queues behind"});
            }
            if (m_issueAt[i] < 0 && m_hostNext < n)
                out.push_back({m_hostNext, "waits for the host, stopped at"});
            return out;
        };
        std::vector<int> color(n, 0); // 0 new, 1 on stack, 2 done
        std::vector<std::pair<std::size_t, std::string>> stack;
        std::string cycle;
        std::function<bool(std::size_t)> dfs = [&](std::size_t i) {
            color[i] = 1;
            for (const auto &[j, why] : waitsFor(i)) {
                stack.push_back({i, why});
                if (color[j] == 1) {
                    std::size_t from = 0;
                    while (stack[from].first != j)
                        ++from;
                    for (std::size_t k = from; k < stack.size(); ++k)
                        cycle += "'" + m_p.tasks[stack[k].first].name + "' " + stack[k].second + " ";
                    cycle += "'" + m_p.tasks[j].name + "'";
                    return true;
                }
                if (color[j] == 0 && dfs(j))
                    return true;
                stack.pop_back();
            }
            color[i] = 2;
            return false;
        };
        for (std::size_t i = 0; i < n && cycle.empty(); ++i)
            if (m_state[i] == State::Waiting && color[i] == 0)
                dfs(i);
        if (cycle.empty())
            cycle = "no task can start";
        std::size_t first = 0;
        while (first < n && m_state[first] != State::Waiting)
            ++first;
        return Status::invalid("deadlock at " + timeText(m_now) + ": " + cycle,
                               {.node = first < n ? m_p.tasks[first].name : std::string()});
    }

    const LoweredPlan &m_p;
    const Device &m_d;
    double m_batch;
    const RunObserver &m_obs;
    SimOutcome m_out;
    double m_now = 0;
    std::size_t m_finished = 0, m_events = 0;
    std::vector<State> m_state;
    std::vector<int> m_depsLeft, m_partsLeft;
    std::vector<double> m_issueAt;
    std::vector<std::vector<std::size_t>> m_dependents;
    std::set<std::size_t> m_candidates;
    std::vector<int> m_active;
    std::vector<std::vector<std::size_t>> m_queueTasks;
    std::vector<std::size_t> m_queueHead;
    std::vector<RunningPart> m_running;
    std::priority_queue<std::pair<double, std::size_t>, std::vector<std::pair<double, std::size_t>>, std::greater<>>
        m_timed;
    std::size_t m_hostNext = 0;
    double m_hostFree = 0;
    double m_lastLaunch = 0; // issue time of the last launch (or the end of the last barrier)
    std::vector<std::vector<std::int64_t>> m_occupancy;
    std::vector<std::int64_t> m_levelTotal, m_levelPeak, m_levelPeakInstance;
    std::set<BufferId> m_allocated;
    std::map<BufferId, std::size_t> m_bufferUsers;
    bool m_occupancyChanged = false;
    std::map<std::string, int> m_unitTotal, m_unitBusy;
    std::map<std::string, double> m_unitBusyNs;
    std::map<std::string, std::int64_t> m_bytes;
    double m_energyPj = 0, m_flops = 0;
    std::vector<CounterSeries> m_series;
    std::map<std::pair<std::string, int>, int> m_lanes;
    std::vector<bool> m_laneBusy;
    std::vector<std::size_t> m_unreported; // finished tasks not yet in an increment
    std::vector<std::size_t> m_pointsSent; // per series, points already in increments
    bool m_final = false;
};

} // namespace

Expected<SimOutcome> simulate(const LoweredPlan &lowered, const Device &device, double batch,
                              const RunObserver &observer)
{
    return Simulator(lowered, device, batch, observer).run();
}

} // namespace tessera::sim
